//! Strings across the boundary: C strings the library owns become borrowed
//! &str; Rust strings become CStrings that live for the duration of a call.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{Error, Result, Status};

/// Borrows a C string the library owns ("" for NULL). The caller picks the
/// lifetime: that of the handle the string belongs to.
///
/// kbench's strings are UTF-8 (its JSON writer rejects anything else); should
/// one not be, the valid prefix is returned rather than panicking. The one
/// free-text string, the compiler log, is read losslessly by Kernel::log.
pub(crate) unsafe fn borrowed<'a>(p: *const c_char) -> &'a str {
    if p.is_null() {
        return "";
    }
    let bytes = CStr::from_ptr(p).to_bytes();
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// A CString for an argument, or an InvalidArgument error naming it.
pub(crate) fn c_string(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| {
        Error::new(
            Status::InvalidArgument,
            format!("{} contains a NUL byte", what),
        )
    })
}

/// A path as the C API takes it: its bytes (Linux paths need not be UTF-8).
pub(crate) fn c_path(p: &Path, what: &str) -> Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| {
        Error::new(
            Status::InvalidArgument,
            format!("{} contains a NUL byte", what),
        )
    })
}
