// kbench-compat: kernels=hash_fill
// kbench-compat: expect=accept
#include <stdint.h>

__device__ uint64_t splitmix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

__global__ void hash_fill(float* out, uint32_t n, uint64_t seed) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint64_t h = splitmix64(seed + i);
        out[i] = (float)(h >> 40) * (1.0f / 16777216.0f);
    }
}
