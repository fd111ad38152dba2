//! Context: a device (or none), its worker, caches and options (kb_context).
use std::ptr::{self, NonNull};

use kbench_sys as sys;

use crate::error::{check, Result};
use crate::kernel::Kernel;
use crate::options::{case_index, Candidate, ContextOptions, Role, ScoreOptions, TimeOptions};
use crate::outcome::Outcome;
use crate::cstr;
use crate::task::Task;

/// Where kernels are compiled and run.
pub struct Context {
    raw: NonNull<sys::kb_context>,
}

// A context may be used by one thread at a time, except kb_compile, which
// may run on several threads at once (kbench.h). So `compile` and `json` (a
// string fixed at creation) take &self, and everything else &mut self: the
// borrow checker then enforces the rule, and &Context may cross threads.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// Creates a context. A device that is not there is Status::NoDevice.
    pub fn new(opts: &ContextOptions) -> Result<Context> {
        let o = opts.to_c()?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_context_create(&o.raw, &mut raw) })?;
        Ok(Context {
            raw: NonNull::new(raw).expect("kb_context_create returned KB_OK and no context"),
        })
    }

    /// A context without a device: validates tasks and compiles to PTX.
    pub fn compile_only() -> Result<Context> {
        Self::new(&ContextOptions::compile_only())
    }

    fn ptr(&self) -> *mut sys::kb_context {
        self.raw.as_ptr()
    }

    /// Device, architecture, memory, L2 size, clocks, isolation, compilers.
    pub fn json(&self) -> &str {
        unsafe { cstr::borrowed(sys::kb_context_json(self.ptr())) }
    }

    /// Compiles a candidate under the task's compile policy. Code that does
    /// not compile is Status::Compile, with the compiler log as the message.
    pub fn compile(&self, task: &Task, candidate: &Candidate<'_>) -> Result<Kernel> {
        let c = candidate.to_c()?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_compile(self.ptr(), task.as_ptr(), &c.raw, &mut raw) })?;
        Ok(Kernel::from_raw(raw))
    }

    /// Compiles the task's reference or baseline.
    pub fn compile_task_program(&mut self, task: &Task, role: Role) -> Result<Kernel> {
        let mut raw = ptr::null_mut();
        check(unsafe {
            sys::kb_compile_task_program(self.ptr(), task.as_ptr(), role.raw(), &mut raw)
        })?;
        Ok(Kernel::from_raw(raw))
    }

    /// Runs the reference on a case with inputs drawn from `seed` (0: the
    /// default) and reports statistics of every output.
    pub fn run_reference(&mut self, task: &Task, case: usize, seed: u64) -> Result<Outcome> {
        let mut raw = ptr::null_mut();
        check(unsafe {
            sys::kb_run_reference(self.ptr(), task.as_ptr(), case_index(case)?, seed, &mut raw)
        })?;
        Ok(Outcome::from_raw(raw))
    }

    /// Runs `kernel` on a case with the reference's inputs and compares every
    /// output; the outcome's verdict says what happened.
    pub fn compare(
        &mut self,
        task: &Task,
        kernel: &Kernel,
        case: usize,
        seed: u64,
    ) -> Result<Outcome> {
        let mut raw = ptr::null_mut();
        check(unsafe {
            sys::kb_compare(
                self.ptr(),
                task.as_ptr(),
                kernel.as_ptr(),
                case_index(case)?,
                seed,
                &mut raw,
            )
        })?;
        Ok(Outcome::from_raw(raw))
    }

    /// Times `kernel` (None: the task's baseline alone).
    pub fn time(
        &mut self,
        task: &Task,
        kernel: Option<&Kernel>,
        opts: &TimeOptions,
    ) -> Result<Outcome> {
        let o = opts.to_c()?;
        let k = kernel.map_or(ptr::null(), Kernel::as_ptr);
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_time(self.ptr(), task.as_ptr(), k, &o, &mut raw) })?;
        Ok(Outcome::from_raw(raw))
    }

    /// Compile, check every case, time against the baseline, recheck. A
    /// candidate that fails is Ok, with a verdict that says why.
    pub fn score(
        &mut self,
        task: &Task,
        candidate: &Candidate<'_>,
        opts: &ScoreOptions,
    ) -> Result<Outcome> {
        let c = candidate.to_c()?;
        let o = opts.to_c()?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::kb_score(self.ptr(), task.as_ptr(), &c.raw, &o, &mut raw) })?;
        Ok(Outcome::from_raw(raw))
    }
}

impl Context {
    /// A batch on this context: many scores in flight, compiled on CPU
    /// threads ahead of the GPU (see [`Batch`](crate::Batch)).
    pub fn batch(&self, opts: &crate::BatchOptions) -> Result<crate::Batch<'_>> {
        crate::Batch::new(self, opts)
    }

    /// Enqueues `kernel`'s launch plan on the caller's device memory named in
    /// `args`, ordered on `stream` (a CUstream as an integer; 0: the legacy
    /// default stream), without waiting (kb_launch). Needs an in-process
    /// context (`Isolation::InProcess`).
    pub fn launch(&mut self, task: &Task, kernel: &Kernel, args: &crate::LaunchArgs, stream: u64) -> Result<()> {
        check(unsafe { sys::kb_launch(self.ptr(), task.as_ptr(), kernel.as_ptr(), args.as_ptr(), stream) })
    }

    pub(crate) fn raw_ptr(&self) -> *mut sys::kb_context {
        self.ptr()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { sys::kb_context_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").finish_non_exhaustive()
    }
}
