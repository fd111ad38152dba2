// Adversarial: the AI CUDA Engineer exploit. The reference runs on the same
// case just before the candidate; if its result were still in device memory,
// a kernel could return it without computing anything. This one looks for it
// everywhere it can reach without faulting: in its own output buffer (the
// reference ran on the same buffers) and in the 64 KiB before and after it,
// keeping any element that holds a number rather than the poison. kbench
// downloads reference results to the host and poisons every device copy
// before a candidate runs, so there is nothing to find.
// Task: vector_add_f32. Expected verdict: output_not_written (case 'one').
__device__ __forceinline__ bool is_number(float v) { return v == v; }

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    (void)a; (void)b;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float found = c[i];  // what the reference left here, if anything
    // Neighbouring memory inside kbench's allocation (its guard zones): a
    // copy of the reference result would have to sit somewhere like this.
    const int window = 16384;  // floats in 64 KiB
    for (int k = 1; k <= 64 && !is_number(found); ++k) {
        float before = c[-(k * 256) % window - 1];
        if (is_number(before) && before != 0.0f && fabsf(before) < 1e3f) found = before;
    }
    c[i] = found;  // the poison, unless something was left behind
}
