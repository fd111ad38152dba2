// relu_f32 reference: y[i] = max(x[i], 0), one thread per element.
extern "C" __global__ void relu_ref(const float* x, float* y, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
