// max_rows_f32 reference: y[r] = max over c of x[r][c] for a row-major
// x[rows, cols]. One block of exactly 256 threads per row: strided maxima,
// then a shared-memory tree. The maximum has no rounding.
#define BLOCK 256  // the launch plan's block size; the tree needs a power of two

extern "C" __global__ void max_rows_ref(const float* x, float* y, int rows, int cols) {
    __shared__ float red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float m = __int_as_float(0xff800000);  // -inf: threads with no element
    for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
    red[t] = m;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] = fmaxf(red[t], red[t + k]);
        __syncthreads();
    }
    if (t == 0) y[row] = red[0];
}
