// Adversarial: only block 0 writes (correct values); the rest of the output
// is left as it was. Passes at n = 1 (one block covers it), fails as soon as
// the output spans a second block.
// Task: vector_add_f32. Expected verdict: output_not_written (case 'prime', n = 1009).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    if (blockIdx.x != 0) return;
    int i = threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
