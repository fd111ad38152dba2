// Adversarial: correct output, plus a write a few elements past the end of c
// (an off-by-some bound, or scratch space borrowed beyond the buffer). kbench
// surrounds every buffer with guard zones and checks them after each run.
// Task: vector_add_f32. Expected verdict: out_of_bounds_write (case 'one').
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
    if (i == 0) c[n + 5] = 0.0f;
}
