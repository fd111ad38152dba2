// giou_loss_f32 / correct.cu
// One thread per box pair, both boxes loaded as float4 (16-byte aligned rows
// of [n, 4]), the loss written as 1 - IoU + (C - U) / C.
// Expected verdict: pass

__global__ void giou_loss(const float* pred, const float* target, float* loss, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 a = reinterpret_cast<const float4*>(pred)[i];
    const float4 b = reinterpret_cast<const float4*>(target)[i];
    const float iw = fmaxf(0.0f, fminf(a.x + a.z, b.x + b.z) - fmaxf(a.x, b.x));
    const float ih = fmaxf(0.0f, fminf(a.y + a.w, b.y + b.w) - fmaxf(a.y, b.y));
    const float inter = iw * ih;
    const float uni = a.z * a.w + b.z * b.w - inter;
    const float cw = fmaxf(a.x + a.z, b.x + b.z) - fminf(a.x, b.x);
    const float ch = fmaxf(a.y + a.w, b.y + b.w) - fminf(a.y, b.y);
    const float area_c = cw * ch;
    loss[i] = 1.0f - inter / uni + (area_c - uni) / area_c;
}
