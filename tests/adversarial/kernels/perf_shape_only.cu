// Adversarial: specialised for the benchmark's shape. Each thread handles four
// elements with one float4 load per input and has no scalar tail, because the
// perf size (16777216) is a multiple of four; it even stays in bounds. At the
// perf size it is correct and fast; at any size that is not a multiple of
// four the last elements are never written, and at n = 1 nothing is.
// Task: vector_add_f32. Expected verdict: output_not_written (case 'one').
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * t;
    if (i + 3 < n) {
        float4 x = reinterpret_cast<const float4*>(a)[t];
        float4 y = reinterpret_cast<const float4*>(b)[t];
        reinterpret_cast<float4*>(c)[t] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
