// kbench-compat: kernels=block_max_kernel
// kbench-compat: expect=reject
// cub::Max was removed in CCCL 3 (CUDA 13); older model outputs still use it.
#include <cub/cub.cuh>

__global__ void block_max_kernel(const float* x, float* out, int n) {
    typedef cub::BlockReduce<float, 256> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int i = blockIdx.x * 256 + threadIdx.x;
    float v = i < n ? x[i] : -1e30f;
    float m = BlockReduce(temp).Reduce(v, cub::Max());
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}
