// kbench-compat: kernels=ema_update_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <memory>
#include <string>

__global__ void ema_update_kernel(float* __restrict__ shadow, const float* __restrict__ param, float decay, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) shadow[i] = decay * shadow[i] + (1.f - decay) * param[i];
}

class EmaUpdater {
public:
    EmaUpdater(int n, float decay) : n_(n), decay_(decay) { cudaMalloc(&shadow_, n * sizeof(float)); }
    ~EmaUpdater() { cudaFree(shadow_); }
    void step(const float* param, cudaStream_t s = 0) {
        ema_update_kernel<<<(n_ + 255) / 256, 256, 0, s>>>(shadow_, param, decay_, n_);
    }
    std::string name() const { return "ema(" + std::to_string(decay_) + ")"; }

private:
    int n_;
    float decay_;
    float* shadow_ = nullptr;
};

std::unique_ptr<EmaUpdater> make_ema(int n) { return std::make_unique<EmaUpdater>(n, 0.999f); }
