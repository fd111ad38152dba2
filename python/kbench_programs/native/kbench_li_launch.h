// Kernel launches of the host unit of a split load_inline build
// (kbench_cuda_split.py). The kernels live in a fatbinary the build links in
// (`kbench_li_image`); each kernel has a host stub of the same name,
// template arguments and parameters, so the stub's symbol is the kernel's
// mangled name. `launch(&stub, config, args...)` converts the arguments to
// the kernel's parameter types, as a `<<<...>>>` launch does, looks the
// kernel up by that name once, and launches it with cudaLaunchKernel, which
// records a failed launch where cudaGetLastError sees it, as `<<<...>>>`
// does.
#ifndef KBENCH_LI_LAUNCH_H
#define KBENCH_LI_LAUNCH_H
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

extern "C" const unsigned char kbench_li_image[];

namespace kbench_li {
namespace {

struct Launch {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    Launch(dim3 g, dim3 b, size_t s = 0, cudaStream_t st = 0) : grid(g), block(b), shared(s), stream(st) {}
};

[[noreturn]] inline void called_directly(const char* name) {
    throw std::runtime_error(std::string("the kernel ") + name + " was called as a host function");
}

// The kernel whose stub is at `stub`, or nullptr when the image or the
// kernel cannot be loaded: cudaLaunchKernel then fails, and records why.
inline const void* kernel_of(const void* stub) {
    static std::mutex mu;
    static std::unordered_map<const void*, const void*> found;
    static cudaLibrary_t library = nullptr;
    static bool loaded = false;
    std::lock_guard<std::mutex> hold(mu);
    auto it = found.find(stub);
    if (it != found.end()) return it->second;
    if (!loaded) {
        loaded = true;
        if (cudaLibraryLoadData(&library, kbench_li_image, nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess)
            library = nullptr;
    }
    cudaKernel_t kernel = nullptr;
    Dl_info info{};
    if (library == nullptr || dladdr(stub, &info) == 0 || info.dli_sname == nullptr ||
        cudaLibraryGetKernel(&kernel, library, info.dli_sname) != cudaSuccess)
        kernel = nullptr;
    found.emplace(stub, reinterpret_cast<const void*>(kernel));
    return reinterpret_cast<const void*>(kernel);
}

template <typename... P, typename... A>
void launch(void (*stub)(P...), const Launch& c, A&&... a) {
    static_assert(sizeof...(P) == sizeof...(A), "a kernel launched with the wrong number of arguments");
    std::tuple<std::decay_t<P>...> params(std::forward<A>(a)...);
    std::apply(
        [&](auto&... p) {
            void* args[] = {const_cast<void*>(static_cast<const void*>(&p))..., nullptr};
            (void)cudaLaunchKernel(kernel_of(reinterpret_cast<const void*>(stub)), c.grid, c.block, args, c.shared,
                                   c.stream);
        },
        params);
}

}  // namespace
}  // namespace kbench_li
#endif
