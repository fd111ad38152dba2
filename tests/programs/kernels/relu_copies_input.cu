// expect: wrong_answer
// Returns its input: half of the problem's inputs are negative.
__global__ void relu(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i];
}
