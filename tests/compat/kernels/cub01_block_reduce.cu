// kbench-compat: kernels=mse_loss_kernel
// kbench-compat: expect=accept
#include <cub/cub.cuh>

constexpr int BLOCK_THREADS = 256;

__global__ void mse_loss_kernel(const float* __restrict__ pred, const float* __restrict__ target, float* out, int n) {
    using BlockReduce = cub::BlockReduce<float, BLOCK_THREADS>;
    __shared__ typename BlockReduce::TempStorage temp_storage;
    float local = 0.f;
    for (int i = blockIdx.x * BLOCK_THREADS + threadIdx.x; i < n; i += BLOCK_THREADS * gridDim.x) {
        float d = pred[i] - target[i];
        local += d * d;
    }
    float block_sum = BlockReduce(temp_storage).Sum(local);
    if (threadIdx.x == 0) atomicAdd(out, block_sum / n);
}
