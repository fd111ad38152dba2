"""kbench.Context: a device (or none), its worker, caches and options."""
import contextlib
import json
import threading

from . import _options, capi
from ._handle import Handle
from .kernel import Kernel
from .result import Result


def _bool(value, name):
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False, not %r" % (name, value))
    return value


def _containment_flag(contain_traps):
    """None: the library's default (correctness-only builds contained);
    True: every build (KB_CONTEXT_CONTAIN_TRAPS); False: none."""
    if contain_traps is None:
        return 0
    if not isinstance(contain_traps, bool):
        raise TypeError("contain_traps must be None (correctness-only builds contained), True (every build) or "
                        "False (none), not %r" % (contain_traps,))
    return capi.KB_CONTEXT_CONTAIN_TRAPS if contain_traps else capi.KB_CONTEXT_NO_CONTAIN_TRAPS


class Context(Handle):
    """Where kernels are compiled and run.

    Context(device=kbench.DEVICE_NONE) is a compile-only context: it validates
    and compiles (to PTX) on a machine without a GPU. Creating a context for a
    device that is not there raises KbenchError with status NO_DEVICE.

    contain_traps: None (the default) contains the builds of correctness-only
    scores, whose crashes and endless loops then keep the worker; True every
    build, timed ones too; False none (docs/isolation.md, "Contained faults
    and hangs"). info["containment"] says which.

    confine: False runs this context's Python workers (program candidates,
    problem files) unconfined, for debugging only (KB_CONTEXT_NO_CONFINE;
    docs/isolation.md, "Untrusted Python"). A score's "sandbox" says what
    was in force.

    Threads: compile() may run on several threads at once (it releases the
    GIL, so compilations overlap each other and the GPU work of another
    thread); the other verbs take turns, as the C API requires. close()
    waits for calls in flight on other threads.
    """

    def __init__(self, device=0, *, isolation="default", arch=None, cache_dir=None, cuda_home=None,
                 worker_path=None, timeout_s=0.0, emit_ptx=False, nvcc_fallback=True, contain_traps=None,
                 confine=True):
        self._state = threading.Condition()  # guards _ptr and _in_flight
        self._in_flight = 0
        self._run_lock = threading.Lock()    # one non-compile verb at a time
        o = capi.kb_context_options()
        o.device = int(device)
        o.isolation = _options.choice(_options.ISOLATIONS, isolation, "isolation")
        o.arch = arch
        o.cache_dir = None if cache_dir is None else str(cache_dir)
        o.cuda_home = None if cuda_home is None else str(cuda_home)
        o.worker_path = None if worker_path is None else str(worker_path)
        o.timeout_s = float(timeout_s)
        o.flags = ((capi.KB_CONTEXT_EMIT_PTX if emit_ptx else 0) | (0 if nvcc_fallback else capi.KB_CONTEXT_NO_NVCC_FALLBACK) |
                   _containment_flag(contain_traps) | (0 if _bool(confine, "confine") else capi.KB_CONTEXT_NO_CONFINE))
        super().__init__(capi.kb_context_create(o))

    @contextlib.contextmanager
    def _use(self, exclusive):
        """Yields the handle, counted as in flight so close() cannot free it
        under a call that released the GIL."""
        with self._state:
            ptr = self._handle
            self._in_flight += 1
        try:
            if exclusive:
                with self._run_lock:
                    yield ptr
            else:
                yield ptr
        finally:
            with self._state:
                self._in_flight -= 1
                self._state.notify_all()

    def close(self):
        with self._state:
            self._state.wait_for(lambda: self._in_flight == 0)
            ptr, self._ptr = self._ptr, None
        if ptr is not None:
            capi.kb_context_destroy(ptr)

    @property
    def info(self):
        """Device name, architecture, memory, clocks, isolation, compiler versions."""
        return json.loads(capi.kb_context_json(self._handle))

    # --- compilation -----------------------------------------------------------

    def compile(self, task, code=None, *, path=None, language="auto", launch=None, metadata=None, label=None):
        """Compiles candidate `code` (str source, bytes image) or the file at
        `path` under the task's policy. Raises KbenchError with status COMPILE
        (the compiler log in .detail) when it does not compile."""
        cand = _options.candidate(code, path, language, launch, metadata, label)
        with self._use(exclusive=False) as ctx:
            return Kernel(capi.kb_compile(ctx, task._handle, cand))

    def compile_task_program(self, task, role="reference"):
        """Compiles the task's "reference" or "baseline"."""
        r = _options.choice(_options.ROLES, role, "role")
        with self._use(exclusive=True) as ctx:  # only kb_compile may overlap
            return Kernel(capi.kb_compile_task_program(ctx, task._handle, r))

    # --- running -----------------------------------------------------------------

    def run_reference(self, task, case, seed=0):
        """Runs the reference on a case (index or name); the result holds output
        statistics and warnings for outputs that cannot tell right from wrong."""
        index = task.case_index(case)
        with self._use(exclusive=True) as ctx:
            return Result(capi.kb_run_reference(ctx, task._handle, index, int(seed)))

    def compare(self, task, kernel, case, seed=0):
        """Runs `kernel` on a case and compares every output with the reference's."""
        index = task.case_index(case)
        with self._use(exclusive=True) as ctx:
            return Result(capi.kb_compare(ctx, task._handle, kernel._handle, index, int(seed)))

    def time(self, task, kernel=None, **timing):
        """Times `kernel` (None: the task's baseline). Keywords: case, mode
        ("cold"/"hot"), against_baseline, budget_ms, warmup_ms, min_samples,
        max_samples, target_rel_noise; 0 means the documented default."""
        opts = _options.fill_time_options(capi.kb_time_options(), task, **timing)
        k = None if kernel is None else kernel._handle
        with self._use(exclusive=True) as ctx:
            return Result(capi.kb_time(ctx, task._handle, k, opts))

    def score(self, task, code=None, *, path=None, language="auto", launch=None, metadata=None, label=None,
              seed=0, correctness_runs=0, skip_timing=False, recheck=True, compile_only=False, **timing):
        """Compile, check every case, time against the baseline, recheck: the
        one call an RL loop wants. A failing candidate is a Result whose
        verdict says why, not an exception. `timing` takes time()'s keywords.
        compile_only=True stops after compiling (verdict "none"; no GPU needed)."""
        cand = _options.candidate(code, path, language, launch, metadata, label)
        opts = _options.score_options(task, seed, correctness_runs, skip_timing, recheck, compile_only, **timing)
        with self._use(exclusive=True) as ctx:
            return Result(capi.kb_score(ctx, task._handle, cand, opts))

    def launch(self, task, kernel, buffers=None, *, dims=None, stream=None, **named):
        """Runs `kernel` (compiled by this context: a candidate, or the task's
        reference or baseline) on your own GPU memory, without copies:
        torch tensors, or anything with __cuda_array_interface__ or __dlpack__
        (CuPy, Numba, JAX). Buffers are given by the task's argument names, as
        a dict or as keywords:

            ctx = kbench.Context(isolation="in_process")
            k = ctx.compile(task, path="candidate.cu")
            ctx.launch(task, k, a=x, b=y, c=out)   # n read from the shapes

        dims: the task's dims; those a buffer's shape names outright (a task
        shape ["n", 4] and a tensor of shape (1009, 4)) are read from it.
        stream: an int CUstream, a torch.cuda.Stream or a CuPy stream; by
        default torch's current stream when a torch tensor is passed, else the
        legacy default stream. The launch is ordered on it like a framework
        op and returns without waiting. kbench checks before launching that
        every buffer is on this device, inside its allocation, large enough
        for the task's shape at these dims, of the task's dtype and 16-byte
        aligned. Needs isolation="in_process" (a worker is another process)."""
        from . import _buffers
        given = dict(buffers or {})
        given.update(named)
        if stream is None:
            torch_tensor = next((x for x in given.values() if _buffers._is_torch_tensor(x)), None)
            if torch_tensor is not None and torch_tensor.is_cuda:
                import sys
                stream = sys.modules["torch"].cuda.current_stream(torch_tensor.device)
        handle = _buffers.stream_handle(stream)
        bufs = {name: _buffers.device_buffer(name, obj, handle) for name, obj in given.items()}
        all_dims = _buffers.infer_dims(task.json(), bufs, dict(dims or {}))
        args = capi.kb_launch_args_create()
        try:
            for name, value in all_dims.items():
                capi.kb_launch_args_set_dim(args, str(name), int(value))
            for name, b in bufs.items():
                capi.kb_launch_args_set_buffer(args, str(name), b.ptr, b.nbytes, b.dtype)
            with self._use(exclusive=True) as ctx:
                capi.kb_launch(ctx, task._handle, kernel._handle, args, handle)
        finally:
            capi.kb_launch_args_destroy(args)

    def batch(self, *, capacity=0, compile_threads=0, device_lanes=0):
        """A kbench.Batch on this context: many scores in flight, compiled on
        CPU threads ahead of the GPU, device_lanes jobs on the GPU at once
        (0: the library's default). Close it (or leave its `with` block)
        before closing the context."""
        from .batch import Batch
        return Batch(self, capacity=capacity, compile_threads=compile_threads, device_lanes=device_lanes)

    def __repr__(self):
        return "<kbench.Context closed>" if self.closed else "<kbench.Context>"
