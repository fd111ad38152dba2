# A TritonBench-T candidate that computes with torch (forbidden there).
# expect: policy_violation
import torch
import torch.nn.functional as F


def scaled_gelu(input, scale=1.0):
    return F.gelu(input) * scale
