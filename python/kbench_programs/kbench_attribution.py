"""Where a program candidate's device time goes (docs/programs.md, "Attribution").

* Kernels: CUPTI's activity API, through kbench's own small library
  (libkbench_cupti.so, loaded with ctypes: python/kbench_programs/native/),
  records every kernel, memcpy and memset on every stream of the process with
  its start and end on the GPU. A call's window runs from just before the
  candidate is called to the device-wide synchronisation after it returns;
  every record inside it counts, so work on a side stream is counted and timed.
  Not torch.profiler: a candidate cannot switch CUPTI off through torch.
* Operators: a torch dispatch mode records the aten operators the candidate
  calls (allocation and views are told apart from compute by the judge).
* Triton: every @triton.jit function (or autotuner) the candidate's module
  defines is counted when it launches, so a Triton candidate whose kernels
  never run shows as a decoy even without CUPTI.
"""

import ctypes
import os
import re

# Record kinds of libkbench_cupti (native/kbench_cupti.h).
KIND_KERNEL, KIND_MEMCPY, KIND_MEMSET = 1, 2, 3


class CuptiRecord(ctypes.Structure):
    _fields_ = [("start", ctypes.c_uint64), ("end", ctypes.c_uint64), ("kind", ctypes.c_uint32),
                ("stream", ctypes.c_uint32), ("device", ctypes.c_uint32), ("name_id", ctypes.c_uint32),
                ("bytes", ctypes.c_uint64)]


class Cupti:
    """kbench's CUPTI shim; `available` is False (with `why`) where it cannot run."""

    def __init__(self, path):
        self.available = False
        self.why = ""
        self.lib = None
        self._names = {}
        if not path:
            self.why = "no CUPTI library was given (kbench was built without CUPTI)"
            return
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            self.why = "cannot load %s: %s" % (path, e)
            return
        lib.kbc_start.restype = ctypes.c_int
        lib.kbc_error.restype = ctypes.c_char_p
        lib.kbc_now.restype = ctypes.c_uint64
        lib.kbc_flush.restype = ctypes.c_int
        lib.kbc_take.restype = ctypes.c_size_t
        lib.kbc_take.argtypes = [ctypes.POINTER(CuptiRecord), ctypes.c_size_t]
        lib.kbc_name.restype = ctypes.c_char_p
        lib.kbc_name.argtypes = [ctypes.c_uint32]
        lib.kbc_dropped.restype = ctypes.c_uint64
        self.lib = lib
        if lib.kbc_start() != 0:
            self.why = "CUPTI did not start: " + (lib.kbc_error() or b"").decode("utf-8", "replace")
            return
        self.available = True

    def now(self):
        return int(self.lib.kbc_now())

    def take(self):
        """Every record since the last take, as tuples (start, end, kind, stream, name)."""
        self.lib.kbc_flush()
        out = []
        buf = (CuptiRecord * 4096)()
        while True:
            n = self.lib.kbc_take(buf, 4096)
            for i in range(n):
                r = buf[i]
                name = self._names.get(r.name_id)
                if name is None:
                    name = (self.lib.kbc_name(r.name_id) or b"").decode("utf-8", "replace")
                    self._names[r.name_id] = name
                out.append((r.start, r.end, r.kind, r.stream, name))
            if n < 4096:
                break
        return out

    def dropped(self):
        return int(self.lib.kbc_dropped()) if self.lib else 0


class KernelTally:
    """Records inside call windows, summed per kernel name."""

    def __init__(self):
        self.by_name = {}
        self.outside = 0
        self.outside_names = set()
        self.streams = set()

    def add_window(self, records, t0, t1, count_outside=True):
        """Adds the records that started inside [t0, t1]; returns the window's
        end (the last record's end, at least t0). count_outside=False: the
        others are the caller's own work (a timing loop's input copies and
        cache flushes), not work outside the candidate's calls."""
        end = t0
        for start, stop, kind, stream, name in records:
            if start < t0 or start > t1:
                if not count_outside:
                    continue
                self.outside += 1
                if kind == KIND_KERNEL:
                    self.outside_names.add(name)
                continue
            end = max(end, stop)
            key = name if kind == KIND_KERNEL else ("[memcpy]" if kind == KIND_MEMCPY else "[memset]")
            e = self.by_name.setdefault(key, {"name": key, "kind": "kernel" if kind == KIND_KERNEL else
                                               ("memcpy" if kind == KIND_MEMCPY else "memset"),
                                               "launches": 0, "total_ns": 0, "streams": set()})
            e["launches"] += 1
            e["total_ns"] += max(0, stop - start)
            e["streams"].add(stream)
            self.streams.add(stream)
        return end

    def to_json(self):
        kernels = []
        for e in sorted(self.by_name.values(), key=lambda e: -e["total_ns"]):
            kernels.append({"name": e["name"], "kind": e["kind"], "launches": e["launches"],
                            "total_us": e["total_ns"] / 1000.0, "streams": len(e["streams"])})
        return {"kernels": kernels, "streams": len(self.streams), "records_outside_calls": self.outside,
                "kernels_outside_calls": sorted(self.outside_names)[:20]}


class OpRecorder:
    """The aten operators called while active (a torch dispatch mode). With
    `gate` (a one-element list), only those called while gate[0] > 0: a
    TritonBench test function builds its inputs with torch around the
    candidate's functions, and only what those functions call is theirs."""

    def __init__(self, gate=None):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        counts = {}
        self.counts = counts

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                if gate is None or gate[0] > 0:
                    name = str(getattr(func, "overloadpacket", func))
                    counts[name] = counts.get(name, 0) + 1
                return func(*args, **(kwargs or {}))

        self._mode_cls = Mode
        self._torch = torch

    def __enter__(self):
        self._mode = self._mode_cls()
        self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self._mode.__exit__(*exc)


# ---------------------------------------------------------------------------
# What the candidate declares

def triton_kernels(module):
    """{name: object} of the @triton.jit functions and autotuners a module defines."""
    out = {}
    for name, obj in list(vars(module).items()):
        cls = type(obj)
        mod = getattr(cls, "__module__", "") or ""
        if mod.startswith("triton.runtime") and hasattr(obj, "run"):
            fn = obj
            while hasattr(fn, "fn") and not hasattr(fn, "src"):
                fn = fn.fn
            out[getattr(fn, "__name__", name)] = obj
    return out


def count_triton_launches(module):
    """Wraps each Triton kernel's run() so its launches are counted; returns
    the counts dict (name -> launches). A call that raises (the kernel did
    not compile, the launch was refused) is not a launch: counting it would
    hide a decoy whose kernel fails inside try/except."""
    counts = {}
    for name, obj in triton_kernels(module).items():
        counts[name] = 0
        inner = obj.run

        def counting(*args, __inner=inner, __name=name, **kwargs):
            out = __inner(*args, **kwargs)
            counts[__name] += 1
            return out

        try:
            obj.run = counting
        except Exception:
            pass
    return counts


CUDA_KERNEL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+)?(?:inline\s+)?"
                         r"[\w:<>,\s\*&]+?\s+(\w+)\s*\(")


def cuda_kernels_in_source(source):
    """Names of the __global__ functions in CUDA code the candidate carries
    (load_inline's cuda_sources are string literals of the module)."""
    return sorted(set(CUDA_KERNEL.findall(source)))


def kernel_is_candidates(kernel_name, declared):
    """True when a recorded kernel is one the candidate declared: Triton names
    its kernels after the function; a CUDA kernel's mangled name holds
    <length><name>."""
    for d in declared:
        if kernel_name == d or kernel_name.startswith(d + "_") or ("%d%s" % (len(d), d)) in kernel_name:
            return True
        if re.search(r"\b%s\b" % re.escape(d), kernel_name):
            return True
    return False


def load_libcuda():
    """The driver, for a synchronisation no Python code can replace."""
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            lib = ctypes.CDLL(name)
            lib.cuCtxSynchronize.restype = ctypes.c_int
            return lib
        except OSError:
            continue
    return None


def default_cupti_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.environ.get("KBENCH_CUPTI_LIB", ""), os.path.join(here, "native", "libkbench_cupti.so")):
        if p and os.path.exists(p):
            return p
    return ""


def gate_functions(module, names, gate):
    """Wraps module-level functions `names` so that gate[0] counts the calls
    in progress (for OpRecorder's gate); the module's own code, which looks
    them up by name, calls the wrappers."""
    import functools
    for name in names:
        fn = getattr(module, name, None)
        if not callable(fn):
            continue

        @functools.wraps(fn)
        def gated(*args, __fn=fn, **kwargs):
            gate[0] += 1
            try:
                return __fn(*args, **kwargs)
            finally:
                gate[0] -= 1

        setattr(module, name, gated)
