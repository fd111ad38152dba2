# A program candidate for problems/kernelbench/2_softmax_rows.py whose C++
# extension does not compile (an undeclared name): a compile_error naming
# this file's line, whether a builder worker met the error ahead or the
# lane's own build does.
# expect: compile_error
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = """
torch::Tensor softmax_rows(torch::Tensor x) {
    return x.softmax(1) * undeclared_factor;
}
"""

ext = load_inline(name="kb_test_softmax_rows_error", cpp_sources=[CPP], functions=["softmax_rows"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.softmax_rows(x)
