"""KBW1 frames for kbench's Python processes (src/ipc/frame.h has the format).

A standalone module on purpose: it imports only the standard library, so any
Python process that kbench starts and supervises (the program worker here;
the Triton compile worker can adopt it) speaks the host's wire format through
one implementation. A frame is a 24-byte little-endian header, a JSON document,
then the binary blobs whose sizes the document lists under "blobs":

    offset  size  field
    0       4     magic "KBW1"
    4       2     protocol version (1)
    6       2     message type (a reply sets bit 15)
    8       8     request id (a reply echoes it)
    16      4     JSON byte count (at most 64 MiB)
    20      4     blob byte count (at most 1 GiB)

Also here: the hygiene every such process needs before it serves (close the
descriptors it inherited by accident, exit with its host, no core files).
"""

import json
import os
import resource
import select
import signal
import socket
import struct
import threading
import time

MAGIC = b"KBW1"
PROTOCOL_VERSION = 1
HEADER = struct.Struct("<4sHHQII")  # magic, version, type, id, JSON bytes, blob bytes
MAX_JSON_BYTES = 64 << 20
MAX_BLOB_BYTES = 1 << 30
REPLY_BIT = 0x8000

# Message types (src/ipc/frame.h, enum Msg).
MSG_HELLO = 1
MSG_CANARY = 2
MSG_COMPILE = 3
MSG_RUN_REFERENCE = 4
MSG_COMPARE = 5
MSG_TIME = 6
MSG_SHUTDOWN = 7
MSG_TEST = 8
MSG_PROGRAM_LOAD = 9
MSG_PROGRAM_RUN = 10
MSG_PROGRAM_TIME = 11
MSG_PROGRAM_RELEASE = 14
MSG_PROGRAM_PREBUILD = 15
MSG_NOTE = 0x4000

# kb_status values (include/kbench.h) Python processes report.
KB_ERR_INVALID_ARGUMENT = 1
KB_ERR_TASK_INVALID = 3
KB_ERR_COMPILE = 5
KB_ERR_NO_DEVICE = 7
KB_ERR_REFERENCE_FAILED = 10
KB_ERR_NOT_FOUND = 12
KB_ERR_INTERNAL = 13


class ProtocolError(Exception):
    """A frame that breaks the format; the stream is unusable afterwards."""


def _json_default(o):
    # numpy and torch scalars, sets: whatever json cannot write natively.
    for attr in ("item", "tolist"):
        f = getattr(o, attr, None)
        if callable(f):
            try:
                return f()
            except Exception:
                pass
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    return str(o)


def encode_frame(msg_type, msg_id, doc, blobs=()):
    """Bytes of one frame. Non-ASCII text is escaped, so the JSON is valid
    UTF-8 whatever the strings held (the C++ decoder insists on UTF-8)."""
    doc = dict(doc)
    blobs = [bytes(b) if not isinstance(b, (bytes, bytearray, memoryview)) else b for b in blobs]
    if blobs:
        doc["blobs"] = [len(b) for b in blobs]
    text = json.dumps(doc, ensure_ascii=True, separators=(",", ":"), default=_json_default,
                      allow_nan=False).encode("ascii")
    blob_total = sum(len(b) for b in blobs)
    if len(text) > MAX_JSON_BYTES:
        raise ProtocolError("a document of %d bytes exceeds the protocol's limit of %d" % (len(text), MAX_JSON_BYTES))
    if blob_total > MAX_BLOB_BYTES:
        raise ProtocolError("%d bytes of binary data exceed the protocol's limit of %d" % (blob_total, MAX_BLOB_BYTES))
    return b"".join([HEADER.pack(MAGIC, PROTOCOL_VERSION, msg_type, msg_id, len(text), blob_total), text, *blobs])


def decode_header(header):
    """(type, id, json bytes, blob bytes) of a 24-byte header, checked."""
    magic, version, msg_type, msg_id, json_bytes, blob_bytes = HEADER.unpack(header)
    if magic != MAGIC:
        raise ProtocolError("bad magic %r (expected %r)" % (magic, MAGIC))
    if version != PROTOCOL_VERSION:
        raise ProtocolError("protocol version %d, expected %d" % (version, PROTOCOL_VERSION))
    if json_bytes == 0 or json_bytes > MAX_JSON_BYTES:
        raise ProtocolError("a JSON size of %d bytes is outside 1..%d" % (json_bytes, MAX_JSON_BYTES))
    if blob_bytes > MAX_BLOB_BYTES:
        raise ProtocolError("a blob size of %d bytes exceeds %d" % (blob_bytes, MAX_BLOB_BYTES))
    return msg_type, msg_id, json_bytes, blob_bytes


def decode_body(body, json_bytes, blob_bytes):
    """(doc, blobs) of a frame's body."""
    try:
        doc = json.loads(body[:json_bytes].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError("the JSON of a frame does not parse: %s" % e)
    if not isinstance(doc, dict):
        raise ProtocolError("the JSON of a frame is not an object")
    sizes = doc.pop("blobs", [])
    if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise ProtocolError("\"blobs\" is not a list of sizes")
    if sum(sizes) != blob_bytes:
        raise ProtocolError("blob sizes add up to %d, the header says %d" % (sum(sizes), blob_bytes))
    blobs, at = [], json_bytes
    for size in sizes:
        blobs.append(body[at:at + size])
        at += size
    return doc, blobs


class Connection:
    """Blocking reads and writes of whole frames on the socket the host gave."""

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.sock.setblocking(True)

    def _read_exactly(self, n):
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:], min(n - got, 1 << 24))
            if k == 0:
                return None
            got += k
        return bytes(buf)

    def read_frame(self):
        """(type, id, doc, blobs), or None when the host closed the socket."""
        header = self._read_exactly(HEADER.size)
        if header is None:
            return None
        msg_type, msg_id, json_bytes, blob_bytes = decode_header(header)
        body = self._read_exactly(json_bytes + blob_bytes)
        if body is None:
            return None
        doc, blobs = decode_body(body, json_bytes, blob_bytes)
        return msg_type, msg_id, doc, blobs

    def send(self, msg_type, msg_id, doc, blobs=()):
        self.sock.sendall(encode_frame(msg_type, msg_id, doc, blobs))

    def reply(self, msg_type, msg_id, result, blobs=()):
        self.send(msg_type | REPLY_BIT, msg_id, {"ok": True, "result": result}, blobs)

    def reply_error(self, msg_type, msg_id, status, error, extra=None, blobs=()):
        doc = {"ok": False, "status": int(status), "error": str(error)}
        if extra:
            doc.update(extra)
        self.send(msg_type | REPLY_BIT, msg_id, doc, blobs)

    def note(self, msg_id, doing):
        """The host keeps the last note as the worker's last words should it die."""
        self.send(MSG_NOTE, msg_id, {"doing": doing})


# ---------------------------------------------------------------------------
# Process hygiene

def close_leaked_fds(keep):
    """Closes every inherited descriptor above stderr but `keep` (the socket)."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in fds:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def watch_parent(parent):
    """Exits with the host: a worker busy in a candidate would not notice its
    socket closing."""
    if parent <= 0:
        return
    if os.getppid() != parent:
        os._exit(0)

    def watch():
        try:
            fd = os.pidfd_open(parent)
            select.select([fd], [], [])
        except (AttributeError, OSError):
            while os.getppid() == parent:
                time.sleep(0.2)
        os._exit(0)

    threading.Thread(target=watch, name="kbench-parent-watch", daemon=True).start()


def become_subreaper():
    """Makes this process the parent of every orphan among its descendants
    (PR_SET_CHILD_SUBREAPER), so after_untrusted_code sees them as children."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def after_untrusted_code(environment):
    """Undoes what a candidate or a problem file left for the next one in this
    worker: its changes to the environment (LD_PRELOAD, PYTHONPATH, ...), and
    the processes it started that still run.

    As a subreaper (become_subreaper) this process is the parent of every
    orphan among its descendants, so a descendant left running is a child of
    it, or of a child. Every child is killed, and every process still in this
    process group, in rounds until none is left: a grandchild whose parent is
    killed becomes a child and goes in the next round. A child that left the
    group (setsid, setpgid: seccomp forbids both to a confined worker, but a
    kernel or build without seccomp does not) is found by its parent all the
    same, and its own group goes with it."""
    if os.environ != environment:
        os.environ.clear()
        os.environ.update(environment)
    me = os.getpid()
    leader = os.getpgrp() == me
    for _ in range(64):
        # No child, the usual case, costs one system call: with the subreaper
        # no child means no descendant.
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        children = []
        for pid, ppid, group in _processes():
            if pid == me or not (ppid == me or (leader and group == me)):
                continue
            try:
                if group == pid:
                    os.killpg(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            if ppid == me:
                children.append(pid)
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _processes():
    """(pid, parent, process group) of every process /proc shows."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 2:
            out.append((int(name), int(fields[1]), int(fields[2])))
    return out


def no_core_files():
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass
