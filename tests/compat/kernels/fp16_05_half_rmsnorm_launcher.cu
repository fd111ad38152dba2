// kbench-compat: kernels=rmsnorm_kernel<__half>,rmsnorm_kernel<__nv_bfloat16>
// kbench-compat: expect=accept
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <typename T>
__global__ void rmsnorm_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int dim, float eps) {
    __shared__ float s_inv;
    const T* row = x + (size_t)blockIdx.x * dim;
    float ss = 0.f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) { float v = to_float(row[i]); ss += v * v; }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffff, ss, o);
    __shared__ float partial[32];
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = ss;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int k = 0; k < (int)(blockDim.x + 31) / 32; ++k) t += partial[k];
        s_inv = rsqrtf(t / dim + eps);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < dim; i += blockDim.x)
        y[(size_t)blockIdx.x * dim + i] = from_float<T>(to_float(row[i]) * s_inv * to_float(w[i]));
}

void rmsnorm_fp16(const __half* x, const __half* w, __half* y, int rows, int dim) {
    rmsnorm_kernel<__half><<<rows, 256>>>(x, w, y, dim, 1e-6f);
}
void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int rows, int dim) {
    rmsnorm_kernel<__nv_bfloat16><<<rows, 256>>>(x, w, y, dim, 1e-6f);
}
