// mse_f32 reference: out = (1/n) sum_i (pred[i] - target[i])^2 (mean
// reduction, one f32 scalar). Two kernels: blocks of exactly 256 threads sum
// the squared differences of their slice in double into a scratch array of
// per-block partials (a shared-memory tree); then one block adds the
// partials in double and divides by n. Deterministic, and within one f32
// rounding of the exact mean.
#define BLOCK 256  // the launch plan's block size; the trees need a power of two

__device__ double block_sum(double v, double* red) {
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] += red[t + k];
        __syncthreads();
    }
    return red[0];
}

extern "C" __global__ void mse_partial_ref(const float* pred, const float* target, double* partial, int n) {
    __shared__ double red[BLOCK];
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    double d = i < n ? (double)pred[i] - (double)target[i] : 0.0;
    double s = block_sum(d * d, red);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

extern "C" __global__ void mse_final_ref(const double* partial, float* out, int partials, int n) {
    __shared__ double red[BLOCK];
    double s = 0.0;
    for (int i = threadIdx.x; i < partials; i += BLOCK) s += partial[i];
    s = block_sum(s, red);
    if (threadIdx.x == 0) out[0] = (float)(s / n);
}
