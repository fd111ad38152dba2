//! Options and candidates, and their C forms. Every Default means the
//! library's documented defaults; the C structs start from the ..._INIT
//! constants, so their `version` is always the one this crate was built for.
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_uint};
use std::path::{Path, PathBuf};
use std::ptr;
use std::time::Duration;

use kbench_sys as sys;

use crate::error::{Error, Result, Status};
use crate::strings;

/// The device ordinal of a compile-only context.
pub const DEVICE_NONE: i32 = sys::KB_DEVICE_NONE;

/// Where candidate kernels run (kb_isolation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// The library's default (docs/c-api.md).
    #[default]
    Default,
    /// In this process: fastest, for trusted kernels only.
    InProcess,
    /// In a worker process that a crash or hang cannot escape.
    Worker,
}

/// Options of [`Context::new`](crate::Context::new).
#[derive(Debug, Clone, Default)]
pub struct ContextOptions {
    /// CUDA device ordinal; [`DEVICE_NONE`] for a compile-only context.
    pub device: i32,
    pub isolation: Isolation,
    /// Target such as "sm_90"; None: the device's own.
    pub arch: Option<String>,
    /// Compiled-code cache; None: memory only (or $KBENCH_CACHE_DIR).
    pub cache_dir: Option<PathBuf>,
    /// None: $CUDA_HOME, then the toolkit kbench was built with.
    pub cuda_home: Option<PathBuf>,
    /// None: kbench-worker beside the library.
    pub worker_path: Option<PathBuf>,
    /// Deadline of one worker request; None: from the task.
    pub timeout: Option<Duration>,
    /// Compile to PTX even when a device is present.
    pub emit_ptx: bool,
    /// Never fall back to nvcc when NVRTC rejects the code.
    pub no_nvcc_fallback: bool,
    /// Contain every build's traps, faults and endless loops, timed builds
    /// too (KB_CONTEXT_CONTAIN_TRAPS). Neither this nor `no_contain_traps`:
    /// only correctness-only builds are contained (the library's default).
    pub contain_traps: bool,
    /// Contain nothing (KB_CONTEXT_NO_CONTAIN_TRAPS); not with `contain_traps`.
    pub no_contain_traps: bool,
    /// Run the context's Python workers unconfined, for debugging only
    /// (KB_CONTEXT_NO_CONFINE; docs/isolation.md).
    pub no_confine: bool,
}

impl ContextOptions {
    /// A context without a device: validates tasks and compiles to PTX.
    pub fn compile_only() -> ContextOptions {
        ContextOptions {
            device: DEVICE_NONE,
            ..Default::default()
        }
    }
}

/// A C struct plus the strings its pointers point into, kept alive with it.
pub(crate) struct WithStrings<T> {
    pub raw: T,
    _strings: Vec<CString>,
}

/// Collects CStrings and hands out their pointers (moving a CString into the
/// Vec does not move its heap buffer, so the pointers stay valid).
#[derive(Default)]
struct Strings(Vec<CString>);

impl Strings {
    fn add(&mut self, s: CString) -> *const c_char {
        self.0.push(s);
        self.0.last().unwrap().as_ptr()
    }
    fn opt_str(&mut self, s: Option<&str>, what: &str) -> Result<*const c_char> {
        s.map_or(Ok(ptr::null()), |s| {
            Ok(self.add(strings::c_string(s, what)?))
        })
    }
    fn opt_path(&mut self, p: Option<&Path>, what: &str) -> Result<*const c_char> {
        p.map_or(Ok(ptr::null()), |p| Ok(self.add(strings::c_path(p, what)?)))
    }
}

impl ContextOptions {
    pub(crate) fn to_c(&self) -> Result<WithStrings<sys::kb_context_options>> {
        let mut s = Strings::default();
        let mut o = sys::KB_CONTEXT_OPTIONS_INIT;
        o.device = self.device;
        o.isolation = match self.isolation {
            Isolation::Default => sys::KB_ISOLATION_DEFAULT,
            Isolation::InProcess => sys::KB_ISOLATION_IN_PROCESS,
            Isolation::Worker => sys::KB_ISOLATION_WORKER,
        };
        o.arch = s.opt_str(self.arch.as_deref(), "arch")?;
        o.cache_dir = s.opt_path(self.cache_dir.as_deref(), "cache_dir")?;
        o.cuda_home = s.opt_path(self.cuda_home.as_deref(), "cuda_home")?;
        o.worker_path = s.opt_path(self.worker_path.as_deref(), "worker_path")?;
        o.timeout_s = self.timeout.map_or(0.0, |t| t.as_secs_f64());
        o.flags = (if self.emit_ptx {
            sys::KB_CONTEXT_EMIT_PTX
        } else {
            0
        }) | (if self.no_nvcc_fallback {
            sys::KB_CONTEXT_NO_NVCC_FALLBACK
        } else {
            0
        }) | (if self.contain_traps {
            sys::KB_CONTEXT_CONTAIN_TRAPS
        } else {
            0
        }) | (if self.no_contain_traps {
            sys::KB_CONTEXT_NO_CONTAIN_TRAPS
        } else {
            0
        }) | (if self.no_confine {
            sys::KB_CONTEXT_NO_CONFINE
        } else {
            0
        });
        Ok(WithStrings {
            raw: o,
            _strings: s.0,
        })
    }
}

/// A candidate's kind of code (kb_language).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    /// From the path's extension (.cu .ptx .cubin .json), else CUDA C++.
    #[default]
    Auto,
    Cuda,
    Ptx,
    Cubin,
    /// Python source with @triton.jit kernels (docs/triton.md); with
    /// [`Candidate::metadata`] set, a Triton-compiled cubin (as TritonBinary).
    Triton,
    /// A Triton-compiled cubin; give its metadata with [`Candidate::metadata`].
    TritonBinary,
    /// A program candidate (KernelBench ModelNew, TritonBench functions), scored
    /// against a task whose reference is Python (docs/programs.md).
    Python,
}

/// The code to compile or score: source or an image in memory, or a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct Candidate<'a> {
    pub language: Language,
    /// Source text or a binary image; None: read `path`.
    pub code: Option<&'a [u8]>,
    /// A file; a .json file is a kbench-candidate/1 document.
    pub path: Option<&'a Path>,
    /// Launch plan JSON {"launch":[...],"scratch":[...]}; None: the task's.
    pub launch: Option<&'a str>,
    /// Triton metadata JSON (Language::TritonBinary only).
    pub metadata: Option<&'a str>,
    /// A name for logs and results.
    pub label: Option<&'a str>,
}

impl<'a> Candidate<'a> {
    /// Source text (`&str`) or an image (`&[u8]`).
    pub fn code(code: &'a (impl AsRef<[u8]> + ?Sized)) -> Candidate<'a> {
        Candidate {
            code: Some(code.as_ref()),
            ..Default::default()
        }
    }

    /// The file at `path`.
    pub fn path(path: &'a (impl AsRef<Path> + ?Sized)) -> Candidate<'a> {
        Candidate {
            path: Some(path.as_ref()),
            ..Default::default()
        }
    }

    pub fn language(self, language: Language) -> Candidate<'a> {
        Candidate { language, ..self }
    }

    pub fn launch(self, launch_json: &'a str) -> Candidate<'a> {
        Candidate {
            launch: Some(launch_json),
            ..self
        }
    }

    pub fn metadata(self, metadata_json: &'a str) -> Candidate<'a> {
        Candidate {
            metadata: Some(metadata_json),
            ..self
        }
    }

    pub fn label(self, label: &'a str) -> Candidate<'a> {
        Candidate {
            label: Some(label),
            ..self
        }
    }

    /// The C form; its `code` points into `self.code`, which outlives it.
    pub(crate) fn to_c(self) -> Result<WithStrings<sys::kb_candidate>> {
        let mut s = Strings::default();
        let mut c = sys::KB_CANDIDATE_INIT;
        c.language = match self.language {
            Language::Auto => sys::KB_LANG_AUTO,
            Language::Cuda => sys::KB_LANG_CUDA,
            Language::Ptx => sys::KB_LANG_PTX,
            Language::Cubin => sys::KB_LANG_CUBIN,
            Language::Triton => sys::KB_LANG_TRITON,
            Language::TritonBinary => sys::KB_LANG_TRITON_BINARY,
            Language::Python => sys::KB_LANG_PYTHON,
        };
        if let Some(code) = self.code {
            // code_size 0 means "NUL-terminated", so empty code is passed as
            // an empty C string, which the library reports as empty.
            c.code = if code.is_empty() {
                s.add(CString::default())
            } else {
                code.as_ptr() as *const c_char
            };
            c.code_size = code.len();
        }
        c.path = s.opt_path(self.path, "the candidate path")?;
        c.launch_json = s.opt_str(self.launch, "the launch plan")?;
        c.metadata_json = s.opt_str(self.metadata, "the Triton metadata")?;
        c.label = s.opt_str(self.label, "the label")?;
        Ok(WithStrings {
            raw: c,
            _strings: s.0,
        })
    }
}

/// Which of a task's own programs to compile (kb_program_role).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The correctness oracle.
    Reference,
    /// The speed yardstick (the reference when the task has none).
    Baseline,
}

impl Role {
    pub(crate) fn raw(self) -> sys::kb_program_role {
        match self {
            Role::Reference => sys::KB_ROLE_REFERENCE,
            Role::Baseline => sys::KB_ROLE_BASELINE,
        }
    }
}

/// How kernels are timed (kb_time_mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeMode {
    /// L2 flushed before every sample.
    #[default]
    Cold,
    /// A CUDA graph of back-to-back launches, for very short kernels.
    Hot,
}

/// Options of [`Context::time`](crate::Context::time) and the timing part of scoring.
#[derive(Debug, Clone, Default)]
pub struct TimeOptions {
    pub mode: TimeMode,
    /// The case to time; None: the perf case.
    pub case: Option<usize>,
    /// Interleave with the baseline and report the speedup.
    pub against_baseline: bool,
    /// Wall-clock budget for sampling; None: 100 ms.
    pub budget: Option<Duration>,
    /// Warm-up before sampling; None: 5 ms.
    pub warmup: Option<Duration>,
    /// 0: 10.
    pub min_samples: u32,
    /// 0: 10000.
    pub max_samples: u32,
    /// Stop below this relative standard error of the median; 0: 0.005.
    pub target_rel_noise: f64,
}

pub(crate) fn case_index(case: usize) -> Result<c_int> {
    c_int::try_from(case).map_err(|_| {
        Error::new(
            Status::InvalidArgument,
            format!("case index {} is out of range", case),
        )
    })
}

impl TimeOptions {
    pub(crate) fn to_c(&self) -> Result<sys::kb_time_options> {
        let ms = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
        let mut o = sys::KB_TIME_OPTIONS_INIT;
        o.mode = match self.mode {
            TimeMode::Cold => sys::KB_TIME_COLD,
            TimeMode::Hot => sys::KB_TIME_HOT,
        };
        o.case_index = self.case.map_or(Ok(-1), case_index)?;
        o.against_baseline = c_int::from(self.against_baseline);
        o.budget_ms = ms(self.budget);
        o.warmup_ms = ms(self.warmup);
        o.min_samples = self.min_samples as c_uint;
        o.max_samples = self.max_samples as c_uint;
        o.target_rel_noise = self.target_rel_noise;
        Ok(o)
    }
}

/// Options of [`Context::score`](crate::Context::score).
#[derive(Debug, Clone, Default)]
pub struct ScoreOptions {
    /// Seed of the correctness inputs; 0: the fixed default.
    pub seed: u64,
    /// Runs per case; more than 1 also checks determinism; 0: the default.
    pub correctness_runs: u32,
    /// Correctness only.
    pub skip_timing: bool,
    /// Skip the recheck on fresh inputs from a secret seed.
    pub no_recheck: bool,
    /// Stop after compiling: verdict none, no device needed.
    pub compile_only: bool,
    pub timing: TimeOptions,
}

impl ScoreOptions {
    pub(crate) fn to_c(&self) -> Result<sys::kb_score_options> {
        let mut o = sys::KB_SCORE_OPTIONS_INIT;
        o.seed = self.seed;
        o.correctness_runs = self.correctness_runs as c_uint;
        o.flags = (if self.skip_timing {
            sys::KB_SCORE_SKIP_TIMING
        } else {
            0
        }) | (if self.no_recheck {
            sys::KB_SCORE_NO_RECHECK
        } else {
            0
        }) | (if self.compile_only {
            sys::KB_SCORE_COMPILE_ONLY
        } else {
            0
        });
        o.timing = self.timing.to_c()?;
        Ok(o)
    }
}
