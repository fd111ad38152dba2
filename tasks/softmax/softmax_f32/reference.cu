// softmax_f32 reference: one block of exactly 256 threads per row, three
// passes over the row (max, sum of exp, write), each block-wide reduction a
// plain shared-memory tree. Slow on purpose: simple and obviously right.
//   y[r][c] = exp(x[r][c] - m_r) / sum_c' exp(x[r][c'] - m_r),  m_r = max_c x[r][c]
#define BLOCK 256  // the launch plan's block size; the tree below needs a power of two

extern "C" __global__ void softmax_ref(const float* x, float* y, int rows, int cols) {
    __shared__ float red[BLOCK];
    const int row = blockIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const int t = threadIdx.x;

    // Pass 1: the row maximum. Threads with no element contribute -inf.
    float m = __int_as_float(0xff800000);  // -inf
    for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
    red[t] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();  // everyone has read red[0] before red is reused

    // Pass 2: the sum of exp(x - max); every term is in (0, 1], one of them 1.
    float sum = 0.0f;
    for (int c = t; c < cols; c += BLOCK) sum += expf(xr[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];

    // Pass 3: write.
    for (int c = t; c < cols; c += BLOCK) yr[c] = expf(xr[c] - m) / sum;
}
