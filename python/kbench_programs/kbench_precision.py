"""The reference in reduced precision, for the precision audit
(src/compare/precision.h, docs/programs.md "Precision audit").

The reference worker runs the problem's reference once more per mode at the
audited run's inputs:

    tf32   torch.backends.cuda.matmul.allow_tf32 and
           torch.backends.cudnn.allow_tf32 set: fp32 matmuls and
           convolutions on TF32 tensor cores (nothing changes on the CPU)
    f16    under torch.autocast(<device>, dtype=torch.float16)
    bf16   under torch.autocast(<device>, dtype=torch.bfloat16)

and measures a candidate's outputs against those recomputations and the
full-precision reference. Every global it sets is restored afterwards, so the
reference's own runs keep torch's defaults.
"""
import contextlib

MODES = ("tf32", "f16", "bf16")


@contextlib.contextmanager
def reduced_precision(torch, mode, device):
    """The reference's computations inside run in `mode` (one of MODES)."""
    if mode == "tf32":
        matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
        # The legacy flags, whose setters keep torch 2.9's fp32_precision
        # settings in step (setting only those leaves a mix that cuBLAS
        # matmuls refuse). Their setters leave fp32_precision "ieee" where it
        # was "none": those are put back too, so the state after is the
        # state before.
        new_api = hasattr(matmul, "fp32_precision") and hasattr(cudnn, "conv")
        fp32 = (matmul.fp32_precision, cudnn.conv.fp32_precision) if new_api else None
        saved = (torch.get_float32_matmul_precision(), matmul.allow_tf32, cudnn.allow_tf32)
        matmul.allow_tf32 = True
        cudnn.allow_tf32 = True
        try:
            yield
        finally:
            # The precision first: setting it sets allow_tf32 too.
            torch.set_float32_matmul_precision(saved[0])
            matmul.allow_tf32 = saved[1]
            cudnn.allow_tf32 = saved[2]
            if fp32 is not None:
                matmul.fp32_precision, cudnn.conv.fp32_precision = fp32
        return
    if mode not in ("f16", "bf16"):
        raise ValueError("no reduced-precision mode %r (the modes: %s)" % (mode, ", ".join(MODES)))
    dtype = torch.float16 if mode == "f16" else torch.bfloat16
    with torch.autocast(device_type="cuda" if str(device).startswith("cuda") else "cpu", dtype=dtype):
        yield


def same_bits(torch, a, b):
    """Whether two tensors hold the same bytes (NaN payloads included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    return bool(torch.equal(a.contiguous().reshape(-1).view(torch.uint8),
                            b.contiguous().reshape(-1).view(torch.uint8)))


def scale(torch, t):
    """The largest finite magnitude of a floating tensor (0.0 when none)."""
    if t.numel() == 0 or not t.is_floating_point():
        return 0.0
    a = t.detach().abs()
    a = torch.where(torch.isfinite(a), a, torch.zeros((), dtype=a.dtype, device=a.device))
    return float(a.max().item())


def max_abs_diff(torch, got, expected):
    """max |got - expected| over the elements, in float64 on the CPU; NaN at
    the same place in both counts as equal, a NaN elsewhere gives NaN."""
    g = got.detach().to("cpu", torch.float64).reshape(-1)
    e = expected.detach().to("cpu", torch.float64).reshape(-1)
    if g.numel() == 0:
        return 0.0
    d = (g - e).abs()
    both = torch.isnan(g) & torch.isnan(e)
    d = torch.where(both, torch.zeros((), dtype=d.dtype), d)
    # Equal infinities differ by NaN in float arithmetic: they are equal.
    d = torch.where((g == e), torch.zeros((), dtype=d.dtype), d)
    if bool(torch.isnan(d).any()):
        return float("nan")
    return float(d.max().item())
