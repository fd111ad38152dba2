// sum_f32 reference: out[0] = x[0] + ... + x[n-1].
// The plan zeroes out, then each block of exactly 256 threads loads one
// element per thread (0 past the end), reduces them with a shared-memory tree
// and atomically adds its block sum to out. The order of the atomic adds
// changes from run to run, so the last bits of the result do too: the task's
// tolerance (see task.json) is chosen to absorb that.
#define BLOCK 256  // the launch plan's block size; the tree below needs a power of two

extern "C" __global__ void sum_ref(const float* x, float* out, int n) {
    __shared__ float red[BLOCK];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    red[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, red[0]);
}
