// kbench-compat: kernels=histogram_warp_agg
// kbench-compat: expect=accept
// __reduce_add_sync needs sm_80+.
__global__ void histogram_warp_agg(const int* __restrict__ labels, unsigned* __restrict__ hist, int n, int num_bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int label = i < n ? labels[i] : -1;
    for (int b = 0; b < num_bins; ++b) {
        unsigned hit = (label == b) ? 1u : 0u;
        unsigned total = __reduce_add_sync(0xffffffffu, hit);
        if ((threadIdx.x & 31) == 0 && total) atomicAdd(&hist[b], total);
    }
}
