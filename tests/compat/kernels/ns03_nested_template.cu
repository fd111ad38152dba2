// kbench-compat: kernels=kb::nn::embedding_bag_sum<float>
// kbench-compat: expect=accept
namespace kb::nn {

template <typename T>
__global__ void embedding_bag_sum(const T* __restrict__ table, const int* __restrict__ indices,
                                  const int* __restrict__ offsets, T* __restrict__ out, int dim) {
    int bag = blockIdx.x;
    int start = offsets[bag], end = offsets[bag + 1];
    for (int d = threadIdx.x; d < dim; d += blockDim.x) {
        T acc = T(0);
        for (int j = start; j < end; ++j) acc += table[(size_t)indices[j] * dim + d];
        out[(size_t)bag * dim + d] = acc;
    }
}

template __global__ void embedding_bag_sum<float>(const float*, const int*, const int*, float*, int);

}  // namespace kb::nn
