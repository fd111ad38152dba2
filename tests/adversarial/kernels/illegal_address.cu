// Adversarial: writes far outside any allocation (2^40 floats past c).
// CUDA_ERROR_ILLEGAL_ADDRESS is sticky: the worker is replaced.
// Task: vector_add_f32. Expected verdict: runtime_error naming CUDA_ERROR_ILLEGAL_ADDRESS.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i + (size_t(1) << 40)] = a[i] + b[i];
}
