//! LaunchArgs: dims and device buffers for [`Context::launch`](crate::Context::launch)
//! (kb_launch_args): a compiled kernel run on memory the caller owns.
use std::ptr::{self, NonNull};

use kbench_sys as sys;

use crate::error::{check, Result};
use crate::strings::c_string;

/// Every dim of the task and a device pointer for each buffer argument.
pub struct LaunchArgs {
    raw: NonNull<sys::kb_launch_args>,
}

impl LaunchArgs {
    pub fn new() -> Result<LaunchArgs> {
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_launch_args_create(&mut raw) })?;
        Ok(LaunchArgs {
            raw: NonNull::new(raw).expect("kbench returned KB_OK and no launch args"),
        })
    }

    /// Sets dim `name` (again: replaces it).
    pub fn dim(&mut self, name: &str, value: i64) -> Result<&mut Self> {
        let n = c_string(name, "dim name")?;
        check(unsafe { sys::kb_launch_args_set_dim(self.raw.as_ptr(), n.as_ptr(), value) })?;
        Ok(self)
    }

    /// Sets buffer argument `name` to `bytes` of device memory at `device_ptr`;
    /// `dtype` ("f32", "bf16", ...) is checked against the task when given.
    ///
    /// # Safety
    /// `device_ptr` must stay allocated until the kernels launched on it have
    /// finished on the stream given to `Context::launch`. kbench checks that
    /// the range is device memory of the context's device inside one
    /// allocation, not what else uses it.
    pub unsafe fn buffer(&mut self, name: &str, device_ptr: u64, bytes: usize, dtype: Option<&str>) -> Result<&mut Self> {
        let n = c_string(name, "buffer name")?;
        let d = match dtype {
            Some(d) => Some(c_string(d, "dtype")?),
            None => None,
        };
        let dp = d.as_ref().map_or(ptr::null(), |d| d.as_ptr());
        check(sys::kb_launch_args_set_buffer(self.raw.as_ptr(), n.as_ptr(), device_ptr, bytes, dp))?;
        Ok(self)
    }

    pub(crate) fn as_ptr(&self) -> *const sys::kb_launch_args {
        self.raw.as_ptr()
    }
}

impl Drop for LaunchArgs {
    fn drop(&mut self) {
        unsafe { sys::kb_launch_args_destroy(self.raw.as_ptr()) }
    }
}
