// The compile service: request in, loadable image (cubin or PTX) out.
//
//   CUDA C++ ── NVRTC with nvcc's conveniences ──────────────┐
//                   │ defers (nvcc-only code, rejected,     ├─ image
//                   │ kernel only host code instantiates)   │
//                   └──────────── nvcc fallback ────────────┘
//   PTX / cubin / Triton cubin ── given-image backend ───────── image
//   Triton source ── Triton backend (Python compile workers) ── image
//
// Backends (compile_backend.h) are chosen by the request's language and the
// fallback rules; the results of all of them go through one content-addressed
// cache (compile_cache.h). Pure: no device, any thread, any process (a
// compile worker, or the host).
#pragma once

#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/compile_cache.h"
#include "compiler/compile_types.h"
#include "compiler/given_backend.h"
#include "compiler/nvcc_backend.h"
#include "compiler/nvrtc_backend.h"
#include "compiler/triton_backend.h"

namespace kb {

class Compiler {
public:
    // `sandbox`: where requests that need an in-process backend (NVRTC) are
    // built; null: in this process.
    explicit Compiler(CompilerConfig config, std::shared_ptr<CompileSandbox> sandbox = nullptr);
    ~Compiler();

    // Compiles (or fetches from the cache). Thread-safe.
    // Throws CompileError, or kb::Error for everything that is not the code's fault.
    CompiledImage compile(const CompileRequest& request);
    // Builds in this process with the backends, without the cache (what a
    // compile worker does for the host's service).
    CompiledImage compile_fresh(const CompileRequest& request);
    // Whether compiles run in a sandbox (compile workers).
    bool sandboxed() const { return sandbox_ != nullptr; }
    // Hangs up on the sandbox's compile workers without waiting for them
    // (CompileSandbox::let_go); compiles after it start fresh ones.
    void let_go() {
        if (sandbox_) sandbox_->let_go();
    }

    // NVRTC's version as "13.0"; "" if unavailable.
    static std::string nvrtc_version();
    // Whether a compiler of `config` contains traps: its choice, or
    // $KBENCH_CONTAIN_TRAPS's (compiler/trap_containment.h).
    static bool traps_contained(const CompilerConfig& config);
    // Whether candidates' faults and endless loops are contained too (their
    // comparisons run checked builds, compiler/fault_containment.h), in
    // every build: a timed candidate's crash keeps its worker as well.
    static bool faults_contained(const CompilerConfig& config);
    // What a compiler of `config` contains, after $KBENCH_CONTAIN_TRAPS and
    // $KBENCH_CHECKED_BUILD: "all" (traps, faults and loops of every build),
    // "traps" (traps only), "comparisons" (builds only compared) or "none".
    static std::string containment_name(const CompilerConfig& config);
    const CompilerConfig& config() const { return config_; }
    // Include directories handed to NVRTC (the toolkit's include and cccl folders).
    std::vector<std::string> include_dirs() const { return nvrtc_.include_dirs(); }

    // The options NVRTC gets for `request`, and the flags nvcc gets for the
    // fallback; a compatibility check that runs nvcc itself should use the same.
    std::vector<std::string> nvrtc_options(const CompileRequest& request) const { return nvrtc_.options(request); }
    static std::vector<std::string> nvcc_flags(const CompileRequest& request) { return NvccBackend::flags(request); }
    // <cuda_home>/bin/nvcc, or "" when there is none.
    std::string nvcc_path() const { return nvcc_.path(); }
    // The content key of a request (SHA-256 hex): what the cache is keyed by.
    std::string cache_key(const CompileRequest& request) const;
    // The Triton backend (its compile workers start on first use).
    TritonBackend& triton_backend() { return triton_; }

private:
    // The backends that may build `request`, in the order they are tried.
    std::vector<const CompileBackend*> backends_for(const CompileRequest& request) const;
    // Fresh, in the sandbox when a backend it needs runs in-process.
    CompiledImage build(const CompileRequest& request);
    CompiledImage compile_cuda(const CompileRequest& request);

    CompilerConfig config_;
    NvccBackend nvcc_;
    NvrtcBackend nvrtc_;
    GivenImageBackend given_;
    TritonBackend triton_;
    CompileCache cache_;
    std::shared_ptr<CompileSandbox> sandbox_;
    std::mutex mutex_;
    // Compiles under way, so that two threads asking for the same key share one.
    std::unordered_map<std::string, std::shared_future<CompiledImage>> in_flight_;
};

}  // namespace kb
