// kbench-compat: kernels=swiglu_kernel
// kbench-compat: expect=accept
static __device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + __expf(-x)); }

static __device__ float silu(float x) { return x * sigmoidf(x); }

static __device__ __host__ inline int div_up(int a, int b) { return (a + b - 1) / b; }

// out[r, c] = silu(x[r, c]) * x[r, c + H] for x of shape [R, 2H].
__global__ void swiglu_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int H) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= R * H) return;
    int r = idx / H, c = idx % H;
    out[idx] = silu(x[r * 2 * H + c]) * x[r * 2 * H + c + H];
}

void swiglu(const float* x, float* out, int R, int H) {
    swiglu_kernel<<<div_up(R * H, 256), 256>>>(x, out, R, H);
}
