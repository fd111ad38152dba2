// kbench-compat: kernels=unary_kernel<SigmoidOp>,unary_kernel<SiluOp>
// kbench-compat: expect=accept
struct SigmoidOp {
    __device__ float operator()(float x) const { return 1.f / (1.f + __expf(-x)); }
};
struct SiluOp {
    __device__ float operator()(float x) const { return x / (1.f + __expf(-x)); }
};

template <typename Op>
__global__ void unary_kernel(const float* __restrict__ in, float* __restrict__ out, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}

template <typename Op>
void launch_unary(const float* in, float* out, int n) {
    unary_kernel<<<(n + 255) / 256, 256>>>(in, out, n, Op{});
}

void sigmoid(const float* in, float* out, int n) { launch_unary<SigmoidOp>(in, out, n); }
void silu(const float* in, float* out, int n) { launch_unary<SiluOp>(in, out, n); }
