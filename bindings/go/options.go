package kbench

import (
	"fmt"
	"time"

	"kbench/internal/capi"
)

// Zero values of every option mean the library's documented default.

// Isolation says where candidate kernels run (kb_isolation).
type Isolation int

const (
	IsolationDefault   Isolation = 0 // the library's default (docs/c-api.md)
	IsolationInProcess Isolation = 1 // fastest; trusted kernels only
	IsolationWorker    Isolation = 2 // a worker process a crash or hang cannot escape
)

// ContextOptions configure NewContext.
type ContextOptions struct {
	Device         int // CUDA device ordinal; DeviceNone for compile-only
	Isolation      Isolation
	Arch           string        // e.g. "sm_90"; "": the device's own
	CacheDir       string        // compiled-code cache; "": memory only (or $KBENCH_CACHE_DIR)
	CUDAHome       string        // "": $CUDA_HOME, then the toolkit kbench was built with
	WorkerPath     string        // "": kbench-worker beside the library
	Timeout        time.Duration // deadline of one worker request; 0: from the task
	EmitPTX        bool          // compile to PTX even with a device
	NoNVCCFallback bool          // never fall back to nvcc when NVRTC rejects code
	// Containment (docs/isolation.md): neither field set, only
	// correctness-only builds are contained (the library's default).
	ContainTraps   bool // every build, timed ones too (KB_CONTEXT_CONTAIN_TRAPS)
	NoContainTraps bool // none (KB_CONTEXT_NO_CONTAIN_TRAPS); not with ContainTraps
	// NoConfine runs the context's Python workers unconfined, for
	// debugging only (KB_CONTEXT_NO_CONFINE; docs/isolation.md).
	NoConfine bool
}

// Language is a candidate's kind of code (kb_language).
type Language int

const (
	LanguageAuto         Language = 0 // from Path's extension, else CUDA C++
	LanguageCUDA         Language = 1
	LanguagePTX          Language = 2
	LanguageCubin        Language = 3
	LanguageTriton       Language = 4 // Python source with @triton.jit kernels (with Metadata set: as LanguageTritonBinary)
	LanguageTritonBinary Language = 5 // a Triton-compiled cubin; set Metadata
)

// Candidate is the code to compile or score: Code, or the file at Path.
type Candidate struct {
	Language Language
	Code     []byte // source text or a binary image; nil: read Path
	Path     string // a .json file is a kbench-candidate/1 document
	Launch   string // launch plan JSON {"launch":[...],"scratch":[...]}; "": the task's
	Metadata string // Triton metadata JSON (LanguageTritonBinary only)
	Label    string // a name for logs and results
}

// TimeMode is how kernels are timed (kb_time_mode).
type TimeMode int

const (
	TimeCold TimeMode = 0 // L2 flushed before every sample
	TimeHot  TimeMode = 1 // a CUDA graph of back-to-back launches, for very short kernels
)

// TimeOptions configure Context.Time and the timing part of Context.Score.
type TimeOptions struct {
	Mode            TimeMode
	Case            string // name of the case to time; "": the perf case
	AgainstBaseline bool   // interleave with the baseline and report the speedup
	Budget          time.Duration
	Warmup          time.Duration
	MinSamples      uint
	MaxSamples      uint
	TargetRelNoise  float64
}

// ScoreOptions configure Context.Score.
type ScoreOptions struct {
	Seed            uint64 // seed of the correctness inputs; 0: the fixed default
	CorrectnessRuns uint   // runs per case; >1 also checks determinism
	SkipTiming      bool   // correctness only
	NoRecheck       bool   // skip the recheck on fresh inputs from a secret seed
	CompileOnly     bool   // stop after compiling: verdict none, no device needed
	Timing          TimeOptions
}

// The C structs are built per call and freed by the caller (defer Delete...).
// Their constructors fill in the ..._INIT values, so `version` is right.

func (o *ContextOptions) toC() capi.Kb_context_options {
	c := capi.NewKb_context_options()
	c.SetDevice(o.Device)
	c.SetIsolation(capi.Enum_SS_kb_isolation(o.Isolation))
	setString(c.SetArch, o.Arch)
	setString(c.SetCache_dir, o.CacheDir)
	setString(c.SetCuda_home, o.CUDAHome)
	setString(c.SetWorker_path, o.WorkerPath)
	c.SetTimeout_s(o.Timeout.Seconds())
	var flags uint
	if o.EmitPTX {
		flags |= capi.KB_CONTEXT_EMIT_PTX
	}
	if o.NoNVCCFallback {
		flags |= capi.KB_CONTEXT_NO_NVCC_FALLBACK
	}
	if o.ContainTraps {
		flags |= capi.KB_CONTEXT_CONTAIN_TRAPS
	}
	if o.NoContainTraps {
		flags |= capi.KB_CONTEXT_NO_CONTAIN_TRAPS
	}
	if o.NoConfine {
		flags |= capi.KB_CONTEXT_NO_CONFINE
	}
	c.SetFlags(flags)
	return c
}

func (cand *Candidate) toC() capi.Kb_candidate {
	c := capi.NewKb_candidate()
	c.SetLanguage(capi.Enum_SS_kb_language(cand.Language))
	if cand.Code != nil {
		c.Set_code(string(cand.Code))
	}
	setString(c.SetPath, cand.Path)
	setString(c.SetLaunch_json, cand.Launch)
	setString(c.SetMetadata_json, cand.Metadata)
	setString(c.SetLabel, cand.Label)
	return c
}

// fill copies o into c (a fresh kb_time_options or kb_score_options.timing).
func (o *TimeOptions) fill(c capi.Kb_time_options, task *Task) error {
	c.SetMode(capi.Enum_SS_kb_time_mode(o.Mode))
	c.SetCase_index(-1)
	if o.Case != "" {
		i, ok := task.FindCase(o.Case)
		if !ok {
			return &Error{Status: StatusInvalidArgument, Detail: fmt.Sprintf("task %q has no case %q", task.Name(), o.Case)}
		}
		c.SetCase_index(i)
	}
	if o.AgainstBaseline {
		c.SetAgainst_baseline(1)
	}
	c.SetBudget_ms(milliseconds(o.Budget))
	c.SetWarmup_ms(milliseconds(o.Warmup))
	c.SetMin_samples(o.MinSamples)
	c.SetMax_samples(o.MaxSamples)
	c.SetTarget_rel_noise(o.TargetRelNoise)
	return nil
}

func (o *ScoreOptions) toC(task *Task) (capi.Kb_score_options, error) {
	c := capi.NewKb_score_options()
	c.SetSeed(o.Seed)
	c.SetCorrectness_runs(o.CorrectnessRuns)
	var flags uint
	if o.SkipTiming {
		flags |= capi.KB_SCORE_SKIP_TIMING
	}
	if o.NoRecheck {
		flags |= capi.KB_SCORE_NO_RECHECK
	}
	if o.CompileOnly {
		flags |= capi.KB_SCORE_COMPILE_ONLY
	}
	c.SetFlags(flags)
	// GetTiming points into c, so filling it fills c.
	if err := o.Timing.fill(c.GetTiming(), task); err != nil {
		capi.DeleteKb_score_options(c)
		return nil, err
	}
	return c, nil
}

// setString leaves a C string member NULL (the default) for "".
func setString(set func(string), s string) {
	if s != "" {
		set(s)
	}
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
