"""Python binding of kbench, the trustworthy evaluator for GPU kernels.

    import kbench
    with kbench.Context(device=kbench.DEVICE_NONE) as ctx, kbench.Task("task.json") as task:
        kernel = ctx.compile(task, path="candidate.cu")
        print(kernel.json()["entries"])

On a GPU, `ctx.score(task, code)` returns a Result with .verdict ("pass",
"wrong_answer", ...), .message and .json(). Failing calls raise KbenchError.
Every object frees its C handle on close(), at the end of a `with` block, or
when it is garbage-collected. kbench.capi is the raw C API, call for call.
"""
import enum

from . import capi
from .capi import KbenchError
from .batch import Batch, Job
from .context import Context
from .kernel import Kernel
from .programs import problem_task, score_program
from .result import Result
from .task import Task

__all__ = ["Batch", "Job", "Context", "Task", "Kernel", "Result", "KbenchError", "Status", "DEVICE_NONE",
           "device_count", "version", "score_program", "problem_task"]

#: The device ordinal of a compile-only context.
DEVICE_NONE = capi.KB_DEVICE_NONE

#: kb_status values by name (OK, TASK_INVALID, COMPILE, NO_DEVICE, ...), made
#: from the C constants so they cannot drift from include/kbench.h.
#: KbenchError.status compares equal to them.
Status = enum.IntEnum("Status", sorted(
    ((name[len("KB_ERR_"):] if name.startswith("KB_ERR_") else "OK", getattr(capi, name))
     for name in dir(capi) if name == "KB_OK" or name.startswith("KB_ERR_")),
    key=lambda item: item[1]))


def version():
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return capi.kb_version_string()


def device_count():
    """Number of CUDA devices; 0 when there is no driver or no device."""
    return capi.kb_device_count()


__version__ = version()
