/*
 * kbench — a trustworthy evaluator for GPU kernels.
 *
 * kbench loads a task (the contract a kernel must meet), compiles a candidate
 * kernel, runs it against the task's reference on the same inputs, compares
 * every output, times it against a baseline and returns a verdict.
 *
 * ABI rules (see docs/c-api.md):
 *  - Every type the library may need to change is an opaque handle.
 *  - Options structs begin with `version`; initialise them with the matching
 *    `..._INIT` macro or `..._init()` function. Every version from 1 up to the
 *    library's own is accepted (a program built against an older header keeps
 *    working; fields a later version added take their defaults); a newer one
 *    is rejected with KB_ERR_UNSUPPORTED_VERSION. A numeric option left at 0
 *    means "the documented default".
 *  - Every function returning kb_status sets a thread-local detail message,
 *    readable with kb_last_error(), when it fails.
 *  - Every *_destroy function accepts NULL.
 *  - Status and verdict values are never renumbered; new ones are appended.
 *
 * Ownership: a function that hands out a handle through an `out` parameter
 * transfers it to the caller, who releases it with the matching *_destroy.
 * A `const char*` returned by an accessor is owned by the handle it was read
 * from and stays valid until that handle is destroyed, unless stated otherwise.
 * Input strings and buffers are copied; the caller keeps ownership of them.
 *
 * Threads: kb_task, kb_kernel and kb_result are immutable after creation and
 * may be read from any number of threads. A kb_context may be shared: every
 * call on it may be made from several threads at once. Compilation runs in
 * parallel (kb_compile, and the compile stage of kb_score); device work takes
 * turns (the device stages of kb_score, kb_compare, kb_time, kb_launch run one
 * at a time per context, or per lane in a batch). kb_last_error() is per
 * thread. What must not race: kb_context_destroy with any other call on that
 * context, and the destroy of any handle with its use. A kb_batch's functions
 * may be called from any thread (see Batches); a kb_batch_job and a
 * kb_launch_args belong to one thread at a time. tests/unit/test_threads.cpp
 * runs eight threads on one context and on a context each (under TSan with
 * scripts/run-sanitizers.sh thread).
 */
#ifndef KBENCH_H
#define KBENCH_H

#include <stddef.h>
#include <stdint.h>

#define KB_VERSION_MAJOR 0
#define KB_VERSION_MINOR 3
#define KB_VERSION_PATCH 0
/* major*10000 + minor*100 + patch, as kb_version_number() returns it. */
#define KB_VERSION_NUMBER (KB_VERSION_MAJOR * 10000 + KB_VERSION_MINOR * 100 + KB_VERSION_PATCH)

#if defined(_WIN32)
#define KB_API __declspec(dllexport)
#elif defined(__GNUC__)
#define KB_API __attribute__((visibility("default")))
#else
#define KB_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Status and errors                                                         */
/* ------------------------------------------------------------------------ */

/* What an API call did. A candidate kernel that fails is NOT an API error:
 * kb_compare and kb_score return KB_OK with a verdict in the result. A status
 * other than KB_OK means kbench could not produce the result asked for. */
typedef enum kb_status {
    KB_OK = 0,
    KB_ERR_INVALID_ARGUMENT = 1,    /* NULL where a value is required, bad index, ... */
    KB_ERR_UNSUPPORTED_VERSION = 2, /* an options struct's version is unknown */
    KB_ERR_IO = 3,                  /* a file could not be read or written */
    KB_ERR_TASK_INVALID = 4,        /* the task (or a launch plan) is malformed; detail names the JSON path */
    KB_ERR_COMPILE = 5,             /* kb_compile: the code did not compile; detail holds the log */
    KB_ERR_NO_DEVICE = 6,           /* no CUDA driver or no such device */
    KB_ERR_CUDA = 7,                /* kbench's own device work failed; detail names the CUresult */
    KB_ERR_OUT_OF_MEMORY = 8,       /* host or device memory exhausted */
    KB_ERR_REFERENCE_FAILED = 9,    /* the task's reference or baseline failed: the task is broken, or its
                                       baseline's library (cuBLAS) is missing here; the detail says which */
    KB_ERR_CONTEXT_LOST = 10,       /* an in-process candidate crashed the CUDA context; create a new
                                       context in a new process, or use worker isolation */
    KB_ERR_WORKER = 11,             /* the worker process could not be started or spoke nonsense */
    KB_ERR_NOT_FOUND = 12,          /* a result field, case or file that does not exist */
    KB_ERR_INTERNAL = 13,           /* a bug in kbench; please report the detail */
    KB_ERR_TIMEOUT = 14,            /* a batch call waited its timeout: no room to submit, no job completed */
    KB_ERR_CANCELLED = 15           /* a batch job was cancelled before it ran */
} kb_status;

/* A static English name for a status, e.g. "task invalid". Never NULL. */
KB_API const char* kb_status_string(kb_status status);

/* The detail of the last failing call on this thread: the JSON path of a bad
 * task field, the compiler log excerpt, the CUresult name. Never NULL (an empty
 * string when there is none). Valid until the next kbench call on this thread. */
KB_API const char* kb_last_error(void);

/* ------------------------------------------------------------------------ */
/* Version                                                                   */
/* ------------------------------------------------------------------------ */

/* KB_VERSION_NUMBER of the library actually loaded. */
KB_API unsigned kb_version_number(void);
/* "MAJOR.MINOR.PATCH" of the library actually loaded. Static storage. */
KB_API const char* kb_version_string(void);

/* ------------------------------------------------------------------------ */
/* Verdicts                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum kb_verdict {
    KB_VERDICT_NONE = -1,              /* the result carries no verdict (kb_run_reference, kb_time) */
    KB_VERDICT_PASS = 0,
    KB_VERDICT_COMPILE_ERROR = 1,
    KB_VERDICT_LAUNCH_ERROR = 2,       /* the launch plan could not be launched (limits, arguments) */
    KB_VERDICT_RUNTIME_ERROR = 3,      /* the kernel crashed (illegal address, trap, ...) */
    KB_VERDICT_TIMEOUT = 4,
    KB_VERDICT_WRONG_ANSWER = 5,
    KB_VERDICT_INPUT_MODIFIED = 6,     /* an `in` buffer changed */
    KB_VERDICT_OUTPUT_NOT_WRITTEN = 7, /* output elements still hold the poison pattern */
    KB_VERDICT_OUT_OF_BOUNDS_WRITE = 8,/* a guard zone around a buffer changed */
    KB_VERDICT_NONDETERMINISTIC = 9,   /* repeated runs on the same inputs disagree */
    KB_VERDICT_NO_CODE = 10,           /* a model's answer holds no code that can be scored, or only
                                          ambiguous code (docs/batch.md, answer extraction) */
    KB_VERDICT_POLICY_VIOLATION = 11   /* a program candidate broke a rule of the task or the protocol: torch
                                          compute where forbidden, kernels it defines that never run (a decoy),
                                          timers replaced, threads left running (docs/programs.md) */
} kb_verdict;

/* "pass", "compile_error", ... as used in the JSON. Never NULL. */
KB_API const char* kb_verdict_string(kb_verdict verdict);

/* ------------------------------------------------------------------------ */
/* Opaque handles                                                            */
/* ------------------------------------------------------------------------ */

typedef struct kb_context kb_context; /* a device, its worker, caches and options */
typedef struct kb_task kb_task;       /* a parsed, validated task; immutable */
typedef struct kb_kernel kb_kernel;   /* a compiled kernel plus its launch plan; immutable */
typedef struct kb_result kb_result;   /* a JSON document with typed accessors; immutable */

/* ------------------------------------------------------------------------ */
/* Context                                                                   */
/* ------------------------------------------------------------------------ */

/* Where candidate kernels run. */
typedef enum kb_isolation {
    KB_ISOLATION_DEFAULT = 0,    /* the library's default: see docs/c-api.md */
    KB_ISOLATION_IN_PROCESS = 1, /* in the caller's process: fastest, for trusted kernels only */
    KB_ISOLATION_WORKER = 2      /* in a kbench-worker process that a crash or hang cannot escape */
} kb_isolation;

/* The device ordinal that asks for no device: a compile-only context, which
 * validates tasks and compiles (to PTX unless `arch` says otherwise). */
#define KB_DEVICE_NONE (-1)

/* ------------------------------------------------------------------------ */
/* Limits                                                                    */
/* ------------------------------------------------------------------------ */

/* What kbench accepts from documents and code, and what its compilers may
 * use (docs/limits.md). Text written by models reaches kbench in loops that
 * run for days: a document or candidate past a limit is refused before it is
 * used, with a message naming the field, the limit and the field here that
 * raises it; a compiler past one is stopped by the kernel and the compile
 * error says which limit it met. A field left at 0 takes the default given in
 * brackets; UINT64_MAX (or UINT_MAX) makes a limit effectively none.
 * kb_limits_init fills in the defaults themselves, to read or scale. */
#define KB_LIMITS_VERSION 1
typedef struct kb_limits {
    unsigned version;              /* KB_LIMITS_VERSION */
    uint64_t max_document_bytes;   /* a task or candidate document, a launch plan [64 MiB] */
    unsigned max_json_depth;       /* nesting of JSON arrays and objects [64] */
    uint64_t max_source_bytes;     /* a program's code (text or image) and each header file [16 MiB] */
    unsigned max_headers;          /* header files a program names [64] */
    unsigned max_dims;             /* [64] */
    unsigned max_cases;            /* correctness cases plus the perf case [256] */
    unsigned max_args;             /* the task's arguments [256] */
    unsigned max_launch_steps;     /* steps of one launch plan [64] */
    unsigned max_kernel_args;      /* arguments of one kernel step [256] */
    unsigned max_scratch;          /* scratch buffers of one plan [64] */
    unsigned max_expression_chars; /* one launch expression [1024] */
    unsigned max_expression_depth; /* its nesting: parentheses, calls, signs [32] */
    uint64_t compile_memory_bytes; /* address space of each compiler process: nvcc and what it
                                      runs, compile workers (NVRTC) [8 GiB] */
    double compile_cpu_s;          /* CPU seconds of each compiler process [180] */
    double compile_wall_s;         /* wall clock of one compile [300] */
    uint64_t compile_file_bytes;   /* the largest file a compiler process may write [1 GiB] */
} kb_limits;

#define KB_LIMITS_INIT { KB_LIMITS_VERSION, 0, 0u, 0, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0, 0.0, 0.0, 0 }

/* Fill *limits with the default of every field (the values, not zeros). */
KB_API kb_status kb_limits_init(kb_limits* limits, unsigned version);

/* ------------------------------------------------------------------------ */
/* Context (continued)                                                       */
/* ------------------------------------------------------------------------ */

#define KB_CONTEXT_OPTIONS_VERSION 2
typedef struct kb_context_options {
    unsigned version;        /* KB_CONTEXT_OPTIONS_VERSION */
    int device;              /* CUDA device ordinal; KB_DEVICE_NONE for compile-only */
    kb_isolation isolation;
    const char* arch;        /* target such as "sm_90" or "sm_90a"; NULL: the device's own */
    const char* cache_dir;   /* directory for the compiled-code cache; NULL: memory only.
                                Also read from KBENCH_CACHE_DIR when NULL. */
    const char* cuda_home;   /* CUDA toolkit root for headers and nvcc; NULL: $CUDA_HOME,
                                then the toolkit kbench was built against */
    const char* worker_path; /* kbench-worker executable; NULL: found beside the library */
    double timeout_s;        /* deadline of one worker request; 0: from the task (default) */
    unsigned flags;          /* KB_CONTEXT_* bits */
    /* version 2 */
    const kb_limits* limits; /* what candidates may bring (kb_compile, kb_score) and what the
                                compilers may use; NULL: the defaults. Copied at creation. */
} kb_context_options;

/* Compile to PTX even when a device is present (cubin is the default). */
#define KB_CONTEXT_EMIT_PTX 0x1u
/* Never fall back to nvcc when NVRTC rejects the code. */
#define KB_CONTEXT_NO_NVCC_FALLBACK 0x2u
/* Contain every build's traps (__trap(), a failed device-side assert()) in
 * its own PTX, and its faults and endless loops in checked copies of its
 * kernels, which the comparisons run: the verdict without the driver's
 * machine-wide recovery or the loss of the worker's CUDA context
 * (docs/isolation.md, "Contained faults and hangs"). Timed builds then hold
 * both forms and compile longer. kb_launch refuses kernels compiled so.
 *
 * Without this flag or the next, a context contains the builds that are
 * only compared (correctness-only scores, KB_SCORE_SKIP_TIMING) and leaves
 * timed builds plain (the default since kbench 0.3).
 * $KBENCH_CONTAIN_TRAPS=1, 0 or comparisons overrides both flags. */
#define KB_CONTEXT_CONTAIN_TRAPS 0x4u
/* Contain nothing: every build plain, a crash or a hang ends its worker
 * (which a standby replaces), as before kbench 0.3. Not with
 * KB_CONTEXT_CONTAIN_TRAPS. */
#define KB_CONTEXT_NO_CONTAIN_TRAPS 0x8u
/* Start the workers that run untrusted Python (program candidates and
 * references) without confinement (namespaces, Landlock, seccomp, a scrubbed
 * environment: docs/isolation.md, "Confinement"). For debugging only.
 * $KBENCH_CONFINE=0 does the same for every context and the Triton compile
 * worker. Workers on a GPU are confined only where $KBENCH_CONFINE=1 asks
 * (docs/isolation.md says why). */
#define KB_CONTEXT_NO_CONFINE 0x10u

#define KB_CONTEXT_OPTIONS_INIT { KB_CONTEXT_OPTIONS_VERSION, 0, KB_ISOLATION_DEFAULT, NULL, NULL, NULL, NULL, 0.0, 0u, NULL }

/* Fill *opts with defaults for the given struct version (1 or 2: a version 1
 * struct is written only as far as version 1 reaches). */
KB_API kb_status kb_context_options_init(kb_context_options* opts, unsigned version);

/* Number of CUDA devices; 0 (and KB_OK) when there is no driver or no device. */
KB_API kb_status kb_device_count(int* out);

/* Create a context. opts may be NULL for defaults (device 0). Returns
 * KB_ERR_NO_DEVICE when a device was asked for and none is usable. On success
 * the caller owns *out. */
KB_API kb_status kb_context_create(const kb_context_options* opts, kb_context** out);
KB_API void kb_context_destroy(kb_context* ctx);

/* A JSON description of the context: device name, architecture, memory, L2
 * size, clocks, isolation, compiler versions. Owned by ctx. */
KB_API const char* kb_context_json(const kb_context* ctx);

/* ------------------------------------------------------------------------ */
/* Tasks                                                                     */
/* ------------------------------------------------------------------------ */

/* Parse and validate a task. `source` is either JSON text (its first
 * non-space character is '{') or the path of a task file. Relative paths in
 * the task (source_file) resolve against the file's folder, or the current
 * directory for JSON text. On failure kb_last_error() names the JSON path
 * of the offending field and what was expected. */
KB_API kb_status kb_load_task(const char* source, kb_task** out);
/* kb_load_task under `limits` (NULL: the defaults, as kb_load_task). */
KB_API kb_status kb_load_task_with_limits(const char* source, const kb_limits* limits, kb_task** out);
KB_API void kb_task_destroy(kb_task* task);

KB_API const char* kb_task_name(const kb_task* task);
/* Cases are numbered 0..count-1; the perf case is one of them. */
KB_API int kb_task_case_count(const kb_task* task);
KB_API const char* kb_task_case_name(const kb_task* task, int case_index); /* NULL if out of range */
KB_API int kb_task_perf_case(const kb_task* task);
/* -1 when there is no case of that name. */
KB_API int kb_task_find_case(const kb_task* task, const char* name);
/* The normalised, self-contained task (sources inlined). Owned by task. */
KB_API const char* kb_task_json(const kb_task* task);

/* ------------------------------------------------------------------------ */
/* Compilation                                                               */
/* ------------------------------------------------------------------------ */

typedef enum kb_language {
    KB_LANG_AUTO = 0,   /* from the path's extension (.cu .ptx .cubin .py .json), else CUDA C++ */
    KB_LANG_CUDA = 1,   /* CUDA C++ source */
    KB_LANG_PTX = 2,    /* PTX text */
    KB_LANG_CUBIN = 3,  /* a cubin (ELF) image for this device */
    KB_LANG_TRITON = 4, /* Python source with @triton.jit kernels, compiled by Triton (docs/triton.md);
                           with `metadata_json` set: a Triton-compiled cubin, as KB_LANG_TRITON_BINARY */
    KB_LANG_TRITON_BINARY = 5, /* a cubin Triton compiled; `metadata_json` holds Triton's metadata */
    KB_LANG_PYTHON = 6  /* a program candidate: a Python module (KernelBench's ModelNew, TritonBench's
                           functions) scored against a task whose reference is Python (docs/programs.md) */
} kb_language;

#define KB_CANDIDATE_VERSION 1
typedef struct kb_candidate {
    unsigned version;          /* KB_CANDIDATE_VERSION */
    kb_language language;
    const char* code;          /* source text or binary image; NULL: read `path` */
    size_t code_size;          /* bytes in code; 0 for NUL-terminated text */
    const char* path;          /* file to read when code is NULL; a .json file is a
                                  kbench-candidate/1 document (docs/task-format.md) */
    const char* launch_json;   /* launch plan {"launch":[...],"scratch":[...]}; NULL: the
                                  task's default candidate plan */
    const char* metadata_json; /* KB_LANG_TRITON_BINARY only: the kernel's metadata JSON */
    const char* label;         /* a name for logs and results; NULL: path or "candidate" */
} kb_candidate;

#define KB_CANDIDATE_INIT { KB_CANDIDATE_VERSION, KB_LANG_AUTO, NULL, 0, NULL, NULL, NULL, NULL }

/* Compile a candidate with the task's compile policy. On KB_ERR_COMPILE,
 * kb_last_error() holds the compiler log and *out is NULL. A launch plan that
 * does not fit the task gives KB_ERR_TASK_INVALID. */
KB_API kb_status kb_compile(kb_context* ctx, const kb_task* task, const kb_candidate* candidate,
                            kb_kernel** out);

typedef enum kb_program_role {
    KB_ROLE_REFERENCE = 0, /* the correctness oracle */
    KB_ROLE_BASELINE = 1   /* the speed yardstick (the reference when the task has none) */
} kb_program_role;

/* Compile the task's reference or baseline. */
KB_API kb_status kb_compile_task_program(kb_context* ctx, const kb_task* task, kb_program_role role,
                                         kb_kernel** out);
KB_API void kb_kernel_destroy(kb_kernel* kernel);

/* The compiler's full log (may be empty). Owned by kernel. */
KB_API const char* kb_kernel_log(const kb_kernel* kernel);
/* The compiled image: cubin bytes or NUL-terminated PTX. Owned by kernel. */
KB_API kb_status kb_kernel_image(const kb_kernel* kernel, const void** data, size_t* size);
/* Compile facts as JSON: path (nvrtc/nvcc/given), compile_ms, cache_hit,
 * image kind, architecture, entry points, launch plan. Owned by kernel. */
KB_API const char* kb_kernel_json(const kb_kernel* kernel);

/* ------------------------------------------------------------------------ */
/* Running, comparing, timing                                                */
/* ------------------------------------------------------------------------ */

/* Run the task's reference on one case with inputs drawn from `seed` and keep
 * its outputs host-side (cached per task, case and seed). The result holds
 * statistics of every output and warnings when an output cannot tell right
 * from wrong (near-constant, or within the tolerance of zero). */
KB_API kb_status kb_run_reference(kb_context* ctx, const kb_task* task, int case_index, uint64_t seed,
                                  kb_result** out);

/* Run `kernel` on one case with the same inputs the reference saw, and
 * compare every output under the task's tolerances. The result's verdict says
 * what happened; its JSON holds per-output error statistics and the worst
 * element's index and values. */
KB_API kb_status kb_compare(kb_context* ctx, const kb_task* task, const kb_kernel* kernel, int case_index,
                            uint64_t seed, kb_result** out);

typedef enum kb_time_mode {
    KB_TIME_COLD = 0, /* L2 flushed before every sample; one launch plan per sample */
    KB_TIME_HOT = 1   /* a CUDA graph of back-to-back launch plans, for very short kernels */
} kb_time_mode;

#define KB_TIME_OPTIONS_VERSION 1
typedef struct kb_time_options {
    unsigned version;           /* KB_TIME_OPTIONS_VERSION */
    kb_time_mode mode;
    int case_index;             /* the case to time; -1: the perf case (the default) */
    int against_baseline;       /* nonzero: interleave with the baseline, report the speedup */
    double budget_ms;           /* wall-clock budget for sampling; 0: 100 ms */
    double warmup_ms;           /* warm-up before sampling; 0: 5 ms (at least one run) */
    unsigned min_samples;       /* 0: 10 */
    unsigned max_samples;       /* 0: 10000 */
    double target_rel_noise;    /* stop once the median's relative standard error is
                                   below this; 0: 0.005 */
} kb_time_options;

#define KB_TIME_OPTIONS_INIT { KB_TIME_OPTIONS_VERSION, KB_TIME_COLD, -1, 0, 0.0, 0.0, 0u, 0u, 0.0 }
KB_API kb_status kb_time_options_init(kb_time_options* opts, unsigned version);

/* Time `kernel` (NULL: the task's baseline alone) with the measurement
 * protocol of docs/measurement.md. opts may be NULL for defaults. */
KB_API kb_status kb_time(kb_context* ctx, const kb_task* task, const kb_kernel* kernel,
                         const kb_time_options* opts, kb_result** out);

/* Skip timing: correctness only. */
#define KB_SCORE_SKIP_TIMING 0x1u
/* Skip the recheck on fresh inputs from a secret seed (after timing; in a
 * program candidate's correctness-only score, the problem's own sizes then
 * run at the public seed instead, docs/programs.md). */
#define KB_SCORE_NO_RECHECK 0x2u
/* Stop after compiling: the result has the compile facts (or the compile
 * error) and verdict none. Needs no device: a compile-only context takes it. */
#define KB_SCORE_COMPILE_ONLY 0x4u

#define KB_SCORE_OPTIONS_VERSION 2
typedef struct kb_score_options {
    unsigned version;            /* KB_SCORE_OPTIONS_VERSION */
    uint64_t seed;               /* seed of the correctness inputs; 0: the fixed default */
    unsigned correctness_runs;   /* runs per case; >1 also checks determinism; 0: two runs at
                                    cases whose buffers total <= 64 MiB, one at larger ones.
                                    Program candidates: the kernelbench protocol's trials (0: 5) */
    unsigned flags;              /* KB_SCORE_* bits */
    kb_time_options timing;      /* against_baseline is implied */
    /* version 2: program candidates (docs/programs.md) */
    const char* protocol;        /* "strict" (NULL: the default) or "kernelbench" */
    const char* torch_compute;   /* "allow", "report" or "forbid"; NULL: the task's rule */
} kb_score_options;

#define KB_SCORE_OPTIONS_INIT { KB_SCORE_OPTIONS_VERSION, 0u, 0u, 0u, KB_TIME_OPTIONS_INIT, NULL, NULL }
KB_API kb_status kb_score_options_init(kb_score_options* opts, unsigned version);

/* The one call an RL loop wants: compile, check every case, time against the
 * baseline, recheck on fresh inputs, verdict. A candidate that fails is KB_OK
 * with its verdict; the result holds everything learnt up to the failure. */
KB_API kb_status kb_score(kb_context* ctx, const kb_task* task, const kb_candidate* candidate,
                          const kb_score_options* opts, kb_result** out);

/* ------------------------------------------------------------------------ */
/* Launching on your own buffers (torch tensors, CuPy arrays, ...)           */
/* ------------------------------------------------------------------------ */

/* What kb_launch runs a kernel on: a value of each of the task's dims and a
 * device pointer for each of its buffer arguments (scalar arguments follow
 * from the dims, as in every case). Build one, set everything, launch, and
 * reuse or destroy it. Not shared between threads while being changed. */
typedef struct kb_launch_args kb_launch_args;

KB_API kb_status kb_launch_args_create(kb_launch_args** out);
KB_API void kb_launch_args_destroy(kb_launch_args* args);
/* Sets dim `name` (setting it again replaces the value). */
KB_API kb_status kb_launch_args_set_dim(kb_launch_args* args, const char* name, int64_t value);
/* Sets buffer argument `name` to `bytes` of device memory at `device_ptr`
 * (a CUdeviceptr of this process). `dtype` ("f32", "f16", "bf16", "i32", ...)
 * is checked against the task's argument unless it is NULL or "". */
KB_API kb_status kb_launch_args_set_buffer(kb_launch_args* args, const char* name, uint64_t device_ptr,
                                           size_t bytes, const char* dtype);

/* Enqueues `kernel`'s launch plan (the candidate's, or the reference's or
 * baseline's from kb_compile_task_program) on the caller's memory, ordered on
 * `stream` (a CUstream of the context's device cast to an integer; 0: the
 * legacy default stream) as if enqueued there: it waits for the work already
 * on `stream`, and work enqueued on `stream` afterwards waits for it. Returns
 * without waiting for the kernel; nothing is copied and no output is checked.
 *
 * Before any launch it checks what would make the kernel write where it must
 * not: every dim and buffer given, each buffer on this device, inside its
 * allocation, at least as large as the task's shape at these dims, of the
 * task's dtype, and 16-byte aligned. A Triton source kernel launches only at
 * dims that specialise like one of the task's cases (it was compiled for
 * those). Needs a context with isolation KB_ISOLATION_IN_PROCESS: a worker's
 * device pointers are another process's (KB_ERR_INVALID_ARGUMENT otherwise).
 * A launch the driver refuses is KB_ERR_CUDA; an error inside the kernel
 * surfaces later, on the caller's stream. */
KB_API kb_status kb_launch(kb_context* ctx, const kb_task* task, const kb_kernel* kernel,
                           const kb_launch_args* args, uint64_t stream);

/* ------------------------------------------------------------------------ */
/* Batches: many scores in flight                                            */
/* ------------------------------------------------------------------------ */

/* A batch scores many candidates (for one task or several) on one context:
 * candidates compile on a pool of CPU threads ahead of the GPU, which runs
 * a few jobs at a time (device_lanes), and results are collected as they complete.
 *
 *   kb_batch* b;  kb_batch_create(ctx, NULL, &b);
 *   for (...) kb_batch_submit(b, task, &cand[i], NULL, i, -1.0, NULL);
 *   kb_batch_job* job;
 *   while (kb_batch_next(b, -1.0, &job) == KB_OK) {
 *       kb_result* r = NULL;
 *       kb_status s = kb_batch_job_take_result(job, &r);  // KB_OK: r holds the verdict
 *       ... kb_batch_job_tag(job) says which candidate ...
 *       kb_result_destroy(r);  kb_batch_job_destroy(job);
 *   }                          // KB_ERR_NOT_FOUND: nothing left in flight
 *   kb_batch_destroy(b);
 *
 * Every submitted job is reported by kb_batch_next exactly once. The batch's
 * functions may be called from any thread, concurrently. While a batch is
 * alive its context's other verbs (kb_score, kb_compare, ...) still work:
 * they take turns with the batch's device work. Destroy the batch before its
 * context. */
typedef struct kb_batch kb_batch;
typedef struct kb_batch_job kb_batch_job;

#define KB_BATCH_OPTIONS_VERSION 2
typedef struct kb_batch_options {
    unsigned version;          /* KB_BATCH_OPTIONS_VERSION */
    unsigned capacity;         /* jobs submitted and not yet collected by kb_batch_next; 0: 64 */
    unsigned compile_threads;  /* CPU threads compiling ahead of the GPU; 0: as many as the context's
                                  compile workers (3/4 of the cores, at least min(8, cores), at most 16) */
    /* version 2 */
    unsigned device_lanes;     /* jobs on the GPU at once, each in a worker process of its own
                                  (worker isolation; an in-process context has one). Their
                                  correctness work overlaps; timing has the GPU alone, so
                                  speedups do not change. 0: 4, fewer on a GPU under 40 GiB;
                                  at most 16 */
} kb_batch_options;

#define KB_BATCH_OPTIONS_INIT { KB_BATCH_OPTIONS_VERSION, 0u, 0u, 0u }
KB_API kb_status kb_batch_options_init(kb_batch_options* opts, unsigned version);

/* opts may be NULL for defaults. */
KB_API kb_status kb_batch_create(kb_context* ctx, const kb_batch_options* opts, kb_batch** out);

/* Queues one score (kb_score's arguments; opts may be NULL). `tag` is the
 * caller's, handed back with the job. Waits up to timeout_s seconds for room
 * (0: not at all; negative: until there is room) and returns KB_ERR_TIMEOUT
 * when the batch stayed full. The candidate is copied: the caller may free it
 * at once. *id_out (may be NULL) receives the job's id, never 0. Bad options
 * fail here; a candidate file that cannot be read fails the job, at next. */
KB_API kb_status kb_batch_submit(kb_batch* batch, const kb_task* task, const kb_candidate* candidate,
                                 const kb_score_options* opts, uint64_t tag, double timeout_s, uint64_t* id_out);

/* The next completed job, in completion order, waiting up to timeout_s
 * seconds (0: not at all; negative: until one completes). KB_ERR_TIMEOUT when
 * none completed in time; KB_ERR_NOT_FOUND when nothing is in flight or
 * waiting to be collected (waiting would never end). */
KB_API kb_status kb_batch_next(kb_batch* batch, double timeout_s, kb_batch_job** out);

/* Cancels a job that has not started on the device. KB_OK: kb_batch_next
 * reports it as KB_ERR_CANCELLED (a job not yet compiling completes at once).
 * KB_ERR_NOT_FOUND: no such job in flight (it completed, cancelled ones
 * included), or it is on the device already and will complete normally. */
KB_API kb_status kb_batch_cancel(kb_batch* batch, uint64_t id);
/* Cancels every job not yet on the device; *count (may be NULL) gets how many. */
KB_API kb_status kb_batch_cancel_all(kb_batch* batch, size_t* count);
/* Jobs submitted and not yet completed. */
KB_API size_t kb_batch_in_flight(const kb_batch* batch);
/* Cancels the jobs not yet on the device, waits for those running, and frees
 * the batch with every result not yet collected. */
KB_API void kb_batch_destroy(kb_batch* batch);

KB_API uint64_t kb_batch_job_id(const kb_batch_job* job);
KB_API uint64_t kb_batch_job_tag(const kb_batch_job* job);
/* The job's outcome as kb_score would have returned it: KB_OK and *out the
 * result (the caller's, to kb_result_destroy), or the error that stopped the
 * job (KB_ERR_CANCELLED, KB_ERR_IO for an unreadable candidate file, ...)
 * with its detail in kb_last_error and *out NULL. A second call gives
 * KB_ERR_NOT_FOUND: the result was taken. */
KB_API kb_status kb_batch_job_take_result(kb_batch_job* job, kb_result** out);
KB_API void kb_batch_job_destroy(kb_batch_job* job);

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

KB_API kb_verdict kb_result_verdict(const kb_result* result);
/* One line a model or a person can act on. Owned by result; never NULL. */
KB_API const char* kb_result_message(const kb_result* result);
/* The whole result as a JSON document. Owned by result. */
KB_API const char* kb_result_json(const kb_result* result);
/* A number by JSON pointer, e.g. "/timing/candidate/median_us". Booleans read
 * as 0 or 1. KB_ERR_NOT_FOUND if absent or not a number. */
KB_API kb_status kb_result_get_number(const kb_result* result, const char* json_pointer, double* out);
/* A string by JSON pointer. *out is owned by result. */
KB_API kb_status kb_result_get_string(const kb_result* result, const char* json_pointer, const char** out);
KB_API void kb_result_destroy(kb_result* result);

#ifdef __cplusplus
}
#endif

#endif /* KBENCH_H */
