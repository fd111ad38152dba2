//! Rust strings across the boundary: CStrings that live for the duration of
//! a call, or an InvalidArgument error naming the argument. (The other way,
//! C strings the library owns, is cstr.rs, below error.rs.)
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::{Error, Result, Status};

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
