//! The ..._INIT constants must equal what the library's own initialisers
//! write, and the library must be the version these declarations describe.
use kbench_sys::*;
use std::mem::MaybeUninit;

/// Runs a kb_*_options_init on garbage-filled memory and returns its Debug form.
unsafe fn initialised<T: std::fmt::Debug>(
    init: unsafe extern "C" fn(*mut T, u32) -> kb_status,
    version: u32,
) -> String {
    let mut o = MaybeUninit::<T>::uninit();
    std::ptr::write_bytes(o.as_mut_ptr(), 0xAB, 1);
    assert_eq!(init(o.as_mut_ptr(), version), KB_OK);
    format!("{:?}", o.assume_init())
}

#[test]
fn init_constants_match_the_library() {
    unsafe {
        assert_eq!(
            initialised(kb_context_options_init, KB_CONTEXT_OPTIONS_VERSION),
            format!("{:?}", KB_CONTEXT_OPTIONS_INIT)
        );
        assert_eq!(
            initialised(kb_time_options_init, KB_TIME_OPTIONS_VERSION),
            format!("{:?}", KB_TIME_OPTIONS_INIT)
        );
        assert_eq!(
            initialised(kb_score_options_init, KB_SCORE_OPTIONS_VERSION),
            format!("{:?}", KB_SCORE_OPTIONS_INIT)
        );
        assert_eq!(
            initialised(kb_batch_options_init, KB_BATCH_OPTIONS_VERSION),
            format!("{:?}", KB_BATCH_OPTIONS_INIT)
        );
    }
}

#[test]
fn library_version_matches() {
    assert_eq!(unsafe { kb_version_number() }, KB_VERSION_NUMBER);
}
