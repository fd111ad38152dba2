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
