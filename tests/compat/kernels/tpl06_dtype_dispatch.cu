// kbench-compat: kernels=relu_kernel<float>,relu_kernel<__half>
// kbench-compat: expect=accept
#include <cuda_fp16.h>
#include <cuda_runtime.h>

template <typename T> __device__ __forceinline__ T relu_op(T v);
template <> __device__ __forceinline__ float relu_op<float>(float v) { return v > 0.f ? v : 0.f; }
template <> __device__ __forceinline__ __half relu_op<__half>(__half v) { return __hgt(v, __float2half(0.f)) ? v : __float2half(0.f); }

template <typename T>
__global__ void relu_kernel(const T* x, T* y, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu_op<T>(x[i]);
}

enum class DType { f32, f16 };

cudaError_t relu(const void* x, void* y, size_t n, DType dt) {
    unsigned blocks = (unsigned)((n + 511) / 512);
    if (dt == DType::f32) relu_kernel<float><<<blocks, 512>>>((const float*)x, (float*)y, n);
    else relu_kernel<__half><<<blocks, 512>>>((const __half*)x, (__half*)y, n);
    return cudaGetLastError();
}
