// kbench-compat: kernels=clamp_cast_kernel<float, int8_t>
// kbench-compat: expect=accept
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/array>
#include <cstdint>

template <typename In, typename Out>
__global__ void clamp_cast_kernel(const In* __restrict__ x, Out* __restrict__ y, float scale, int n) {
    static_assert(cuda::std::is_integral<Out>::value, "integer output");
    constexpr float lo = static_cast<float>(cuda::std::numeric_limits<Out>::min());
    constexpr float hi = static_cast<float>(cuda::std::numeric_limits<Out>::max());
    cuda::std::array<float, 2> bounds{lo, hi};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = rintf(static_cast<float>(x[i]) * scale);
        y[i] = static_cast<Out>(fminf(fmaxf(v, bounds[0]), bounds[1]));
    }
}

template __global__ void clamp_cast_kernel<float, int8_t>(const float*, int8_t*, float, int);
