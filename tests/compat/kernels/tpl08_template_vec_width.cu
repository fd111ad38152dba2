// kbench-compat: kernels=fill_kernel<float, 4>,fill_kernel<int, 1>
// kbench-compat: expect=accept
template <typename T, int VEC>
struct alignas(sizeof(T) * VEC) Vec { T v[VEC]; };

template <typename T, int VEC>
__global__ void fill_kernel(T* __restrict__ out, T value, int n_vec) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_vec) return;
    Vec<T, VEC> pack;
#pragma unroll
    for (int k = 0; k < VEC; ++k) pack.v[k] = value;
    reinterpret_cast<Vec<T, VEC>*>(out)[i] = pack;
}

template __global__ void fill_kernel<float, 4>(float*, float, int);
template __global__ void fill_kernel<int, 1>(int*, int, int);
