// Adversarial: computes honestly the first time it runs at the perf size and
// keeps the result in a __device__ array; every later launch at that size
// copies the cached result instead of computing. It passes every correctness
// case (the perf case is checked once, on its first launch) and times as a
// copy; the recheck after timing, on fresh inputs drawn from a seed the
// kernel cannot know, catches it.
//
// Which launch is which: every block counts itself in `blocks_done` when it
// finishes a perf-size launch; all blocks of launch k start after every
// block of launch k-1 finished (same stream), so blocks_done / gridDim.x is
// the number of earlier perf-size launches, for every block of a launch.
// Task: vector_add_f32. Expected verdict: wrong_answer, after timing, on fresh inputs.
#define PERF_N 16777216

__device__ float cached[PERF_N];
__device__ unsigned long long blocks_done = 0;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n != PERF_N) {
        if (i < n) c[i] = a[i] + b[i];
        return;
    }
    __shared__ unsigned long long earlier;
    if (threadIdx.x == 0) earlier = atomicAdd(&blocks_done, 0ull) / gridDim.x;
    __syncthreads();
    if (i < n) {
        if (earlier == 0) {
            c[i] = a[i] + b[i];
            cached[i] = c[i];
        } else {
            c[i] = cached[i];
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&blocks_done, 1ull);
}
