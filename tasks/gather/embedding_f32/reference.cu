// embedding_f32 reference: out[i][d] = table[idx[i]][d] for 0 <= i < n,
// 0 <= d < dim (a row lookup per index, as torch.nn.functional.embedding).
// One thread per output element, 64-bit indexing.
extern "C" __global__ void embedding_ref(const long long* idx, const float* table, float* out, int n, int dim) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)n * dim) return;
    long long i = e / dim, d = e % dim;
    out[e] = table[idx[i] * dim + d];
}
