// matvec_f32 reference: y[M] = A[M,K] @ x[K], A row-major f32.
// One block of 256 threads per row: thread t sums the products at
// k = t, t + 256, t + 512, ... (consecutive threads read consecutive
// elements of the row, so loads coalesce), then a shared-memory tree adds the
// 256 partial sums. Any M, K >= 1 work (threads past K add nothing).
#define THREADS 256  // the launch plan's block

extern "C" __global__ void matvec_ref(const float* A, const float* x, float* y, int M, int K) {
    __shared__ float partial[THREADS];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    const float* a = A + (size_t)row * K;
    float s = 0.0f;
    for (int k = t; k < K; k += THREADS) s = fmaf(a[k], x[k], s);
    partial[t] = s;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (t < w) partial[t] += partial[t + w];
        __syncthreads();
    }
    if (t == 0 && row < M) y[row] = partial[0];
}
