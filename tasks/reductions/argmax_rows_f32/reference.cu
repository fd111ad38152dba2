// argmax_rows_f32 reference: idx[r] = the smallest c at which x[r][c] is the
// row's maximum (ties go to the first index), for a row-major x[rows, cols].
// One block of exactly 256 threads per row: each thread keeps the first
// maximum of its strided slice (indices increase along it, so a strict '>'
// keeps the first), then a shared-memory tree keeps, of two candidates, the
// larger value, or the smaller index when the values are equal.
#define BLOCK 256  // the launch plan's block size; the tree needs a power of two

extern "C" __global__ void argmax_rows_ref(const float* x, long long* idx, int rows, int cols) {
    __shared__ float best_v[BLOCK];
    __shared__ int best_i[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float v = __int_as_float(0xff800000);  // -inf
    int i = cols;                          // past the end: loses every comparison
    for (int c = t; c < cols; c += BLOCK)
        if (xr[c] > v || i == cols) {
            v = xr[c];
            i = c;
        }
    best_v[t] = v;
    best_i[t] = i;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) {
            float ov = best_v[t + k];
            int oi = best_i[t + k];
            if (ov > best_v[t] || (ov == best_v[t] && oi < best_i[t])) {
                best_v[t] = ov;
                best_i[t] = oi;
            }
        }
        __syncthreads();
    }
    if (t == 0) idx[row] = best_i[0];
}
