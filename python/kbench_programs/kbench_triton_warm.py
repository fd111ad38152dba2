"""Compile-only calls of Triton kernels: the candidate worker's warm-up.

A Triton kernel compiles at its first launch for each specialisation (dtypes,
which integer arguments are 1 or divisible by 16, constexprs). A candidate's
first call at each case is therefore mostly Triton's compiler: at KernelBench's
sizes 100-200 ms per kernel and shape, where the kernel itself runs for a few
milliseconds. The worker calls the candidate's model once per case right after
the import, inside `compile_only()`: every launch through a @triton.jit
function or an autotuner compiles (into the function's cache, where the real
launch finds it), loads its module, builds its launcher and returns without
running, so the compiles happen at the load, on the CPU and in parallel over
lanes, and not inside the GPU phases. Within a load they run side by side
too (side_by_side): a matmul answer's specialisations, one per case of the
strict protocol, took 2.1-2.5 s a load one after another on an H100's host
(bench/kernelbench/program_bench.py, 1_Square_matrix_multiplication_).

Nothing the warm-up computes is used: its outputs are garbage (no kernel ran)
and any exception it raises is the real call's to raise again.
"""
import contextlib
import os
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
        # The launch's own set-up too, which Triton does at the first real
        # launch, inside a GPU phase. A compile still under way
        # (side_by_side) is set up when it ends.
        load(kernel)
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


def compile_threads():
    """How many threads compile a load's Triton kernels side by side:
    $KBENCH_TRITON_COMPILE_THREADS, else the CPUs this worker may use, at
    most 8 (the lanes of a GPU share the CPUs). Triton's compiler releases
    the GIL for most of a compile: four matmul configurations compiled in
    0.50 s on two threads against 0.93 s on one (two cores)."""
    v = os.environ.get("KBENCH_TRITON_COMPILE_THREADS", "")
    if v.strip().isdigit():
        return int(v)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


@contextlib.contextmanager
def side_by_side(threads):
    """Inside: the compiles that launches under compile_only() start go to
    `threads` threads (Triton's AsyncCompileMode, Triton 3.4 and later)
    instead of one after another: every kernel, configuration and
    specialisation of a load at once. On the way out it waits for them all,
    stores each compiled kernel where its launch finds it (a compile that
    failed is left for its launch to fail again), and loads each one's
    module and launcher in this thread. With one thread, or without
    AsyncCompileMode, compiles run at their launches as before."""
    mod = sys.modules.get("triton.runtime._async_compile")
    mode_class = getattr(mod, "AsyncCompileMode", None) if mod else None
    if threads <= 1 or mode_class is None or mod.active_mode.get() is not None:
        yield
        return
    from concurrent.futures import ThreadPoolExecutor
    executor = ThreadPoolExecutor(threads, thread_name_prefix="kbench-triton-compile")
    mode = mode_class(executor, ignore_errors=True)
    try:
        with mode:
            yield
    finally:
        executor.shutdown(wait=True)
    for future in mode.future_kernels.values():
        load(future.kernel)


def load(kernel):
    """Triton's own set-up of a compiled kernel before its first real launch:
    loads its module and builds its C launcher (gcc, once per signature and
    cache). A failure (too much shared memory) stays in the kernel, and the
    real launch raises it again."""
    init = getattr(kernel, "_init_handles", None)
    if init is not None:
        try:
            init()
        except Exception:
            pass


@contextlib.contextmanager
def compile_only():
    """Inside: launches of Triton kernels compile and do not run (this thread)."""
    _state.on = True
    try:
        yield
    finally:
        _state.on = False
