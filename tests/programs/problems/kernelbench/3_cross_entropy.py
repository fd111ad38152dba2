# A problem in KernelBench's format, written for kbench's tests: integer
# targets, which must stay int64 (KernelBench casts them to the precision).
import torch
import torch.nn as nn


class Model(nn.Module):
    """Mean cross-entropy of logits against class indices."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        return torch.nn.functional.cross_entropy(predictions, targets)


batch_size = 256
num_classes = 100
input_shape = (num_classes,)
dim = 1


def get_inputs():
    return [torch.randn(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
