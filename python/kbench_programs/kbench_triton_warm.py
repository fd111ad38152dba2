"""Compile-only calls of Triton kernels: the candidate worker's warm-up.

A Triton kernel compiles at its first launch for each specialisation (dtypes,
which integer arguments are 1 or divisible by 16, constexprs). A candidate's
first call at each case is therefore mostly Triton's compiler: at KernelBench's
sizes 100-200 ms per kernel and shape, where the kernel itself runs for a few
milliseconds. The worker calls the candidate's model once per case right after
the import, inside `compile_only()`: every launch through a @triton.jit
function or an autotuner compiles (into the function's cache, where the real
launch finds it), loads its module, builds its launcher and returns without
running, so the compiles happen at the load, on the CPU and in parallel over lanes, and not inside the GPU phases.

Nothing the warm-up computes is used: its outputs are garbage (no kernel ran)
and any exception it raises is the real call's to raise again.
"""
import contextlib
import sys
import threading

_state = threading.local()


def active():
    return getattr(_state, "on", False)


_installed = False


def install():
    """Wraps JITFunction.run and Autotuner.run once, when Triton is loaded.
    Must run before a candidate's kernels are wrapped for counting (the
    counting wrappers bind the class's run). Returns whether Triton is there."""
    global _installed
    if _installed:
        return True
    jit = sys.modules.get("triton.runtime.jit")
    if jit is None:
        return False
    JITFunction = getattr(jit, "JITFunction", None)
    if JITFunction is None:
        return False
    plain_run = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):
        if not active():
            return plain_run(self, *args, grid=grid, warmup=warmup, **kwargs)
        kernel = plain_run(self, *args, grid=grid, warmup=True, **kwargs)
        # The launch's own set-up too: Triton loads the kernel's module and
        # builds its C launcher (gcc, once per signature and cache) at the
        # first real launch, which would put that build inside a GPU phase.
        # A failure here (too much shared memory) is stored in the kernel
        # and raised again by the real launch.
        init = getattr(kernel, "_init_handles", None)
        if init is not None:
            try:
                init()
            except Exception:
                pass
        return kernel

    run.__wrapped__ = plain_run
    JITFunction.run = run
    tuner = sys.modules.get("triton.runtime.autotuner")
    Autotuner = getattr(tuner, "Autotuner", None) if tuner else None
    if Autotuner is not None and hasattr(Autotuner, "warmup"):
        tuned_run = Autotuner.run

        def tuned(self, *args, **kwargs):
            if not active():
                return tuned_run(self, *args, **kwargs)
            # Every configuration compiles; none is timed, so none is chosen
            # (a choice made on launches that did not run would stick).
            kwargs.pop("warmup", None)
            self.warmup(*args, **kwargs)
            return None

        tuned.__wrapped__ = tuned_run
        Autotuner.run = tuned
    _installed = True
    return True


@contextlib.contextmanager
def compile_only():
    """Inside: launches of Triton kernels compile and do not run (this thread)."""
    _state.on = True
    try:
        yield
    finally:
        _state.on = False
