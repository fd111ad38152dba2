// kbench-compat: kernels=masked_max<float>,masked_max<int>
// kbench-compat: expect=accept
#include <limits>
#include <cstdint>

template <typename T>
constexpr T kLowest = std::numeric_limits<T>::lowest();

template <typename T>
__global__ void masked_max(const T* __restrict__ x, const uint8_t* __restrict__ mask, T* out, int n) {
    static_assert(std::numeric_limits<T>::is_specialized, "need numeric type");
    __shared__ T smem[256];
    T v = kLowest<T>;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        if (mask[i]) v = x[i] > v ? x[i] : v;
    smem[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && smem[threadIdx.x + s] > smem[threadIdx.x]) smem[threadIdx.x] = smem[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = smem[0];
}

template __global__ void masked_max<float>(const float*, const uint8_t*, float*, int);
template __global__ void masked_max<int>(const int*, const uint8_t*, int*, int);
