// softmax_f32 / no_max_subtract.cu
// The textbook formula without the max subtraction: y = exp(x) / sum exp(x).
// Mathematically equal, numerically not: the task's inputs are centred at 100
// (normal, std 2) and expf overflows to inf above 88.7, so every row becomes
// inf / inf = NaN (or 0 / inf). The input distribution was chosen so that
// this mistake cannot pass.
// Expected verdict: wrong_answer (every case: NaN, computed by the kernel,
// where the reference is finite). The kernel does write every element; a
// comparison that cannot tell its computed NaN (0x7fffffff) from the NaN
// poison may report output_not_written instead. Never pass.

__global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float red[256];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(xr[c]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) red[threadIdx.x] += red[threadIdx.x + k];
        __syncthreads();
    }
    s = red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c]) / s;
}
