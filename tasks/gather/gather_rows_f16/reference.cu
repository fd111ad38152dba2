// gather_rows_f16 reference: y[i][c] = x[idx[i]][c] for 0 <= i < n,
// 0 <= c < cols (torch.index_select(x, 0, idx)). One thread per output
// element, 64-bit indexing; f16 values are copied, not converted.
#include <cuda_fp16.h>

extern "C" __global__ void gather_rows_ref(const __half* x, const int* idx, __half* y, int n, int cols) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)n * cols) return;
    long long i = e / cols, c = e % cols;
    y[e] = x[(long long)idx[i] * cols + c];
}
