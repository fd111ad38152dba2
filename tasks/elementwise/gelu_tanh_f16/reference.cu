// gelu_tanh_f16 reference: one thread per element, computed in f32 with the
// accurate tanhf (the task's policy has fast_math off), rounded once to f16
// (round to nearest even):
//   y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// f16 values are passed as their 16-bit patterns and converted with the PTX
// cvt instructions, so the oracle needs no header (cuda_fp16.h) and compiles
// under bare NVRTC too; the buffers are f16 either way.

__device__ __forceinline__ float f16_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ unsigned short f32_to_f16_rn(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

extern "C" __global__ void gelu_tanh_ref(const unsigned short* x, unsigned short* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = f16_to_f32(x[i]);
        float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);  // sqrt(2/pi) = 0.79788456...
        y[i] = f32_to_f16_rn(0.5f * v * (1.0f + tanhf(u)));
    }
}
