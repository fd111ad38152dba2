# Example Triton solution for tasks/losses/giou_loss_f32: one program per
# BLOCK_SIZE box pairs; each box's four values (x, y, w, h) come from strided
# loads at offsets * 4 + k.
# Expected verdict: pass
import triton
import triton.language as tl


@triton.jit
def giou_loss(pred_ptr, target_ptr, loss_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    base = offsets.to(tl.int64) * 4
    ax = tl.load(pred_ptr + base, mask=mask, other=0.0)
    ay = tl.load(pred_ptr + base + 1, mask=mask, other=0.0)
    aw = tl.load(pred_ptr + base + 2, mask=mask, other=1.0)
    ah = tl.load(pred_ptr + base + 3, mask=mask, other=1.0)
    bx = tl.load(target_ptr + base, mask=mask, other=0.0)
    by = tl.load(target_ptr + base + 1, mask=mask, other=0.0)
    bw = tl.load(target_ptr + base + 2, mask=mask, other=1.0)
    bh = tl.load(target_ptr + base + 3, mask=mask, other=1.0)
    iw = tl.maximum(tl.minimum(ax + aw, bx + bw) - tl.maximum(ax, bx), 0.0)
    ih = tl.maximum(tl.minimum(ay + ah, by + bh) - tl.maximum(ay, by), 0.0)
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    area_c = (tl.maximum(ax + aw, bx + bw) - tl.minimum(ax, bx)) * (tl.maximum(ay + ah, by + bh) - tl.minimum(ay, by))
    tl.store(loss_ptr + offsets, 1.0 - inter / union + (area_c - union) / area_c, mask=mask)
