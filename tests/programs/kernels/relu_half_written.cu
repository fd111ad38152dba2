// expect: output_not_written
// Writes the first half of the output only: the rest keeps the poison.
__global__ void relu(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) out[i] = x[i] > 0.f ? x[i] : 0.f;
}
