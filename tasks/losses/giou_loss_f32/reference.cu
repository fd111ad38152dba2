// giou_loss_f32 reference: loss[i] = 1 - GIoU(pred box i, target box i).
// Boxes are (x, y, w, h): top-left corner and size (COCO's xywh), w, h > 0;
// the corners are x2 = x + w, y2 = y + h. With A the predicted box, B the
// target and C the smallest box enclosing both:
//   inter = max(0, min(x2a, x2b) - max(x1a, x1b)) * max(0, min(y2a, y2b) - max(y1a, y1b))
//   union = wa * ha + wb * hb - inter
//   GIoU  = inter / union - (area(C) - union) / area(C)
// One thread per box, in f32.
extern "C" __global__ void giou_loss_ref(const float* pred, const float* target, float* loss, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* a = pred + 4 * i;
    const float* b = target + 4 * i;
    const float ax1 = a[0], ay1 = a[1], aw = a[2], ah = a[3];
    const float bx1 = b[0], by1 = b[1], bw = b[2], bh = b[3];
    const float ax2 = ax1 + aw, ay2 = ay1 + ah, bx2 = bx1 + bw, by2 = by1 + bh;
    const float iw = fmaxf(0.0f, fminf(ax2, bx2) - fmaxf(ax1, bx1));
    const float ih = fmaxf(0.0f, fminf(ay2, by2) - fmaxf(ay1, by1));
    const float inter = iw * ih;
    const float uni = aw * ah + bw * bh - inter;
    const float area_c = (fmaxf(ax2, bx2) - fminf(ax1, bx1)) * (fmaxf(ay2, by2) - fminf(ay1, by1));
    loss[i] = 1.0f - (inter / uni - (area_c - uni) / area_c);
}
