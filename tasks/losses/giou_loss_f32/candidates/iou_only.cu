// giou_loss_f32 / iou_only.cu
// The plain IoU loss, 1 - IoU, without GIoU's enclosing-box penalty: right
// only where the boxes' union fills their enclosing box.
// Expected verdict: wrong_answer

__global__ void giou_loss(const float* pred, const float* target, float* loss, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* a = pred + 4 * i;
    const float* b = target + 4 * i;
    const float iw = fmaxf(0.0f, fminf(a[0] + a[2], b[0] + b[2]) - fmaxf(a[0], b[0]));
    const float ih = fmaxf(0.0f, fminf(a[1] + a[3], b[1] + b[3]) - fmaxf(a[1], b[1]));
    const float inter = iw * ih;
    loss[i] = 1.0f - inter / (a[2] * a[3] + b[2] * b[3] - inter);
}
