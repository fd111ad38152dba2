# A program candidate for problems/kernelbench/2_softmax_rows.py whose softmax
# is a C++ extension built with load_inline when the module is imported (C++
# alone: it runs on torch's CPU in the test workers). With builds ahead, a
# builder worker builds it and the lane's import loads the library.
# expect: pass
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = """
torch::Tensor softmax_rows(torch::Tensor x) {
    auto e = (x - std::get<0>(x.max(1, true))).exp();
    return e / e.sum(1, true);
}
"""

ext = load_inline(name="kb_test_softmax_rows", cpp_sources=[CPP], functions=["softmax_rows"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.softmax_rows(x)
