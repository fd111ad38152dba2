// kbench-compat: kernels=conv1d_k<3>,conv1d_k<5>
// kbench-compat: expect=accept
template <int K>
__global__ void conv1d_k(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - K + 1) return;
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < K; ++k) acc += x[i + k] * w[k];
    y[i] = acc;
}

void conv1d(const float* x, const float* w, float* y, int n, int k) {
    int threads = 128, blocks = (n + threads - 1) / threads;
    switch (k) {
        case 3: conv1d_k<3><<<blocks, threads>>>(x, w, y, n); break;
        case 5: conv1d_k<5><<<blocks, threads>>>(x, w, y, n); break;
        case 7: conv1d_k<7><<<blocks, threads>>>(x, w, y, n); break;
        default: break;
    }
}
