// kbench-compat: kernels=kahan_free_sum_f64
// kbench-compat: expect=accept
// atomicAdd(double*) is native from sm_60 on.
__global__ void kahan_free_sum_f64(const float* __restrict__ x, double* __restrict__ total, long long n) {
    double local = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        local += (double)x[i];
    for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(total, local);
}
