// kbench-compat: kernels=segment_count
// kbench-compat: expect=accept
__global__ void segment_count(const int* __restrict__ keys, int* __restrict__ counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned active = __activemask();
    int key = keys[i];
    unsigned peers = __match_any_sync(active, key);
    int leader = __ffs(peers) - 1;
    int lane = threadIdx.x & 31;
    if (lane == leader) atomicAdd(&counts[key], __popc(peers));
    __syncwarp(active);
}
