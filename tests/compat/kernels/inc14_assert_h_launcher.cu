// kbench-compat: kernels=scale_rows
// kbench-compat: expect=accept
#include <assert.h>
#include <cuda_runtime.h>

__global__ void scale_rows(float* m, const float* s, int rows, int cols) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    assert(blockDim.x <= 1024);
    if (r < rows && c < cols) m[r * cols + c] *= s[r];
}

void launch(float* m, const float* s, int rows, int cols) {
    assert(rows > 0 && cols > 0);
    dim3 block(128);
    dim3 grid((cols + block.x - 1) / block.x, rows);
    scale_rows<<<grid, block>>>(m, s, rows, cols);
}
