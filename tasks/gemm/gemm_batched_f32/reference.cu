// gemm_batched_f32 reference: for every b < batch,
// C[b] = A[b] @ B[b] with A[b] M x K, B[b] K x N, C[b] M x N, all row-major
// f32, the matrices of a batch stored one after another (A[b] at A + b*M*K).
// The classic shared-memory tiled kernel, one grid layer (blockIdx.z) per
// batch entry: a 16x16 block computes a 16x16 tile of C[b], stepping through
// K in 16-wide tiles staged in shared memory. Out-of-range tile entries are 0,
// so any sizes >= 1 work. Each element is one f32 accumulator summed over k in
// ascending order (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void gemm_batched_ref(const float* A, const float* B, float* C, int batch, int M, int N,
                                            int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int b = blockIdx.z;
    if (b >= batch) return;  // whole block: no thread reaches a barrier
    A += (size_t)b * M * K;
    B += (size_t)b * K * N;
    C += (size_t)b * M * N;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + (k0 + tx)] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
