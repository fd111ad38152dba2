// vector_add_f32 / hardcoded_size.cu
// Ignores n and bounds every access by the perf size (16777216) instead: the
// "specialised for the benchmark shape" shortcut. At the perf size it is
// exactly the reference. At the smaller cases the default plan still launches
// ceil_div(n, 256) * 256 threads, and every thread with n <= i < 16777216
// reads a[i], b[i] and WRITES c[i] past the end of the buffers: up to 255
// elements (1020 bytes) past c at n = 1, 15 at n = 1009, 93 at n = 100003.
// These out-of-bounds writes are deliberate and must be caught (guard zones
// around each buffer); the values inside [0, n) are correct, so nothing else
// catches it.
// Expected verdict: out_of_bounds_write (the small cases write into the guard
// zone after c; the perf case alone would pass).
#define PERF_N 16777216
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    (void)n;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < PERF_N) c[i] = a[i] + b[i];
}
