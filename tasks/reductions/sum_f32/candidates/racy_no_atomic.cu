// sum_f32 / racy_no_atomic.cu
// Reduces each block correctly but adds the block sum to the output with a
// plain read-modify-write (*out += s) instead of atomicAdd. Blocks that run
// concurrently read the same old value and overwrite each other's update, so
// block sums are lost. With one block (n <= 256) there is no race and the
// result is right; at n = 100003 (391 blocks) and the perf size (65536
// blocks) most contributions vanish: errors of tens of percent, far outside
// rtol 1e-4.
// Expected verdict: wrong_answer (multi-block cases).
// Emulator: not checked (the emulator runs blocks one after another, so there is no race to lose updates).

__global__ void sum(const float* x, float* out, int n) {
    __shared__ float red[256];
    const int t = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + t;
    red[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) {
        volatile float* o = out;
        *o = *o + red[0];  // the race: not atomic
    }
}
