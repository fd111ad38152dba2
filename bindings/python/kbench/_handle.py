"""Ownership of one C handle: freed exactly once, by close(), at the end of
a `with` block, or when the garbage collector collects the owner."""


class Handle:
    """Base of the classes that own a kbench handle (kb_task*, ...).

    Subclasses set `_destroy` to the matching kb_*_destroy function."""

    _destroy = None

    def __init__(self, ptr):
        self._ptr = ptr

    @property
    def _handle(self):
        """The live C handle; a closed object refuses to be used rather than
        hand a freed pointer to the library."""
        if self._ptr is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._ptr

    @property
    def closed(self):
        return self._ptr is None

    def close(self):
        """Frees the handle now. Idempotent."""
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            type(self)._destroy(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __del__(self):
        # _ptr is missing when __init__ raised before the handle existed.
        if getattr(self, "_ptr", None) is None:
            return
        try:
            self.close()
        except Exception:  # noqa: BLE001 - __del__ must not raise; at interpreter
            pass           # exit the module may already be torn down.
