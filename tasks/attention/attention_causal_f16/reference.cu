// attention_causal_f16 reference: causal scaled dot-product attention,
//   o[b][h][i] = sum over j <= i of softmax_j(q[b][h][i] . k[b][h][j] / sqrt(D)) * v[b][h][j]
// with q, k, v, o of shape [B, H, S, D], f16, contiguous; everything inside in
// f32 (scores, the softmax, the weighted sum), one rounding to f16 at the end.
// One block of 128 threads per query row (b, h, i), in three plain passes:
//   1. thread t computes the scores of keys j = t, t + 128, ... <= i (a
//      sequential f32 dot product over d each) into shared memory, and their
//      maximum; a shared-memory tree gives the row maximum m;
//   2. each score becomes e_j = exp(s_j - m), summed per thread, and a tree
//      gives the row sum l;
//   3. thread t computes output features d = t, t + 128, ... < D as
//      sum_j e_j v[j][d] over j = 0..i in order, divided by l.
// Dynamic shared memory holds the S scores of a row (the plan passes S * 4 bytes).
#include <cuda_fp16.h>

#define THREADS 128  // the launch plan's block

extern "C" __global__ void attention_causal_ref(const __half* q, const __half* k, const __half* v, __half* o, int B,
                                                int H, int S, int D) {
    extern __shared__ float scores[];  // S floats
    __shared__ float red[THREADS];
    const int t = threadIdx.x;
    const size_t row = blockIdx.x;  // (b * H + h) * S + i
    if (row >= (size_t)B * H * S) return;  // whole block: no thread reaches a barrier
    const int i = int(row % S);
    const size_t head = row / S;
    const __half* qi = q + row * D;
    const __half* kh = k + head * S * D;
    const __half* vh = v + head * S * D;
    const float scale = 1.0f / sqrtf((float)D);

    float m = -3.402823466e38f;  // below every score (|s| <= 9 sqrt(D) for the task's inputs)
    for (int j = t; j <= i; j += THREADS) {
        float s = 0.0f;
        for (int d = 0; d < D; ++d) s = fmaf(__half2float(qi[d]), __half2float(kh[(size_t)j * D + d]), s);
        s *= scale;
        scores[j] = s;
        m = fmaxf(m, s);
    }
    red[t] = m;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (t < w) red[t] = fmaxf(red[t], red[t + w]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();  // everyone has read red[0] before it is reused

    float l = 0.0f;
    for (int j = t; j <= i; j += THREADS) {
        const float e = expf(scores[j] - m);
        scores[j] = e;
        l += e;
    }
    red[t] = l;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (t < w) red[t] += red[t + w];
        __syncthreads();
    }
    l = red[0];

    for (int d = t; d < D; d += THREADS) {
        float acc = 0.0f;
        for (int j = 0; j <= i; ++j) acc = fmaf(scores[j], __half2float(vh[(size_t)j * D + d]), acc);
        o[row * D + d] = __float2half_rn(acc / l);
    }
}
