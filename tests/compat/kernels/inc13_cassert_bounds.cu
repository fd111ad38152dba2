// kbench-compat: kernels=gather_rows
// kbench-compat: expect=accept
#include <cassert>

__global__ void gather_rows(const float* __restrict__ table, const int* __restrict__ idx,
                            float* __restrict__ out, int num_rows, int dim, int n) {
    int i = blockIdx.x;
    if (i >= n) return;
    int r = idx[i];
    assert(r >= 0 && r < num_rows);
    for (int d = threadIdx.x; d < dim; d += blockDim.x)
        out[(size_t)i * dim + d] = table[(size_t)r * dim + d];
}
