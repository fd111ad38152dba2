// kbench-compat: kernels=normalize_image
// kbench-compat: expect=accept
struct NormParams {
    float mean[4];
    float inv_std[4];
    int channels;
    int hw;
};

__constant__ NormParams g_params;
__constant__ int g_lut[8] = {0, 1, 2, 3, 4, 5, 6, 7};

__global__ void normalize_image(const float* __restrict__ in, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = g_lut[(i / g_params.hw) % g_params.channels];
    out[i] = (in[i] - g_params.mean[c]) * g_params.inv_std[c];
}
