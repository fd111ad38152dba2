"""Program candidates (docs/programs.md): KernelBench problems and
TritonBench operators as tasks, and Python candidates scored against them.

    import kbench
    r = kbench.score_program("23_Softmax.py", open("softmax_triton.py").read())
    print(r.verdict, r.message)
    print(r.json()["program"]["attribution"]["share"])
"""
import os
import sys

from .context import Context
from .task import Task


def _programs_dir():
    """The folder of kbench's Python program files (the importer, the worker):
    $KBENCH_PROGRAMS_DIR, else the installed wheel's own copy inside this
    package (kbench/libexec/kbench/python, cmake/install_layout.cmake), else
    the folders a build from source wrote into _programs_dir.py."""
    tries = [os.environ.get("KBENCH_PROGRAMS_DIR", ""),
             os.path.join(os.path.dirname(os.path.abspath(__file__)), "libexec", "kbench", "python")]
    try:
        from . import _programs_dir as configured
        tries.extend(configured.DIRS)
    except ImportError:
        pass
    for d in tries:
        if d and os.path.exists(os.path.join(d, "kbench_importer.py")):
            return d
    raise FileNotFoundError("kbench's Python program files (kbench_importer.py) were not found; set "
                            "$KBENCH_PROGRAMS_DIR to the python/kbench_programs folder of kbench's sources")


def _importer():
    d = _programs_dir()
    if d not in sys.path:
        sys.path.insert(0, d)
    import kbench_importer
    return kbench_importer


def problem_task(problem, benchmark="kernelbench", validate=True, channel=None):
    """The task of a problem file: a KernelBench problem (.py) or a
    TritonBench operator, imported as `kbench import` does: validated (the
    reference run on the CPU at its cases, the negative controls that decide
    what strict applies) where this interpreter has torch; without torch one
    line on stderr says what that leaves unchecked. A task file, JSON text, a
    dict or a Task is taken as it is."""
    if isinstance(problem, Task):
        return problem
    if isinstance(problem, (str, os.PathLike)) and os.fspath(problem).endswith(".py"):
        path = os.fspath(problem)
        imp = _importer()
        if benchmark == "kernelbench":
            doc, source = imp.import_kernelbench_file(path, validate)
        elif benchmark == "tritonbench":
            doc, source = imp.import_tritonbench_file(path, channel or "G", validate)
        else:
            raise ValueError(f"benchmark must be 'kernelbench' or 'tritonbench', not {benchmark!r}")
        doc["reference"].pop("source_file", None)
        doc["reference"]["source"] = source
        doc["reference"]["source_name"] = os.path.basename(path)
        return Task(doc)
    return Task(problem)


def score_program(problem, candidate_source, *, context=None, device=0, protocol="strict", torch_compute=None,
                  label=None, benchmark="kernelbench", **score_options):
    """Scores a program candidate (Python source defining ModelNew, or the
    operator's functions) against a problem (a problem file, a task file or a
    Task). `protocol` is "strict" (kbench's rules) or "kernelbench"
    (KernelBench's eval as published); `torch_compute` ("allow", "report",
    "forbid") overrides the task's rule. Other keywords are Context.score's
    (seed, skip_timing, recheck, budget_ms, ...). Returns a Result; a failing
    candidate is a verdict, not an exception. Without `context`, one is
    created on `device` and closed afterwards (starting the Python workers
    costs seconds: pass a Context to score many candidates)."""
    task = problem_task(problem, benchmark)
    own = context is None
    ctx = Context(device) if own else context
    try:
        return ctx.score(task, candidate_source, language="python", label=label, protocol=protocol,
                         torch_compute=torch_compute, **score_options)
    finally:
        if own:
            ctx.close()
