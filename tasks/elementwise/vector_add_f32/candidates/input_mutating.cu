// vector_add_f32 / input_mutating.cu
// Writes the correct c[i] = a[i] + b[i], then also overwrites the input
// a[i] (declared const in the contract; the cast drops it). Each thread reads
// a[i] before writing it and no other thread touches element i, so c is
// right; the checksum of `a` taken after the run differs from the one taken
// before.
// Expected verdict: input_modified (every case).
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = a[i] + b[i];
        c[i] = s;
        const_cast<float*>(a)[i] = s;
    }
}
