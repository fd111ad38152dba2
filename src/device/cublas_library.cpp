#include "device/cublas_library.h"

#include <dlfcn.h>

#include <cstdlib>

#include "util/error.h"

#ifndef KB_BUILD_CUDA_HOME
#define KB_BUILD_CUDA_HOME ""
#endif

namespace kb {
namespace {

constexpr const char* kEnvVar = "KBENCH_CUBLAS_LIBRARY";
const char* const kSonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};

// Resolves every entry point; returns the first missing one, or "".
std::string resolve(void* lib, CublasLibrary& c) {
#define KB_CUBLAS_RESOLVE(name, required)                                         \
    c.name = reinterpret_cast<decltype(c.name)>(::dlsym(lib, #name));            \
    if (required && !c.name) return #name;
    KB_CUBLAS_RESOLVE(cublasCreate_v2, true)
    KB_CUBLAS_RESOLVE(cublasDestroy_v2, true)
    KB_CUBLAS_RESOLVE(cublasGetVersion_v2, true)
    KB_CUBLAS_RESOLVE(cublasSetStream_v2, true)
    KB_CUBLAS_RESOLVE(cublasSetWorkspace_v2, true)
    KB_CUBLAS_RESOLVE(cublasSetMathMode, true)
    KB_CUBLAS_RESOLVE(cublasGemmEx, true)
    KB_CUBLAS_RESOLVE(cublasGemmStridedBatchedEx, true)
    KB_CUBLAS_RESOLVE(cublasGetStatusName, false)
    KB_CUBLAS_RESOLVE(cublasGetStatusString, false)
#undef KB_CUBLAS_RESOLVE
    return "";
}

struct Loaded {
    CublasLibrary lib;
    std::string error;  // empty when loaded
};

const Loaded& loaded() {
    static const Loaded l = [] {
        Loaded out;
        CublasLibrary::load(cublas_search_list(), &out.lib, &out.error);
        return out;
    }();
    return l;
}

}  // namespace

std::vector<std::string> cublas_search_list() {
    const char* env = std::getenv(kEnvVar);
    if (env && *env) return {env};
    std::vector<std::string> names(std::begin(kSonames), std::end(kSonames));
    std::vector<std::string> homes;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) homes.push_back(v);
    if (*KB_BUILD_CUDA_HOME) homes.push_back(KB_BUILD_CUDA_HOME);
    for (const std::string& home : homes)
        for (const char* so : kSonames) {
            std::string p = home + "/lib64/" + so;
            bool seen = false;
            for (const std::string& n : names) seen = seen || n == p;
            if (!seen) names.push_back(p);
        }
    return names;
}

bool CublasLibrary::load(const std::vector<std::string>& names, CublasLibrary* out, std::string* why) {
    std::string tried;
    for (const std::string& name : names) {
        void* lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* e = ::dlerror();
            tried += "\n  " + name + ": " + (e ? e : "not loadable");
            continue;
        }
        CublasLibrary c;
        std::string missing = resolve(lib, c);
        if (!missing.empty()) {
            // Too old (before cuBLAS 11) or not cuBLAS at all; keep looking.
            tried += "\n  " + name + ": loaded, but it lacks " + missing + " (cuBLAS 11 or newer is needed)";
            ::dlclose(lib);
            continue;
        }
        // Stays loaded for the life of the process, like the driver: handles
        // live as long as device contexts.
        c.path = name;
        *out = c;
        return true;
    }
    *why = "cuBLAS could not be loaded, and the task's baseline calls it (a built-in cublas_gemm step). Tried:" +
           tried +
           "\nInstall cuBLAS (it ships with the CUDA toolkit; on PyPI it is the nvidia-cublas wheel, "
           "nvidia-cublas-cu12 for CUDA 12) and make it findable through LD_LIBRARY_PATH, or set " +
           kEnvVar + " to the path of libcublas.so";
    return false;
}

const CublasLibrary& CublasLibrary::get() {
    const Loaded& l = loaded();
    if (!l.error.empty()) fail(KB_ERR_REFERENCE_FAILED, l.error);
    return l.lib;
}

std::string CublasLibrary::status_text(Status s) const {
    std::string out;
    if (cublasGetStatusName) out = cublasGetStatusName(s);
    else out = "cublasStatus_t " + std::to_string(s);
    if (cublasGetStatusString) out += std::string(" (") + cublasGetStatusString(s) + ")";
    return out;
}

}  // namespace kb
