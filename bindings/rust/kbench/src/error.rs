//! Errors: a kb_status other than KB_OK plus kb_last_error()'s detail.
use std::fmt;

use kbench_sys as sys;

use crate::cstr;

/// What a failing call reported (kb_status without KB_OK).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    InvalidArgument,
    UnsupportedVersion,
    Io,
    /// The detail names the JSON path of the bad field.
    TaskInvalid,
    /// The detail holds the compiler log.
    Compile,
    NoDevice,
    Cuda,
    OutOfMemory,
    ReferenceFailed,
    ContextLost,
    Worker,
    NotFound,
    Internal,
    /// A batch call waited its timeout.
    Timeout,
    /// A batch job was cancelled before it ran.
    Cancelled,
    /// A status this binding does not know (a newer library appended it).
    Other(i32),
}

impl Status {
    fn from_raw(s: sys::kb_status) -> Status {
        match s {
            sys::KB_ERR_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::KB_ERR_UNSUPPORTED_VERSION => Status::UnsupportedVersion,
            sys::KB_ERR_IO => Status::Io,
            sys::KB_ERR_TASK_INVALID => Status::TaskInvalid,
            sys::KB_ERR_COMPILE => Status::Compile,
            sys::KB_ERR_NO_DEVICE => Status::NoDevice,
            sys::KB_ERR_CUDA => Status::Cuda,
            sys::KB_ERR_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::KB_ERR_REFERENCE_FAILED => Status::ReferenceFailed,
            sys::KB_ERR_CONTEXT_LOST => Status::ContextLost,
            sys::KB_ERR_WORKER => Status::Worker,
            sys::KB_ERR_NOT_FOUND => Status::NotFound,
            sys::KB_ERR_INTERNAL => Status::Internal,
            sys::KB_ERR_TIMEOUT => Status::Timeout,
            sys::KB_ERR_CANCELLED => Status::Cancelled,
            other => Status::Other(other),
        }
    }

    /// The kb_status value.
    pub fn raw(self) -> i32 {
        match self {
            Status::InvalidArgument => sys::KB_ERR_INVALID_ARGUMENT,
            Status::UnsupportedVersion => sys::KB_ERR_UNSUPPORTED_VERSION,
            Status::Io => sys::KB_ERR_IO,
            Status::TaskInvalid => sys::KB_ERR_TASK_INVALID,
            Status::Compile => sys::KB_ERR_COMPILE,
            Status::NoDevice => sys::KB_ERR_NO_DEVICE,
            Status::Cuda => sys::KB_ERR_CUDA,
            Status::OutOfMemory => sys::KB_ERR_OUT_OF_MEMORY,
            Status::ReferenceFailed => sys::KB_ERR_REFERENCE_FAILED,
            Status::ContextLost => sys::KB_ERR_CONTEXT_LOST,
            Status::Worker => sys::KB_ERR_WORKER,
            Status::NotFound => sys::KB_ERR_NOT_FOUND,
            Status::Internal => sys::KB_ERR_INTERNAL,
            Status::Timeout => sys::KB_ERR_TIMEOUT,
            Status::Cancelled => sys::KB_ERR_CANCELLED,
            Status::Other(s) => s,
        }
    }

    /// The English name, e.g. "task invalid" (kb_status_string).
    pub fn name(self) -> &'static str {
        // Static storage in the library.
        unsafe { cstr::borrowed(sys::kb_status_string(self.raw())) }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kbench call that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }

    pub fn status(&self) -> Status {
        self.status
    }

    /// The library's detail: a task's JSON path, a compiler log, a CUDA error.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.status)
        } else {
            write!(f, "{}: {}", self.status, self.message)
        }
    }
}

impl std::error::Error for Error {}

/// Results of kbench calls.
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a status into a Result. Call it right after the C call: the detail
/// comes from kb_last_error(), which is thread-local and overwritten by the
/// next kbench call on this thread.
pub(crate) fn check(status: sys::kb_status) -> Result<()> {
    if status == sys::KB_OK {
        return Ok(());
    }
    let detail = unsafe { std::ffi::CStr::from_ptr(sys::kb_last_error()) };
    Err(Error::new(
        Status::from_raw(status),
        detail.to_string_lossy(),
    ))
}
