// attention_causal_f16 baseline, the softmax between two cuBLAS GEMMs (the
// unfused "math" attention a framework runs without a fused kernel):
//   1. cuBLAS: S = q k^T per (b, h), f16 in, f32 out        (built-in step)
//   2. this kernel: P = softmax(S * scale) over j <= i, 0 for j > i, in f16
//   3. cuBLAS: o = P v per (b, h), f32 accumulation, f16 out (built-in step)
// One block of 256 threads per row of S; each thread keeps up to
// ROW_MAX / 256 scores in registers, so a row is read once and written once.
// Warp shuffles, then one value per warp through shared memory, reduce the
// maximum and the sum.
#include <cuda_fp16.h>

#define THREADS 256
#define PER_THREAD 16  // rows of up to 4096 keys

__device__ float block_reduce(float x, bool is_max, float* shared) {
    for (int off = 16; off > 0; off /= 2) {
        const float y = __shfl_xor_sync(0xffffffffu, x, off);
        x = is_max ? fmaxf(x, y) : x + y;
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    __syncthreads();  // shared is free (a previous reduction has been read)
    if (lane == 0) shared[warp] = x;
    __syncthreads();
    x = shared[0];
    for (int w = 1; w < THREADS / 32; ++w) x = is_max ? fmaxf(x, shared[w]) : x + shared[w];
    return x;
}

extern "C" __global__ void __launch_bounds__(THREADS) causal_softmax(const float* scores, __half* probs, int S, int D) {
    __shared__ float shared[THREADS / 32];
    const size_t row = blockIdx.x;  // (b * H + h) * S + i
    const int i = int(row % S);
    const float* s = scores + row * S;
    __half* p = probs + row * S;
    const float scale = 1.0f / sqrtf((float)D);
    float x[PER_THREAD];
    float m = -3.402823466e38f;
#pragma unroll
    for (int r = 0; r < PER_THREAD; ++r) {
        const int j = threadIdx.x + r * THREADS;
        x[r] = j <= i ? s[j] * scale : -3.402823466e38f;
        m = fmaxf(m, x[r]);
    }
    m = block_reduce(m, true, shared);
    float l = 0.0f;
#pragma unroll
    for (int r = 0; r < PER_THREAD; ++r) {
        const int j = threadIdx.x + r * THREADS;
        x[r] = j <= i ? __expf(x[r] - m) : 0.0f;
        l += x[r];
    }
    l = block_reduce(l, false, shared);
    const float inv = 1.0f / l;
#pragma unroll
    for (int r = 0; r < PER_THREAD; ++r) {
        const int j = threadIdx.x + r * THREADS;
        if (j < S) p[j] = __float2half_rn(x[r] * inv);
    }
}
