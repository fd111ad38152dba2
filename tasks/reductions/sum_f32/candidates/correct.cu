// sum_f32 / correct.cu
// Grid-stride accumulation per thread (so any grid works; the default plan's
// ceil_div(n, 256) blocks give one element a thread), warp-shuffle reduction,
// per-warp partials through shared memory, one atomicAdd per block onto the
// output the plan has zeroed. Works for any block size that is a multiple of
// 32, up to 1024.
// Expected verdict: pass (every case; the result differs from the reference
// in the last bits, well inside rtol 1e-4).

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;  // lane 0 holds the warp's sum
}

__global__ void sum(const float* x, float* out, int n) {
    __shared__ float partial[32];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];
    acc = warp_sum(acc);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        acc = warp_sum(lane < nwarps ? partial[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, acc);
    }
}
