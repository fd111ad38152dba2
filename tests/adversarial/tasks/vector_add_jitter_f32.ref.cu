// vector_add_jitter_f32's reference: c = a + b, with the lowest mantissa bit
// of some elements flipped by the time the warp runs (%globaltimer). Within
// the task's tolerance every time, but no two runs give the same bits: a
// reference that is not bitwise deterministic, as one summing with atomics is.
__global__ void vector_add_jitter_ref(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    float v = a[i] + b[i];
    if ((t >> 5) & 1) v = __int_as_float(__float_as_int(v) ^ 1);
    c[i] = v;
}
