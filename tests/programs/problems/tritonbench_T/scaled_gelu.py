# An operator in TritonBench-T's format, written for kbench's tests: a
# PyTorch reference function, then its test.
import torch
import torch.nn.functional as F


def scaled_gelu(input, scale=1.0):
    """GELU of input, times scale."""
    return F.gelu(input) * scale

##################################################################################################################################################


import torch
torch.manual_seed(42)


def test_scaled_gelu():
    results = {}
    x = torch.randn(64, 33, device='cuda')
    results["test_case_1"] = scaled_gelu(x)
    results["test_case_2"] = scaled_gelu(x, scale=2.5)
    return results


test_results = test_scaled_gelu()
print(test_results)
