// kbench-compat: kernels=bitonic_sort_shared
// kbench-compat: expect=reject
// std::swap is not constexpr in C++17, so it stays a host function: nvcc
// rejects it in device code even with --expt-relaxed-constexpr.
#include <utility>

__global__ void bitonic_sort_shared(float* data) {
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned k = 2; k <= 256; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                bool up = (t & k) == 0;
                if ((s[t] > s[p]) == up) std::swap(s[t], s[p]);
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * 256 + t] = s[t];
}
