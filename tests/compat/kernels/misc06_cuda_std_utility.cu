// kbench-compat: kernels=minmax_pair_kernel
// kbench-compat: expect=accept
#include <cuda/std/utility>
#include <cuda/std/cmath>
#include <cuda/std/functional>
#include <cuda/std/limits>

__device__ cuda::std::pair<float, float> combine(cuda::std::pair<float, float> a, cuda::std::pair<float, float> b) {
    return {cuda::std::fmin(a.first, b.first), cuda::std::fmax(a.second, b.second)};
}

__global__ void minmax_pair_kernel(const float* __restrict__ x, float2* __restrict__ out, int n) {
    cuda::std::pair<float, float> acc{cuda::std::numeric_limits<float>::infinity(), -cuda::std::numeric_limits<float>::infinity()};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc = combine(acc, cuda::std::make_pair(x[i], x[i]));
    for (int o = 16; o > 0; o >>= 1) {
        cuda::std::pair<float, float> other{__shfl_down_sync(~0u, acc.first, o), __shfl_down_sync(~0u, acc.second, o)};
        acc = combine(acc, other);
    }
    if ((threadIdx.x & 31) == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = make_float2(acc.first, acc.second);
}
