// attention_causal_f16 / no_causal_mask.cu
// correct.cu without the mask: every query attends to all S keys, as a
// non-causal attention does. Row i = S - 1 (which sees every key anyway) is
// right; every earlier row mixes in later keys, which with the task's peaked
// softmax (scores of standard deviation 3) changes outputs by O(0.1).
// Passes only at S = 1.
// Expected verdict: wrong_answer
#include <cuda_fp16.h>

#define MAX_D 128

__global__ void attention_causal(const __half* q, const __half* k, const __half* v, __half* o, int B, int H, int S,
                                 int D) {
    const int i = blockIdx.x * 64 + threadIdx.x;
    if (threadIdx.x >= 64 || i >= S) return;
    const size_t head = blockIdx.y;
    const __half* qi = q + (head * S + i) * D;
    const __half* kh = k + head * S * D;
    const __half* vh = v + head * S * D;
    const float scale = 1.0f / sqrtf((float)D);
    float m = -3.402823466e38f;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < D; ++d) s = fmaf(__half2float(qi[d]), __half2float(kh[(size_t)j * D + d]), s);
        m = fmaxf(m, s * scale);
    }
    float acc[MAX_D];
    for (int d = 0; d < D; ++d) acc[d] = 0.0f;
    float l = 0.0f;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < D; ++d) s = fmaf(__half2float(qi[d]), __half2float(kh[(size_t)j * D + d]), s);
        const float p = expf(s * scale - m);
        l += p;
        for (int d = 0; d < D; ++d) acc[d] = fmaf(p, __half2float(vh[(size_t)j * D + d]), acc[d]);
    }
    for (int d = 0; d < D; ++d) o[(head * S + i) * D + d] = __float2half_rn(acc[d] / l);
}
