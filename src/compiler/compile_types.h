// What the compile service takes and gives: a request (code, language,
// policy, target), an image (cubin or PTX with its entry points and log), the
// error a candidate's code earns, and the interface every compile service
// implements. Plain values: they cross threads and processes (the wire codec
// in src/protocol/ lists every field).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/kernel_params.h"
#include "compiler/triton_types.h"
#include "ipc/process_limits.h"
#include "task/task.h"
#include "util/error.h"

namespace kb {

struct CompileRequest {
    Language language = Language::cuda;
    std::string code;                       // source text or image bytes
    std::string source_name = "candidate.cu";
    // Files beside the code that its #includes may name (a candidate
    // document's "headers"); nothing else beside it can be included.
    std::vector<SourceFile> headers;
    std::vector<std::string> kernel_names;  // as the launch plan spells them
    CompilePolicy policy;
    std::string arch = "sm_90";             // "sm_XY" or "sm_XYa"
    bool emit_ptx = false;                  // PTX (compute_XY) instead of a cubin
    // The image will only be compared, never timed (a correctness-only
    // score): where faults are contained (CompilerConfig::checked_build),
    // the build holds the checked copies alone, without the functions
    // themselves (CompiledImage::checked_only), and assembles in less time.
    // NVRTC also optimises it less (CompilerConfig::comparisons_fast_compile,
    // CompiledImage::fast_compiled). No effect on other builds.
    bool comparisons_only = false;
    bool allow_nvcc_fallback = true;
    // Skip NVRTC and compile with nvcc (agreement checks, benchmarks, tests).
    bool force_nvcc = false;
    // Language::triton_binary: Triton's metadata JSON for the cubin in `code`
    // (optional; when given, the kernel it names must be in the image).
    std::string triton_metadata;
    // What the launch plan passes to each kernel: picks overloads, and gives
    // messages about missing kernels the right way round (kernel_params.h).
    LaunchExpectations expect;
    // Language::triton (Python source in `code`): the kernel and the
    // specialisation to compile (docs/triton.md).
    TritonCompileSpec triton;
};

enum class ImageKind { cubin, ptx };
const char* image_kind_name(ImageKind k);

struct CompiledImage {
    ImageKind kind = ImageKind::cubin;
    std::string bytes;                     // cubin ELF, or PTX text
    // launch-plan kernel name -> symbol in the image (mangled or extern "C")
    std::map<std::string, std::string> symbols;
    std::vector<std::string> entries;      // every entry point in the image
    std::string log;                       // full compiler log (warnings too)
    std::string path = "nvrtc";            // the backend that built it: "nvrtc", "nvcc" or "given" (cache hits too)
    std::string arch;
    double compile_ms = 0.0;               // wall time of this call
    double nvrtc_ms = 0.0;                 // time NVRTC took (0 if not tried); on a hit, the original build's
    double nvcc_ms = 0.0;                  // time nvcc took (0 if not tried); on a hit, the original build's
    bool cache_hit = false;
    std::string hash;                      // content key of the request
    std::string fallback_reason;           // path "nvcc": why NVRTC's result was not used
    // Contained traps (compiler/trap_containment.h): the flag's symbol in
    // the image; "" when its traps are not contained.
    std::string trap_flag;
    // The checked copies for the comparisons (compiler/fault_containment.h):
    // the entry that arms them; "" when the image has none. The copy of
    // kernel S is S + kCheckedSuffix, in the same image.
    std::string checked_arm;
    // The image holds the checked copies alone (CompileRequest::
    // comparisons_only): kernel S is only S + kCheckedSuffix, every run of
    // it is checked, and it cannot be timed.
    bool checked_only = false;
    // NVRTC built it with -Ofast-compile=mid, its assembly fully optimised
    // (CompilerConfig::comparisons_fast_compile): it was only to be compared.
    bool fast_compiled = false;
    // Triton kernels (path "triton", and given triton_binary images): what
    // Triton compiled; compiler/triton_launch.h derives the launch from it.
    std::string triton_metadata;                        // the metadata JSON Triton wrote
    std::vector<TritonSignatureEntry> triton_signature; // path "triton": the signature compiled
    std::string triton_ptx_entry;                       // path "triton": the PTX .entry declaration
    std::string triton_key;                             // path "triton": the specialisation key (TritonCompileSpec::key)
};

// Thrown when the code does not compile; what() is a one-paragraph summary
// naming the first error, log() the whole compiler output.
class CompileError : public Error {
public:
    CompileError(const std::string& summary, std::string log)
        : Error(KB_ERR_COMPILE, summary), log_(std::move(log)) {}
    const std::string& log() const { return log_; }

private:
    std::string log_;
};

// 8 GiB of memory (RLIMIT_DATA), 180 s of CPU per process, 1 GiB per file written.
ProcessLimits default_compile_limits();

struct CompilerConfig {
    std::string cuda_home;   // toolkit root: include/, include/cccl, bin/nvcc
    std::string cache_dir;   // "" for a memory-only cache
    double timeout_s = 300;  // wall clock per compile (NVRTC and nvcc each); 0: none
    // Every compiler process kbench starts (nvcc and what it runs; compile
    // workers take the memory cap): memory (RLIMIT_DATA), CPU seconds per process,
    // the largest file it may write. The kernel enforces them.
    ProcessLimits process_limits = default_compile_limits();
    size_t memory_cache_entries = 4096;  // images kept in memory (oldest dropped first)
    // NVRTC's automatic precompiled headers for sources that include the
    // heavy CCCL headers (CUB, libcu++, cooperative groups, curand): the
    // second compile with the same includes in a process takes ~0.3 s, not ~1.5 s.
    bool nvrtc_pch = true;
    // NVRTC's -minimal (CUDA 12.4+) for sources that name nothing it leaves
    // out (compiler/nvrtc_minimal.h): on an H100 host a small kernel's
    // compile took 9-11 ms instead of 16-18. A -minimal compile that fails
    // on a name it leaves out is compiled again without it, so the verdict
    // is the full compile's. $KBENCH_NVRTC_MINIMAL=0 turns it off.
    bool nvrtc_minimal = true;
    // A cubin target is compiled to PTX whose trap instructions set a flag
    // and end the thread instead (compiler/trap_containment.h), and the
    // worker's driver assembles it. ContextOptions::contain_traps;
    // $KBENCH_CONTAIN_TRAPS=1 or 0 overrides it.
    bool contain_traps = false;
    // Without contain_traps, a build that is only compared (CompileRequest::
    // comparisons_only: a correctness-only score) is still contained, as its
    // checked copies alone; a build that may be timed stays plain. In a
    // correctness-only batch the copies cost a few percent (153.5 against
    // 159.3 verdicts a second on an H200 host, bench/RESULTS.md, session
    // 28), and a crash or an endless loop then costs milliseconds and no
    // worker: a stream with 10% crashing and 2% hanging candidates kept
    // 0.64-0.68 of its clean rate, against 0.14-0.15 plain.
    // ContextOptions::contain_comparisons; $KBENCH_CONTAIN_TRAPS=0 turns both off.
    bool contain_comparisons = false;
    // With contain_traps: a second, checked build of each kernel for its
    // comparisons (compiler/fault_containment.h). $KBENCH_CHECKED_BUILD=0
    // leaves it out (for measuring what it changes), and with it the
    // containment of contain_comparisons.
    bool checked_build = true;
    // A build that is only compared (CompileRequest::comparisons_only, a
    // correctness-only score) is compiled by NVRTC with -Ofast-compile=mid:
    // NVVM leaves out its costly optimisations, ptxas still optimises fully
    // (-Xptxas --Ofast-compile=0, so registers stay near the full build's);
    // where the build is checked copies alone (contained), ptxas works at
    // --Ofast-compile=mid. Either may use more registers than the full
    // build; one that a block of its launches could not hold is compiled
    // again in full (NvrtcBackend::compile).
    // It costs the three small bench tasks' compiles about a fifth less
    // CPU time. The optimisations left out keep the program's meaning; the
    // rounding of a result may differ where NVVM fuses fewer multiply-adds
    // (a gelu kernel: 16 fused of 20), as between two
    // compilers, which the comparisons' tolerances are for. Never used for
    // a build that is timed. $KBENCH_FAST_COMPILE=0 turns it off.
    bool comparisons_fast_compile = true;
    // Triton (docs/triton.md): the Python interpreter with `triton` installed
    // ("" : $KBENCH_PYTHON, else python3 on PATH), the compile worker script
    // ("" : $KBENCH_TRITON_WORKER, else the installed or source-tree copy),
    // how many compile workers may run at once (0: 2, or $KBENCH_TRITON_WORKERS),
    // the deadline of one Triton compile, and each worker's memory cap (RLIMIT_DATA).
    std::string python;
    std::string triton_worker_script;
    size_t triton_workers = 0;
    double triton_timeout_s = 120;
    size_t triton_memory_mb = 8192;
};

// Where the compile service runs the backends that would otherwise run
// inside this process (NVRTC: a compiler crash or endless template recursion
// would take the host down or stall it). A pool of compile worker processes
// implements it (src/worker_host/compile_pool.h); the service keeps the cache
// and the fallback rules, the sandbox only builds.
class CompileSandbox {
public:
    virtual ~CompileSandbox() = default;
    // Builds `request` afresh (no cache) in a contained process. Thread-safe.
    // Throws CompileError when the code does not compile or the compiler
    // crashed or hung on it (the message says which); kb::Error otherwise.
    virtual CompiledImage build(const CompileRequest& request) = 0;
    // Hangs up on the sandbox's processes without waiting for them to end
    // (a process about to exit: Context::end_without_waiting).
    virtual void let_go() {}
};

// The default toolkit root: $CUDA_HOME, $CUDA_PATH, then the build-time toolkit.
std::string default_cuda_home();

}  // namespace kb
