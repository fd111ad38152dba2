// kbench-compat: kernels=image::rgb_to_gray
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <cstdint>

namespace image {
struct Weights { float r, g, b; };

__global__ void rgb_to_gray(const uint8_t* __restrict__ rgb, uint8_t* __restrict__ gray, int w, int h, Weights wt) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const uint8_t* p = rgb + 3 * (y * w + x);
    float v = wt.r * p[0] + wt.g * p[1] + wt.b * p[2];
    gray[y * w + x] = (uint8_t)fminf(v + 0.5f, 255.f);
}
}  // namespace image

using namespace image;

void to_gray(const uint8_t* rgb, uint8_t* gray, int w, int h) {
    dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
    rgb_to_gray<<<grid, block>>>(rgb, gray, w, h, Weights{0.299f, 0.587f, 0.114f});
}
