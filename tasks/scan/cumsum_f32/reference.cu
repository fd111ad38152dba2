// cumsum_f32 reference: inclusive prefix sums along the last axis of a
// row-major x[rows, cols]: y[r][c] = x[r][0] + ... + x[r][c].
// One block of exactly 256 threads per row walks the row in tiles of 256: a
// Hillis-Steele scan of the tile in shared memory (double-buffered, a barrier
// per step), plus the running total of the earlier tiles (the carry).
// The inputs are positive, so every stored value is a sum of positive terms
// formed by at most 8 additions within its tile plus one per earlier tile:
// its relative error is at most (9 + tiles before it) u, u = 2^-24.
#define BLOCK 256  // the launch plan's block size; the scan needs a power of two

extern "C" __global__ void cumsum_ref(const float* x, float* y, int rows, int cols) {
    __shared__ float buf[2][BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float carry = 0.0f;
    for (int base = 0; base < cols; base += BLOCK) {
        const int c = base + t;
        int cur = 0;
        buf[0][t] = c < cols ? xr[c] : 0.0f;
        __syncthreads();
        for (int off = 1; off < BLOCK; off <<= 1) {
            float v = buf[cur][t];
            if (t >= off) v += buf[cur][t - off];
            buf[cur ^ 1][t] = v;
            cur ^= 1;
            __syncthreads();
        }
        if (c < cols) yr[c] = carry + buf[cur][t];
        carry += buf[cur][BLOCK - 1];
        __syncthreads();  // every thread has read buf before the next tile overwrites it
    }
}
