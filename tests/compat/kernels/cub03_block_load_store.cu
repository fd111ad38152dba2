// kbench-compat: kernels=clamp_blocked<128, 4>
// kbench-compat: expect=accept
#include <cub/cub.cuh>

template <int BLOCK, int ITEMS>
__global__ void clamp_blocked(const float* __restrict__ in, float* __restrict__ out, float lo, float hi, int n) {
    using Load = cub::BlockLoad<float, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Store = cub::BlockStore<float, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
    } tmp;
    int offset = blockIdx.x * BLOCK * ITEMS;
    int valid = min(BLOCK * ITEMS, n - offset);
    float v[ITEMS];
    Load(tmp.load).Load(in + offset, v, valid, 0.f);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = fminf(fmaxf(v[i], lo), hi);
    __syncthreads();
    Store(tmp.store).Store(out + offset, v, valid);
}

void clamp(const float* in, float* out, float lo, float hi, int n) {
    constexpr int B = 128, I = 4;
    clamp_blocked<B, I><<<(n + B * I - 1) / (B * I), B>>>(in, out, lo, hi, n);
}
