// NVRTC with nvcc's conveniences: the fast path for CUDA C++ (tens of
// milliseconds, no process, no GPU needed). The candidate's host code is set
// aside, device versions of the standard headers and a prelude stand in for
// what nvcc's implicit includes give device code (docs/compilation.md), and
// the launch plan's kernel names are resolved in the image.
//
// run_nvrtc below is one raw NVRTC compilation; NvrtcBackend is the policy
// around it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile_backend.h"

namespace kb {

struct NvrtcResult {
    bool ok = false;
    bool compile_error = false;  // the code's fault (NVRTC_ERROR_COMPILATION and kin)
    bool invalid_option = false; // NVRTC_ERROR_INVALID_OPTION: the options' fault
    std::string error;           // nvrtcGetErrorString of a failure
    std::string log;             // the program log, warnings included
    std::string image;           // cubin bytes or PTX text
    bool is_cubin = true;
    std::map<std::string, std::string> lowered;  // name expression -> lowered (mangled) name
    double ms = 0.0;
};

// Compiles `source`. `headers` are (include name, text) pairs; `name_expressions`
// are registered with nvrtcAddNameExpression before compiling and looked up
// with nvrtcGetLoweredName after. `want_cubin` fetches nvrtcGetCUBIN, else PTX.
// `timeout_s` > 0 cancels a compile that runs longer (NVRTC's flow callback).
NvrtcResult run_nvrtc(const std::string& source, const std::string& source_name,
                      const std::vector<std::string>& options,
                      const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::vector<std::string>& name_expressions, bool want_cubin, double timeout_s);

// "13.0", or "" when NVRTC cannot report a version.
std::string nvrtc_version_string();

// Two logs as one, separated by a newline.
std::string join_log(const std::string& a, const std::string& b);

// The most registers a thread may use for a block of `threads` to launch
// (64K registers a block, given out a warp at a time in units of 256): 64
// for 1024 threads, 72 for 896, 128 for 512, 255 for 256 or fewer. 0 (not
// known) or more than 1024: as for 1024.
int registers_for_block(int64_t threads);
// "" when each kernel the plan launches from `img` (a cubin; its checked
// copy too) uses no more registers than the largest block its launch steps
// give it allows (KernelSpec::max_block_threads); else, in words, the first
// that does. `copies_alone`: only a checked copy that does where its function
// (when the image holds it) does not. A PTX image: "" (the driver assembles it).
std::string launch_misfit(const CompiledImage& img, const LaunchExpectations& expect, bool copies_alone = false);

// Thrown by NvrtcBackend when nvcc should give the verdict instead: the
// source uses something NVRTC cannot judge as nvcc would, NVRTC rejected it,
// or a kernel the plan names is only instantiated by host code. Only thrown
// when the request allows the fallback and the backend was told one exists;
// otherwise NVRTC's own verdict stands. The compile service (compiler.cpp)
// catches it and asks nvcc.
class NvrtcDefers : public CompileError {
public:
    NvrtcDefers(const std::string& note, double nvrtc_ms, std::shared_ptr<CompileError> nvrtc_error)
        : CompileError(note, note), nvrtc_ms_(nvrtc_ms), nvrtc_error_(std::move(nvrtc_error)) {}
    // "kbench: NVRTC failed first: ...": why nvcc is asked, for the log.
    const std::string& note() const { return log(); }
    double nvrtc_ms() const { return nvrtc_ms_; }
    // NVRTC's own verdict, when it gave one (the answer if nvcc cannot run).
    const std::shared_ptr<CompileError>& nvrtc_error() const { return nvrtc_error_; }

private:
    double nvrtc_ms_;
    std::shared_ptr<CompileError> nvrtc_error_;
};

class NvrtcBackend : public CompileBackend {
public:
    // `nvcc_available`: a fallback exists, so NVRTC may defer to it.
    NvrtcBackend(CompilerConfig config, bool nvcc_available);

    std::string name() const override { return "nvrtc"; }
    // NVRTC's version and a hash of kbench's device headers and prelude.
    std::string version() const override;
    bool out_of_process() const override { return false; }
    // Throws CompileError (the code's verdict), NvrtcDefers (ask nvcc), or
    // kb::Error when NVRTC itself failed and there is no fallback.
    //
    // Builds that fit their launches: a build under fast_compiles() whose
    // registers a block of its launches could not hold (launch_misfit) is
    // compiled again at full optimisation, which uses what a timed score's
    // build uses, so a correctness-only score launches whatever a timed one
    // does. A checked copy that still needs more than its block may have,
    // where its function would not, is left out: the function is built
    // alone. The image's log says which happened and why.
    CompiledImage compile(const CompileRequest& request) override;

    // The options NVRTC gets for `request` (policy flags, architecture,
    // include folders, the prelude).
    std::vector<std::string> options(const CompileRequest& request) const;
    // Include directories handed to NVRTC (the toolkit's include and cccl folders).
    std::vector<std::string> include_dirs() const;
    // Whether NVRTC builds `request` with -Ofast-compile=mid: a cubin that
    // is only compared, under CompilerConfig::comparisons_fast_compile. The
    // cache key names it (compiler.cpp) exactly where this says yes.
    static bool fast_compiles(const CompilerConfig& config, const CompileRequest& request);
    // Whether NVRTC's PTX for `request` has its traps contained and is
    // assembled by kbench: every cubin build under contain_traps, and under
    // contain_comparisons a cubin that is only compared. The cache key
    // tells the two apart through version() and checked_copies_only().
    static bool contains(const CompilerConfig& config, const CompileRequest& request);
    // Whether the checked build of `request` holds the checked copies alone
    // (compiler/fault_containment.h): a cubin that is only compared, with
    // traps contained and the checked build on. The cache key names it
    // exactly where this says yes.
    static bool checked_copies_only(const CompilerConfig& config, const CompileRequest& request);

private:
    // One compile; `allow_fast` false leaves fast_compiles()'s options out,
    // `allow_checked` false the checked copies.
    CompiledImage compile_with(const CompileRequest& request, bool allow_fast, bool allow_checked);

    CompilerConfig config_;
    bool nvcc_available_;
};

}  // namespace kb
