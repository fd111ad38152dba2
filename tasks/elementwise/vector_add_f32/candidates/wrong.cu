// vector_add_f32 / wrong.cu
// Computes a - b instead of a + b, with correct indexing and bounds. b is
// drawn from normal(0, 1), so |(a - b) - (a + b)| = 2|b| is far above the
// tolerance almost everywhere.
// Expected verdict: wrong_answer (every case).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - b[i];
}
