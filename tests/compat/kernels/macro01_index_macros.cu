// kbench-compat: kernels=batched_matmul_kernel
// kbench-compat: expect=accept
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define IDX3(b, i, j, d1, d2) ((b) * (d1) * (d2) + (i) * (d2) + (j))
#define THREADS_X 16
#define THREADS_Y 16

__global__ void batched_matmul_kernel(const float* A, const float* B, float* C, int batch, int M, int K, int N) {
    int b = blockIdx.z;
    int i = blockIdx.y * THREADS_Y + threadIdx.y;
    int j = blockIdx.x * THREADS_X + threadIdx.x;
    if (b >= batch || i >= M || j >= N) return;
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[IDX3(b, i, k, M, K)] * B[IDX3(b, k, j, K, N)];
    C[IDX3(b, i, j, M, N)] = acc;
}

void bmm(const float* A, const float* B, float* C, int batch, int M, int K, int N) {
    dim3 block(THREADS_X, THREADS_Y);
    dim3 grid(CEIL_DIV(N, THREADS_X), CEIL_DIV(M, THREADS_Y), batch);
    batched_matmul_kernel<<<grid, block>>>(A, B, C, batch, M, K, N);
}
