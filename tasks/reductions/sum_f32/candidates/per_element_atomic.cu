// sum_f32 / per_element_atomic.cu
// Every thread atomically adds its element straight into the single f32
// output: n atomics on one address, i.e. one f32 accumulator. That is fine
// for the small cases but numerically broken at the perf size: the inputs are
// uniform in [1, 2), the running sum passes 2^24 (where the f32 spacing
// becomes 2) after about 11 million elements, and from then on each addend
// in [1, 2) rounds to +2, so the result comes out about 11% too high
// (simulated: 0.111 relative error at n = 2^24). The task's tolerance
// (rtol 1e-4) deliberately rejects this; per-block partial sums (the
// reference, correct.cu) stay within 1e-5.
// Expected verdict: wrong_answer (the perf case; smaller cases pass).
// Emulator: not checked (it fails only at the perf case, too large to emulate).

__global__ void sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}
