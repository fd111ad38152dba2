// kbench-compat: kernels=compact_positive
// kbench-compat: expect=accept
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Stream compaction with warp-aggregated atomics via coalesced_threads().
__global__ void compact_positive(const float* __restrict__ in, float* __restrict__ out, int* __restrict__ count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0.f) {
        cg::coalesced_group active = cg::coalesced_threads();
        int base = 0;
        if (active.thread_rank() == 0) base = atomicAdd(count, (int)active.size());
        base = active.shfl(base, 0);
        out[base + active.thread_rank()] = in[i];
    }
}
