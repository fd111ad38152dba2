// transpose_f32 reference: y[c][r] = x[r][c] for a row-major x[rows, cols]
// and y[cols, rows]. The classic shared-memory tiled transpose: a block of
// 32 x 8 threads reads a 32 x 32 tile of x along its rows (coalesced), and
// writes it to y along y's rows (coalesced too); the tile has one padding
// column so the column-wise reads do not collide in shared-memory banks.
#define TILE 32
#define BLOCK_ROWS 8  // the launch plan's block is TILE x BLOCK_ROWS

extern "C" __global__ void transpose_ref(const float* x, float* y, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    const int c = blockIdx.x * TILE + threadIdx.x;  // column of x
    const int r0 = blockIdx.y * TILE;               // first row of x in the tile
    for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS)
        if (r0 + j < rows && c < cols) tile[j][threadIdx.x] = x[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    const int yc = blockIdx.y * TILE + threadIdx.x;  // column of y = row of x
    const int yr0 = blockIdx.x * TILE;               // first row of y = first column of x
    for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS)
        if (yr0 + j < cols && yc < rows) y[(size_t)(yr0 + j) * rows + yc] = tile[threadIdx.x][j];
}
