// kbench-compat: kernels=softmax_kernel
// kbench-compat: expect=accept
#include <cfloat>
#include <cuda_runtime.h>

// One block per row, shared-memory tree reductions for max and sum.
__global__ void softmax_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
    extern __shared__ float sbuf[];
    const float* x = in + (size_t)blockIdx.x * cols;
    float* y = out + (size_t)blockIdx.x * cols;
    float local_max = -FLT_MAX;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) local_max = fmaxf(local_max, x[i]);
    sbuf[threadIdx.x] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sbuf[threadIdx.x] = fmaxf(sbuf[threadIdx.x], sbuf[threadIdx.x + s]);
        __syncthreads();
    }
    float row_max = sbuf[0];
    __syncthreads();
    float local_sum = 0.f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) local_sum += __expf(x[i] - row_max);
    sbuf[threadIdx.x] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sbuf[threadIdx.x] += sbuf[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.f / sbuf[0];
    for (int i = threadIdx.x; i < cols; i += blockDim.x) y[i] = __expf(x[i] - row_max) * inv;
}

void softmax_forward(const float* in, float* out, int rows, int cols) {
    const int threads = 256;
    softmax_kernel<<<rows, threads, threads * sizeof(float)>>>(in, out, cols);
}
