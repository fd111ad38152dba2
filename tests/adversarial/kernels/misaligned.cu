// Adversarial: a float4 store at an address 4 bytes past a 16-byte boundary.
// CUDA_ERROR_MISALIGNED_ADDRESS is sticky: the worker is replaced.
// Task: vector_add_f32. Expected verdict: runtime_error naming CUDA_ERROR_MISALIGNED_ADDRESS.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4* p = reinterpret_cast<float4*>(reinterpret_cast<char*>(c) + 4);
        p[i / 4] = make_float4(a[i], b[i], 0.0f, 0.0f);
    }
}
