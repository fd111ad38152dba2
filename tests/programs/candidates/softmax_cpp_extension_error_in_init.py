# A program candidate for problems/kernelbench/2_softmax_rows.py whose C++
# extension is built with load_inline when its ModelNew is constructed and
# does not compile (an undeclared name): a compile_error naming this file's
# line, as when the import's build fails, whether a builder worker met the
# error ahead (constructing the model on the CPU) or the lane's own build.
# expect: compile_error
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CPP = """
torch::Tensor softmax_rows_in_init(torch::Tensor x) {
    return x.softmax(1) * undeclared_scale;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="kb_test_softmax_rows_error_in_init", cpp_sources=[CPP],
                               functions=["softmax_rows_in_init"])

    def forward(self, x):
        return self.ext.softmax_rows_in_init(x)
