// gelu_erf_f32 reference: the exact GELU, y = 0.5 * x * (1 + erf(x / sqrt(2))),
// in f32 with the accurate erff (the task's policy has fast_math off). One
// thread per element.
extern "C" __global__ void gelu_erf_ref(const float* x, float* y, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));  // 1/sqrt(2)
    }
}
