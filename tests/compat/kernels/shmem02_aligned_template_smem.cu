// kbench-compat: kernels=tile_copy_smem<float>,tile_copy_smem<double>
// kbench-compat: expect=accept
#include <cuda_runtime.h>

// The usual trick for templated dynamic shared memory: one untyped extern array.
template <typename T>
__global__ void tile_copy_smem(const T* __restrict__ in, T* __restrict__ out, int n) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* tile = reinterpret_cast<T*>(smem_raw);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    int j = blockDim.x - 1 - threadIdx.x;
    int o = blockIdx.x * blockDim.x + j;
    if (o < n) out[o] = tile[j] * T(2);
}

template <typename T>
void tile_copy(const T* in, T* out, int n) {
    int threads = 256;
    size_t smem = threads * sizeof(T);
    cudaFuncSetAttribute(tile_copy_smem<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    tile_copy_smem<T><<<(n + threads - 1) / threads, threads, smem>>>(in, out, n);
}

template void tile_copy<float>(const float*, float*, int);
template void tile_copy<double>(const double*, double*, int);
