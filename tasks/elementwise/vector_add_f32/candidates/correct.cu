// vector_add_f32 / correct.cu
// A grid-stride loop: correct for every n and any grid size (the default plan
// launches ceil_div(n, 256) blocks, so each thread does one iteration).
// Expected verdict: pass (every case).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}
