"""What other evaluators pay to build one small kernel, for comparison with
kb_compile: KernelBench's path (torch.utils.cpp_extension.load_inline of a
CUDA vector add, in a fresh build directory) and Triton's first-call JIT of
an equivalent kernel (fresh cache directory). Prints one JSON document.

usage: python3 bench/compile_baselines.py [--skip-load-inline]
"""
import json
import os
import sys
import tempfile
import time

import torch

CUDA_SRC = r"""
__global__ void vector_add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
torch::Tensor vector_add(torch::Tensor a, torch::Tensor b) {
    auto c = torch::empty_like(a);
    int n = a.numel();
    vector_add_kernel<<<(n + 255) / 256, 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
    return c;
}
"""
CPP_SRC = "torch::Tensor vector_add(torch::Tensor a, torch::Tensor b);"


def load_inline_seconds():
    from torch.utils.cpp_extension import load_inline
    with tempfile.TemporaryDirectory() as build_dir:
        t0 = time.perf_counter()
        mod = load_inline(name="kb_vector_add", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["vector_add"],
                          build_directory=build_dir, verbose=False)
        a = torch.rand(1 << 20, device="cuda")
        c = mod.vector_add(a, a)
        torch.cuda.synchronize()
        dt = time.perf_counter() - t0
        assert torch.allclose(c, a + a)
    return dt


def triton_first_call_seconds():
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)

    a = torch.rand(1 << 20, device="cuda")
    c = torch.empty_like(a)
    n = a.numel()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    add_kernel[(triton.cdiv(n, 1024),)](a, a, c, n, BLOCK=1024)
    torch.cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    add_kernel[(triton.cdiv(n, 1024),)](a, a, c, n, BLOCK=1024)
    torch.cuda.synchronize()
    second = time.perf_counter() - t0
    assert torch.allclose(c, a + a)
    return first, second


def main():
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    torch.zeros(1, device="cuda")  # CUDA context outside every figure
    first, second = triton_first_call_seconds()
    out["triton_first_call_s"] = first
    out["triton_second_call_s"] = second
    if "--skip-load-inline" not in sys.argv:
        out["torch_load_inline_s"] = load_inline_seconds()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
