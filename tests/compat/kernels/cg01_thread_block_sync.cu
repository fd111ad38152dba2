// kbench-compat: kernels=block_reverse
// kbench-compat: expect=accept
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void block_reverse(const int* __restrict__ in, int* __restrict__ out, int n) {
    extern __shared__ int s[];
    cg::thread_block block = cg::this_thread_block();
    int base = blockIdx.x * blockDim.x;
    int t = block.thread_rank();
    if (base + t < n) s[t] = in[base + t];
    block.sync();
    int src = block.size() - 1 - t;
    if (base + src < n && base + t < n) out[base + t] = s[src];
}
