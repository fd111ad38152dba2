"""kbench.Result: what kb_score, kb_compare, kb_time or kb_run_reference learnt."""
import json

from . import capi
from ._handle import Handle


class Result(Handle):
    """A JSON document with typed accessors. Read it from one thread at a time."""

    _destroy = staticmethod(capi.kb_result_destroy)

    @property
    def verdict(self):
        """"pass", "compile_error", "wrong_answer", ... ("no_code" is given to a
        model answer without scorable code in batch runs); "none" for results
        that carry no verdict (run_reference, time)."""
        return capi.kb_verdict_string(capi.kb_result_verdict(self._handle))

    @property
    def passed(self):
        return capi.kb_result_verdict(self._handle) == capi.KB_VERDICT_PASS

    @property
    def message(self):
        """One line a model or a person can act on."""
        return capi.kb_result_message(self._handle)

    def json(self):
        """The whole result as a dict: per-case reports, timing, compile log."""
        return json.loads(capi.kb_result_json(self._handle))

    def number(self, pointer):
        """A number by JSON pointer, e.g. "/speedup". Booleans read as 0 or 1;
        "nan"/"inf" as floats. KbenchError (NOT_FOUND) if absent."""
        return capi.kb_result_get_number(self._handle, pointer)

    def string(self, pointer):
        """A string by JSON pointer. KbenchError (NOT_FOUND) if absent."""
        return capi.kb_result_get_string(self._handle, pointer)

    def __repr__(self):
        if self.closed:
            return "<kbench.Result closed>"
        return f"<kbench.Result {self.verdict}: {self.message}>"
