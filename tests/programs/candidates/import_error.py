# Fails at import.
# expect: compile_error
import torch.nn as nn

undefined_name_at_import_time + 1


class ModelNew(nn.Module):
    def forward(self, x):
        return x
