// argmax_rows_f32 / last_index_on_ties.cu
// A correct maximum, but ties go to the LAST maximal index ('>=' while
// scanning forward). The task's integer-valued inputs make ties common, and
// the task asks for the first index (as torch.argmax returns).
// Expected verdict: wrong_answer

__global__ void argmax_rows(const float* x, long long* idx, int rows, int cols) {
    if (threadIdx.x != 0) return;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = xr[0];
    int best = 0;
    for (int c = 1; c < cols; ++c)
        if (xr[c] >= v) {
            v = xr[c];
            best = c;
        }
    idx[blockIdx.x] = best;
}
