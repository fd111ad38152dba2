// kbench-compat: kernels=ptx_fma_lane
// kbench-compat: expect=accept
__device__ __forceinline__ unsigned lane_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ float fma_rn(float a, float b, float c) {
    float d;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}

__device__ __forceinline__ float ld_nc(const float* p) {
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void ptx_fma_lane(const float* a, const float* b, float* out, unsigned* lanes, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = fma_rn(ld_nc(a + i), ld_nc(b + i), 1.0f);
        lanes[i] = lane_id();
    }
}
