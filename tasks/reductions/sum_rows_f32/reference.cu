// sum_rows_f32 reference: y[r] = x[r][0] + ... + x[r][cols-1] for a row-major
// x[rows, cols]. One block of exactly 256 threads per row: each thread sums a
// strided slice of the row in double, then a shared-memory tree adds the 256
// partials in double; one rounding to f32 at the end. Double accumulation
// keeps the reference within one f32 rounding of the exact sum.
#define BLOCK 256  // the launch plan's block size; the tree needs a power of two

extern "C" __global__ void sum_rows_ref(const float* x, float* y, int rows, int cols) {
    __shared__ double red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    double s = 0.0;
    for (int c = t; c < cols; c += BLOCK) s += xr[c];
    red[t] = s;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] += red[t + k];
        __syncthreads();
    }
    if (t == 0) y[row] = (float)red[0];
}
