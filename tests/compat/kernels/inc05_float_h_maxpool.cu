// kbench-compat: kernels=maxpool2d_kernel
// kbench-compat: expect=accept
#include <float.h>

__global__ void maxpool2d_kernel(const float* input, float* output,
                                 int N, int C, int H, int W,
                                 int kernel_size, int stride, int padding,
                                 int H_out, int W_out) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * C * H_out * W_out;
    if (idx >= total) return;
    int ow = idx % W_out;
    int oh = (idx / W_out) % H_out;
    int c = (idx / (W_out * H_out)) % C;
    int n = idx / (W_out * H_out * C);
    float max_val = -FLT_MAX;
    for (int kh = 0; kh < kernel_size; ++kh) {
        for (int kw = 0; kw < kernel_size; ++kw) {
            int ih = oh * stride - padding + kh;
            int iw = ow * stride - padding + kw;
            if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
                float v = input[((n * C + c) * H + ih) * W + iw];
                max_val = fmaxf(max_val, v);
            }
        }
    }
    output[idx] = max_val;
}
