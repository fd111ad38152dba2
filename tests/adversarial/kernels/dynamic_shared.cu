// Adversarial: stages its inputs through dynamic shared memory; the launch
// plan given with it asks for 1 GiB of it per block (see the test), far past
// what any GPU has (227 KiB per block on an H100).
// Task: vector_add_f32, plan with "shared_mem": 1073741824.
// Expected verdict: launch_error naming shared memory.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    extern __shared__ float stage[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stage[threadIdx.x] = i < n ? a[i] : 0.0f;
    __syncthreads();
    if (i < n) c[i] = stage[threadIdx.x] + b[i];
}
