// The correctness oracle: one thread per element, nothing clever.
extern "C" __global__ void vector_add_ref(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
