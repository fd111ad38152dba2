// kbench-compat: kernels=group_max_kernel
// kbench-compat: expect=accept
#include <cooperative_groups.h>
#include <cfloat>
using namespace cooperative_groups;

// Max over groups of 16 consecutive elements, using a 16-wide tile.
__global__ void group_max_kernel(const float* __restrict__ x, float* __restrict__ out, int groups) {
    thread_block tb = this_thread_block();
    auto tile = tiled_partition<16>(tb);
    int gid = (blockIdx.x * blockDim.x + threadIdx.x) / 16;
    float v = gid < groups ? x[gid * 16 + tile.thread_rank()] : -FLT_MAX;
    for (int off = tile.size() / 2; off > 0; off /= 2) v = fmaxf(v, tile.shfl_down(v, off));
    if (tile.thread_rank() == 0 && gid < groups) out[gid] = v;
    tile.sync();
}
