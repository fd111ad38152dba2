"""Checks of a program candidate that need no GPU (docs/programs.md, "Checks").

* scan_source: the candidate's syntax tree, read before anything of it runs,
  for the moves the cheats on record make (KernelBench's static checker looks
  for similar ones): searching the garbage collector, walking stack frames,
  replacing timers or torch functions, starting threads or processes, leaving
  the process, try/except around work (a torch fallback), side streams. These
  are findings the result reports; the verdict comes from what the candidate
  does when it runs (the runtime checks below, the comparison, attribution).
* Integrity: the functions a measurement relies on, snapshotted when the
  worker starts and compared after every import and every call, and the
  threads alive before and after a call. A candidate that replaces
  torch.cuda.Event or time.perf_counter, or leaves a thread running, is
  caught here whatever its source looked like.
"""

import ast
import sys
import threading

# (rule, what it means) of every finding scan_source can make.
RULES = {
    "gc_search": "reads the garbage collector's objects (gc.get_objects / get_referrers): the way candidates find "
                 "expected outputs left in memory",
    "frame_walk": "walks interpreter frames (sys._getframe, inspect.stack, f_back, f_locals): a way to reach the "
                  "harness's variables",
    "patches_timer": "assigns to a timing or synchronisation function (torch.cuda.Event, time.perf_counter, ...)",
    "patches_module": "assigns to an attribute of a module it did not define (torch, time, triton, sys, builtins)",
    "thread": "starts threads or processes (threading, multiprocessing, concurrent.futures, os.fork)",
    "exits": "can end the process (os._exit, sys.exit, exit, os.kill)",
    "try_except": "catches exceptions around its work: a failing kernel can fall back to torch unseen",
    "side_stream": "creates or switches CUDA streams: work on a stream the caller does not wait for escapes "
                   "event timing",
    "ctypes": "loads native code through ctypes or cffi",
    "sys_modules": "reads or changes sys.modules / builtins",
    "env": "changes environment variables at run time",
}

TIMER_NAMES = {"Event", "perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns",
               "synchronize", "elapsed_time", "record", "process_time", "Stream", "current_stream"}
FOREIGN_MODULES = {"torch", "time", "triton", "sys", "builtins", "gc", "os", "numpy", "np", "F", "nn", "tl"}


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def scan_source(source, filename="candidate.py"):
    """[{"rule", "line", "message"}] for the candidate's text; a syntax error
    is one finding of rule "syntax" (the import reports it properly)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as e:
        return [{"rule": "syntax", "line": e.lineno or 0, "message": "the candidate does not parse: %s" % e.msg}]
    found = []
    seen = set()

    def add(rule, node, detail=""):
        key = (rule, getattr(node, "lineno", 0))
        if key in seen:
            return
        seen.add(key)
        msg = RULES[rule] + (" (%s)" % detail if detail else "")
        found.append({"rule": rule, "line": getattr(node, "lineno", 0), "message": msg})

    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            for m in mods:
                root = m.split(".")[0]
                if root in ("threading", "multiprocessing", "concurrent", "_thread", "subprocess"):
                    add("thread", node, "import " + m)
                if root in ("ctypes", "cffi"):
                    add("ctypes", node, "import " + m)
                if root == "gc" and ("get_objects" in names or "get_referrers" in names or not names):
                    pass  # judged at the call
                if root == "inspect" and ("stack" in names or "currentframe" in names):
                    add("frame_walk", node, "from inspect import ...")
            continue
        if isinstance(node, ast.Call):
            name = _dotted(node.func) or ""
            last = name.split(".")[-1]
            if last in ("get_objects", "get_referrers", "get_referents") and ("gc" in name or name == last):
                add("gc_search", node, name)
            elif name in ("sys._getframe", "inspect.stack", "inspect.currentframe", "inspect.getouterframes",
                          "traceback.extract_stack"):
                add("frame_walk", node, name)
            elif name in ("os._exit", "sys.exit", "exit", "quit", "os.kill", "os.abort", "signal.raise_signal"):
                add("exits", node, name)
            elif name in ("os.fork", "os.forkpty", "os.system", "os.popen") or last in ("Thread", "Process", "Timer",
                                                                                        "ThreadPoolExecutor",
                                                                                        "ProcessPoolExecutor",
                                                                                        "start_new_thread"):
                add("thread", node, name)
            elif last in ("Stream", "stream", "ExternalStream", "set_stream") and "cuda" in name:
                add("side_stream", node, name)
            elif name in ("setattr", "builtins.setattr"):
                if node.args and (_dotted(node.args[0]) or "").split(".")[0] in FOREIGN_MODULES:
                    add("patches_module", node, "setattr(%s, ...)" % _dotted(node.args[0]))
            elif name in ("os.putenv", "os.environ.update", "os.environ.setdefault"):
                add("env", node, name)
            elif name.startswith("ctypes.") or name.startswith("cffi."):
                add("ctypes", node, name)
        elif isinstance(node, ast.Attribute):
            if node.attr in ("f_back", "f_locals", "f_globals", "gi_frame", "tb_frame"):
                add("frame_walk", node, "." + node.attr)
            d = _dotted(node) or ""
            if d.startswith("sys.modules") or d.startswith("builtins."):
                add("sys_modules", node, d)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for tt in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                    if isinstance(tt, ast.Attribute):
                        d = _dotted(tt) or ""
                        root = d.split(".")[0]
                        if root in FOREIGN_MODULES and root not in defined:
                            rule = "patches_timer" if tt.attr in TIMER_NAMES else "patches_module"
                            add(rule, node, d + " = ...")
                        if d.startswith("os.environ"):
                            add("env", node, d)
                    elif isinstance(tt, ast.Subscript):
                        d = _dotted(tt.value) or ""
                        if d == "os.environ":
                            add("env", node, "os.environ[...] = ...")
                        if d == "sys.modules":
                            add("sys_modules", node, "sys.modules[...] = ...")
        elif isinstance(node, ast.Try):
            if node.handlers:
                add("try_except", node)
        elif isinstance(node, ast.With):
            for item in node.items:
                d = _dotted(item.context_expr.func) if isinstance(item.context_expr, ast.Call) else None
                if d and d.split(".")[-1] == "stream" and "cuda" in d:
                    add("side_stream", node, d)
    found.sort(key=lambda f: (f["line"], f["rule"]))
    return found


# ---------------------------------------------------------------------------
# Integrity at run time

# Attributes a measurement or a comparison relies on, by dotted path.
WATCHED = [
    "time.perf_counter", "time.perf_counter_ns", "time.time", "time.monotonic", "time.sleep",
    "torch.cuda.Event", "torch.cuda.synchronize", "torch.cuda.current_stream", "torch.cuda.default_stream",
    "torch.cuda.Stream", "torch.cuda.Event.record", "torch.cuda.Event.elapsed_time", "torch.cuda.Event.synchronize",
    "torch.cuda.Stream.synchronize", "torch._C._cuda_synchronize", "torch.cuda.empty_cache",
    "torch.allclose", "torch.equal", "torch.Tensor.clone", "torch.Tensor.cpu", "torch.Tensor.to",
    "torch.Tensor.contiguous", "torch.Tensor.view", "torch.Tensor.copy_", "torch.Tensor.data_ptr",
    "torch.manual_seed", "torch.cuda.manual_seed", "torch.nn.Module.__call__", "torch.nn.Module.to",
    "torch.utils._python_dispatch.TorchDispatchMode", "torch.no_grad",
    "gc.get_objects", "gc.collect", "threading.Thread.start", "sys.settrace", "sys.setprofile",
    "json.dumps", "socket.socket.sendall",
    # kbench's own input checksum (a candidate that neuters it would hide
    # writes to its inputs).
    "kbench_problem.checksum", "kbench_problem.gpu_checksum",
]


def _resolve(path):
    parts = path.split(".")
    obj = sys.modules.get(parts[0])
    if obj is None:
        return None
    for p in parts[1:]:
        try:
            obj = obj.__dict__[p] if hasattr(obj, "__dict__") and p in getattr(obj, "__dict__", {}) else getattr(obj, p)
        except Exception:
            return None
    return obj


class Integrity:
    """What the candidate must leave as it found it."""

    def __init__(self):
        self.snapshot = {}
        self.refresh()

    def refresh(self):
        self.snapshot = {p: id(_resolve(p)) for p in WATCHED}
        self.trace = (sys.gettrace(), sys.getprofile())

    def changed(self):
        """Dotted names whose object was replaced since the snapshot."""
        out = [p for p, i in self.snapshot.items() if id(_resolve(p)) != i]
        if (sys.gettrace(), sys.getprofile()) != self.trace:
            out.append("sys.settrace/sys.setprofile (a trace or profile function was installed)")
        return out


def thread_idents():
    return {t.ident for t in threading.enumerate()}


def new_threads(before):
    """Threads alive now that were not in `before` (a set of idents)."""
    return [t for t in threading.enumerate() if t.ident not in before and t.is_alive()]
