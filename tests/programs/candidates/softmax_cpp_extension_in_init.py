# A program candidate for problems/kernelbench/2_softmax_rows.py whose softmax
# is a C++ extension built with load_inline when its ModelNew is constructed,
# not when the module is imported (C++ alone: it runs on torch's CPU in the
# test workers). With builds ahead, the builder worker constructs the model
# from the problem's init inputs, builds it, and the lane's construction
# loads the library.
# expect: pass
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = """
torch::Tensor softmax_rows_in_init(torch::Tensor x) {
    auto e = (x - std::get<0>(x.max(1, true))).exp();
    return e / e.sum(1, true);
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="kb_test_softmax_rows_in_init", cpp_sources=[CPP],
                               functions=["softmax_rows_in_init"])

    def forward(self, x):
        return self.ext.softmax_rows_in_init(x)
