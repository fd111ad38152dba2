// Adversarial: writes nothing and hopes the output buffer already holds the
// answer (stale memory from an earlier run, as PyTorch's caching allocator
// hands out). kbench poisons every output (NaN for floats) before each run.
// Task: vector_add_f32. Expected verdict: output_not_written (case 'one').
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    (void)a; (void)b; (void)c; (void)n;
}
