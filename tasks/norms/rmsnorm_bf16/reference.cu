// rmsnorm_bf16 reference: for each row r of x[rows, cols] (bf16),
//   y[r][c] = x[r][c] / sqrt(sum_c' x[r][c']^2 / cols + eps) * w[c],
// computed in double from the bf16 values and rounded once to bf16 (through
// f32). One block of exactly 256 threads per row.
#include <cuda_bf16.h>

#define BLOCK 256  // the launch plan's block size; the tree needs a power of two

extern "C" __global__ void rmsnorm_bf16_ref(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int rows,
                                            int cols, float eps) {
    __shared__ double red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;
    double q = 0.0;
    for (int c = t; c < cols; c += BLOCK) {
        double v = __bfloat162float(xr[c]);
        q += v * v;
    }
    red[t] = q;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] += red[t + k];
        __syncthreads();
    }
    const double rstd = 1.0 / sqrt(red[0] / cols + (double)eps);
    for (int c = t; c < cols; c += BLOCK)
        yr[c] = __float2bfloat16_rn((float)((double)__bfloat162float(xr[c]) * rstd * (double)__bfloat162float(w[c])));
}
