//! Kernel: a compiled kernel plus its launch plan (kb_kernel).
use std::borrow::Cow;
use std::ffi::CStr;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

use kbench_sys as sys;

use crate::error::check;
use crate::cstr;

/// Made by [`Context::compile`](crate::Context::compile). Immutable.
pub struct Kernel {
    raw: NonNull<sys::kb_kernel>,
}

// Immutable after creation and shareable between threads (kbench.h).
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Kernel {
    /// Takes ownership of a kernel the C API handed out.
    pub(crate) fn from_raw(raw: *mut sys::kb_kernel) -> Kernel {
        Kernel {
            raw: NonNull::new(raw).expect("kbench returned KB_OK and no kernel"),
        }
    }

    pub(crate) fn as_ptr(&self) -> *const sys::kb_kernel {
        self.raw.as_ptr()
    }

    /// The compiler's full log (may be empty). Free text from NVRTC or nvcc,
    /// so bytes that are not UTF-8 are replaced rather than dropped.
    pub fn log(&self) -> Cow<'_, str> {
        unsafe { CStr::from_ptr(sys::kb_kernel_log(self.as_ptr())) }.to_string_lossy()
    }

    /// The compiled image: cubin bytes, or PTX text.
    pub fn image(&self) -> &[u8] {
        let mut data: *const c_void = ptr::null();
        let mut size = 0usize;
        // Cannot fail for a live kernel: the only error is a NULL argument.
        if check(unsafe { sys::kb_kernel_image(self.as_ptr(), &mut data, &mut size) }).is_err()
            || data.is_null()
        {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(data as *const u8, size) }
    }

    /// Compile facts: path (nvrtc/nvcc/given), compile_ms, cache_hit, image
    /// kind, architecture, entry points, launch plan.
    pub fn json(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_kernel_json(self.as_ptr())) }
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        unsafe { sys::kb_kernel_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("image_bytes", &self.image().len())
            .finish()
    }
}
