//! Safe Rust binding of kbench, the trustworthy evaluator for GPU kernels:
//! it compiles a candidate kernel, runs it against a task's reference,
//! compares every output, times it against a baseline and returns a verdict.
//!
//! ```no_run
//! # fn main() -> kbench::Result<()> {
//! let ctx = kbench::Context::compile_only()?; // no GPU needed
//! let task = kbench::Task::open("tasks/elementwise/vector_add_f32/task.json")?;
//! let kernel = ctx.compile(&task, &kbench::Candidate::path("candidate.cu"))?;
//! println!("{}", kernel.json());
//! # Ok(())
//! # }
//! ```
//!
//! Handles free themselves on drop. Failing calls return [`Error`], with the
//! [`Status`] and the library's detail (a task's JSON path, a compiler log).
//! The C API's `kb_result` is [`Outcome`] here, since `Result` is Rust's.
//!
//! Threads, as include/kbench.h allows: [`Task`] and [`Kernel`] are immutable
//! and `Send + Sync`; an [`Outcome`] is `Send` (read it from one thread at a
//! time); a [`Context`] is `Send + Sync` because only [`Context::compile`],
//! which the C API lets several threads run at once, takes `&self` — every
//! other verb takes `&mut self`. A [`Batch`] borrows its context shared and
//! is `Send + Sync`: submit from many threads, collect from any (the library
//! lets the batch's device work take turns with the context's other verbs).

mod batch;
mod context;
mod cstr;
mod error;
mod kernel;
mod launch;
mod options;
mod outcome;
mod strings;
mod task;

pub use batch::{Batch, BatchOptions, Job};
pub use context::Context;
pub use error::{Error, Result, Status};
pub use kernel::Kernel;
pub use launch::LaunchArgs;
pub use options::{
    Candidate, ContextOptions, Isolation, Language, Role, ScoreOptions, TimeMode, TimeOptions,
    DEVICE_NONE,
};
pub use outcome::{Outcome, Verdict};
pub use task::Task;

/// The loaded library's version, "MAJOR.MINOR.PATCH".
pub fn version() -> &'static str {
    // Static storage in the library.
    unsafe { cstr::borrowed(kbench_sys::kb_version_string()) }
}

/// The number of CUDA devices; 0 when there is no driver or no device.
pub fn device_count() -> Result<usize> {
    let mut n = 0;
    error::check(unsafe { kbench_sys::kb_device_count(&mut n) })?;
    Ok(n.max(0) as usize)
}
