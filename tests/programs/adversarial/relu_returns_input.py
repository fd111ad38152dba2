# task: relu_gpu
# expect: wrong_answer
# Returns its input: the identity passes KernelBench's ReLU problem, whose
# inputs are all positive; this task's inputs are not.
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x
