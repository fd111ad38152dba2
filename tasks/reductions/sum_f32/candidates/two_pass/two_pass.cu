// sum_f32 / two_pass: a deterministic two-kernel reduction with its own
// launch plan (candidate.json beside this file): no atomics, no zero step.
//   pass 1: P = min(ceil_div(n, 256), 1024) blocks of 256 threads; block b
//           sums a grid-stride share of x into partials[b] (a scratch buffer
//           of P floats).
//   pass 2: one block of 1024 threads sums the P partials into out[0].
// The same inputs always give the same bits. It exercises scratch buffers,
// several kernels in one plan and an inline scalar argument.
// Expected verdict: pass (every case).

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

// Sums v over the block (blockDim.x a multiple of 32); the result is valid in thread 0.
__device__ float block_sum(float v) {
    __shared__ float partial[32];
    v = warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        v = warp_sum(lane < nwarps ? partial[lane] : 0.0f);
    }
    return v;
}

__global__ void sum_partials(const float* x, float* partials, int n) {
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void sum_final(const float* partials, float* out, int count) {
    float acc = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) out[0] = acc;
}
