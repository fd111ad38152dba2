#include "device/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

#include "device/no_device_advice.h"
#include "util/error.h"

namespace kb {
namespace {

typedef CUresult (*GetProcAddressFn)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

struct Loaded {
    CudaDriver driver;
    std::string error;  // empty when loaded
};

Loaded load() {
    Loaded out;
    void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = ::dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = ::dlerror();
        out.error = with_compile_only_advice(std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
                                             (e ? e : "unknown") + "): install the NVIDIA driver");
        return out;
    }
    // The library stays loaded for the life of the process: unloading a
    // driver under live contexts is never safe.
    auto get_proc = reinterpret_cast<GetProcAddressFn>(::dlsym(lib, "cuGetProcAddress_v2"));
    if (!get_proc) {
        out.error = "the CUDA driver is too old: it lacks cuGetProcAddress_v2 (CUDA 12.0 or newer is needed)";
        return out;
    }
    CudaDriver& d = out.driver;
#define KB_RESOLVE(name)                                                                                  \
    {                                                                                                     \
        void* p = nullptr;                                                                                \
        CUdriverProcAddressQueryResult found;                                                             \
        if (get_proc(#name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS || !p) { \
            out.error = std::string("the CUDA driver does not provide ") + #name +                        \
                        " for CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +                        \
                        std::to_string(CUDA_VERSION % 1000 / 10) + "; update the NVIDIA driver";          \
            return out;                                                                                   \
        }                                                                                                 \
        d.name = reinterpret_cast<decltype(d.name)>(p);                                                   \
    }
    KB_CUDA_DRIVER_FUNCTIONS(KB_RESOLVE)
#undef KB_RESOLVE
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char* name = nullptr;
        d.cuGetErrorName(r, &name);
        out.error = std::string("cuInit failed: ") + (name ? name : "unknown error") +
                    (r == CUDA_ERROR_NO_DEVICE ? " (no CUDA device is visible; check CUDA_VISIBLE_DEVICES)" : "");
        return out;
    }
    d.cuDriverGetVersion(&d.driver_version);
    return out;
}

const Loaded& loaded() {
    static Loaded l = load();
    return l;
}

}  // namespace

const CudaDriver* CudaDriver::try_get(std::string* why) {
    const Loaded& l = loaded();
    if (!l.error.empty()) {
        if (why) *why = l.error;
        return nullptr;
    }
    return &l.driver;
}

const CudaDriver& CudaDriver::get() {
    std::string why;
    const CudaDriver* d = try_get(&why);
    if (!d) fail(KB_ERR_NO_DEVICE, why);
    return *d;
}

std::string cuda_error_text(CUresult r) {
    const CudaDriver* d = CudaDriver::try_get(nullptr);
    const char* name = nullptr;
    const char* text = nullptr;
    if (d) {
        d->cuGetErrorName(r, &name);
        d->cuGetErrorString(r, &text);
    }
    std::string s = name ? name : "CUresult " + std::to_string(int(r));
    if (text) s += std::string(" (") + text + ")";
    return s;
}

bool cuda_error_is_sticky(CUresult r) {
    switch (r) {
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ECC_UNCORRECTABLE:
        case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        case CUDA_ERROR_UNKNOWN:
            return true;
        default:
            return false;
    }
}

void cuda_check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    fail(r == CUDA_ERROR_OUT_OF_MEMORY ? KB_ERR_OUT_OF_MEMORY : KB_ERR_CUDA,
         std::string(what) + ": " + cuda_error_text(r));
}

}  // namespace kb
