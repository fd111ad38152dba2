# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(idx_ptr, w_ptr, out_ptr, dim, w_stride, out_stride, BLOCK: tl.constexpr):
    # One program per index: copies row idx[i] of the weight table to row i of out.
    i = tl.program_id(0)
    row = tl.load(idx_ptr + i)
    cols = tl.arange(0, BLOCK)
    mask = cols < dim
    vals = tl.load(w_ptr + row * w_stride + cols, mask=mask, other=0.0)
    tl.store(out_ptr + i * out_stride + cols, vals, mask=mask)


def embedding(indices, weight):
    # Gathers rows of weight (V x D) at int64 indices of any shape; returns indices.shape + (D,).
    weight = weight.contiguous()
    flat = indices.reshape(-1).contiguous()
    n = flat.numel()
    dim = weight.shape[1]
    out = torch.empty((n, dim), device=weight.device, dtype=weight.dtype)
    BLOCK = triton.next_power_of_2(dim)
    embedding_kernel[(n,)](flat, weight, out, dim, weight.stride(0), out.stride(0), BLOCK=BLOCK)
    return out.reshape(*indices.shape, dim)


##################################################################################################################################################


import torch


def test_embedding():
    results = {}
    w = torch.randn(1000, 128, device='cuda')
    idx = torch.randint(0, 1000, (512,), device='cuda', dtype=torch.int64)
    results['test_case_1'] = embedding(idx, w)
    w2 = torch.randn(50, 17, device='cuda')
    idx2 = torch.randint(0, 50, (4, 33), device='cuda', dtype=torch.int64)
    results['test_case_2'] = embedding(idx2, w2)
    w3 = torch.randn(4000, 300, device='cuda')
    idx3 = torch.randint(0, 4000, (2048,), device='cuda', dtype=torch.int64)
    results['test_case_3'] = embedding(idx3, w3)
    return results


result_gold = test_embedding()
