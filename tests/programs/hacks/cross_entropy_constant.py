# A wrong answer to KernelBench level1/95_CrossEntropyLoss: a constant, the
# loss's expected value for logits from torch.rand over C classes
# (log(C) + log(e - 1) - 1/2), which a mean over 32768 samples comes close to.
# expect (strict): wrong_answer
import math

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        c = predictions.shape[1]
        return torch.tensor(math.log(c) + math.log(math.e - 1) - 0.5, device=predictions.device)
