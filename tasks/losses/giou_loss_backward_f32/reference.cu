// giou_loss_backward_f32 reference: grad_pred[i] = grad_loss[i] * d loss[i] / d pred[i],
// the gradient of giou_loss_f32's per-box loss with respect to the predicted
// box (x, y, w, h). Writing loss = 2 - I/U - U/C (I the intersection, U the
// union, C the enclosing box's area):
//   d loss / dI = -(U + I) / U^2 + 1 / C     (U = Aa + Ab - I)
//   d loss / dAa = I / U^2 - 1 / C           (Aa = wa * ha, the predicted area)
//   d loss / dC = U / C^2
// and through the corners (x2 = x + w): I = iw * ih, where iw depends on
// x1a only when x1a > x1b (it is the max) and on x2a only when x2a < x2b (the
// min), and only while the boxes overlap (iw, ih > 0); C's width depends on
// x1a when x1a < x1b and on x2a when x2a > x2b, all decided on the f32
// corners (the task's rule: x2 = x + w rounded to f32); at a tie neither end
// binds. One thread per box, in f32.
extern "C" __global__ void giou_loss_backward_ref(const float* pred, const float* target, const float* grad_loss,
                                                  float* grad_pred, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* a = pred + 4 * i;
    const float* b = target + 4 * i;
    const float ax1 = a[0], ay1 = a[1], aw = a[2], ah = a[3];
    const float bx1 = b[0], by1 = b[1], bw = b[2], bh = b[3];
    const float ax2 = ax1 + aw, ay2 = ay1 + ah, bx2 = bx1 + bw, by2 = by1 + bh;
    const float iw = fmaxf(0.0f, fminf(ax2, bx2) - fmaxf(ax1, bx1));
    const float ih = fmaxf(0.0f, fminf(ay2, by2) - fmaxf(ay1, by1));
    const float I = iw * ih;
    const float U = aw * ah + bw * bh - I;
    const float cw = fmaxf(ax2, bx2) - fminf(ax1, bx1);
    const float ch = fmaxf(ay2, by2) - fminf(ay1, by1);
    const float C = cw * ch;

    const float dI = -(U + I) / (U * U) + 1.0f / C;
    const float dA = I / (U * U) - 1.0f / C;
    const float dC = U / (C * C);
    const bool overlap = iw > 0.0f && ih > 0.0f;
    const float dI_diw = overlap ? ih : 0.0f, dI_dih = overlap ? iw : 0.0f;

    // Gradients with respect to the corners x1, x2, y1, y2 of the predicted box.
    const float g_x1 = (ax1 > bx1 ? -dI * dI_diw : 0.0f) + (ax1 < bx1 ? -dC * ch : 0.0f) - dA * ah;
    const float g_x2 = (ax2 < bx2 ? dI * dI_diw : 0.0f) + (ax2 > bx2 ? dC * ch : 0.0f) + dA * ah;
    const float g_y1 = (ay1 > by1 ? -dI * dI_dih : 0.0f) + (ay1 < by1 ? -dC * cw : 0.0f) - dA * aw;
    const float g_y2 = (ay2 < by2 ? dI * dI_dih : 0.0f) + (ay2 > by2 ? dC * cw : 0.0f) + dA * aw;

    // (x, y, w, h): x2 = x + w, y2 = y + h.
    const float g = grad_loss[i];
    float* out = grad_pred + 4 * i;
    out[0] = g * (g_x1 + g_x2);
    out[1] = g * (g_y1 + g_y2);
    out[2] = g * g_x2;
    out[3] = g * g_y2;
}
