// kbench-compat: kernels=global_absmax
// kbench-compat: expect=accept
__device__ float atomicMaxFloat(float* addr, float value) {
    int* addr_as_int = reinterpret_cast<int*>(addr);
    int old = *addr_as_int, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(addr_as_int, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void global_absmax(const float* __restrict__ x, float* __restrict__ result, int n) {
    __shared__ float block_max;
    if (threadIdx.x == 0) block_max = 0.f;
    __syncthreads();
    float m = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmaxf(m, fabsf(x[i]));
    atomicMaxFloat(&block_max, m);
    __syncthreads();
    if (threadIdx.x == 0) atomicMaxFloat(result, block_max);
}
