// cumsum_f32 / correct.cu
// One block of 256 threads per row, 1024-element chunks: each thread scans 4
// consecutive elements in registers, the 256 thread totals are scanned with
// warp shuffles (inclusive, shuffle up) and a shared-memory step over the 8
// warp totals, and a running carry joins the chunks.
// Expected verdict: pass

__global__ void cumsum(const float* x, float* y, int rows, int cols) {
    __shared__ float warp_totals[8];
    __shared__ float chunk_total;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float carry = 0.0f;
    for (int base = 0; base < cols; base += 1024) {
        float v[4];
        float run = 0.0f;
        for (int k = 0; k < 4; ++k) {
            int c = base + 4 * t + k;
            run += c < cols ? xr[c] : 0.0f;
            v[k] = run;
        }
        float incl = run;  // this thread's total, scanned across the warp
        for (int d = 1; d < 32; d <<= 1) {
            float o = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += o;
        }
        if (lane == 31) warp_totals[warp] = incl;
        __syncthreads();
        float before = carry;  // everything before this thread in the row
        for (int w = 0; w < warp; ++w) before += warp_totals[w];
        before += incl - run;
        for (int k = 0; k < 4; ++k) {
            int c = base + 4 * t + k;
            if (c < cols) yr[c] = before + v[k];
        }
        if (t == 255) chunk_total = before + run - carry;
        __syncthreads();
        carry += chunk_total;
        __syncthreads();  // chunk_total and warp_totals are rewritten next chunk
    }
}
