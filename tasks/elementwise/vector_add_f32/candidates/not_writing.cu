// vector_add_f32 / not_writing.cu
// Launches, reads nothing, writes nothing: c keeps the NaN poison kbench puts
// in every output before the run.
// Expected verdict: output_not_written (every case).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    (void)a; (void)b; (void)c; (void)n;
}
