# A performance script in TritonBench's format (performance_metrics/perf_G/
# golden_metrics/<op>_perf.py), written for kbench's tests of vec_add.py:
# the operator over sizes 2^12 .. 2^24.
import sys
import os

sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), '..')))

from TritonBench_v1.vec_add import add
from performance_utils import Performance_Metrics, do_bench_config

import torch


class performance_metrics(Performance_Metrics):
    def __init__(self, dtype=None, is_backward=False, **kwargs):
        super().__init__('vec_add', dtype=dtype, is_backward=is_backward, **kwargs)

    def get_input_tensors(self):
        self.input_tensors = []
        for i in range(12, 25, 4):
            size = 2 ** i
            self.input_tensors.append((torch.rand(size, dtype=torch.float32), torch.rand(size, dtype=torch.float32)))

    def to_cuda(self, input_tensor):
        return (input_tensor[0].cuda(), input_tensor[1].cuda())

    def call_op(self, input_tensor):
        return add(input_tensor[0], input_tensor[1])

    def get_gbps(self, input_tensor, runtime):
        return 3 * input_tensor[0].numel() * input_tensor[0].element_size() / (runtime / 1000) / 1e9

    def get_tflops(self, input_tensor, runtime):
        return input_tensor[0].numel() / (runtime / 1000) / 1e12


if __name__ == '__main__':
    op_perf = performance_metrics()
    op_perf.get_input_tensors()
    op_perf.get_do_bench_config(warmup=100, rep=1000)
    op_perf.run_benchmark()
