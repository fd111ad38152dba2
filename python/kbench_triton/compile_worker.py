#!/usr/bin/env python3
"""kbench's Triton compile worker (docs/triton.md).

One process of a small pool that src/compiler/triton_backend.cpp starts and
watches. It imports triton, then answers KBW1 frames (src/ipc/frame.h) on the
socket it is given:

    hello    -> the Triton and Python versions (or why Triton cannot be used)
    compile  -> one kernel of a candidate, specialised for one case: the cubin,
                the PTX, Triton's metadata and the signature Triton compiled
    shutdown -> exit

A candidate's Python source is untrusted. Before anything of it runs, its
syntax tree is checked (check_source): imports of triton, triton.language and
math only; at the top level nothing but those imports, @triton.jit functions
and constant assignments; inside kernels no names beginning with '_', no
reflective builtins, and module attributes only within triton.language and
math (Triton's code generator evaluates module attributes and calls what it
finds, so `triton.compiler.compiler.os.system(...)` in a kernel would run).
Then it is executed in a fresh module from a real file (Triton reads the
kernel's source with `inspect`), and compiled with
`triton.compile(ASTSource(...), target=GPUTarget("cuda", arch, 32))`, which
needs no GPU.

A hang, a crash or an exception inside Triton costs this process only: the
host kills it past the compile's deadline and starts another. The process
limits itself (no core files, a cap on address space and file size) before it
reads any request.

    compile_worker.py --fd N --parent PID --no-device --work-dir DIR
                      [--memory-mb MB] [--test-hooks]
    compile_worker.py --check FILE      (the source check alone, for tests)
"""

import ast
import hashlib
import importlib
import json
import linecache
import os
import re
import resource
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import types

WORKER_VERSION = "1"  # part of kbench's cache key: bump when what a compile returns changes
MIN_TRITON = (3, 3)   # ASTSource(fn, signature, constexprs, attrs) and attrs keyed by index tuples

# ---------------------------------------------------------------------------
# KBW1 frames (src/ipc/frame.h): a 24-byte little-endian header, a JSON
# document, then the blobs whose sizes the document lists under "blobs".

MAGIC = b"KBW1"
PROTOCOL_VERSION = 1
HEADER = struct.Struct("<4sHHQII")  # magic, version, type, id, JSON bytes, blob bytes
MAX_JSON_BYTES = 64 << 20
MAX_BLOB_BYTES = 1 << 30
MSG_HELLO, MSG_COMPILE, MSG_SHUTDOWN, MSG_TEST = 1, 3, 7, 8
MSG_NOTE = 0x4000
REPLY_BIT = 0x8000

# kb_status values (include/kbench.h) this worker reports.
KB_ERR_INVALID_ARGUMENT = 1
KB_ERR_COMPILE = 5
KB_ERR_NOT_FOUND = 12
KB_ERR_INTERNAL = 13


class ProtocolError(Exception):
    pass


def encode_frame(msg_type, msg_id, doc, blobs=()):
    doc = dict(doc)
    if blobs:
        doc["blobs"] = [len(b) for b in blobs]
    text = json.dumps(doc, ensure_ascii=True, separators=(",", ":"), default=str).encode("ascii")
    blob_total = sum(len(b) for b in blobs)
    if len(text) > MAX_JSON_BYTES or blob_total > MAX_BLOB_BYTES:
        raise ProtocolError("a reply exceeds the protocol's size limits")
    return b"".join([HEADER.pack(MAGIC, PROTOCOL_VERSION, msg_type, msg_id, len(text), blob_total), text, *blobs])


class Connection:
    """Blocking reads and writes of whole frames on the host's socket."""

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)
        self.sock.setblocking(True)

    def _read_exactly(self, n):
        chunks, got = [], 0
        while got < n:
            chunk = self.sock.recv(min(n - got, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def read_frame(self):
        """(type, id, json, blobs), or None when the host closed the socket."""
        header = self._read_exactly(HEADER.size)
        if header is None:
            return None
        magic, version, msg_type, msg_id, json_bytes, blob_bytes = HEADER.unpack(header)
        if magic != MAGIC:
            raise ProtocolError("bad magic %r" % magic)
        if version != PROTOCOL_VERSION:
            raise ProtocolError("protocol version %d, expected %d" % (version, PROTOCOL_VERSION))
        if json_bytes == 0 or json_bytes > MAX_JSON_BYTES or blob_bytes > MAX_BLOB_BYTES:
            raise ProtocolError("frame sizes past the protocol's limits")
        body = self._read_exactly(json_bytes + blob_bytes)
        if body is None:
            return None
        doc = json.loads(body[:json_bytes].decode("utf-8"))
        if not isinstance(doc, dict):
            raise ProtocolError("the JSON of a frame is not an object")
        sizes = doc.pop("blobs", [])
        if sum(sizes) != blob_bytes:
            raise ProtocolError("blob sizes do not add up")
        blobs, at = [], json_bytes
        for size in sizes:
            blobs.append(body[at:at + size])
            at += size
        return msg_type, msg_id, doc, blobs

    def send(self, msg_type, msg_id, doc, blobs=()):
        self.sock.sendall(encode_frame(msg_type, msg_id, doc, blobs))


# ---------------------------------------------------------------------------
# The source check. Everything here works on the syntax tree; attribute chains
# rooted at an imported module are resolved against the real modules (the
# worker imported them itself), which is what Triton's code generator would do.

ALLOWED_MODULES = ("triton", "math")
JIT_KEYWORDS = {"do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline"}
FORBIDDEN_NAMES = {
    "eval", "exec", "compile", "open", "globals", "locals", "vars", "getattr", "setattr", "delattr", "hasattr",
    "breakpoint", "input", "exit", "quit", "help", "memoryview", "type", "object", "super", "classmethod",
    "staticmethod", "property", "dir", "id", "print_function",
}
TOP_LEVEL_HINT = ("the top level of a Triton candidate may hold only imports of triton, triton.language and math, "
                  "@triton.jit functions and constant assignments (NAME = 1024, NAME: tl.constexpr = 64)")


class SourceRejected(Exception):
    """The candidate breaks a rule of the source check; line/col are 1-based."""

    def __init__(self, line, col, message):
        super().__init__(message)
        self.line = line
        self.col = col
        self.message = message


def _module_allowed(name):
    return name == "math" or name == "triton" or name == "triton.language" or name.startswith("triton.language.")


def _allowed_value(obj):
    """Objects a kernel may reach through a module attribute."""
    import types
    if isinstance(obj, types.ModuleType):
        return _module_allowed(obj.__name__)
    mod = getattr(type(obj), "__module__", "") or ""
    owner = getattr(obj, "__module__", "") or ""
    if owner.startswith("triton.language") or mod.startswith("triton.language"):
        return True
    # @triton.jit functions of triton.language (tl.sum, tl.softmax, ...)
    inner = getattr(obj, "fn", None)
    if mod.startswith("triton.runtime") and (getattr(inner, "__module__", "") or "").startswith("triton.language"):
        return True
    if owner == "math" or isinstance(obj, (int, float, bool, str)):
        return True
    return False


class SourceChecker:
    """Checks one candidate's syntax tree; collects the @triton.jit functions' def lines."""

    def __init__(self, filename, resolve_modules=True):
        self.filename = filename
        self.resolve_modules = resolve_modules
        self.env = {}          # top-level name -> ("module", module object or dotted name) | ("const", None) | ("jit", None)
        self.def_lines = {}    # jit function name -> line of its `def`
        self.jit_names = []

    def fail(self, node, message):
        raise SourceRejected(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1, message)

    # --- modules ------------------------------------------------------------
    def _import(self, dotted):
        if not self.resolve_modules:
            return dotted
        return importlib.import_module(dotted)

    def _bind_module(self, node, dotted, alias):
        if not _module_allowed(dotted):
            self.fail(node, "import of '%s': a Triton candidate may import triton, triton.language (and its "
                            "submodules, e.g. triton.language.extra.libdevice) and math only" % dotted)
        try:
            mod = self._import(dotted)
        except ImportError as e:
            self.fail(node, "cannot import '%s' with the installed Triton: %s" % (dotted, e))
        self.env[alias] = ("module", mod)

    def check_import(self, node):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    self._bind_module(node, a.name, a.asname)
                else:
                    # `import triton.language` binds `triton`
                    root = a.name.split(".")[0]
                    self._bind_module(node, a.name, root)
                    if root != a.name:
                        self.env[root] = ("module", self._import(root))
            return
        # from X import a [as b]
        if node.level:
            self.fail(node, "relative imports are not allowed in a Triton candidate")
        base = node.module or ""
        if not _module_allowed(base):
            self.fail(node, "import from '%s': a Triton candidate may import from triton, triton.language and "
                            "math only" % base)
        for a in node.names:
            if a.name == "*":
                self.fail(node, "'from %s import *' is not allowed: import the names you use" % base)
            if a.name.startswith("_"):
                self.fail(node, "importing '%s': names beginning with '_' are not allowed" % a.name)
            alias = a.asname or a.name
            dotted = base + "." + a.name
            if base == "triton" and a.name == "jit":
                self.env[alias] = ("jit", None)
                continue
            if _module_allowed(dotted) and (base != "triton" or a.name == "language"):
                try:
                    self._bind_module(node, dotted, alias)
                    continue
                except SourceRejected:
                    if base == "triton":
                        raise
            if base == "triton":
                self.fail(node, "'from triton import %s': only 'jit' and 'language' may be imported from triton"
                          % a.name)
            if self.resolve_modules:
                obj = getattr(self._import(base), a.name, None)
                if obj is None or not _allowed_value(obj):
                    self.fail(node, "'%s' is not part of %s that kernels may use" % (a.name, base))
            self.env[alias] = ("const", None)

    # --- expressions --------------------------------------------------------
    def attribute_chain(self, node):
        """[root name, attr, attr, ...] for a.b.c, or None when the root is not a name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(node.id)
        return list(reversed(parts))

    def check_module_chain(self, node, chain):
        kind, mod = self.env[chain[0]]
        if not self.resolve_modules:
            return
        obj, path = mod, chain[0]
        for attr in chain[1:]:
            path += "." + attr
            if not hasattr(obj, attr):
                return  # Triton reports the missing attribute with its own message
            obj = getattr(obj, attr)
            if not _allowed_value(obj):
                hint = {"cdiv": "; use tl.cdiv", "next_power_of_2": "; compute it in the launch entry's constexprs"}
                self.fail(node, "'%s' is outside triton.language: a kernel may use triton.language (tl) and "
                                "math, not the rest of Triton or Python%s" % (path, hint.get(attr, "")))

    def check_names(self, tree, local_names, where):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                if node.attr.startswith("_"):
                    self.fail(node, "attribute '%s' %s: names beginning with '_' are not allowed in a Triton "
                                    "candidate" % (node.attr, where))
                chain = self.attribute_chain(node)
                if chain and chain[0] not in local_names and self.env.get(chain[0], ("",))[0] == "module":
                    self.check_module_chain(node, chain)
            elif isinstance(node, ast.Name):
                if node.id.startswith("__"):
                    self.fail(node, "name '%s' %s: names beginning with '__' are not allowed" % (node.id, where))
                if node.id in FORBIDDEN_NAMES and node.id not in local_names:
                    self.fail(node, "'%s' %s is not allowed in a Triton candidate" % (node.id, where))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.fail(node, "imports belong at the top level of the file")
            elif isinstance(node, (ast.Global, ast.Nonlocal, ast.ClassDef, ast.Lambda, ast.AsyncFunctionDef,
                                   ast.Await, ast.Yield, ast.YieldFrom, ast.With, ast.AsyncWith, ast.Try,
                                   ast.Raise, ast.Delete)):
                self.fail(node, "%s %s is not supported in a Triton kernel" % (type(node).__name__, where))
            elif isinstance(node, ast.FunctionDef) and node is not tree:
                self.fail(node, "nested function '%s': define it at the top level with @triton.jit" % node.name)

    def check_constant_expr(self, node, where):
        """Values evaluated when the module runs: constants and tl/math attributes only."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                chain = self.attribute_chain(sub.func)
                ok = chain is not None and len(chain) == 2 and chain[1] == "constexpr" and \
                    self.env.get(chain[0], ("",))[0] == "module"
                if ok and self.resolve_modules:
                    ok = getattr(self.env[chain[0]][1], "constexpr", None) is getattr(
                        importlib.import_module("triton.language"), "constexpr")
                if not ok:
                    self.fail(sub, "a call %s: only tl.constexpr(...) may be called outside a kernel" % where)
            elif isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                                  ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred, ast.Subscript,
                                  ast.JoinedStr, ast.FormattedValue)):
                self.fail(sub, "%s %s: expected a constant (numbers, strings, tl.constexpr(...), tl.float16, "
                               "math.pi, and arithmetic on them)" % (type(sub).__name__, where))
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                if sub.id not in self.env:
                    self.fail(sub, "'%s' %s is not a constant defined above" % (sub.id, where))
                if self.env[sub.id][0] == "jit":
                    self.fail(sub, "'%s' %s: expected a constant" % (sub.id, where))
        self.check_names(node, set(), where)

    # --- statements ---------------------------------------------------------
    def jit_decorator(self, node, dec):
        chain = self.attribute_chain(dec.func if isinstance(dec, ast.Call) else dec)
        is_jit = chain is not None and (
            (len(chain) == 2 and chain[1] == "jit" and self.env.get(chain[0], ("",))[0] == "module"
             and getattr(self.env[chain[0]][1], "__name__", chain[0]) == "triton")
            or (len(chain) == 1 and self.env.get(chain[0], ("",))[0] == "jit"))
        if not is_jit:
            name = ".".join(chain) if chain else ast.unparse(dec)
            if chain and chain[-1] in ("autotune", "heuristics"):
                self.fail(dec, "@%s: kbench tunes Triton kernels itself; remove the decorator and list the "
                               "configurations under \"configs\" in the launch entry (docs/triton.md)" % name)
            self.fail(dec, "decorator @%s: a kernel takes @triton.jit only" % name)
        if isinstance(dec, ast.Call):
            if dec.args:
                self.fail(dec, "@triton.jit takes keyword arguments only")
            for kw in dec.keywords:
                if kw.arg not in JIT_KEYWORDS:
                    self.fail(kw.value, "@triton.jit(%s=...): kbench accepts only %s"
                              % (kw.arg, ", ".join(sorted(JIT_KEYWORDS))))
                ok = all(isinstance(n, (ast.Constant, ast.List, ast.Tuple, ast.Load)) for n in ast.walk(kw.value))
                if not ok:
                    self.fail(kw.value, "@triton.jit(%s=...): expected a constant or a list of names or indices"
                              % kw.arg)

    def check_function(self, node):
        if not node.decorator_list:
            self.fail(node, "function '%s' has no decorator: kbench runs no host Python; a Triton candidate "
                            "defines @triton.jit kernels only (kbench launches them itself, see docs/triton.md)"
                      % node.name)
        for dec in node.decorator_list:
            self.jit_decorator(node, dec)
        if len(node.decorator_list) > 1:
            self.fail(node.decorator_list[1], "function '%s' is decorated twice: a kernel takes @triton.jit once"
                      % node.name)
        if node.name.startswith("__"):
            self.fail(node, "function name '%s': names beginning with '__' are not allowed" % node.name)
        args = node.args
        if args.vararg or args.kwarg:
            self.fail(node, "kernel '%s': *args and **kwargs are not supported" % node.name)
        where = "in the signature of '%s'" % node.name
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            if a.annotation is not None:
                self.check_constant_expr(a.annotation, where)
        for d in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.check_constant_expr(d, where)
        if node.returns is not None:
            self.check_constant_expr(node.returns, where)
        local_names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                local_names.add(sub.id)
        body = ast.Module(body=node.body, type_ignores=[])
        self.check_names(body, local_names, "in kernel '%s'" % node.name)
        self.env[node.name] = ("jit", None)
        self.def_lines[node.name] = node.lineno
        self.jit_names.append(node.name)

    def check_assignment(self, node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if not isinstance(t, ast.Name):
                self.fail(t, "assignment to '%s': the top level may assign plain names only" % ast.unparse(t))
            if t.id.startswith("__"):
                self.fail(t, "name '%s': names beginning with '__' are not allowed" % t.id)
        if isinstance(node, ast.AnnAssign):
            self.check_constant_expr(node.annotation, "in an annotation")
            if node.value is None:
                self.fail(node, "'%s' is annotated but not assigned" % node.target.id)
        self.check_constant_expr(node.value, "in the value of '%s'" % targets[0].id)
        for t in targets:
            self.env[t.id] = ("const", None)

    def check(self, text):
        try:
            tree = ast.parse(text, filename=self.filename)
        except SyntaxError as e:
            raise SourceRejected(e.lineno or 1, e.offset or 1, "syntax error: %s" % e.msg)
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.check_import(node)
            elif isinstance(node, ast.FunctionDef):
                self.check_function(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                self.check_assignment(node)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
                    isinstance(node.value.value, str):
                pass  # a docstring or a string statement
            elif isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
                self.fail(node, "an `if __name__ == ...` block: kbench runs no host Python; remove the test "
                                "harness (kbench allocates, launches and checks the kernel itself)")
            else:
                self.fail(node, "a top-level %s statement: %s" % (type(node).__name__, TOP_LEVEL_HINT))
        if not self.jit_names:
            raise SourceRejected(1, 1, "the file defines no @triton.jit function")
        return tree


# ---------------------------------------------------------------------------
# Compilation

class CompileFailure(Exception):
    """The candidate's fault: a compile verdict. summary is one line, log the details."""

    def __init__(self, summary, log=""):
        super().__init__(summary)
        self.summary = summary
        self.log = log or summary + "\n"


def source_line(lines, line):
    if 1 <= line <= len(lines):
        return lines[line - 1].strip()
    return ""


def located(source_name, lines, line, col, message):
    code = source_line(lines, line)
    where = "%s:%d:%d" % (source_name, line, col) if col else "%s:%d" % (source_name, line)
    return "%s: error: %s%s" % (where, message, " [at: %s]" % code if code else "")


def tidy_message(msg):
    msg = (msg or "").strip()
    m = re.match(r"^(\w+(?:Error|Exception))\((['\"])(.*)\2\)$", msg, re.S)
    if m:
        return "%s: %s" % (m.group(1), m.group(3))
    return msg


class Candidate:
    """A checked candidate, executed in a module of its own."""

    def __init__(self, module, checker, path, source_name, lines):
        self.module = module
        self.checker = checker
        self.path = path
        self.source_name = source_name
        self.lines = lines


class Compiler:
    def __init__(self, work_dir):
        self.work_dir = work_dir
        self.candidates = {}  # SHA-256 of (name, source) -> Candidate (most recent last)
        import triton  # noqa: F401  (imported by main before any request)
        from triton.compiler import ASTSource
        from triton.backends.compiler import GPUTarget
        from triton.compiler.errors import CompilationError
        from triton.runtime.jit import JITFunction
        self.triton = sys.modules["triton"]
        self.ASTSource = ASTSource
        self.GPUTarget = GPUTarget
        self.CompilationError = CompilationError
        self.JITFunction = JITFunction

    # --- loading ------------------------------------------------------------
    def load(self, code, source_name):
        key = hashlib.sha256(source_name.encode() + b"\0" + code).hexdigest()
        if key in self.candidates:
            return self.candidates[key]
        try:
            text = code.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CompileFailure("%s: the source is not valid UTF-8 (byte %d)" % (source_name, e.start))
        lines = text.splitlines()
        checker = SourceChecker(source_name)
        try:
            checker.check(text)
        except SourceRejected as e:
            raise CompileFailure(located(source_name, lines, e.line, e.col, e.message))
        # The source is kept in a real file (for whoever debugs a worker), but
        # compiled under its plain name and served to inspect from linecache:
        # Triton reads a kernel's source with inspect when @triton.jit runs,
        # and writes the file name into the cubin's line table, which must
        # not depend on this worker's temporary folder (the same source gives
        # the same binary in every worker and process).
        folder = os.path.join(self.work_dir, "src", key[:24])
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, source_name)
        with open(path, "wb") as f:
            f.write(code)
        linecache.cache[source_name] = (len(text), None, [l + "\n" for l in text.splitlines()], source_name)
        module = types.ModuleType("kbench_candidate_" + key[:16])
        module.__file__ = path
        try:
            exec(compile(text, source_name, "exec", dont_inherit=True), module.__dict__)
        except Exception as e:  # the module's own top-level code failed (e.g. tl.constexpr(1/0))
            line = 0
            for frame in traceback.extract_tb(e.__traceback__):
                if frame.filename == source_name:
                    line = frame.lineno
            raise CompileFailure(located(source_name, lines, line or 1, 0, "%s: %s" % (type(e).__name__, e)),
                                 "".join(traceback.format_exception_only(type(e), e)))
        cand = Candidate(module, checker, path, source_name, lines)
        if len(self.candidates) >= 64:
            self.candidates.pop(next(iter(self.candidates)))
        self.candidates[key] = cand
        return cand

    # --- one compile ----------------------------------------------------------
    def compile(self, req, code):
        t0 = time.perf_counter()
        source_name = req["source_name"]
        if not re.match(r"^[A-Za-z0-9_.+-]{1,128}$", source_name) or source_name.startswith("."):
            source_name = "candidate.py"
        if not source_name.endswith(".py"):
            source_name += ".py"  # importlib picks the loader by the extension
        cand = self.load(code, source_name)
        kernel = req["kernel"]
        fn = getattr(cand.module, kernel, None)
        if not isinstance(fn, self.JITFunction):
            raise CompileFailure("%s: the launch plan names kernel '%s', which is not a @triton.jit function of "
                                 "the file (its kernels: %s)" % (source_name, kernel, ", ".join(cand.checker.jit_names)))
        signature, constexprs, attrs, used = self.specialise(fn, req, source_name)
        options = {"num_warps": int(req["num_warps"]), "num_stages": int(req["num_stages"]),
                   "num_ctas": int(req.get("num_ctas", 1)), "debug": False}
        if int(req.get("maxnreg", 0)) > 0:
            options["maxnreg"] = int(req["maxnreg"])
        src = self.ASTSource(fn, signature, constexprs=constexprs, attrs=attrs)
        target = self.GPUTarget("cuda", int(req["arch"]), 32)
        try:
            compiled = self.triton.compile(src, target=target, options=options)
        except self.CompilationError as e:
            raise self.describe_compilation_error(e, cand)
        except Exception as e:
            raise self.describe_other_error(e, cand, kernel)
        metadata_json = self.metadata_json(compiled)
        ptx = compiled.asm.get("ptx", "")
        cubin = compiled.asm.get("cubin", b"")
        if isinstance(ptx, bytes):
            ptx = ptx.decode("utf-8", "replace")
        result = {
            "metadata": metadata_json,
            "signature": used,
            "constexprs": {k: v for k, v in constexprs.items()},
            "divisible_by_16": sorted(i for (i,) in attrs.keys()),
            "triton_version": self.triton.__version__,
            "compile_ms": (time.perf_counter() - t0) * 1000.0,
        }
        return result, [bytes(cubin), ptx.encode("utf-8")]

    @staticmethod
    def metadata_json(compiled):
        """The metadata JSON exactly as Triton wrote it beside the cubin (what a
        user would hand kbench with a precompiled kernel)."""
        group = getattr(compiled, "metadata_group", None) or {}
        for name, path in group.items():
            if name.endswith(".json") and not name.startswith("__grp__"):
                try:
                    with open(path, "r", encoding="utf-8") as f:
                        return f.read()
                except OSError:
                    break
        metadata = compiled.metadata._asdict() if hasattr(compiled.metadata, "_asdict") else dict(compiled.metadata)
        return json.dumps(metadata, default=_json_default)

    def specialise(self, fn, req, source_name):
        """Triton's signature, constexprs and attrs for the request, honouring the kernel's
        do_not_specialize lists; `used` is [[name, type, launch argument or -1]] in
        declaration order."""
        params = fn.params
        runtime = [p for p in params if not p.is_constexpr]
        args = req["args"]
        kernel = req["kernel"]
        if len(runtime) != len(args):
            raise CompileFailure(
                "%s: kernel '%s' takes %d runtime argument(s) (%s) but the launch entry passes %d (%s); list the "
                "task's arguments in the kernel's order in \"args\", and give tl.constexpr parameters under "
                "\"constexprs\"" % (source_name, kernel, len(runtime), ", ".join(p.name for p in runtime) or "none",
                                    len(args), ", ".join(a["name"] for a in args) or "none"))
        wanted = dict(req.get("constexprs", {}))
        by_name = {p.name: p for p in params}
        for name in wanted:
            if name not in by_name:
                raise CompileFailure("%s: \"constexprs\" names '%s', which is not a parameter of kernel '%s' "
                                     "(its parameters: %s)" % (source_name, name, kernel,
                                                               ", ".join(p.name for p in params)))
            if not by_name[name].is_constexpr:
                raise CompileFailure("%s: \"constexprs\" names '%s', but kernel '%s' does not declare it "
                                     "tl.constexpr; annotate it `%s: tl.constexpr`, or pass a task argument for it "
                                     "in \"args\"" % (source_name, name, kernel, name))
        signature, constexprs, attrs, used = {}, {}, {}, []
        arg_of, index_of = {}, {}
        for i, (p, a) in enumerate(zip(runtime, args)):
            arg_of[p.name] = a
            index_of[p.name] = i
        for p in params:
            if p.is_constexpr:
                if p.name in wanted:
                    value = wanted[p.name]
                elif p.has_default:
                    value = p.default
                    if hasattr(value, "value"):
                        value = value.value
                else:
                    raise CompileFailure("%s: the tl.constexpr parameter '%s' of kernel '%s' has no value; give "
                                         "it in the launch entry's \"constexprs\": {\"%s\": ...}"
                                         % (source_name, p.name, kernel, p.name))
                signature[p.name] = "constexpr"
                constexprs[p.name] = value
                used.append([p.name, "constexpr", -1])
                continue
            a = arg_of[p.name]
            ty, spec = a["type"], a.get("spec", "")
            annotated = p.annotation_type
            if annotated and annotated != ty and not (ty.startswith("*") and annotated.lstrip("*k") == ty[1:]):
                raise CompileFailure("%s: parameter '%s' of kernel '%s' is annotated %s, but the task passes '%s' "
                                     "as %s; drop the annotation or make it match the task's dtype"
                                     % (source_name, p.name, kernel, p.annotation, a["name"], ty))
            if spec == "1" and p.do_not_specialize:
                spec = ""
            if spec == "D" and (p.do_not_specialize_on_alignment or (p.do_not_specialize and not ty.startswith("*"))):
                spec = ""
            if spec == "1":
                signature[p.name] = "constexpr"
                constexprs[p.name] = 1
                used.append([p.name, "constexpr", index_of[p.name]])
                continue
            signature[p.name] = ty
            used.append([p.name, ty, index_of[p.name]])
            if spec == "D":
                attrs[(p.num,)] = [["tt.divisibility", 16]]
        return signature, constexprs, attrs, used

    # --- errors ---------------------------------------------------------------
    def describe_compilation_error(self, e, cand):
        """Triton's CompilationError chain, mapped onto the candidate's lines."""
        frames = []
        cur, message = e, ""
        while isinstance(cur, self.CompilationError):
            m = re.match(r"\s*def\s+(\w+)", cur.src or "")
            fname = m.group(1) if m else None
            node = cur.node
            if fname in cand.checker.def_lines and hasattr(node, "lineno"):
                line = cand.checker.def_lines[fname] + node.lineno - 1
                frames.append((fname, line, node.col_offset + 1))
            message = cur.error_message or message
            nxt = cur.__cause__
            if not isinstance(nxt, self.CompilationError):
                if not cur.error_message and nxt is not None:
                    message = "%s: %s" % (type(nxt).__name__, nxt)
                break
            cur = nxt
        message = tidy_message(message) or "Triton cannot compile this construct (%s)" % type(e).__name__
        if not frames:
            return CompileFailure("%s: error: %s" % (cand.source_name, message), str(e) + "\n")
        fname, line, col = frames[-1]
        summary = located(cand.source_name, cand.lines, line, col, message)
        log = [summary]
        for f, l, c in reversed(frames[:-1]):
            log.append("%s:%d:%d: note: called from kernel '%s' here [at: %s]"
                       % (cand.source_name, l, c, f, source_line(cand.lines, l)))
        return CompileFailure(summary, "\n".join(log) + "\n\nTriton's message:\n" + str(e) + "\n")

    def describe_other_error(self, e, cand, kernel):
        name = type(e).__name__
        text = str(e).strip()
        if name == "PTXASError":
            first = next((l for l in text.splitlines() if "error" in l.lower()), text.splitlines()[0] if text else "")
            return CompileFailure("%s: ptxas rejected the code Triton generated for kernel '%s': %s"
                                  % (cand.source_name, kernel, first.strip()), text + "\n")
        line = 0
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == cand.source_name:
                line = frame.lineno
        msg = "Triton failed on kernel '%s': %s: %s" % (kernel, name, text.splitlines()[0] if text else "")
        summary = located(cand.source_name, cand.lines, line, 0, msg) if line else "%s: error: %s" % (
            cand.source_name, msg)
        return CompileFailure(summary, "".join(traceback.format_exception(type(e), e, e.__traceback__)))


def _json_default(o):
    if hasattr(o, "_asdict"):
        return o._asdict()
    if hasattr(o, "__dict__"):
        return vars(o)
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    return str(o)


# ---------------------------------------------------------------------------
# The process

def limit_self(memory_mb):
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    cap = 2 << 30  # Triton writes its IR stages; nothing near 2 GiB
    if hard == resource.RLIM_INFINITY or hard > cap:
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
    if memory_mb > 0:
        cap = memory_mb << 20
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def watch_parent(parent):
    """Exit with the host: a busy worker would not notice its socket closing."""
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

    threading.Thread(target=watch, daemon=True).start()


def close_leaked_fds(keep):
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


def triton_status():
    """(version string, None) or (None, why Triton cannot be used)."""
    try:
        import triton
    except Exception as e:  # ImportError, or a broken install
        return None, "cannot import triton (%s: %s)" % (type(e).__name__, e)
    version = getattr(triton, "__version__", "0")
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m or (int(m.group(1)), int(m.group(2))) < MIN_TRITON:
        return None, "Triton %s is too old: kbench needs %d.%d or newer" % (version, *MIN_TRITON)
    try:
        from triton.compiler import ASTSource  # noqa: F401
        from triton.backends.compiler import GPUTarget  # noqa: F401
    except Exception as e:
        return None, "this Triton (%s) lacks triton.compiler.ASTSource or GPUTarget: %s" % (version, e)
    return version, None


def serve(conn, work_dir, test_hooks):
    compiler = None
    version, why = None, None
    while True:
        frame = conn.read_frame()
        if frame is None:
            return
        msg_type, msg_id, doc, blobs = frame
        reply = msg_type | REPLY_BIT
        if msg_type == MSG_HELLO:
            version, why = triton_status()
            info = {"python": sys.executable, "python_version": "%d.%d.%d" % sys.version_info[:3],
                    "worker_version": WORKER_VERSION, "pid": os.getpid()}
            if why:
                conn.send(reply, msg_id, {"ok": False, "status": KB_ERR_NOT_FOUND, "error": why, "result": info})
                continue
            info["triton_version"] = version
            conn.send(reply, msg_id, {"ok": True, "result": info})
        elif msg_type == MSG_SHUTDOWN:
            conn.send(reply, msg_id, {"ok": True, "result": {}})
            return
        elif msg_type == MSG_COMPILE:
            req = doc.get("request", {})
            fault = doc.get("test_fault", "") if test_hooks else ""
            conn.send(MSG_NOTE, msg_id, {"doing": "compiling Triton kernel '%s' of %s for sm_%s"
                                                  % (req.get("kernel"), req.get("source_name"), req.get("arch"))})
            if fault == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            if fault == "hang":
                while True:
                    time.sleep(1)
            if fault == "exception":
                raise RuntimeError("test fault: an exception in the worker")
            if why or version is None:
                version, why = triton_status()
                if why:
                    conn.send(reply, msg_id, {"ok": False, "status": KB_ERR_NOT_FOUND, "error": why})
                    continue
            try:
                if compiler is None:
                    compiler = Compiler(work_dir)
                code = blobs[int(req["code_blob"])]
                result, out_blobs = compiler.compile(req, code)
                result["cubin_blob"], result["ptx_blob"] = 0, 1
                conn.send(reply, msg_id, {"ok": True, "result": result}, out_blobs)
            except CompileFailure as e:
                conn.send(reply, msg_id, {"ok": False, "status": KB_ERR_COMPILE, "error": e.summary,
                                          "log_blob": 0}, [e.log.encode("utf-8", "replace")])
            except Exception:
                conn.send(reply, msg_id, {"ok": False, "status": KB_ERR_INTERNAL,
                                          "error": "the Triton compile worker failed (a kbench bug): " +
                                                   traceback.format_exc()})
        else:
            conn.send(reply, msg_id, {"ok": False, "status": KB_ERR_INVALID_ARGUMENT,
                                      "error": "the Triton compile worker does not serve message type %d" % msg_type})


def main(argv):
    if sys.version_info < (3, 9):
        sys.stderr.write("kbench's Triton compile worker needs Python 3.9 or newer, this is %s\n" % sys.version.split()[0])
        return 4
    args = {"--fd": -1, "--parent": 0, "--work-dir": "", "--memory-mb": 0}
    flags = set()
    check_file = None
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--no-device", "--test-hooks"):
            flags.add(a)
        elif a == "--check" and i + 1 < len(argv):
            check_file = argv[i + 1]
            i += 1
        elif a in args and i + 1 < len(argv):
            args[a] = argv[i + 1] if a == "--work-dir" else int(argv[i + 1])
            i += 1
        else:
            sys.stderr.write("usage: compile_worker.py --fd N --parent PID --no-device --work-dir DIR "
                             "[--memory-mb MB] [--test-hooks] | --check FILE\n")
            return 2
        i += 1
    if check_file:
        with open(check_file, "rb") as f:
            text = f.read().decode("utf-8")
        try:
            SourceChecker(os.path.basename(check_file)).check(text)
        except SourceRejected as e:
            print("%s:%d:%d: %s" % (os.path.basename(check_file), e.line, e.col, e.message))
            return 1
        print("ok")
        return 0
    if args["--fd"] < 0 or not args["--work-dir"]:
        sys.stderr.write("compile_worker.py: --fd and --work-dir are required\n")
        return 2
    fd = args["--fd"]
    close_leaked_fds(fd)
    watch_parent(args["--parent"])
    work_dir = args["--work-dir"]
    # Triton's own cache and home go into the worker's private folder: kbench
    # caches compiled kernels itself, and a candidate never writes elsewhere.
    os.environ["TRITON_CACHE_DIR"] = os.path.join(work_dir, "triton-cache")
    os.environ["TRITON_HOME"] = work_dir
    os.chdir(work_dir)
    limit_self(args["--memory-mb"])
    conn = Connection(fd)
    try:
        serve(conn, work_dir, "--test-hooks" in flags)
    except (ProtocolError, BrokenPipeError, ConnectionResetError) as e:
        sys.stderr.write("kbench Triton compile worker: %s\n" % e)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
