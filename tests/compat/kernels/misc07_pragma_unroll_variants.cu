// kbench-compat: kernels=register_blocked_gemv<8>
// kbench-compat: expect=accept
template <int ROWS_PER_THREAD>
__global__ void register_blocked_gemv(const float* __restrict__ A, const float* __restrict__ x,
                                      float* __restrict__ y, int M, int N) {
    int r0 = (blockIdx.x * blockDim.x + threadIdx.x) * ROWS_PER_THREAD;
    float acc[ROWS_PER_THREAD];
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; ++r) acc[r] = 0.f;
#pragma unroll 4
    for (int c = 0; c < N; ++c) {
        float xc = x[c];
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD; ++r)
            if (r0 + r < M) acc[r] += A[(r0 + r) * N + c] * xc;
    }
#pragma unroll 1
    for (int r = 0; r < ROWS_PER_THREAD; ++r)
        if (r0 + r < M) y[r0 + r] = acc[r];
}

template __global__ void register_blocked_gemv<8>(const float*, const float*, float*, int, int);
