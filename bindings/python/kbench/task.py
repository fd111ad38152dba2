"""kbench.Task: a parsed, validated task (immutable, shareable between threads)."""
import json
import os

from . import capi
from ._handle import Handle


class Task(Handle):
    """A task loaded from a file path, JSON text, or a dict.

    Raises KbenchError (status TASK_INVALID) when the task is malformed; the
    message names the JSON path of the offending field."""

    _destroy = staticmethod(capi.kb_task_destroy)

    def __init__(self, source):
        if isinstance(source, dict):
            source = json.dumps(source)
        elif isinstance(source, os.PathLike):
            source = os.fspath(source)
        super().__init__(capi.kb_load_task(source))

    @property
    def name(self):
        return capi.kb_task_name(self._handle)

    @property
    def cases(self):
        """Case names, in index order; the perf case is one of them."""
        h = self._handle
        return [capi.kb_task_case_name(h, i) for i in range(capi.kb_task_case_count(h))]

    @property
    def perf_case(self):
        """Index of the perf case."""
        return capi.kb_task_perf_case(self._handle)

    def case_index(self, case):
        """The index of a case given by index or by name."""
        if isinstance(case, str):
            index = capi.kb_task_find_case(self._handle, case)
            if index < 0:
                raise KeyError(f"task {self.name!r} has no case {case!r}; it has {self.cases}")
            return index
        return int(case)

    def json(self):
        """The normalised, self-contained task (sources inlined) as a dict."""
        return json.loads(capi.kb_task_json(self._handle))

    def __repr__(self):
        return f"<kbench.Task {self.name!r}>" if not self.closed else "<kbench.Task closed>"
