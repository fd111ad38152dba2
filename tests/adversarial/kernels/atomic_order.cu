// Adversarial (for determinism): a correct sum whose last bits depend on the
// order in which warps finish: every warp adds its partial sum to the output
// with atomicAdd, and that order changes from run to run. Within any sane
// tolerance, but not bit-reproducible.
// Task: sum_f32 (nondeterminism allowed): expected verdict pass, with a note.
// Task: tests/adversarial/tasks/sum_deterministic_f32.json (policy.deterministic):
// expected verdict nondeterministic.
__global__ void sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
