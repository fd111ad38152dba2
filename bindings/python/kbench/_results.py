"""The results file of a batch run, from Python (docs/batch.md, "The results
file"): the (task, id, sample) keys already present, for resuming, and an
appender with the C++ writer's guarantees (src/evaluate/results.cpp): one
write() per line on a file opened O_APPEND, so a run stopped at any moment
leaves whole lines; a last line cut short is removed when the file is
reopened, and a complete last line missing its newline gets one."""
import json
import math
import os
import threading


class ResultsFileError(Exception):
    """A results file that cannot be resumed: the message names the file and line."""


def key_of(task, id_, sample):
    """The resume key of a candidate: ids compare as text (17 and "17" are one id)."""
    return (task, id_ if isinstance(id_, str) else json.dumps(id_), sample)


def read_done_keys(path):
    """The keys of the result lines in `path` (a set; empty when the file does
    not exist). A last line that is not valid JSON (cut short) is skipped;
    any other bad line raises ResultsFileError naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return set()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    done = set()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            if number == len(lines):
                continue  # cut short by an interrupted run: that candidate runs again
            raise ResultsFileError(f"{path}:{number}: not valid JSON; expected one result object per line") from None
        if not isinstance(line, dict) or not isinstance(line.get("task"), str) or "id" not in line:
            raise ResultsFileError(f'{path}:{number}: expected a result object with "task" and "id"')
        sample = line.get("sample")
        done.add(key_of(line["task"], line["id"], sample))
    return done


def _finite(value):
    """kbench's spelling of non-finite numbers in JSON ("nan", "inf", "-inf")."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


class ResultAppender:
    """Appends result lines to a file, one os.write() each, from any thread."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.repaired_bytes = 0
        self._lock = threading.Lock()
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._repair_tail()

    def _repair_tail(self):
        with open(self.path, "rb") as f:
            data = f.read()
        if not data or data.endswith(b"\n"):
            return
        start = data.rfind(b"\n") + 1
        tail = data[start:]
        try:
            json.loads(tail)
            os.write(self._fd, b"\n")  # complete, only the newline is missing
        except ValueError:
            os.truncate(self.path, start)
            self.repaired_bytes = len(tail)

    def append(self, record):
        text = json.dumps(_finite(record), ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
        data = text.encode("utf-8")
        with self._lock:
            written = os.write(self._fd, data)
            if written != len(data):
                raise OSError(f"results file {self.path}: short write ({written} of {len(data)} bytes; disk full?)")

    def close(self):
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
