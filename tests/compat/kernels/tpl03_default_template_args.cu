// kbench-compat: kernels=transpose_tiled<float>
// kbench-compat: expect=accept
template <typename T, int TILE = 32, int ROWS = 8>
__global__ void transpose_tiled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
    __shared__ T tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose(const float* in, float* out, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 31) / 32);
    transpose_tiled<float><<<grid, block>>>(in, out, rows, cols);
}
