// gemm_f16 / correct.cu
// One thread per C element straight from global memory (no shared memory),
// with the k loop split over two f32 accumulators (even and odd k) that are
// added at the end: another summation order than the reference's, so the
// f32 sums differ in the last bits and some elements round to the
// neighbouring f16 value. Checks that the tolerance absorbs that. Works with
// the default plan (16x16 blocks over ceil_div(N,16) x ceil_div(M,16)).
// Expected verdict: pass
#include <cuda_fp16.h>

__global__ void gemm_f16(const __half* A, const __half* B, __half* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    const __half* a = A + (size_t)row * K;
    float even = 0.0f, odd = 0.0f;
    int k = 0;
    for (; k + 1 < K; k += 2) {
        even = fmaf(__half2float(a[k]), __half2float(B[(size_t)k * N + col]), even);
        odd = fmaf(__half2float(a[k + 1]), __half2float(B[(size_t)(k + 1) * N + col]), odd);
    }
    if (k < K) even = fmaf(__half2float(a[k]), __half2float(B[(size_t)k * N + col]), even);
    C[(size_t)row * N + col] = __float2half_rn(even + odd);
}
