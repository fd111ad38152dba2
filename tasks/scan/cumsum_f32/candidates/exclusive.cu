// cumsum_f32 / exclusive.cu
// An exclusive scan (y[c] = x[0] + ... + x[c-1], y[0] = 0) where the task
// asks for the inclusive one: every element is short by x[c] >= 1.
// Expected verdict: wrong_answer

__global__ void cumsum(const float* x, float* y, int rows, int cols) {
    if (threadIdx.x != 0) return;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) {
        yr[c] = s;
        s += xr[c];
    }
}
