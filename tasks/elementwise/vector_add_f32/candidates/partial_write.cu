// vector_add_f32 / partial_write.cu
// Correct values, but only block 0 writes: elements [0, blockDim.x) get
// a[i] + b[i], the rest keep the NaN poison. With the default plan (256
// threads a block) the case n = 1 is fully written and passes; every case
// with n > 256 (1009, 100003, the perf case) leaves elements unwritten.
// Expected verdict: output_not_written (on the cases with n > 256).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    if (blockIdx.x != 0) return;
    int i = threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
