// Adversarial: __trap() as soon as it runs. The trap is a sticky error: the
// CUDA context of the process is unusable afterwards, so the worker is
// replaced.
// Task: vector_add_f32. Expected verdict: runtime_error (case 'one').
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    (void)a; (void)b; (void)c; (void)n;
    __trap();
}
