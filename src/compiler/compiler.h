// Turning a Program's code into a loadable image (cubin or PTX).
//
// The compiler is pure: request in, image (or a CompileError with the full
// log) out. It touches no device, so it runs on machines without a GPU, on
// any thread, and in any process (a worker, or a separate compile process).
#pragma once

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
};

enum class ImageKind { cubin, ptx };

struct CompiledImage {
    ImageKind kind = ImageKind::cubin;
    std::string bytes;                     // cubin ELF, or PTX text
    // launch-plan kernel name -> symbol in the image (mangled or extern "C")
    std::map<std::string, std::string> symbols;
    std::vector<std::string> entries;      // every entry point in the image
    std::string log;                       // full compiler log (warnings too)
    std::string path = "nvrtc";            // "nvrtc", "nvcc", "given", "cache"
    std::string arch;
    double compile_ms = 0.0;               // wall time of this call
    double nvrtc_ms = 0.0;                 // time NVRTC took (0 if not tried)
    double nvcc_ms = 0.0;                  // time nvcc took (0 if not tried)
    bool cache_hit = false;
    std::string hash;                      // content key of the request
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
};

class Compiler {
public:
    explicit Compiler(CompilerConfig config);
    ~Compiler();

    // Compiles (or fetches from the cache). Thread-safe.
    // Throws CompileError, or kb::Error for everything that is not the code's fault.
    CompiledImage compile(const CompileRequest& request);

    // NVRTC's version as "13.0"; "" if unavailable.
    static std::string nvrtc_version();
    const CompilerConfig& config() const { return config_; }
    // Include directories handed to NVRTC (the toolkit's include and cccl folders).
    std::vector<std::string> include_dirs() const;

private:
    CompilerConfig config_;
    std::mutex mutex_;
    std::unordered_map<std::string, CompiledImage> memory_cache_;
};

// The default toolkit root: $CUDA_HOME, $CUDA_PATH, then the build-time toolkit.
std::string default_cuda_home();

}  // namespace kb
