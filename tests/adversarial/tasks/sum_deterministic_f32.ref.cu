// sum_deterministic_f32 reference: a bit-reproducible sum. Blocks of 256
// reduce their elements with a fixed shared-memory tree into `partials`, then
// one block of 1024 threads sums the partials in a fixed order. No atomics:
// every run adds the same numbers in the same order.
extern "C" __global__ void partial_sums(const float* x, float* partials, int n) {
    __shared__ float red[256];
    const int t = threadIdx.x;
    const int i = blockIdx.x * 256 + t;
    red[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) partials[blockIdx.x] = red[0];
}

extern "C" __global__ void final_sum(const float* partials, float* out, int blocks) {
    __shared__ float red[1024];
    const int t = threadIdx.x;
    float acc = 0.0f;
    for (int j = t; j < blocks; j += 1024) acc += partials[j];
    red[t] = acc;
    __syncthreads();
    for (int s = 512; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) out[0] = red[0];
}
