// Example solution for tasks/gather/embedding_f32: one block of 256 threads
// per index copies the whole table row, as float4 when dim % 4 == 0 (the rows
// are then 16-byte aligned), reading idx once per block instead of once per
// element. The plan (embedding_f32_row_copy.json) launches n blocks.
// Expected verdict: pass

__global__ void embedding_rows(const long long* idx, const float* table, float* out, int n, int dim) {
    const long long row = idx[blockIdx.x];
    const float* src = table + row * dim;
    float* dst = out + (long long)blockIdx.x * dim;
    if (dim % 4 == 0) {
        const float4* s4 = reinterpret_cast<const float4*>(src);
        float4* d4 = reinterpret_cast<float4*>(dst);
        for (int k = threadIdx.x; k < dim / 4; k += blockDim.x) d4[k] = s4[k];
    } else {
        for (int k = threadIdx.x; k < dim; k += blockDim.x) dst[k] = src[k];
    }
}
