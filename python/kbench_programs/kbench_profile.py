"""KBENCH_PROFILE for the Python workers (docs/measurement.md): named spans
summed per process, one JSON line {"pid", "process", "spans": {name: [count,
total_ms]}} appended to $KBENCH_PROFILE when the worker exits normally, the
format kbench's C++ processes write (src/util/profile.h). Off, a span costs
one attribute lookup."""
import atexit
import json
import os
import time

_PATH = os.environ.get("KBENCH_PROFILE", "")
_SPANS = {}
_PROCESS = ["python worker"]


class span:
    __slots__ = ("name", "t0")

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        if _PATH:
            self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if _PATH:
            n, ms = _SPANS.get(self.name, (0, 0.0))
            _SPANS[self.name] = (n + 1, ms + (time.perf_counter() - self.t0) * 1e3)
        return False


class laps:
    """Consecutive spans of one request: each call `lap(name)` adds the
    time since the previous lap (or since the start) to "<prefix>.<name>",
    so a request's time splits into its parts without nesting a block per
    part."""
    __slots__ = ("prefix", "t")

    def __init__(self, prefix):
        self.prefix = prefix
        self.t = time.perf_counter() if _PATH else 0.0

    def __call__(self, name):
        if _PATH:
            now = time.perf_counter()
            key = self.prefix + "." + name
            n, ms = _SPANS.get(key, (0, 0.0))
            _SPANS[key] = (n + 1, ms + (now - self.t) * 1e3)
            self.t = now


_HELD_PATH = os.environ.get("KBENCH_PROFILE_MEMORY", "")
_SCAN = [None]  # the object list held_memory walks: not a holder itself
_HELD_LAST = [0.0]


def _referrer_name(r, target, gc):
    """What `r`, which refers to `target`, is: a frame's function, an
    object's attribute (through its __dict__ or directly), or a type."""
    if type(r).__name__ == "frame":
        return "frame %s" % r.f_code.co_name
    if isinstance(r, dict):
        keys = [k for k, v in r.items() if v is target][:1]
        owners = [type(o).__name__ for o in gc.get_referrers(r) if getattr(o, "__dict__", None) is r][:1]
        return "%s.%s" % (owners[0] if owners else "dict", keys[0] if keys else "?")
    attrs = [k for k, v in getattr(r, "__dict__", {}).items() if v is target][:1]
    return type(r).__name__ + ("." + attrs[0] if attrs else "")


def _owner_of(obj, gc):
    """Short names for what holds `obj`; for a list or tuple, what holds
    that in turn."""
    names = []
    for r in gc.get_referrers(obj):
        if r is _SCAN[0]:
            continue
        if isinstance(r, (list, tuple)):
            names.append(type(r).__name__ + " in " + ",".join(
                [_referrer_name(c, r, gc) for c in gc.get_referrers(r) if c is not _SCAN[0]][:4]))
        else:
            names.append(_referrer_name(r, obj, gc))
    return names[:6]


def tracing_memory():
    """Whether held_memory writes anything ($KBENCH_PROFILE_MEMORY)."""
    return bool(_HELD_PATH)


def held_memory(torch, device, when):
    """With $KBENCH_PROFILE_MEMORY (a file): one JSON line of what this
    process holds on the device at `when` (an idle point), so a trace of a
    batch says which worker keeps memory between its jobs and why: torch's
    allocated and reserved bytes, each segment of 256 MiB or more with its
    allocated part and active blocks, and each live CUDA tensor of 256 MiB
    or more with what refers to it. Off, it costs one string test."""
    if not _HELD_PATH or torch is None or not str(device).startswith("cuda"):
        return
    import gc
    big = 256 << 20
    cuda = torch.cuda
    # Only a worker that holds 1 GiB or more, at most once in 2 s: the
    # object walk takes tens of milliseconds, inside a lane's GPU phase.
    now = time.time()
    if cuda.memory_reserved(device) < 1 << 30 or now - _HELD_LAST[0] < 2.0:
        return
    _HELD_LAST[0] = now
    segments = []
    for seg in cuda.memory_snapshot():
        if seg.get("total_size", 0) >= big:
            segments.append([seg["total_size"], seg.get("allocated_size", 0),
                             [b["size"] for b in seg.get("blocks", []) if b.get("state") == "active_allocated"][:8]])
    import warnings
    tensors = []
    _SCAN[0] = everything = gc.get_objects()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # isinstance on deprecated module attributes warns
        for o in everything:
            try:
                if isinstance(o, torch.Tensor) and o.is_cuda and o.untyped_storage().nbytes() >= big:
                    tensors.append({"bytes": o.untyped_storage().nbytes(), "shape": list(o.shape),
                                    "dtype": str(o.dtype), "held_by": _owner_of(o, gc)})
            except Exception:
                continue
    _SCAN[0] = None
    del everything
    line = {"pid": os.getpid(), "process": _PROCESS[0], "when": when, "t": now,
            "allocated": cuda.memory_allocated(device), "reserved": cuda.memory_reserved(device),
            "segments": segments, "tensors": tensors[:16]}
    try:
        with open(_HELD_PATH, "a") as f:
            f.write(json.dumps(line) + "\n")
    except OSError:
        pass


def name_process(name):
    _PROCESS[0] = name


def _dump():
    if not _PATH or not _SPANS:
        return
    line = {"pid": os.getpid(), "process": _PROCESS[0],
            "spans": {k: [n, round(ms, 3)] for k, (n, ms) in sorted(_SPANS.items())}}
    try:
        with open(_PATH, "a") as f:
            f.write(json.dumps(line) + "\n")
    except OSError:
        pass


atexit.register(_dump)
