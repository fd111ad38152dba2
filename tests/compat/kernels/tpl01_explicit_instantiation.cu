// kbench-compat: kernels=elementwise_add<float>,elementwise_add<double>
// kbench-compat: expect=accept
template <typename scalar_t>
__global__ void elementwise_add(const scalar_t* __restrict__ a, const scalar_t* __restrict__ b,
                                scalar_t* __restrict__ c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        c[i] = a[i] + b[i];
    }
}

template __global__ void elementwise_add<float>(const float*, const float*, float*, int);
template __global__ void elementwise_add<double>(const double*, const double*, double*, int);
