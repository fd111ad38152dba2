// relu_f32 / correct.cu
// Grid-stride loop over float4 groups (16-byte loads and stores) when both
// pointers are 16-byte aligned, then a scalar tail; fmaxf(x, 0) is exact.
// Expected verdict: pass

__global__ void relu(const float* x, float* y, int n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long vec = 0;
    if ((reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0) {
        vec = n / 4;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* y4 = reinterpret_cast<float4*>(y);
        for (long long i = tid; i < vec; i += stride) {
            float4 v = x4[i];
            y4[i] = make_float4(fmaxf(v.x, 0.0f), fmaxf(v.y, 0.0f), fmaxf(v.z, 0.0f), fmaxf(v.w, 0.0f));
        }
    }
    for (long long i = vec * 4 + tid; i < n; i += stride) y[i] = fmaxf(x[i], 0.0f);
}
