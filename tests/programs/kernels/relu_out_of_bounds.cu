// expect: runtime_error
// Writes far past the end of its output: the device faults.
__global__ void relu(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i + (1 << 30)] = x[i];
}
