// sigmoid_f32 reference: y = 1 / (1 + exp(-x)) in f32 with the accurate expf.
// For x below about -88, exp(-x) overflows to +inf and y is 0, the correctly
// rounded limit. One thread per element.
extern "C" __global__ void sigmoid_ref(const float* x, float* y, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
