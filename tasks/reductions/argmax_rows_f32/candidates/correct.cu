// argmax_rows_f32 / correct.cu
// One block of 256 threads per row: each thread scans a strided slice keeping
// its first maximum, then warp shuffles and a shared-memory step combine the
// (value, index) pairs, preferring the larger value and, on equal values,
// the smaller index (the first occurrence).
// Expected verdict: pass

__device__ __forceinline__ void better(float& v, int& i, float ov, int oi) {
    if (ov > v || (ov == v && oi < i)) {
        v = ov;
        i = oi;
    }
}

__global__ void argmax_rows(const float* x, long long* idx, int rows, int cols) {
    __shared__ float wv[8];
    __shared__ int wi[8];
    const int row = blockIdx.x, t = threadIdx.x;
    const float* xr = x + (size_t)row * cols;
    float v = -INFINITY;
    int i = 0x7fffffff;
    for (int c = t; c < cols; c += 256) better(v, i, xr[c], c);
    for (int d = 16; d > 0; d >>= 1) better(v, i, __shfl_xor_sync(0xffffffffu, v, d), __shfl_xor_sync(0xffffffffu, i, d));
    if (t % 32 == 0) {
        wv[t / 32] = v;
        wi[t / 32] = i;
    }
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < 8; ++w) better(v, i, wv[w], wi[w]);
        idx[row] = i;
    }
}
