// softmax_f16 reference: row-wise softmax of x[rows, cols] (f16), computed in
// f32 and rounded once to f16: y[r][c] = exp(x[r][c] - m_r) / sum_c' exp(x[r][c'] - m_r).
// One block of exactly 256 threads per row, three passes (max, sum, write),
// each block-wide reduction a shared-memory tree, as softmax_f32's reference.
#include <cuda_fp16.h>

#define BLOCK 256  // the launch plan's block size; the trees need a power of two

extern "C" __global__ void softmax_f16_ref(const __half* x, __half* y, int rows, int cols) {
    __shared__ float red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const __half* xr = x + (size_t)row * cols;
    __half* yr = y + (size_t)row * cols;

    float m = __int_as_float(0xff800000);  // -inf
    for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, __half2float(xr[c]));
    red[t] = m;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] = fmaxf(red[t], red[t + k]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();  // everyone has read red[0] before red is reused

    float s = 0.0f;
    for (int c = t; c < cols; c += BLOCK) s += expf(__half2float(xr[c]) - m);
    red[t] = s;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] += red[t + k];
        __syncthreads();
    }
    s = red[0];

    for (int c = t; c < cols; c += BLOCK) yr[c] = __float2half_rn(expf(__half2float(xr[c]) - m) / s);
}
