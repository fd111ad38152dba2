// Example solution for tasks/scan/cumsum_i32: one block of 256 threads per
// row, 1024-element chunks: each thread scans 4 consecutive elements (one
// 16-byte int4 load where the row allows), the 256 thread totals are scanned
// with warp shuffles and a step over the 8 warp totals, and a running carry
// joins the chunks. Integer sums are exact in any order. Launched with the
// task's default plan.
// Expected verdict: pass

__global__ void cumsum(const int* x, int* y, int rows, int cols) {
    __shared__ int warp_totals[8];
    __shared__ int chunk_total;
    const int* xr = x + (size_t)blockIdx.x * cols;
    int* yr = y + (size_t)blockIdx.x * cols;
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const bool aligned = cols % 4 == 0;  // rows start 16-byte aligned
    int carry = 0;
    for (int base = 0; base < cols; base += 1024) {
        const int c0 = base + 4 * t;
        int v[4];
        if (aligned && c0 + 4 <= cols) {
            int4 q = reinterpret_cast<const int4*>(xr + c0)[0];
            v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
        } else {
            for (int k = 0; k < 4; ++k) v[k] = c0 + k < cols ? xr[c0 + k] : 0;
        }
        for (int k = 1; k < 4; ++k) v[k] += v[k - 1];
        const int run = v[3];
        int incl = run;
        for (int d = 1; d < 32; d <<= 1) {
            int o = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += o;
        }
        if (lane == 31) warp_totals[warp] = incl;
        __syncthreads();
        int before = carry + incl - run;
        for (int w = 0; w < warp; ++w) before += warp_totals[w];
        for (int k = 0; k < 4; ++k)
            if (c0 + k < cols) yr[c0 + k] = before + v[k];
        if (t == 255) chunk_total = before + run - carry;
        __syncthreads();
        carry += chunk_total;
        __syncthreads();  // chunk_total and warp_totals are rewritten next chunk
    }
}
