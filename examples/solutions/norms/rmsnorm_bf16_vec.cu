// Example solution for tasks/norms/rmsnorm_bf16: one block of 256 threads per
// row; bf16 pairs (__nv_bfloat162, 4-byte loads) when cols is even, squares
// summed in f32, warp shuffles and one shared-memory step for the row's mean
// square, then the row scaled in a second pass (it is still in L2). Launched
// with the task's default plan.
// Expected verdict: pass
#include <cuda_bf16.h>

__global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int rows, int cols,
                             float eps) {
    __shared__ float warp_sums[8];
    __shared__ float row_rstd;
    const __nv_bfloat16* xr = x + (size_t)blockIdx.x * cols;
    __nv_bfloat16* yr = y + (size_t)blockIdx.x * cols;
    const bool pairs = cols % 2 == 0;
    float q = 0.0f;
    if (pairs) {
        const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(xr);
        for (int c = threadIdx.x; c < cols / 2; c += 256) {
            float2 v = __bfloat1622float2(x2[c]);
            q += v.x * v.x + v.y * v.y;
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += 256) {
            float v = __bfloat162float(xr[c]);
            q += v * v;
        }
    }
    for (int d = 16; d > 0; d >>= 1) q += __shfl_xor_sync(0xffffffffu, q, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = q;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < 8; ++k) total += warp_sums[k];
        row_rstd = rsqrtf(total / cols + eps);
    }
    __syncthreads();
    const float rstd = row_rstd;
    if (pairs) {
        const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(xr);
        const __nv_bfloat162* w2 = reinterpret_cast<const __nv_bfloat162*>(w);
        __nv_bfloat162* y2 = reinterpret_cast<__nv_bfloat162*>(yr);
        for (int c = threadIdx.x; c < cols / 2; c += 256) {
            float2 v = __bfloat1622float2(x2[c]), g = __bfloat1622float2(w2[c]);
            y2[c] = __floats2bfloat162_rn(v.x * rstd * g.x, v.y * rstd * g.y);
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += 256)
            yr[c] = __float2bfloat16_rn(__bfloat162float(xr[c]) * rstd * __bfloat162float(w[c]));
    }
}
