// copy_f32 / correct.cu
// 16-byte accesses: thread t copies float4 number t (elements 4t .. 4t+3) in
// a grid-stride loop over the n / 4 whole float4s, and the last n % 4
// elements (0 to 3) are copied one by one by the first threads. The default
// plan launches ceil_div(n, 1024) blocks of 256 threads, i.e. one float4 per
// thread. If either pointer is not 16-byte aligned (kbench's buffers are) it
// falls back to a scalar grid-stride loop instead of faulting.
// Expected verdict: pass (every case, bit-exact).

__global__ void copy_f32(const float* x, float* y, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    if (((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) & 15) != 0) {
        for (int i = tid; i < n; i += stride) y[i] = x[i];
        return;
    }
    const int n4 = n >> 2;  // whole float4s
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int q = tid; q < n4; q += stride) y4[q] = x4[q];
    const int tail = n - (n4 << 2);  // 0..3
    if (tid < tail) y[(n4 << 2) + tid] = x[(n4 << 2) + tid];
}
