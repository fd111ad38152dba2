// kbench-compat: kernels=bias_gelu_kernel<128>
// kbench-compat: expect=accept
template <int THREADS>
__global__ void __launch_bounds__(THREADS, 4)
bias_gelu_kernel(float* __restrict__ x, const float* __restrict__ bias, int rows, int cols) {
    int r = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += THREADS) {
        float v = x[r * cols + c] + bias[c];
        x[r * cols + c] = v * normcdff(v);
    }
}

template __global__ void bias_gelu_kernel<128>(float*, const float*, int, int);
