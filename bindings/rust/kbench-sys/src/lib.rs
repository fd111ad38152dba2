//! Raw FFI declarations of kbench's C API, `include/kbench.h`, one for one.
//! Use the `kbench` crate for safe wrappers; see the header for what every
//! function does and who owns what.
//!
//! C enums are declared as `c_int` aliases with constants rather than Rust
//! enums: a Rust enum holding a value the library adds later (statuses and
//! verdicts are appended, never renumbered) would be undefined behaviour.
//! The `..._INIT` macros are constants of the same names.
#![allow(non_camel_case_types)]

use std::marker::{PhantomData, PhantomPinned};
use std::os::raw::{c_char, c_double, c_int, c_uint, c_void};
use std::ptr;

// --- version -----------------------------------------------------------------

pub const KB_VERSION_MAJOR: c_uint = 0;
pub const KB_VERSION_MINOR: c_uint = 3;
pub const KB_VERSION_PATCH: c_uint = 0;
pub const KB_VERSION_NUMBER: c_uint =
    KB_VERSION_MAJOR * 10000 + KB_VERSION_MINOR * 100 + KB_VERSION_PATCH;

// --- status --------------------------------------------------------------------

pub type kb_status = c_int;
pub const KB_OK: kb_status = 0;
pub const KB_ERR_INVALID_ARGUMENT: kb_status = 1;
pub const KB_ERR_UNSUPPORTED_VERSION: kb_status = 2;
pub const KB_ERR_IO: kb_status = 3;
pub const KB_ERR_TASK_INVALID: kb_status = 4;
pub const KB_ERR_COMPILE: kb_status = 5;
pub const KB_ERR_NO_DEVICE: kb_status = 6;
pub const KB_ERR_CUDA: kb_status = 7;
pub const KB_ERR_OUT_OF_MEMORY: kb_status = 8;
pub const KB_ERR_REFERENCE_FAILED: kb_status = 9;
pub const KB_ERR_CONTEXT_LOST: kb_status = 10;
pub const KB_ERR_WORKER: kb_status = 11;
pub const KB_ERR_NOT_FOUND: kb_status = 12;
pub const KB_ERR_INTERNAL: kb_status = 13;
pub const KB_ERR_TIMEOUT: kb_status = 14;
pub const KB_ERR_CANCELLED: kb_status = 15;

// --- verdicts --------------------------------------------------------------------

pub type kb_verdict = c_int;
pub const KB_VERDICT_NONE: kb_verdict = -1;
pub const KB_VERDICT_PASS: kb_verdict = 0;
pub const KB_VERDICT_COMPILE_ERROR: kb_verdict = 1;
pub const KB_VERDICT_LAUNCH_ERROR: kb_verdict = 2;
pub const KB_VERDICT_RUNTIME_ERROR: kb_verdict = 3;
pub const KB_VERDICT_TIMEOUT: kb_verdict = 4;
pub const KB_VERDICT_WRONG_ANSWER: kb_verdict = 5;
pub const KB_VERDICT_INPUT_MODIFIED: kb_verdict = 6;
pub const KB_VERDICT_OUTPUT_NOT_WRITTEN: kb_verdict = 7;
pub const KB_VERDICT_OUT_OF_BOUNDS_WRITE: kb_verdict = 8;
pub const KB_VERDICT_NONDETERMINISTIC: kb_verdict = 9;
pub const KB_VERDICT_NO_CODE: kb_verdict = 10;
pub const KB_VERDICT_POLICY_VIOLATION: kb_verdict = 11;

// --- opaque handles (the Rustonomicon's pattern: unsized, !Send, !Sync, !Unpin) ---

macro_rules! opaque {
    ($name:ident) => {
        #[repr(C)]
        pub struct $name {
            _data: [u8; 0],
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }
    };
}
opaque!(kb_context);
opaque!(kb_task);
opaque!(kb_kernel);
opaque!(kb_result);
opaque!(kb_batch);
opaque!(kb_batch_job);
opaque!(kb_launch_args);

// --- context -----------------------------------------------------------------------

pub type kb_isolation = c_int;
pub const KB_ISOLATION_DEFAULT: kb_isolation = 0;
pub const KB_ISOLATION_IN_PROCESS: kb_isolation = 1;
pub const KB_ISOLATION_WORKER: kb_isolation = 2;

pub const KB_DEVICE_NONE: c_int = -1;

// --- limits (docs/limits.md) --------------------------------------------------------

pub const KB_LIMITS_VERSION: c_uint = 1;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_limits {
    pub version: c_uint,
    pub max_document_bytes: u64,
    pub max_json_depth: c_uint,
    pub max_source_bytes: u64,
    pub max_headers: c_uint,
    pub max_dims: c_uint,
    pub max_cases: c_uint,
    pub max_args: c_uint,
    pub max_launch_steps: c_uint,
    pub max_kernel_args: c_uint,
    pub max_scratch: c_uint,
    pub max_expression_chars: c_uint,
    pub max_expression_depth: c_uint,
    pub compile_memory_bytes: u64,
    pub compile_cpu_s: c_double,
    pub compile_wall_s: c_double,
    pub compile_file_bytes: u64,
}
pub const KB_LIMITS_INIT: kb_limits = kb_limits {
    version: KB_LIMITS_VERSION,
    max_document_bytes: 0,
    max_json_depth: 0,
    max_source_bytes: 0,
    max_headers: 0,
    max_dims: 0,
    max_cases: 0,
    max_args: 0,
    max_launch_steps: 0,
    max_kernel_args: 0,
    max_scratch: 0,
    max_expression_chars: 0,
    max_expression_depth: 0,
    compile_memory_bytes: 0,
    compile_cpu_s: 0.0,
    compile_wall_s: 0.0,
    compile_file_bytes: 0,
};

pub const KB_CONTEXT_OPTIONS_VERSION: c_uint = 2;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_context_options {
    pub version: c_uint,
    pub device: c_int,
    pub isolation: kb_isolation,
    pub arch: *const c_char,
    pub cache_dir: *const c_char,
    pub cuda_home: *const c_char,
    pub worker_path: *const c_char,
    pub timeout_s: c_double,
    pub flags: c_uint,
    pub limits: *const kb_limits,
}
pub const KB_CONTEXT_EMIT_PTX: c_uint = 0x1;
pub const KB_CONTEXT_NO_NVCC_FALLBACK: c_uint = 0x2;
pub const KB_CONTEXT_CONTAIN_TRAPS: c_uint = 0x4;
pub const KB_CONTEXT_NO_CONTAIN_TRAPS: c_uint = 0x8;
pub const KB_CONTEXT_NO_CONFINE: c_uint = 0x10;
pub const KB_CONTEXT_OPTIONS_INIT: kb_context_options = kb_context_options {
    version: KB_CONTEXT_OPTIONS_VERSION,
    device: 0,
    isolation: KB_ISOLATION_DEFAULT,
    arch: ptr::null(),
    cache_dir: ptr::null(),
    cuda_home: ptr::null(),
    worker_path: ptr::null(),
    timeout_s: 0.0,
    flags: 0,
    limits: ptr::null(),
};

// --- compilation -----------------------------------------------------------------------

pub type kb_language = c_int;
pub const KB_LANG_AUTO: kb_language = 0;
pub const KB_LANG_CUDA: kb_language = 1;
pub const KB_LANG_PTX: kb_language = 2;
pub const KB_LANG_CUBIN: kb_language = 3;
pub const KB_LANG_TRITON: kb_language = 4;
pub const KB_LANG_TRITON_BINARY: kb_language = 5;
pub const KB_LANG_PYTHON: kb_language = 6;

pub const KB_CANDIDATE_VERSION: c_uint = 1;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_candidate {
    pub version: c_uint,
    pub language: kb_language,
    pub code: *const c_char,
    pub code_size: usize,
    pub path: *const c_char,
    pub launch_json: *const c_char,
    pub metadata_json: *const c_char,
    pub label: *const c_char,
}
pub const KB_CANDIDATE_INIT: kb_candidate = kb_candidate {
    version: KB_CANDIDATE_VERSION,
    language: KB_LANG_AUTO,
    code: ptr::null(),
    code_size: 0,
    path: ptr::null(),
    launch_json: ptr::null(),
    metadata_json: ptr::null(),
    label: ptr::null(),
};

pub type kb_program_role = c_int;
pub const KB_ROLE_REFERENCE: kb_program_role = 0;
pub const KB_ROLE_BASELINE: kb_program_role = 1;

// --- timing and scoring ------------------------------------------------------------------

pub type kb_time_mode = c_int;
pub const KB_TIME_COLD: kb_time_mode = 0;
pub const KB_TIME_HOT: kb_time_mode = 1;

pub const KB_TIME_OPTIONS_VERSION: c_uint = 1;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_time_options {
    pub version: c_uint,
    pub mode: kb_time_mode,
    pub case_index: c_int,
    pub against_baseline: c_int,
    pub budget_ms: c_double,
    pub warmup_ms: c_double,
    pub min_samples: c_uint,
    pub max_samples: c_uint,
    pub target_rel_noise: c_double,
}
pub const KB_TIME_OPTIONS_INIT: kb_time_options = kb_time_options {
    version: KB_TIME_OPTIONS_VERSION,
    mode: KB_TIME_COLD,
    case_index: -1,
    against_baseline: 0,
    budget_ms: 0.0,
    warmup_ms: 0.0,
    min_samples: 0,
    max_samples: 0,
    target_rel_noise: 0.0,
};

pub const KB_SCORE_SKIP_TIMING: c_uint = 0x1;
pub const KB_SCORE_NO_RECHECK: c_uint = 0x2;
pub const KB_SCORE_COMPILE_ONLY: c_uint = 0x4;

pub const KB_SCORE_OPTIONS_VERSION: c_uint = 2;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_score_options {
    pub version: c_uint,
    pub seed: u64,
    pub correctness_runs: c_uint,
    pub flags: c_uint,
    pub timing: kb_time_options,
    /// Version 2: program candidates (docs/programs.md).
    pub protocol: *const c_char,
    pub torch_compute: *const c_char,
}
pub const KB_SCORE_OPTIONS_INIT: kb_score_options = kb_score_options {
    version: KB_SCORE_OPTIONS_VERSION,
    seed: 0,
    correctness_runs: 0,
    flags: 0,
    timing: KB_TIME_OPTIONS_INIT,
    protocol: ptr::null(),
    torch_compute: ptr::null(),
};

// --- batches ------------------------------------------------------------------------------

pub const KB_BATCH_OPTIONS_VERSION: c_uint = 2;
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct kb_batch_options {
    pub version: c_uint,
    pub capacity: c_uint,
    pub compile_threads: c_uint,
    // version 2
    pub device_lanes: c_uint,
}
pub const KB_BATCH_OPTIONS_INIT: kb_batch_options = kb_batch_options {
    version: KB_BATCH_OPTIONS_VERSION,
    capacity: 0,
    compile_threads: 0,
    device_lanes: 0,
};

// --- functions ----------------------------------------------------------------------------

extern "C" {
    pub fn kb_status_string(status: kb_status) -> *const c_char;
    pub fn kb_last_error() -> *const c_char;

    pub fn kb_version_number() -> c_uint;
    pub fn kb_version_string() -> *const c_char;

    pub fn kb_verdict_string(verdict: kb_verdict) -> *const c_char;

    pub fn kb_context_options_init(opts: *mut kb_context_options, version: c_uint) -> kb_status;
    pub fn kb_device_count(out: *mut c_int) -> kb_status;
    pub fn kb_context_create(
        opts: *const kb_context_options,
        out: *mut *mut kb_context,
    ) -> kb_status;
    pub fn kb_context_destroy(ctx: *mut kb_context);
    pub fn kb_context_json(ctx: *const kb_context) -> *const c_char;

    pub fn kb_limits_init(limits: *mut kb_limits, version: c_uint) -> kb_status;
    pub fn kb_load_task(source: *const c_char, out: *mut *mut kb_task) -> kb_status;
    pub fn kb_load_task_with_limits(
        source: *const c_char,
        limits: *const kb_limits,
        out: *mut *mut kb_task,
    ) -> kb_status;
    pub fn kb_task_destroy(task: *mut kb_task);
    pub fn kb_task_name(task: *const kb_task) -> *const c_char;
    pub fn kb_task_case_count(task: *const kb_task) -> c_int;
    pub fn kb_task_case_name(task: *const kb_task, case_index: c_int) -> *const c_char;
    pub fn kb_task_perf_case(task: *const kb_task) -> c_int;
    pub fn kb_task_find_case(task: *const kb_task, name: *const c_char) -> c_int;
    pub fn kb_task_json(task: *const kb_task) -> *const c_char;

    pub fn kb_compile(
        ctx: *mut kb_context,
        task: *const kb_task,
        candidate: *const kb_candidate,
        out: *mut *mut kb_kernel,
    ) -> kb_status;
    pub fn kb_compile_task_program(
        ctx: *mut kb_context,
        task: *const kb_task,
        role: kb_program_role,
        out: *mut *mut kb_kernel,
    ) -> kb_status;
    pub fn kb_kernel_destroy(kernel: *mut kb_kernel);
    pub fn kb_kernel_log(kernel: *const kb_kernel) -> *const c_char;
    pub fn kb_kernel_image(
        kernel: *const kb_kernel,
        data: *mut *const c_void,
        size: *mut usize,
    ) -> kb_status;
    pub fn kb_kernel_json(kernel: *const kb_kernel) -> *const c_char;

    pub fn kb_run_reference(
        ctx: *mut kb_context,
        task: *const kb_task,
        case_index: c_int,
        seed: u64,
        out: *mut *mut kb_result,
    ) -> kb_status;
    pub fn kb_compare(
        ctx: *mut kb_context,
        task: *const kb_task,
        kernel: *const kb_kernel,
        case_index: c_int,
        seed: u64,
        out: *mut *mut kb_result,
    ) -> kb_status;
    pub fn kb_time_options_init(opts: *mut kb_time_options, version: c_uint) -> kb_status;
    pub fn kb_time(
        ctx: *mut kb_context,
        task: *const kb_task,
        kernel: *const kb_kernel,
        opts: *const kb_time_options,
        out: *mut *mut kb_result,
    ) -> kb_status;
    pub fn kb_score_options_init(opts: *mut kb_score_options, version: c_uint) -> kb_status;
    pub fn kb_score(
        ctx: *mut kb_context,
        task: *const kb_task,
        candidate: *const kb_candidate,
        opts: *const kb_score_options,
        out: *mut *mut kb_result,
    ) -> kb_status;

    pub fn kb_batch_options_init(opts: *mut kb_batch_options, version: c_uint) -> kb_status;
    pub fn kb_batch_create(
        ctx: *mut kb_context,
        opts: *const kb_batch_options,
        out: *mut *mut kb_batch,
    ) -> kb_status;
    pub fn kb_batch_submit(
        batch: *mut kb_batch,
        task: *const kb_task,
        candidate: *const kb_candidate,
        opts: *const kb_score_options,
        tag: u64,
        timeout_s: c_double,
        id_out: *mut u64,
    ) -> kb_status;
    pub fn kb_batch_next(
        batch: *mut kb_batch,
        timeout_s: c_double,
        out: *mut *mut kb_batch_job,
    ) -> kb_status;
    pub fn kb_batch_cancel(batch: *mut kb_batch, id: u64) -> kb_status;
    pub fn kb_batch_cancel_all(batch: *mut kb_batch, count: *mut usize) -> kb_status;
    pub fn kb_batch_in_flight(batch: *const kb_batch) -> usize;
    pub fn kb_batch_destroy(batch: *mut kb_batch);
    pub fn kb_batch_job_id(job: *const kb_batch_job) -> u64;
    pub fn kb_batch_job_tag(job: *const kb_batch_job) -> u64;
    pub fn kb_batch_job_take_result(job: *mut kb_batch_job, out: *mut *mut kb_result) -> kb_status;
    pub fn kb_batch_job_destroy(job: *mut kb_batch_job);

    pub fn kb_launch_args_create(out: *mut *mut kb_launch_args) -> kb_status;
    pub fn kb_launch_args_destroy(args: *mut kb_launch_args);
    pub fn kb_launch_args_set_dim(args: *mut kb_launch_args, name: *const c_char, value: i64) -> kb_status;
    pub fn kb_launch_args_set_buffer(
        args: *mut kb_launch_args,
        name: *const c_char,
        device_ptr: u64,
        bytes: usize,
        dtype: *const c_char,
    ) -> kb_status;
    pub fn kb_launch(
        ctx: *mut kb_context,
        task: *const kb_task,
        kernel: *const kb_kernel,
        args: *const kb_launch_args,
        stream: u64,
    ) -> kb_status;

    pub fn kb_result_verdict(result: *const kb_result) -> kb_verdict;
    pub fn kb_result_message(result: *const kb_result) -> *const c_char;
    pub fn kb_result_json(result: *const kb_result) -> *const c_char;
    pub fn kb_result_get_number(
        result: *const kb_result,
        json_pointer: *const c_char,
        out: *mut c_double,
    ) -> kb_status;
    pub fn kb_result_get_string(
        result: *const kb_result,
        json_pointer: *const c_char,
        out: *mut *const c_char,
    ) -> kb_status;
    pub fn kb_result_destroy(result: *mut kb_result);
}
