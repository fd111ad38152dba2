// Adversarial: a correct softmax of row 0 only (one thread, max-subtracted);
// every other row is left as it was. Passes the one-row cases.
// Task: softmax_f32. Expected verdict: output_not_written (case 'cols_one', 7 rows).
__global__ void softmax(const float* x, float* y, int rows, int cols) {
    (void)rows;
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float m = x[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
    for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / s;
}
