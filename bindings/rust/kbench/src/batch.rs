//! Batch: many scores in flight on one context (kb_batch_*).
//!
//! ```no_run
//! # fn main() -> kbench::Result<()> {
//! let ctx = kbench::Context::new(&kbench::ContextOptions::default())?;
//! let task = kbench::Task::open("tasks/elementwise/vector_add_f32/task.json")?;
//! let batch = ctx.batch(&kbench::BatchOptions::default())?;
//! for (i, path) in ["a.cu", "b.cu"].iter().enumerate() {
//!     batch.submit(&task, &kbench::Candidate::path(path), &Default::default(), i as u64, None)?;
//! }
//! for job in batch.results() {
//!     let job = job?;
//!     match job.outcome() {
//!         Ok(outcome) => println!("{}: {}", job.tag(), outcome.message()),
//!         Err(e) => println!("{}: {}", job.tag(), e),
//!     }
//! }
//! # Ok(())
//! # }
//! ```
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::time::Duration;

use kbench_sys as sys;

use crate::context::Context;
use crate::error::{check, Error, Result, Status};
use crate::options::{Candidate, ScoreOptions};
use crate::outcome::Outcome;
use crate::task::Task;

/// Options of a [`Batch`]; 0 means the library's default.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// Jobs submitted and not yet collected (0: 64).
    pub capacity: u32,
    /// CPU threads compiling ahead of the GPU (0: the cores, at most 8).
    pub compile_threads: u32,
    /// Jobs on the GPU at once, each in its own worker process; timing still
    /// has the GPU alone (0: 4, fewer on a small GPU).
    pub device_lanes: u32,
}

/// A bounded queue of scores on one context. Dropping it cancels the jobs not
/// yet on the device and waits for the ones running.
pub struct Batch<'ctx> {
    raw: NonNull<sys::kb_batch>,
    _ctx: PhantomData<&'ctx Context>,
}

// Every kb_batch_* function may be called from any thread, concurrently.
unsafe impl Send for Batch<'_> {}
unsafe impl Sync for Batch<'_> {}

/// Seconds for the C API: None waits without limit (negative).
fn seconds(timeout: Option<Duration>) -> f64 {
    timeout.map_or(-1.0, |d| d.as_secs_f64())
}

impl<'ctx> Batch<'ctx> {
    pub fn new(ctx: &'ctx Context, opts: &BatchOptions) -> Result<Batch<'ctx>> {
        let mut o = sys::KB_BATCH_OPTIONS_INIT;
        o.capacity = opts.capacity;
        o.compile_threads = opts.compile_threads;
        o.device_lanes = opts.device_lanes;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_batch_create(ctx.raw_ptr(), &o, &mut raw) })?;
        Ok(Batch {
            raw: NonNull::new(raw).expect("kb_batch_create returned KB_OK and no batch"),
            _ctx: PhantomData,
        })
    }

    fn ptr(&self) -> *mut sys::kb_batch {
        self.raw.as_ptr()
    }

    /// Queues one score and returns its job id. Waits for room while the
    /// batch is full (`timeout` None: without limit; then Status::Timeout).
    pub fn submit(
        &self,
        task: &Task,
        candidate: &Candidate<'_>,
        opts: &ScoreOptions,
        tag: u64,
        timeout: Option<Duration>,
    ) -> Result<u64> {
        let c = candidate.to_c()?;
        let o = opts.to_c()?;
        let mut id = 0u64;
        check(unsafe {
            sys::kb_batch_submit(
                self.ptr(),
                task.as_ptr(),
                &c.raw,
                &o,
                tag,
                seconds(timeout),
                &mut id,
            )
        })?;
        Ok(id)
    }

    /// The next completed job; Ok(None) when nothing is in flight. Waits up
    /// to `timeout` (None: until one completes), then Status::Timeout.
    pub fn next(&self, timeout: Option<Duration>) -> Result<Option<Job>> {
        let mut raw = ptr::null_mut();
        match check(unsafe { sys::kb_batch_next(self.ptr(), seconds(timeout), &mut raw) }) {
            Ok(()) => Ok(Some(Job::from_raw(raw))),
            Err(e) if e.status() == Status::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Completed jobs, in completion order, until nothing is in flight.
    pub fn results(&self) -> Results<'_, 'ctx> {
        Results { batch: self }
    }

    /// Cancels a job not yet on the device: true if it completes as
    /// Status::Cancelled.
    pub fn cancel(&self, id: u64) -> bool {
        unsafe { sys::kb_batch_cancel(self.ptr(), id) == sys::KB_OK }
    }

    /// Cancels every job not yet on the device; returns how many.
    pub fn cancel_all(&self) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::kb_batch_cancel_all(self.ptr(), &mut n) })?;
        Ok(n)
    }

    /// Jobs submitted and not yet completed.
    pub fn in_flight(&self) -> usize {
        unsafe { sys::kb_batch_in_flight(self.ptr()) }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        unsafe { sys::kb_batch_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

/// The iterator of [`Batch::results`].
pub struct Results<'b, 'ctx> {
    batch: &'b Batch<'ctx>,
}

impl Iterator for Results<'_, '_> {
    type Item = Result<Job>;
    fn next(&mut self) -> Option<Result<Job>> {
        self.batch.next(None).transpose()
    }
}

/// One completed job: its id, the caller's tag, and what kb_score would have
/// returned for it.
#[derive(Debug)]
pub struct Job {
    id: u64,
    tag: u64,
    outcome: Result<Outcome>,
}

impl Job {
    fn from_raw(raw: *mut sys::kb_batch_job) -> Job {
        let id = unsafe { sys::kb_batch_job_id(raw) };
        let tag = unsafe { sys::kb_batch_job_tag(raw) };
        let mut result = ptr::null_mut();
        let outcome = check(unsafe { sys::kb_batch_job_take_result(raw, &mut result) })
            .map(|()| Outcome::from_raw(result));
        unsafe { sys::kb_batch_job_destroy(raw) };
        Job { id, tag, outcome }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn tag(&self) -> u64 {
        self.tag
    }

    /// The outcome, or the error that stopped the job (Status::Cancelled,
    /// Status::Io for an unreadable candidate file, ...).
    pub fn outcome(&self) -> std::result::Result<&Outcome, &Error> {
        self.outcome.as_ref()
    }

    pub fn into_outcome(self) -> Result<Outcome> {
        self.outcome
    }
}
