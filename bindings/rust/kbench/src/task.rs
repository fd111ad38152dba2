//! Task: a parsed, validated task (kb_task).
use std::fmt;
use std::os::raw::c_int;
use std::path::Path;
use std::ptr::{self, NonNull};

use kbench_sys as sys;

use crate::error::{check, Result};
use crate::cstr;
use crate::strings;

/// The contract a kernel must meet. Immutable once loaded.
pub struct Task {
    raw: NonNull<sys::kb_task>,
}

// kbench.h: "kb_task and kb_kernel are immutable after creation and may be
// shared between threads."
unsafe impl Send for Task {}
unsafe impl Sync for Task {}

impl Task {
    /// Parses and validates a task from JSON text (its first non-space
    /// character is '{') or a file path. A malformed task is an error with
    /// [`Status::TaskInvalid`](crate::Status::TaskInvalid) whose message
    /// names the JSON path of the bad field.
    pub fn load(source: &str) -> Result<Task> {
        let source = strings::c_string(source, "the task source")?;
        Self::from_c(&source)
    }

    /// Loads the task file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Task> {
        let path = strings::c_path(path.as_ref(), "the task path")?;
        Self::from_c(&path)
    }

    fn from_c(source: &std::ffi::CStr) -> Result<Task> {
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_load_task(source.as_ptr(), &mut raw) })?;
        Ok(Task {
            raw: NonNull::new(raw).expect("kb_load_task returned KB_OK and no task"),
        })
    }

    pub(crate) fn as_ptr(&self) -> *const sys::kb_task {
        self.raw.as_ptr()
    }

    pub fn name(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_task_name(self.as_ptr())) }
    }

    /// The case names, in index order; the perf case is one of them.
    pub fn cases(&self) -> Vec<&str> {
        let n = unsafe { sys::kb_task_case_count(self.as_ptr()) };
        (0..n)
            .map(|i| unsafe {
                cstr::borrowed(sys::kb_task_case_name(self.as_ptr(), i as c_int))
            })
            .collect()
    }

    /// The index of the case that is timed.
    pub fn perf_case(&self) -> usize {
        unsafe { sys::kb_task_perf_case(self.as_ptr()) }.max(0) as usize
    }

    /// The index of the case with that name.
    pub fn find_case(&self, name: &str) -> Option<usize> {
        let name = std::ffi::CString::new(name).ok()?;
        let i = unsafe { sys::kb_task_find_case(self.as_ptr(), name.as_ptr()) };
        usize::try_from(i).ok()
    }

    /// The normalised, self-contained task (sources inlined) as JSON.
    pub fn json(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_task_json(self.as_ptr())) }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        unsafe { sys::kb_task_destroy(self.raw.as_ptr()) }
    }
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task").field("name", &self.name()).finish()
    }
}
