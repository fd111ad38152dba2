// mean_cols_f32 reference: y[c] = (x[0][c] + ... + x[rows-1][c]) / rows for a
// row-major x[rows, cols] (the mean over axis 0). One thread per column walks
// down its column (neighbouring threads read neighbouring addresses), summing
// in double; one rounding to f32 at the end.
extern "C" __global__ void mean_cols_ref(const float* x, float* y, int rows, int cols) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double s = 0.0;
    for (int r = 0; r < rows; ++r) s += x[(size_t)r * cols + c];
    y[c] = (float)(s / rows);
}
