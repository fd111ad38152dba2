#include "compiler/ptx_assembler.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <vector>

#include "compiler/arch.h"
#include "util/clock.h"
#include "util/profile.h"

namespace kb {
namespace {

// nvJitLink's C interface, declared here instead of including nvJitLink.h,
// whose inline wrappers name version-suffixed symbols; the library also
// exports the plain names (CUDA 12.0 and later).
using Handle = void*;
constexpr int kSuccess = 0;
constexpr int kInputPtx = 2;  // NVJITLINK_INPUT_PTX
struct Api {
    int (*create)(Handle*, uint32_t, const char* const*) = nullptr;
    int (*destroy)(Handle*) = nullptr;
    int (*add_data)(Handle, int, const void*, size_t, const char*) = nullptr;
    int (*complete)(Handle) = nullptr;
    int (*cubin_size)(Handle, size_t*) = nullptr;
    int (*cubin)(Handle, void*) = nullptr;
    int (*error_log_size)(Handle, size_t*) = nullptr;
    int (*error_log)(Handle, char*) = nullptr;
    int (*info_log_size)(Handle, size_t*) = nullptr;
    int (*info_log)(Handle, char*) = nullptr;
    std::string error;
};

const Api& api(const std::string& cuda_home) {
    static Api a;
    static std::once_flag once;
    std::call_once(once, [&] {
        void* lib = nullptr;
        for (const std::string& name : {cuda_home + "/lib64/libnvJitLink.so", cuda_home + "/lib64/libnvJitLink.so.13",
                                        cuda_home + "/lib64/libnvJitLink.so.12", std::string("libnvJitLink.so"),
                                        std::string("libnvJitLink.so.13"), std::string("libnvJitLink.so.12")})
            if ((lib = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) {
            a.error = "libnvJitLink.so was not found in " + cuda_home + "/lib64 nor on the library path";
            return;
        }
        auto sym = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
            if (!fn && a.error.empty()) a.error = std::string("libnvJitLink has no ") + name;
        };
        sym(a.create, "nvJitLinkCreate");
        sym(a.destroy, "nvJitLinkDestroy");
        sym(a.add_data, "nvJitLinkAddData");
        sym(a.complete, "nvJitLinkComplete");
        sym(a.cubin_size, "nvJitLinkGetLinkedCubinSize");
        sym(a.cubin, "nvJitLinkGetLinkedCubin");
        sym(a.error_log_size, "nvJitLinkGetErrorLogSize");
        sym(a.error_log, "nvJitLinkGetErrorLog");
        sym(a.info_log_size, "nvJitLinkGetInfoLogSize");
        sym(a.info_log, "nvJitLinkGetInfoLog");
    });
    return a;
}

std::string read_log(Handle h, int (*size_fn)(Handle, size_t*), int (*log_fn)(Handle, char*)) {
    size_t n = 0;
    if (size_fn(h, &n) != kSuccess || n <= 1) return "";
    std::string s(n, '\0');
    if (log_fn(h, &s[0]) != kSuccess) return "";
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
}

}  // namespace

PtxAssembly assemble_ptx(const std::string& cuda_home, const std::string& ptx, const std::string& arch,
                         int max_registers, const std::vector<std::string>& extra_options) {
    KB_PROFILE_SPAN("nvjitlink.assemble_ptx");
    PtxAssembly out;
    const Api& a = api(cuda_home);
    if (!a.error.empty()) {
        out.why_unavailable = a.error;
        return out;
    }
    out.available = true;
    auto t0 = SteadyClock::now();
    Arch parsed = parse_arch(arch);
    std::vector<std::string> opts = {"-arch=sm_" + parsed.digits + parsed.suffix};
    if (max_registers > 0) opts.push_back("-maxrregcount=" + std::to_string(max_registers));
    opts.insert(opts.end(), extra_options.begin(), extra_options.end());
    // nvJitLink keeps a cache of its links (the driver's JIT cache,
    // ~/.nv/ComputeCache, bounded in size): a contained candidate's PTX is
    // new every time (its trap flag's name holds a nonce), so each link
    // added an entry no one runs again and pushed the user's own out, for a
    // lookup that never hits (0.2 ms of a 10 ms link on two H200s' host,
    // bench/nvrtc_cache_probe.cpp). kbench's own compile cache holds what
    // is worth keeping. An nvJitLink without the option is asked again
    // without it.
    static std::atomic<bool> no_cache_known_bad{false};
    const bool no_cache = !no_cache_known_bad.load(std::memory_order_relaxed);
    if (no_cache) opts.push_back("-no-cache");
    std::vector<const char*> argv;
    for (const std::string& o : opts) argv.push_back(o.c_str());
    Handle h = nullptr;
    int created = a.create(&h, uint32_t(argv.size()), argv.data());
    if (created != kSuccess && no_cache) {
        no_cache_known_bad = true;
        argv.pop_back();
        h = nullptr;
        created = a.create(&h, uint32_t(argv.size()), argv.data());
    }
    if (created != kSuccess) {
        out.log = "nvJitLink could not start for " + opts[0];
        return out;
    }
    int r = a.add_data(h, kInputPtx, ptx.data(), ptx.size(), "candidate.ptx");
    if (r == kSuccess) r = a.complete(h);
    out.log = read_log(h, a.error_log_size, a.error_log);
    std::string info = read_log(h, a.info_log_size, a.info_log);
    if (!info.empty()) out.log += (out.log.empty() ? "" : "\n") + info;
    if (r == kSuccess) {
        size_t n = 0;
        if (a.cubin_size(h, &n) == kSuccess && n > 0) {
            out.cubin.resize(n);
            out.ok = a.cubin(h, &out.cubin[0]) == kSuccess;
        }
        if (!out.ok) out.log += (out.log.empty() ? "" : "\n") + std::string("nvJitLink produced no cubin");
    }
    a.destroy(&h);
    out.ms = ms_since(t0);
    return out;
}

}  // namespace kb
