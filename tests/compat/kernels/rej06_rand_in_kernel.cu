// kbench-compat: kernels=dropout_kernel
// kbench-compat: expect=reject
// rand() is a host function; device code needs curand or a hash.
#include <cstdlib>

__global__ void dropout_kernel(const float* x, float* y, float p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float r = (float)rand() / RAND_MAX;
        y[i] = r < p ? 0.f : x[i] / (1.f - p);
    }
}
