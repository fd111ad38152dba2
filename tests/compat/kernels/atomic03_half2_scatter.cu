// kbench-compat: kernels=scatter_add_half2,scatter_add_half
// kbench-compat: expect=accept
#include <cuda_fp16.h>

// index_add_ on half2 rows: out[idx[r], :] += src[r, :]
__global__ void scatter_add_half2(const __half2* __restrict__ src, const int* __restrict__ idx,
                                  __half2* __restrict__ out, int rows, int dim2) {
    int r = blockIdx.x;
    if (r >= rows) return;
    int dst = idx[r];
    for (int c = threadIdx.x; c < dim2; c += blockDim.x) atomicAdd(&out[dst * dim2 + c], src[r * dim2 + c]);
}

__global__ void scatter_add_half(const __half* __restrict__ src, const int* __restrict__ idx, __half* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&out[idx[i]], src[i]);
}
