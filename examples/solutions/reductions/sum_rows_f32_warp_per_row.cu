// Example solution for tasks/reductions/sum_rows_f32: one warp per row (the
// perf case has 32768 rows of 2560, so a block per row would leave most of
// its threads idle at the tree), eight rows per block of 256 threads. Each
// lane sums float4 groups of its row when the row is 16-byte aligned
// (cols % 4 == 0), scalars otherwise, then the warp reduces with shuffles.
// The plan (sum_rows_f32_warp_per_row.json) launches ceil_div(rows, 8)
// blocks of 256 threads.
// Expected verdict: pass

__global__ void sum_rows_warp(const float* x, float* y, int rows, int cols) {
    const int row = blockIdx.x * 8 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;  // a whole warp: no shuffle is left half-done
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    if (cols % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int c = lane; c < cols / 4; c += 32) {
            float4 v = x4[c];
            s += (v.x + v.y) + (v.z + v.w);
        }
    } else {
        for (int c = lane; c < cols; c += 32) s += xr[c];
    }
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    if (lane == 0) y[row] = s;
}
