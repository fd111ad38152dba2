// kbench-compat: kernels=avgpool1d_kernel
// kbench-compat: expect=accept
constexpr int kKernel = 4;
constexpr int kStride = 2;

__host__ __device__ constexpr int out_len(int n) { return (n - kKernel) / kStride + 1; }
__device__ constexpr float inv(int k) { return 1.0f / k; }
constexpr float kInvKernel = inv(kKernel);

__global__ void avgpool1d_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= out_len(n)) return;
    float s = 0.f;
    static_assert(out_len(10) == 4, "pool length");
#pragma unroll
    for (int k = 0; k < kKernel; ++k) s += x[o * kStride + k];
    y[o] = s * kInvKernel;
}
