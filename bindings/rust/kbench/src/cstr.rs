//! C strings the library owns, borrowed as &str. Below error.rs (which names
//! statuses with it) and strings.rs (Rust strings into C), so the modules
//! depend one way.
use std::ffi::CStr;
use std::os::raw::c_char;

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
