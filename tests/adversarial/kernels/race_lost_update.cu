// Adversarial: a data race. Each block reduces its elements correctly but adds
// its sum to the single output with a plain read-modify-write instead of
// atomicAdd, so concurrent blocks overwrite each other's updates. Right with
// one block (n <= 256), and sometimes when blocks happen not to overlap;
// wrong whenever updates are lost.
// Task: sum_f32. Expected verdict: wrong_answer (a multi-block case).
__global__ void sum(const float* x, float* out, int n) {
    __shared__ float red[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    red[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) {
        volatile float* o = out;
        float old = *o;
        for (int k = 0; k < 64; ++k) __threadfence();  // widen the window a little
        *o = old + red[0];
    }
}
