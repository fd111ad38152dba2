"""kbench.Kernel: a compiled kernel plus its launch plan (immutable, shareable)."""
import json

from . import capi
from ._handle import Handle


class Kernel(Handle):
    """Made by Context.compile() or Context.compile_task_program()."""

    _destroy = staticmethod(capi.kb_kernel_destroy)

    @property
    def log(self):
        """The compiler's full log (may be empty)."""
        return capi.kb_kernel_log(self._handle)

    @property
    def image(self):
        """The compiled image: cubin bytes, or PTX text as bytes."""
        return capi.kb_kernel_image(self._handle)

    def json(self):
        """Compile facts: path (nvrtc/nvcc/given), compile_ms, cache_hit,
        image kind, architecture, entry points, launch plan."""
        return json.loads(capi.kb_kernel_json(self._handle))

    def __repr__(self):
        return "<kbench.Kernel closed>" if self.closed else "<kbench.Kernel>"
