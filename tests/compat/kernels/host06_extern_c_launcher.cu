// kbench-compat: kernels=fused_adam_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <math.h>

extern "C" __global__ void fused_adam_kernel(float* p, float* m, float* v, const float* g, float lr, float b1, float b2,
                                             float eps, float bc1, float bc2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    m[i] = b1 * m[i] + (1.f - b1) * gi;
    v[i] = b2 * v[i] + (1.f - b2) * gi * gi;
    float mhat = m[i] / bc1, vhat = v[i] / bc2;
    p[i] -= lr * mhat / (sqrtf(vhat) + eps);
}

extern "C" int launch_fused_adam(float* p, float* m, float* v, const float* g, float lr, int step, int n) {
    const float b1 = 0.9f, b2 = 0.999f;
    float bc1 = 1.f - powf(b1, (float)step), bc2 = 1.f - powf(b2, (float)step);
    fused_adam_kernel<<<(n + 255) / 256, 256>>>(p, m, v, g, lr, b1, b2, 1e-8f, bc1, bc2, n);
    return (int)cudaGetLastError();
}
