// relu_f32 / leaky.cu
// A leaky ReLU (negative slope 0.01) where the task asks for ReLU: every
// negative input gives 0.01 x instead of 0, and the comparison is exact.
// Expected verdict: wrong_answer

__global__ void relu(const float* x, float* y, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}
