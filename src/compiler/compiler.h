// Turning a Program's code into a loadable image (cubin or PTX).
//
// The compiler is pure: request in, image (or a CompileError with the full
// log) out. It touches no device, so it runs on machines without a GPU, on
// any thread, and in any process (a worker, or a separate compile process).
#pragma once

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "task/task.h"
#include "util/error.h"

namespace kb {

struct CompileRequest {
    Language language = Language::cuda;
    std::string code;                       // source text or image bytes
    std::string source_name = "candidate.cu";
    std::vector<std::string> kernel_names;  // as the launch plan spells them
    CompilePolicy policy;
    std::string arch = "sm_90";             // "sm_XY" or "sm_XYa"
    bool emit_ptx = false;                  // PTX (compute_XY) instead of a cubin
    bool allow_nvcc_fallback = true;
    // Skip NVRTC and compile with nvcc (agreement checks, benchmarks, tests).
    bool force_nvcc = false;
    // Language::triton: Triton's metadata JSON for the cubin in `code`
    // (optional; when given, the kernel it names must be in the image).
    std::string triton_metadata;
};

enum class ImageKind { cubin, ptx };

struct CompiledImage {
    ImageKind kind = ImageKind::cubin;
    std::string bytes;                     // cubin ELF, or PTX text
    // launch-plan kernel name -> symbol in the image (mangled or extern "C")
    std::map<std::string, std::string> symbols;
    std::vector<std::string> entries;      // every entry point in the image
    std::string log;                       // full compiler log (warnings too)
    std::string path = "nvrtc";            // "nvrtc", "nvcc" or "given": how it was built (cache hits too)
    std::string arch;
    double compile_ms = 0.0;               // wall time of this call
    double nvrtc_ms = 0.0;                 // time NVRTC took (0 if not tried); on a hit, the original build's
    double nvcc_ms = 0.0;                  // time nvcc took (0 if not tried); on a hit, the original build's
    bool cache_hit = false;
    std::string hash;                      // content key of the request
    std::string fallback_reason;           // path "nvcc": why NVRTC's result was not used
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

struct CompilerConfig {
    std::string cuda_home;   // toolkit root: include/, include/cccl, bin/nvcc
    std::string cache_dir;   // "" for a memory-only cache
    double timeout_s = 300;  // per compile (NVRTC and nvcc each); 0: none
    size_t memory_cache_entries = 4096;  // images kept in memory (oldest dropped first)
    // NVRTC's automatic precompiled headers for sources that include the
    // heavy CCCL headers (CUB, libcu++, cooperative groups, curand): the
    // second compile with the same includes in a process takes ~0.3 s, not ~1.5 s.
    bool nvrtc_pch = true;
};

// Anything that turns a request into an image: the Compiler below, in this
// process, or a pool of compile worker processes (src/worker_host/). The
// engine holds one and does not care which.
class CompileService {
public:
    virtual ~CompileService() = default;
    // Thread-safe. Throws CompileError when the code does not compile, or
    // kb::Error for everything that is not the code's fault.
    virtual CompiledImage compile(const CompileRequest& request) = 0;
};

class Compiler : public CompileService {
public:
    explicit Compiler(CompilerConfig config);
    ~Compiler() override;

    // Compiles (or fetches from the cache). Thread-safe.
    // Throws CompileError, or kb::Error for everything that is not the code's fault.
    CompiledImage compile(const CompileRequest& request) override;

    // NVRTC's version as "13.0"; "" if unavailable.
    static std::string nvrtc_version();
    const CompilerConfig& config() const { return config_; }
    // Include directories handed to NVRTC (the toolkit's include and cccl folders).
    std::vector<std::string> include_dirs() const;

    // The options NVRTC gets for `request` (policy flags, architecture, include
    // folders, the prelude), and the flags nvcc gets for the fallback; a
    // compatibility check that runs nvcc itself should use the same flags.
    std::vector<std::string> nvrtc_options(const CompileRequest& request) const;
    static std::vector<std::string> nvcc_flags(const CompileRequest& request);
    // <cuda_home>/bin/nvcc, or "" when there is none.
    std::string nvcc_path() const;
    // The content key of a request (SHA-256 hex): what the cache is keyed by.
    std::string cache_key(const CompileRequest& request) const;

private:
    CompiledImage compile_uncached(const CompileRequest& request);
    CompiledImage compile_cuda(const CompileRequest& request);
    bool load_from_disk(const std::string& key, CompiledImage& out) const;
    void store_to_disk(const std::string& key, const CompiledImage& image) const;
    void remember(const std::string& key, const CompiledImage& image);

    CompilerConfig config_;
    std::mutex mutex_;
    std::unordered_map<std::string, CompiledImage> memory_cache_;
    std::deque<std::string> memory_order_;  // insertion order, for eviction
    // Compiles under way, so that two threads asking for the same key share one.
    std::unordered_map<std::string, std::shared_future<CompiledImage>> in_flight_;
};

// A Triton-compiled kernel's metadata, as Triton writes it next to the cubin
// (the JSON of `CompiledKernel.metadata`, e.g. the `.json` in Triton's cache):
// {"name": "add_kernel", "num_warps": 4, "shared": 0, "num_ctas": 1, ...}.
// A launch uses block = 32 * num_warps threads and `shared` bytes of dynamic
// shared memory.
struct TritonKernelInfo {
    std::string name;    // the entry symbol in the cubin
    int num_warps = 4;
    int shared = 0;      // dynamic shared memory, bytes
    int num_ctas = 1;
    int threads_per_block() const { return 32 * num_warps; }
};
// Parses Triton's metadata JSON. Throws kb::Error(KB_ERR_INVALID_ARGUMENT)
// naming the field when it is not an object with a string "name" and
// non-negative integers "num_warps" (> 0) and "shared".
TritonKernelInfo parse_triton_metadata(const std::string& json);

// The default toolkit root: $CUDA_HOME, $CUDA_PATH, then the build-time toolkit.
std::string default_cuda_home();

}  // namespace kb
