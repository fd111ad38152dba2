// Adversarial: computes the right output, then zeroes its input `b` (declared
// const in the contract; the cast drops it), e.g. to use it as scratch space.
// kbench checksums every `in` buffer before and after each run.
// Task: vector_add_f32. Expected verdict: input_modified.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        const_cast<float*>(b)[i] = 0.0f;
    }
}
