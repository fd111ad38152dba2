// kbench-compat: kernels=row_sum_kernel
// kbench-compat: expect=accept
// The launch plan names the template by its plain name; exactly one
// instantiation exists, so the name is unambiguous.
template <int BLOCK_SIZE>
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float partial[BLOCK_SIZE];
    const float* row = x + (size_t)blockIdx.x * cols;
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) s += row[c];
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = BLOCK_SIZE / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

template __global__ void row_sum_kernel<256>(const float*, float*, int);
