# Correct, but leaves a thread running after each call.
# expect: policy_violation
import threading
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        threading.Thread(target=time.sleep, args=(30,), daemon=True, name="keeps-working").start()
        return torch.softmax(x, dim=1)
