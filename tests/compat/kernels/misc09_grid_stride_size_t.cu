// kbench-compat: kernels=where_kernel
// kbench-compat: expect=accept
#include <cstddef>
#include <type_traits>

__global__ void where_kernel(const bool* __restrict__ cond, const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ out, std::size_t n) {
    static_assert(std::is_same<std::size_t, decltype(n)>::value, "size_t index");
    for (std::size_t i = blockIdx.x * (std::size_t)blockDim.x + threadIdx.x; i < n;
         i += (std::size_t)blockDim.x * gridDim.x) {
        out[i] = cond[i] ? a[i] : b[i];
    }
}
