//! Outcome: what score, compare, time or run_reference learnt (kb_result).
use std::fmt;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};

use kbench_sys as sys;

use crate::error::{check, Result};
use crate::cstr;
use crate::strings;

/// What happened to a candidate (kb_verdict without KB_VERDICT_NONE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Verdict {
    Pass,
    CompileError,
    LaunchError,
    RuntimeError,
    Timeout,
    WrongAnswer,
    InputModified,
    OutputNotWritten,
    OutOfBoundsWrite,
    Nondeterministic,
    /// A model's answer held no code that can be scored, or only ambiguous code.
    NoCode,
    /// A program candidate broke the task's policy (docs/programs.md).
    PolicyViolation,
    /// A verdict this binding does not know (a newer library appended it).
    Other(i32),
}

impl Verdict {
    fn from_raw(v: sys::kb_verdict) -> Option<Verdict> {
        Some(match v {
            sys::KB_VERDICT_NONE => return None,
            sys::KB_VERDICT_PASS => Verdict::Pass,
            sys::KB_VERDICT_COMPILE_ERROR => Verdict::CompileError,
            sys::KB_VERDICT_LAUNCH_ERROR => Verdict::LaunchError,
            sys::KB_VERDICT_RUNTIME_ERROR => Verdict::RuntimeError,
            sys::KB_VERDICT_TIMEOUT => Verdict::Timeout,
            sys::KB_VERDICT_WRONG_ANSWER => Verdict::WrongAnswer,
            sys::KB_VERDICT_INPUT_MODIFIED => Verdict::InputModified,
            sys::KB_VERDICT_OUTPUT_NOT_WRITTEN => Verdict::OutputNotWritten,
            sys::KB_VERDICT_OUT_OF_BOUNDS_WRITE => Verdict::OutOfBoundsWrite,
            sys::KB_VERDICT_NONDETERMINISTIC => Verdict::Nondeterministic,
            sys::KB_VERDICT_NO_CODE => Verdict::NoCode,
            sys::KB_VERDICT_POLICY_VIOLATION => Verdict::PolicyViolation,
            other => Verdict::Other(other),
        })
    }

    /// The kb_verdict value.
    pub fn raw(self) -> i32 {
        match self {
            Verdict::Pass => sys::KB_VERDICT_PASS,
            Verdict::CompileError => sys::KB_VERDICT_COMPILE_ERROR,
            Verdict::LaunchError => sys::KB_VERDICT_LAUNCH_ERROR,
            Verdict::RuntimeError => sys::KB_VERDICT_RUNTIME_ERROR,
            Verdict::Timeout => sys::KB_VERDICT_TIMEOUT,
            Verdict::WrongAnswer => sys::KB_VERDICT_WRONG_ANSWER,
            Verdict::InputModified => sys::KB_VERDICT_INPUT_MODIFIED,
            Verdict::OutputNotWritten => sys::KB_VERDICT_OUTPUT_NOT_WRITTEN,
            Verdict::OutOfBoundsWrite => sys::KB_VERDICT_OUT_OF_BOUNDS_WRITE,
            Verdict::Nondeterministic => sys::KB_VERDICT_NONDETERMINISTIC,
            Verdict::NoCode => sys::KB_VERDICT_NO_CODE,
            Verdict::PolicyViolation => sys::KB_VERDICT_POLICY_VIOLATION,
            Verdict::Other(v) => v,
        }
    }

    /// The name the result JSON uses, e.g. "wrong_answer".
    pub fn name(self) -> &'static str {
        // Static storage in the library.
        unsafe { cstr::borrowed(sys::kb_verdict_string(self.raw())) }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A JSON document with typed accessors.
pub struct Outcome {
    raw: NonNull<sys::kb_result>,
}

// May move between threads, but is not Sync: kb_result_get_string caches the
// strings it hands out inside the result, so reads must not overlap
// ("read from one thread at a time", docs/c-api.md).
unsafe impl Send for Outcome {}

impl Outcome {
    /// Takes ownership of a result the C API handed out.
    pub(crate) fn from_raw(raw: *mut sys::kb_result) -> Outcome {
        Outcome {
            raw: NonNull::new(raw).expect("kbench returned KB_OK and no result"),
        }
    }

    fn as_ptr(&self) -> *const sys::kb_result {
        self.raw.as_ptr()
    }

    /// What happened; None for results that carry no verdict (run_reference, time).
    pub fn verdict(&self) -> Option<Verdict> {
        Verdict::from_raw(unsafe { sys::kb_result_verdict(self.as_ptr()) })
    }

    pub fn passed(&self) -> bool {
        self.verdict() == Some(Verdict::Pass)
    }

    /// One line a model or a person can act on.
    pub fn message(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_result_message(self.as_ptr())) }
    }

    /// The whole result: per-case reports, timing, compile log.
    pub fn json(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_result_json(self.as_ptr())) }
    }

    /// A number by JSON pointer, e.g. "/speedup". Booleans read as 0 or 1,
    /// "nan"/"inf" as floats; Status::NotFound if absent.
    pub fn number(&self, pointer: &str) -> Result<f64> {
        let pointer = strings::c_string(pointer, "the JSON pointer")?;
        let mut v = 0.0;
        check(unsafe { sys::kb_result_get_number(self.as_ptr(), pointer.as_ptr(), &mut v) })?;
        Ok(v)
    }

    /// A string by JSON pointer; Status::NotFound if absent.
    pub fn string(&self, pointer: &str) -> Result<&str> {
        let pointer = strings::c_string(pointer, "the JSON pointer")?;
        let mut v: *const c_char = ptr::null();
        check(unsafe { sys::kb_result_get_string(self.as_ptr(), pointer.as_ptr(), &mut v) })?;
        // Owned by the result, valid until it is dropped.
        Ok(unsafe { cstr::borrowed(v) })
    }
}

impl Drop for Outcome {
    fn drop(&mut self) {
        unsafe { sys::kb_result_destroy(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outcome")
            .field("verdict", &self.verdict())
            .field("message", &self.message())
            .finish()
    }
}
