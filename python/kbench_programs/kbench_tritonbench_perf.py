"""TritonBench's performance scripts, run by kbench (docs/programs.md,
"TritonBench timing").

TritonBench times an operator with a script of its own
(performance_metrics/perf_{G,T}/golden_metrics/<op>_perf.py): a subclass of
`performance_utils.Performance_Metrics` whose get_input_tensors() makes a
list of inputs (vector add: 2^12 to 2^27 elements), to_cuda() moves one to
the GPU and call_op() runs the operator on it, imported from
`TritonBench_v1.<op>` (channel G) or `TorchBench_v1.<op>` (channel T).

kbench runs that script unchanged, with its imports pointed at the module
being judged (the reference's or the candidate's code) and at a
`performance_utils` of kbench's own below (the interface only: kbench times,
not TritonBench's do_bench). One run of the task's perf case is call_op on
every input in turn, so its time is the sum over the inputs, the quantity
TritonBench's speedup (sum of reference times over sum of candidate times)
is made of; its outputs are compared with the reference's at every input,
which TritonBench's performance phase never does.
"""

import re
import sys
import types

import kbench_problem as kp

# `from TritonBench_v1.add_example import add_wrapper`, `from TorchBench_v1.relu import relu`
_OPERATOR_IMPORT = re.compile(r"^\s*from\s+([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s+import\s", re.M)


class PerfScriptError(Exception):
    """The performance script does not have the shape TritonBench's have."""


class do_bench_config:  # noqa: N801  (the name TritonBench's scripts import)
    def __init__(self, warm_up=25, repetition=100, grad_to_none=None, quantiles=(0.5, 0.8, 0.2),
                 return_mode="median"):
        self.warm_up = warm_up
        self.repetition = repetition
        self.grad_to_none = grad_to_none
        self.quantiles = list(quantiles)
        self.return_mode = return_mode


class Performance_Metrics:  # noqa: N801
    """The base class TritonBench's scripts derive from: what they call of it."""

    def __init__(self, op_name, dtype=None, is_backward=False, **kwargs):
        self.op_name = op_name + ("backward" if is_backward else "")
        self.dtype = dtype
        self.kwargs = kwargs
        self.input_tensors = []
        self.do_bench_config = do_bench_config()

    def get_input_tensors(self):
        raise NotImplementedError("the performance script defines no get_input_tensors()")

    def to_cuda(self, input_tensor):
        raise NotImplementedError("the performance script defines no to_cuda()")

    def call_op(self, input_tensor):
        raise NotImplementedError("the performance script defines no call_op()")

    def get_do_bench_config(self, warmup=None, rep=None):
        self.do_bench_config = do_bench_config(warm_up=warmup or 25, repetition=rep or 100)


def _shim():
    m = types.ModuleType("performance_utils")
    m.Performance_Metrics = Performance_Metrics
    m.do_bench_config = do_bench_config
    return m


def operator_imports(perf_source):
    """[(package, operator)] the script imports the operator from."""
    return [(m.group(1), m.group(2)) for m in _OPERATOR_IMPORT.finditer(perf_source)
            if m.group(1) != "performance_utils"]


def load(perf_source, target, work_dir, name="perf_script.py"):
    """The script's `performance_metrics` class, its operator imports bound to
    `target` (a module holding the operator's functions)."""
    installed = {"performance_utils": _shim()}
    for package, op in operator_imports(perf_source):
        if package not in installed:
            installed[package] = types.ModuleType(package)
        installed["%s.%s" % (package, op)] = target
        setattr(installed[package], op, target)
    saved = {k: sys.modules.get(k) for k in installed}
    sys.modules.update(installed)
    try:
        module = kp.load_module(perf_source, name, work_dir, "kbench_tb_perf")
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    cls = getattr(module, "performance_metrics", None)
    if cls is None:
        kp.unload_module(module)
        raise PerfScriptError("the performance script defines no class performance_metrics (TritonBench's scripts "
                              "subclass performance_utils.Performance_Metrics under that name)")
    return module, cls


class PerfRun:
    """The perf case of a TritonBench task: call_op on every input in turn."""

    def __init__(self, module, cls, seed):
        self.module = module
        self.metrics = cls()
        kp.set_seed(seed)
        self.metrics.get_input_tensors()
        self.inputs = [self.metrics.to_cuda(x) for x in self.metrics.input_tensors]
        self.metrics.input_tensors = []  # the host copies are not needed again
        if not self.inputs:
            raise PerfScriptError("the performance script's get_input_tensors() made no inputs")

    def __call__(self):
        return [self.metrics.call_op(x) for x in self.inputs]

    def close(self):
        self.inputs = []
        kp.unload_module(self.module)
