"""A fast build for torch.utils.cpp_extension.load_inline and load, used by
the candidate worker (docs/programs.md, "CUDA answers: the fast build").

A KernelBench CUDA answer builds its kernels with `load_inline`: torch writes
main.cpp (the answer's C++ after `#include <torch/extension.h>`, then the
pybind11 bindings of `functions`) and cuda.cu (the answer's CUDA after
`torch/types.h`, `cuda.h` and `cuda_runtime.h`), a build.ninja, runs ninja
(g++ on main.cpp, nvcc on cuda.cu, a link) and imports the library.

The fast build produces the same module from the same files and the same
commands:

* the sources are generated exactly as torch 2.11 generates them
  (`main_cpp_text`, `cuda_cu_text`);
* the commands are torch's own: torch's `_prepare_ldflags` and
  `_write_ninja_file_to_build_library` write the build file for this machine
  (include paths, `-gencode` for the device, the answer's extra flags), and
  `ninja_commands` reads the compile and link commands back out of it;
* the one change to a command: g++ on main.cpp finds a precompiled
  `torch/extension.h` (a GCC `.gch`, built once with that command's own flags
  and kept in a content-addressed cache outside the candidate's folder) in a
  directory searched before torch's. GCC uses a precompiled header only where
  it stands for the textual include (same flags, the include the first
  token), so the object is the one the plain compile gives; where the answer's
  main.cpp does not begin with the include, it compiles as torch would;
* g++ and nvcc run at once, without ninja, in a build folder private to the
  call and removed once the module is imported.

The split build (kbench_cuda_split, `FastBuilder._build_split`) goes further:
cuda.cu becomes a device unit without torch's headers and a host unit, and
main.cpp compiles with its bindings apart (`apart_main`,
native/kbench_li_bind.h): each bound function's pybind11 code lives in an
object kept per signature in the cache, so main.cpp no longer includes
torch's headers.

Constructs the fast build does not take are handed to torch's own function,
decided on the call's arguments before anything is built (`fallback_reason`),
never on a build error. Every build is recorded (`builds_since`) with the
path that built it: `"build": "fast"` or `"torch"`.

A compile error raises like torch's (`RuntimeError: Error building extension
'NAME': ...`), its first line the compiler's first error with the answer's
own line where the source string is found in the answer's file.

The source handling and the build-file reading need no torch (the CPU tests
use them without it).
"""

import errno
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import kbench_cuda_split as kcs

# torch 2.11's load_inline and load, by keyword; anything else is torch's.
LOAD_INLINE_ARGS = ("name", "cpp_sources", "cuda_sources", "sycl_sources", "functions", "extra_cflags",
                    "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags", "extra_include_paths",
                    "build_directory", "verbose", "with_cuda", "with_sycl", "is_python_module",
                    "with_pytorch_error_handling", "keep_intermediates", "use_pch", "no_implicit_headers")
LOAD_ARGS = ("name", "sources", "extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags",
             "extra_include_paths", "build_directory", "verbose", "with_cuda", "with_sycl", "is_python_module",
             "is_standalone", "keep_intermediates")

# Source files `load` takes on the fast build (torch's own C++ and CUDA kinds).
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C")
CUDA_SUFFIXES = (".cu", ".cuh")

EXTENSION_INCLUDE = "#include <torch/extension.h>"
EXTENSION_HEADER = "torch/extension.h"

# kbench's own first includes of a split build's units, in native/.
NATIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native")
HOST_HEADER = "kbench_li_host.h"
MAIN_HEADER = "kbench_li_main.h"
HEADERS = (HOST_HEADER, MAIN_HEADER)

# The rules torch's build file for a CUDA or C++ extension has; a build file
# with another (cuda_dlink, for relocatable device code) goes to torch.
KNOWN_RULES = ("compile", "cuda_compile", "link")


# ---------------------------------------------------------------------------
# Sources, as torch 2.11's load_inline writes them

def _as_list(x):
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def bindings(functions, with_pytorch_error_handling=True):
    """The PYBIND11_MODULE lines load_inline appends for `functions` (a name,
    a list of names, or a dict of name -> docstring), or [] for None."""
    if functions is None:
        return []
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, list):
        functions = {f: f for f in functions}
    elif not isinstance(functions, dict):
        raise ValueError(f"Expected 'functions' to be a list or dict, but was {type(functions)}")
    out = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
    for function_name, docstring in functions.items():
        if with_pytorch_error_handling:
            out.append(f'm.def("{function_name}", torch::wrap_pybind_function({function_name}), "{docstring}");')
        else:
            out.append(f'm.def("{function_name}", {function_name}, "{docstring}");')
    out.append("}")
    return out


def main_cpp_text(cpp_sources, functions=None, with_pytorch_error_handling=True, no_implicit_headers=False):
    """main.cpp as load_inline writes it."""
    parts = _as_list(cpp_sources)
    if not no_implicit_headers:
        parts.insert(0, EXTENSION_INCLUDE)
    parts += bindings(functions, with_pytorch_error_handling)
    return "\n".join(parts)


def cuda_cu_text(cuda_sources, no_implicit_headers=False):
    """cuda.cu as load_inline writes it, or None without CUDA sources."""
    parts = _as_list(cuda_sources)
    if not parts:
        return None
    if not no_implicit_headers:
        parts = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"] + parts
    return "\n".join(parts)


def mutate_like_torch(bound):
    """torch's load_inline changes the lists an answer passes: the include
    and the bindings are added to its cpp_sources list, the headers to its
    cuda_sources list (a string is copied into a new list first). An answer
    that passes the same list again sees them: so it does here."""
    no_hdr = bool(bound.get("no_implicit_headers", False))
    cpp = bound.get("cpp_sources")
    if isinstance(cpp, list):
        if not no_hdr:
            cpp.insert(0, EXTENSION_INCLUDE)
        cpp += bindings(bound.get("functions"), bound.get("with_pytorch_error_handling", True))
    cu = bound.get("cuda_sources")
    if isinstance(cu, list) and cu and not no_hdr:
        cu[0:0] = ["#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>"]


def cuda_prefix_lines(no_implicit_headers=False):
    """How many lines load_inline puts before the answer's CUDA source."""
    return 0 if no_implicit_headers else 3


def begins_with_extension_include(text):
    """Whether `text`'s first token is `#include <torch/extension.h>`: where
    GCC can use a precompiled torch/extension.h for it."""
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        return re.match(r"#\s*include\s*<torch/extension\.h>\s*$", s) is not None
    return False


# ---------------------------------------------------------------------------
# The fallback decision: made on the call, before anything is built

def fallback_reason(kind, args, kwargs, hip=False):
    """Why the call `kind(*args, **kwargs)` (kind "load_inline" or "load")
    goes to torch's own build, or None when the fast build takes it."""
    names = LOAD_INLINE_ARGS if kind == "load_inline" else LOAD_ARGS
    if len(args) > len(names):
        return "more positional arguments than torch's %s takes" % kind
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            return "the keyword argument %r (torch's own %s handles it)" % (k, kind)
        if k in bound:
            return "the argument %r given twice" % k
        bound[k] = v
    if "name" not in bound or not isinstance(bound["name"], str) or not bound["name"].isidentifier():
        return "no name that is a Python identifier"
    if hip:
        return "a ROCm build of torch"
    if _as_list(bound.get("sycl_sources")) or bound.get("with_sycl"):
        return "SYCL sources"
    if bound.get("build_directory"):
        return "a build_directory of the answer's own (its files are kept there)"
    if bound.get("is_python_module", True) is not True:
        return "is_python_module=False (a library for torch.ops, not a Python module)"
    if bound.get("is_standalone"):
        return "is_standalone=True (an executable)"
    for flag_arg in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags", "extra_include_paths"):
        v = bound.get(flag_arg)
        if v is not None and (isinstance(v, str) or not all(isinstance(x, str) for x in v)):
            return "%s is not a list of strings" % flag_arg
    if kind == "load_inline":
        for src_arg in ("cpp_sources", "cuda_sources"):
            v = bound.get(src_arg)
            if v is not None and not isinstance(v, str) and not (isinstance(v, list) and
                                                                 all(isinstance(x, str) for x in v)):
                return "%s is not a string or a list of strings" % src_arg
        f = bound.get("functions")
        if f is not None and not isinstance(f, (str, list, dict)):
            return "functions is not a name, a list or a dict"
    else:
        sources = _as_list(bound.get("sources"))
        if not sources:
            return "no sources"
        for s in sources:
            if not isinstance(s, str) or not s.endswith(CXX_SUFFIXES + CUDA_SUFFIXES):
                return "the source %r is not a C++ or CUDA file" % (s,)
    return None


# ---------------------------------------------------------------------------
# torch's build file, read back

def _ninja_unescape(value, variables):
    out = []
    i = 0
    while i < len(value):
        c = value[i]
        if c == "$" and i + 1 < len(value):
            n = value[i + 1]
            if n in "$ :":
                out.append(n)
                i += 2
                continue
            if n == "{":
                j = value.index("}", i)
                out.append(variables.get(value[i + 2:j], ""))
                i = j + 1
                continue
            m = re.match(r"[A-Za-z0-9_-]+", value[i + 1:])
            if m:
                out.append(variables.get(m.group(0), ""))
                i += 1 + m.end(0)
                continue
        out.append(c)
        i += 1
    return "".join(out)


def ninja_commands(text):
    """The build statements of a build.ninja torch writes, in order, as
    [(rule, outputs, inputs, command)], variables expanded. Only the subset
    torch emits is read: top-level variables, rules with a command, build
    lines with explicit inputs."""
    top = {}
    rules = {}
    builds = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("$") and i + 1 < len(lines):  # a continued line
            i += 1
            line = line[:-1] + lines[i].lstrip()
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("rule "):
            rule = {}
            rules[line.split()[1]] = rule
            while i < len(lines) and lines[i].startswith((" ", "\t")):
                k, _, v = lines[i].strip().partition("=")
                rule[k.strip()] = v.strip()
                i += 1
            continue
        if line.startswith("build "):
            head, _, rest = line[len("build "):].partition(": ")
            parts = rest.split()
            builds.append((parts[0], head.split(), parts[1:]))
            while i < len(lines) and lines[i].startswith((" ", "\t")):
                i += 1  # build-scoped variables: torch writes none
            continue
        if line.startswith("default "):
            continue
        k, eq, v = line.partition("=")
        if eq:
            top[k.strip()] = _ninja_unescape(v.strip(), top)
    out = []
    for rule, outputs, inputs in builds:
        if rule not in rules or "command" not in rules[rule]:
            raise ValueError("the build file has no rule %r with a command" % rule)
        scope = dict(top)
        scope["in"] = " ".join(inputs)
        scope["out"] = " ".join(outputs)
        out.append((rule, outputs, inputs, _ninja_unescape(rules[rule]["command"], scope)))
    return out


# ---------------------------------------------------------------------------
# Compile errors, pointed at the answer's own lines

_DIAG = re.compile(r"^(?P<file>[^\s:(]+?)(?:\((?P<pl>\d+)\)|:(?P<cl>\d+)(?::\d+)?):\s*(?P<kind>(?:fatal )?error)\b(?P<rest>.*)$")


def first_error(output):
    """(file name, line, the message line, the file named without its
    folder) of the first compiler error in g++'s or nvcc's output, or None."""
    for line in output.splitlines():
        m = _DIAG.match(line.strip())
        if m:
            name = os.path.basename(m.group("file"))
            # The private build folder's path says nothing to the answer's author.
            return name, int(m.group("pl") or m.group("cl")), line.strip().replace(m.group("file"), name, 1)
    return None


def answer_line(answer_text, source_text, line_in_source):
    """The line of the answer's file holding line `line_in_source` (1-based)
    of `source_text`, a string the answer passes to load_inline, where the
    string appears verbatim in the file (a raw or escape-free literal); None
    otherwise."""
    if not answer_text or not source_text or line_in_source < 1:
        return None
    pos = answer_text.find(source_text)
    if pos < 0 or answer_text.find(source_text, pos + 1) >= 0:
        return None
    return answer_text.count("\n", 0, pos) + line_in_source


# ---------------------------------------------------------------------------
# The build

class BuildError(RuntimeError):
    """A compile or link error, worded like torch's."""


class PrebuildStopped(RuntimeError):
    """Raised in the builder worker where a call is left to the candidate
    worker (torch's own build)."""


def _tool_identity(argv0):
    try:
        return subprocess.run([argv0, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=30).stdout.decode("utf-8", "replace")
    except Exception as e:
        return "unknown compiler %s (%s)" % (argv0, e)


def _tree_fingerprint(root):
    """Names, sizes and modification times of every file under `root`: the
    torch headers a precompiled header stands for."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            p = os.path.join(dirpath, f)
            try:
                st = os.stat(p)
            except OSError:
                continue
            h.update(("%s\0%d\0%d\n" % (os.path.relpath(p, root), st.st_size, st.st_mtime_ns)).encode())
    return h.hexdigest()


def _file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def without_files(argv):
    """A compile command less its dependency file, its sources and its
    output."""
    out, skip = [], 0
    for a in argv:
        if skip:
            skip -= 1
            continue
        if a in ("-MF", "-o"):
            skip = 1
            continue
        if a in ("-MMD", "-MD"):
            continue
        if not a.startswith("-") and a.endswith(CXX_SUFFIXES + CUDA_SUFFIXES):
            continue
        out.append(a)
    return out


def pch_flags(compile_argv):
    """The flags of torch's g++ command for main.cpp that a precompiled
    header must be built with: the command less the compiler, the dependency
    file, the input, the output, -c and -DTORCH_EXTENSION_NAME (which no
    torch header reads)."""
    return [a for a in without_files(compile_argv[1:])
            if a != "-c" and not a.startswith("-DTORCH_EXTENSION_NAME=")]


class PchCache:
    """Precompiled headers, one per header and set of g++ flags, in a folder
    outside the candidate's: `<root>/<key>/<header>.gch`, where <header> is
    torch/extension.h (found among torch's headers) or one of kbench's own
    first includes of a split build (native/kbench_li_*.h, `HEADERS`); and
    the bindings' objects of the split build (`get_object`), one per source
    and set of flags: `<root>/<key>/object.o`.

    Confined candidate workers only read `root` (the host has a builder
    process, which runs no candidate, fill it: kbench_program_worker.py
    --build-pch); a header missing there is waited for while the builder
    holds its lock, else built in `private_root`, the worker's own folder.

    The key is the digest of everything the header depends on: the header's
    name and, for kbench's own, its text; the compiler (its --version); the
    flags; the torch include tree (names, sizes, times).
    An entry is built once (in a temporary folder, renamed into place, under
    a lock for workers sharing the cache) with its digest beside it; before
    each use its digest is checked again, so a header changed after it was
    made is rebuilt, never used."""

    def __init__(self, root, torch_include, private_root=None):
        self.root = root
        self.private_root = private_root
        self.torch_include = torch_include
        self._lock = threading.Lock()
        self._entry_locks = {}
        self._fingerprint = None
        self._compilers = {}
        self._verified = {}  # key -> (digest, stat) checked by this process

    def header_path(self, header):
        if header in HEADERS:
            return os.path.join(NATIVE, header)
        return os.path.join(self.torch_include, header)

    def _digest(self, compiler, flags, more=()):
        """The key of an entry: the compiler, the flags, the torch include
        tree and `more`, hashed."""
        if self._fingerprint is None:
            self._fingerprint = _tree_fingerprint(self.torch_include)
        if compiler not in self._compilers:
            self._compilers[compiler] = _tool_identity(compiler)
        h = hashlib.sha256()
        for part in (self._compilers[compiler], "\0".join(flags), self._fingerprint, self.torch_include) + tuple(more):
            h.update(part.encode("utf-8", "replace"))
            h.update(b"\1")
        return h.hexdigest()[:32]

    def key(self, compiler, flags, header=EXTENSION_HEADER):
        if header == EXTENSION_HEADER:  # the keys of torch/extension.h stay those it always had
            return self._digest(compiler, flags)
        own = ""
        if header in HEADERS:
            with open(self.header_path(header), errors="replace") as f:
                own = f.read()
        # Its path too: clang's precompiled header names the file it was made
        # from and refuses to load once that path is gone (two kbench
        # installs sharing one cache).
        return self._digest(compiler, flags, (header, own, self.header_path(header)))

    def get(self, compiler, flags, deadline_s=600, header=EXTENSION_HEADER, suffix=".gch"):
        """The include directory holding <header><suffix> for `flags`, built
        now if missing; (directory, built_now, seconds). `suffix` is .gch
        for g++ (found beside the header's name on the include path) and
        .pch for clang (named with -include-pch)."""
        def argv(tmp, out):
            return [compiler, "-x", "c++-header"] + flags + [self.header_path(header), "-o", out]
        return self._get(self.key(compiler, flags, header), header + suffix, argv, deadline_s,
                         "precompiled " + header)

    def object_key(self, compiler, flags, source):
        """The key of an object compiled from `source` (which includes
        kbench's own headers, whose texts are in the key) with `flags`."""
        own = []
        for header in (MAIN_HEADER, BIND_HEADER):
            with open(os.path.join(NATIVE, header), errors="replace") as f:
                own.append(f.read())
        return self._digest(compiler, flags, ["object"] + own + [source])

    def get_object(self, compiler, flags, source, pch_include=None, deadline_s=600, run=None):
        """The path of the object g++ makes from `source` with `flags` (the
        main.cpp command's, `pch_flags`), built now if missing, against the
        precompiled kbench_li_main.h in the folder pch_include() returns
        (asked only for a build; None: without); (path, built_now,
        seconds). `run(argv)` -> (returncode, output, seconds) runs the
        compile where given (a build's Processes, which its stop ends)."""
        def argv(tmp, out):
            src = os.path.join(tmp, "object.cpp")
            with open(src, "w") as f:
                f.write(source)
            pch = pch_include() if pch_include else None
            inc = (["-I", pch, "-Winvalid-pch"] if pch else []) + ["-I", NATIVE]
            return [compiler] + inc + flags + ["-c", src, "-o", out]
        entry, built, secs = self._get(self.object_key(compiler, flags, source), "object.o", argv, deadline_s,
                                       "bindings' object", run)
        return os.path.join(entry, "object.o"), built, secs

    def _get(self, key, filename, argv, deadline_s, what, run=None):
        """The entry `key` holding `filename`, made by the command
        argv(tmp, out) where missing; (entry, built_now, seconds)."""
        t0 = time.monotonic()
        with self._lock:  # one build of an entry at a time; other entries at once
            lock = self._entry_locks.setdefault(key, threading.Lock())
        with lock:
            roots = [self.root] + ([self.private_root] if self.private_root else [])
            for root in roots:
                entry = os.path.join(root, key)
                if self._valid(key, entry, os.path.join(entry, filename)):
                    return entry, False, time.monotonic() - t0
            try:
                entry, built = self._build(self.root, key, filename, argv, deadline_s, what, run)
                return entry, built, time.monotonic() - t0
            except OSError as e:
                if e.errno not in (errno.EACCES, errno.EPERM, errno.EROFS) or not self.private_root:
                    raise
            # The shared folder is read-only here: the builder's entry, once
            # it is done, else one of this worker's own.
            entry = os.path.join(self.root, key)
            if self._wait_for_builder(key) and self._valid(key, entry, os.path.join(entry, filename)):
                return entry, False, time.monotonic() - t0
            entry, built = self._build(self.private_root, key, filename, argv, deadline_s, what, run)
            return entry, built, time.monotonic() - t0

    def _wait_for_builder(self, key):
        """Waits while a builder holds the shared entry's lock; False when
        no builder has begun it."""
        import fcntl
        try:
            with open(os.path.join(self.root, key + ".lock"), "r") as lock:
                fcntl.flock(lock, fcntl.LOCK_SH)
                return True
        except OSError:
            return False

    def _build(self, root, key, filename, argv_of, deadline_s, what, run=None):
        """Builds the entry `key` under `root` unless another process has;
        (entry, built_now). PermissionError where `root` is not writable."""
        entry = os.path.join(root, key)
        made = os.path.join(entry, filename)
        os.makedirs(root, exist_ok=True)
        import fcntl
        with open(os.path.join(root, key + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if self._valid(key, entry, made):
                return entry, False
            shutil.rmtree(entry, ignore_errors=True)
            tmp = tempfile.mkdtemp(prefix=key + ".", dir=root)
            try:
                out = os.path.join(tmp, filename)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                argv = argv_of(tmp, out)
                if run is None:
                    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=deadline_s)
                    rc, said = r.returncode, r.stdout.decode("utf-8", "replace")
                else:
                    rc, said, _ = run(argv)
                if rc != 0:
                    raise BuildError("building the %s failed (kbench's error, not the answer's): %s\n%s"
                                     % (what, shlex.join(argv), said[-4000:]))
                with open(os.path.join(tmp, "digest"), "w") as f:
                    f.write(_file_digest(out))
                with open(os.path.join(tmp, "command"), "w") as f:
                    f.write(shlex.join(argv) + "\n")
                os.rename(tmp, entry)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            if not self._valid(key, entry, made):
                raise BuildError("the %s in %s does not match its digest" % (what, entry))
            return entry, True

    def _valid(self, key, entry, path):
        try:
            st = os.stat(path)
            with open(os.path.join(entry, "digest")) as f:
                want = f.read().strip()
        except OSError:
            return False
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        seen = self._verified.get(key)
        if seen == (want, stamp):
            return True
        if _file_digest(path) != want:
            return False
        self._verified[key] = (want, stamp)
        return True


def _split_command(command):
    return shlex.split(command)


def _descendants(pid):
    """The processes below `pid` (from /proc), deepest last."""
    children = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for n in names:
        if not n.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % n) as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(n))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def build_priority_prefix(which=shutil.which, env=os.environ):
    """The command prefix that runs a build step at a lower CPU priority
    (`nice -n 10`): in a batch, the builds of some lanes' answers share the
    host's cores with other lanes' GPU phases, whose Python calls, launches
    and timing loops must not wait behind a compiler (at eight lanes of CUDA
    answers, with the host's cores compiling, a timing stage took 1.9 s
    against 0.4 s one at a time: bench/kernelbench/program_bench.py with
    PROGRAM_CANDIDATES=bench/kernelbench/cuda_candidates). Builds lose
    nothing where cores are free. [] where `nice` is missing or
    $KBENCH_LOAD_INLINE_NICE is 0; its value, else 10, is the niceness."""
    level = env.get("KBENCH_LOAD_INLINE_NICE", "10")
    try:
        n = int(level)
    except ValueError:
        n = 10
    path = which("nice")
    if n <= 0 or not path:
        return []
    return [path, "-n", str(min(n, 19))]


class Processes:
    """The build's processes. They stay in the worker's process group, so
    the supervisor's kill of a worker past its deadline ends them too; the
    build's own stop (a step failed, or its backstop deadline passed) kills
    each step with the processes below it (cicc, ptxas, cc1plus). Each runs
    at the lower priority of `build_priority_prefix`."""

    def __init__(self, cwd, deadline_s):
        self.cwd = cwd
        self.end = time.monotonic() + deadline_s
        self.lock = threading.Lock()
        self.live = []
        self.stopped = False
        self.timed_out = False
        self.prefix = build_priority_prefix()

    def run(self, argv, env=None):
        """(returncode, output, seconds); -9 when stopped."""
        t0 = time.monotonic()
        with self.lock:
            if self.stopped:
                return -9, "", 0.0
            p = subprocess.Popen(self.prefix + list(argv), cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, env=env)
            self.live.append(p)
        # No timer thread: a thread of kbench's still alive when the import
        # returns would read as one the candidate left running.
        try:
            try:
                out, _ = p.communicate(timeout=max(0.1, self.end - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._deadline()
                out, _ = p.communicate()
        finally:
            with self.lock:
                self.live.remove(p)
        return p.returncode, out.decode("utf-8", "replace"), time.monotonic() - t0

    def _deadline(self):
        self.timed_out = True
        self.stop()

    def stop(self):
        with self.lock:
            self.stopped = True
            for p in self.live:
                # Stopped first, so that none starts another child meanwhile.
                for pid in [p.pid] + _descendants(p.pid):
                    try:
                        os.kill(pid, 19)  # SIGSTOP
                    except OSError:
                        pass
                for pid in [p.pid] + _descendants(p.pid):
                    try:
                        os.kill(pid, 9)
                    except OSError:
                        pass


# ---------------------------------------------------------------------------
# nvcc's own steps, run two at a time

# nvcc compiles a .cu in one line of steps: the host preprocessing and
# cudafe++ (the host side), the device preprocessing, cicc, ptxas and
# fatbinary (the device side), then the host compile of cudafe++'s output,
# which includes the fatbinary's. The two sides share only the module ID (a
# name cudafe++ writes to a file and cicc reads, for the names of the
# translation unit's internal device symbols): written first, from the
# source's digest, they run at once, each a separate process with nvcc's own
# command line.

_NVCC_ENV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def _nvcc_tool(command):
    first = shlex.split(command)[0] if command.strip() else ""
    return os.path.basename(first.replace("$CICC_PATH/", ""))


def nvcc_steps(dryrun_output):
    """nvcc --dryrun's output (lines "#$ ...") as (environment lines,
    [(kind, command)]), kind one of host_pre, cudafe, dev_pre, cicc, ptxas,
    fatbinary, host_cc; None where a step is of another kind (nvlink for
    relocatable device code, say): then nvcc runs whole."""
    env, steps = [], []
    for line in dryrun_output.splitlines():
        if not line.startswith("#$ "):
            continue
        cmd = line[3:].strip()
        if not cmd or cmd.startswith("--") or cmd.startswith("rm "):
            continue  # nvcc's own bookkeeping (dependency filtering), temporary files
        if _NVCC_ENV.match(cmd) and " " not in cmd.split("=", 1)[0]:
            env.append(cmd)
            continue
        tool = _nvcc_tool(cmd)
        if re.match(r"^([\w.+-]+-)?(gcc|g\+\+|c\+\+|cc|clang|clang\+\+)(-[\d.]+)?$", tool):  # the host compiler (-ccbin)
            argv = shlex.split(cmd)
            device = any(a.startswith("-D__CUDA_ARCH__=") for a in argv)
            if "-E" in argv:
                kind = "dev_pre" if device else "host_pre"
            elif "-c" in argv:
                kind = "host_cc"
            else:
                return None
        elif tool in ("cudafe++", "cicc", "ptxas", "fatbinary"):
            kind = "cudafe" if tool == "cudafe++" else tool
        else:
            return None
        steps.append((kind, cmd))
    kinds = [k for k, _ in steps]
    if kinds.count("host_pre") != 1 or kinds.count("cudafe") != 1 or kinds.count("fatbinary") != 1 or \
            kinds.count("host_cc") != 1 or kinds[-1] != "host_cc" or kinds.count("cicc") < 1:
        return None
    cudafe = steps[kinds.index("cudafe")][1]
    if "--gen_module_id_file" not in shlex.split(cudafe) or "--module_id_file_name" not in shlex.split(cudafe):
        return None
    return env, steps


def module_id_of(source_name, digest):
    """A module ID of the form cudafe++ makes (_<hex>_<length>_<name>_<hex>),
    from the source's digest."""
    base = re.sub(r"[^A-Za-z0-9]", "_", os.path.basename(source_name))
    return "_%s_%d_%s_%s" % (digest[:8], len(base), base, digest[8:16])


def split_nvcc(env, steps, module_id_path_out):
    """(host chain, device chain, final) shell scripts (run with
    nvcc_environment) from nvcc_steps' result; the cudafe++ step reads the module ID instead of writing it, and
    `module_id_path_out[0]` is set to the file both read."""
    host, device, final = [], [], []
    for kind, cmd in steps:
        if kind == "cudafe":
            argv = shlex.split(cmd)
            module_id_path_out.append(argv[argv.index("--module_id_file_name") + 1])
            argv.remove("--gen_module_id_file")
            cmd = shlex.join(argv)
        (host if kind in ("host_pre", "cudafe") else final if kind == "host_cc" else device).append(cmd)
    return ["set -e\n" + "\n".join(c) + "\n" for c in (host, device, final)]


def nvcc_environment(env_lines, base):
    """The variables nvcc sets for its steps (PATH with nvvm/bin, CICC_PATH,
    ...), over `base`, each value as the shell would read it."""
    out = dict(base)
    for line in env_lines:
        name, _, value = line.partition("=")
        try:
            out[name] = " ".join(shlex.split(value))
        except ValueError:
            continue
    return out


def nvcc_compile(procs, argv, keep_dir, record):
    """nvcc's compile of one .cu, its host and device sides at once
    (nvcc_steps); nvcc whole where its steps are not the usual ones.
    (argv, returncode, output, seconds)."""
    argv = list(argv)
    while "-MF" in argv:  # ninja's dependency file: nothing reads it here
        j = argv.index("-MF")
        del argv[j:j + 2]
    argv = [a for a in argv if a != "-MD"]
    t0 = time.monotonic()
    split = os.environ.get("KBENCH_LOAD_INLINE_NVCC_SPLIT", "1") != "0"
    plan = None
    if split:
        os.makedirs(keep_dir, exist_ok=True)
        dry = subprocess.run(argv + ["--dryrun", "--keep", "--keep-dir", keep_dir], cwd=procs.cwd,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        plan = nvcc_steps(dry.stdout.decode("utf-8", "replace")) if dry.returncode == 0 else None
    record["nvcc_split"] = plan is not None
    if plan is None:
        rc, out, secs = procs.run(argv)
        return argv, rc, out, secs
    env_lines, steps = plan
    ids = []
    host, device, final = split_nvcc(env_lines, steps, ids)
    src = next((a for a in argv if a.endswith(CUDA_SUFFIXES)), "cuda.cu")
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read() + os.urandom(16)).hexdigest()
    with open(ids[0], "w") as f:
        f.write(module_id_of(src, digest))
    env = nvcc_environment(env_lines, os.environ)
    out = {}

    def side(key, script):
        out[key] = procs.run(["/bin/sh", "-c", script], env=env)

    t = threading.Thread(target=side, args=("device", device), daemon=True)
    t.start()
    side("host", host)
    if out["host"][0] != 0:
        # nvcc reports the host side's (cudafe++'s) errors first: so does
        # this, without waiting for the device side, stopped with the
        # build's other steps (a failed step ends the build).
        secs = time.monotonic() - t0
        procs.stop()
        t.join()
        record["nvcc_ms"] = {"host": round(out["host"][2] * 1e3, 1)}
        return argv, out["host"][0], out["host"][1], secs
    t.join()
    record["nvcc_ms"] = {"host": round(out["host"][2] * 1e3, 1), "device": round(out["device"][2] * 1e3, 1)}
    if out["device"][0] != 0:
        return argv, out["device"][0], out["device"][1], time.monotonic() - t0
    rc, text, secs = procs.run(["/bin/sh", "-c", final], env=env)
    record["nvcc_ms"]["host_compile"] = round(secs * 1e3, 1)
    return argv, rc, out["host"][1] + out["device"][1] + text, time.monotonic() - t0


# ---------------------------------------------------------------------------
# The split build's units and commands

# Names an answer's C++ may use that torch/extension.h declares and the
# lighter first includes (native/kbench_li_host.h, kbench_li_main.h) do not.
FULL_HEADER_NAMES = re.compile(r"\b(torch::(nn|optim|jit|data|serialize|autograd|python|cuda|special|fft|linalg|"
                               r"nested|sparse)\b|py::|pybind11::|PYBIND11_|Py[A-Z]\w*|THP\w*)")


def needs_full_headers(bound):
    """Whether the answer's sources name what only torch/extension.h brings
    (torch::nn, pybind11, Python's C API), not just ATen and the bindings."""
    texts = _as_list(bound.get("cpp_sources")) + _as_list(bound.get("cuda_sources"))
    return any(FULL_HEADER_NAMES.search(kcs.mask(t)) for t in texts)


_EXT_LINE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<torch/extension\.h>[ \t]*$", re.M)


def light_main(main):
    """main.cpp with kbench_li_main.h as its first include in place of
    torch/extension.h (whose later includes become empty lines: the lines
    keep their numbers)."""
    first, nl, rest = main.partition("\n")
    if first.strip() == EXTENSION_INCLUDE:
        first = "#include <%s>" % MAIN_HEADER
    else:
        first = "#include <%s>\n#line 1\n%s" % (MAIN_HEADER, first)
    return first + nl + _EXT_LINE.sub("", rest)


# ---------------------------------------------------------------------------
# The bindings apart (native/kbench_li_bind.h)

BIND_HEADER = "kbench_li_bind.h"

# The signatures most answers bind (nm's spelling): the builder makes their
# objects ahead, with the precompiled headers.
USUAL_SIGNATURES = ("at::Tensor (at::Tensor)", "at::Tensor (at::Tensor, at::Tensor)",
                    "at::Tensor (at::Tensor, at::Tensor, at::Tensor)", "at::Tensor (at::Tensor, double)",
                    "at::Tensor (at::Tensor, float)", "at::Tensor (at::Tensor, int)",
                    "at::Tensor (at::Tensor, long)", "at::Tensor (at::Tensor, at::Tensor, double)")

_ANY_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include\b", re.M)


def apart_main(cpp_sources, functions, with_pytorch_error_handling=True, no_implicit_headers=False):
    """main.cpp with the bindings apart: kbench_li_bind.h, the answer's C++
    (its torch/extension.h includes made empty lines: the lines keep their
    numbers, as in light_main), a kbench_li_def call per function and the
    module's entry point; (text, None), or (None, why) where the answer's
    main.cpp is compiled as it is."""
    if no_implicit_headers:
        return None, "no_implicit_headers: the answer includes its own headers"
    if not functions:
        return None, "no functions to bind: the answer's C++ has its own bindings"
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, list):
        functions = {f: f for f in functions}
    elif not isinstance(functions, dict):
        return None, "functions is neither a list nor a dict"
    cpp = "\n".join(_as_list(cpp_sources))
    if _ANY_INCLUDE.search(_EXT_LINE.sub("", kcs.mask(cpp))):
        return None, "the answer's C++ includes headers of its own"
    call = "kbench_li_def" if with_pytorch_error_handling else "kbench_li_def_raw"
    lines = ["#include <%s>" % BIND_HEADER, _EXT_LINE.sub("", cpp),
             'extern "C" KBENCH_LI_HIDDEN void kbench_li_bind(void* m) {']
    lines += ['%s(m, "%s", &%s, "%s");' % (call, name, name, doc) for name, doc in functions.items()]
    lines += ["}", "KBENCH_LI_MODULE(TORCH_EXTENSION_NAME)"]
    return "\n".join(lines), None


def module_source():
    """The module object's source: pybind11's own PYBIND11_MODULE, its
    PyInit renamed to the hidden kbench_li_pyinit, whose body binds through
    kbench_li_bind. pybind11 3 initialises in phases and names the module
    from the import's spec, so one object serves every module name; an
    earlier pybind11 named it from the definition, and the object is not
    built (the answer's main.cpp is compiled as it is)."""
    return "\n".join([
        "#include <%s>" % MAIN_HEADER,
        "#include <%s>" % BIND_HEADER,
        "#if PYBIND11_VERSION_MAJOR < 3",
        '#error "pybind11 before 3 names a module from its definition, not from the import"',
        "#endif",
        "#undef PYBIND11_PLUGIN_IMPL",
        '#define PYBIND11_PLUGIN_IMPL(name) extern "C" KBENCH_LI_HIDDEN void* kbench_li_pyinit(void)',
        "PYBIND11_MODULE(kbench_li_module, m) { kbench_li_bind(&m); }", ""])


def signature_source(signature, raw=False):
    """The object that defines kbench_li_def (or _raw) for functions of the
    C++ type `signature` (nm's spelling, `nameable`)."""
    fn = "*f" if raw else "torch::wrap_pybind_function(*f)"
    name = "kbench_li_def_raw" if raw else "kbench_li_def"
    return "\n".join([
        "#include <%s>" % MAIN_HEADER,
        "#include <%s>" % BIND_HEADER,
        "template <class F>",
        "void %s(void* m, const char* name, F* f, const char* doc) {" % name,
        "    static_cast<pybind11::module_*>(m)->def(name, %s, doc);" % fn,
        "}",
        "using kbench_li_signature = %s;" % signature,
        "template void %s<kbench_li_signature>(void*, const char*, kbench_li_signature*, const char*);" % name,
        ""])


def bound_signatures(nm_undefined):
    """[(raw, signature)] of the kbench_li_def instantiations that `nm -C -u`
    lists for main.o, in order, without repeats."""
    out = []
    for line in nm_undefined.splitlines():
        for raw, marker in ((False, "kbench_li_def<"), (True, "kbench_li_def_raw<")):
            i = line.find(marker)
            if i < 0:
                continue
            j = k = i + len(marker)
            depth = 1
            while k < len(line) and depth:
                depth += {"<": 1, ">": -1}.get(line[k], 0)
                k += 1
            if depth:
                raise ValueError("an unbalanced template argument in nm's line: %s" % line.strip())
            item = (raw, line[j:k - 1].strip())
            if item not in out:
                out.append(item)
    return out


_SIG_CHARS = re.compile(r"^[\w:<>,&*()\[\] ]+$")
_SIG_NAME = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_SIG_WORDS = frozenset(("void", "bool", "char", "signed", "unsigned", "short", "int", "long", "float", "double",
                        "const", "volatile", "wchar_t", "char8_t", "char16_t", "char32_t", "__int128", "noexcept"))
_SIG_SPACES = ("std", "at", "c10", "torch")


def nameable(signature):
    """Whether an object of kbench_li_main.h's can name the type: built-in
    types and names in std, at, c10 and torch only (not the answer's own
    types, nor lambdas or anonymous namespaces, which only main.cpp knows)."""
    if not _SIG_CHARS.match(signature):
        return False
    for m in _SIG_NAME.finditer(signature):
        n = m.group(0)
        if not (n.split("::")[0] in _SIG_SPACES if "::" in n else n in _SIG_WORDS):
            return False
    return True


def host_unit(host, nvcc_argv, full):
    """The host unit's text: its precompiled first include, the launch
    helpers, the macros the nvcc command defines for the answer, then the
    split's host text as line 1 of cuda.cu."""
    head = ["#include <%s>" % (EXTENSION_HEADER if full else HOST_HEADER), "#include <cuda.h>",
            "#include <cuda_runtime.h>", '#include "kbench_li_launch.h"']
    for a in nvcc_argv:
        if a.startswith("-D") and len(a) > 2 and not a.startswith(("-DTORCH_EXTENSION_NAME=",
                                                                  "-DTORCH_API_INCLUDE_EXTENSION_H")):
            k, eq, v = a[2:].partition("=")
            head.append("#ifndef %s\n#define %s %s\n#endif" % (k, k, v if eq else "1"))
        elif a.startswith("-U") and len(a) > 2:
            head.append("#undef %s" % a[2:])
    if not full:
        host = _EXT_LINE.sub("", host)
    return "\n".join(head) + '\n#line 1 "cuda.cu"\n' + host


def _retarget(argv, source, output):
    """A compile command of torch's for another source and object, without
    its dependency file."""
    out = without_files(argv)
    return out + [source, "-o", output] if "-c" in out else out + ["-c", source, "-o", output]


def device_argv(nvcc_argv, source, output):
    """torch's nvcc command for cuda.cu, made to compile the device unit into
    a fatbinary (the device side only: -gencode and the answer's flags kept)."""
    argv = _retarget(nvcc_argv, source, output)
    argv.remove("-c")
    return argv[:-3] + ["-fatbin"] + argv[-3:]


def _relink(link_argv, objects):
    """torch's link command with cuda.cuda.o replaced by `objects`."""
    out = []
    for a in link_argv:
        if a.endswith(".cuda.o") or a == "cuda.cuda.o":
            out += objects
        else:
            out.append(a)
    return out


# The linkers tried before the command's own, fastest first: each links the
# same library from the same objects and libraries, sooner than ld.bfd, which
# resolves against libtorch's large symbol tables slowly (the ReLU answer's
# link on an idle 2-core machine: ld.bfd 0.32-0.37 s, gold 0.19 s, lld
# 0.10 s; docs/programs.md).
FAST_LINKERS = ("lld", "gold")


# The fast linkers that failed a link torch's own command then made, with
# the first error line: a linker this machine cannot use (gold where the
# compiler's libstdc++.so is not where gold looks, as on one H100 machine:
# "cannot open .../libstdc++.so") is not tried again by this process.
BROKEN_LINKERS = {}


def with_fast_linker(link_argv, which=shutil.which, broken=None):
    """(torch's link command with the first of FAST_LINKERS the machine has,
    that linker's name), or (the command itself, None) where it has none or
    the command names a linker of its own. Linkers in `broken` (default
    BROKEN_LINKERS) are passed over."""
    broken = BROKEN_LINKERS if broken is None else broken
    if any(a.startswith("-fuse-ld=") or a.startswith("-B") for a in link_argv):
        return link_argv, None
    for name in FAST_LINKERS:
        if name not in broken and which("ld." + name):
            return [link_argv[0], "-fuse-ld=" + name] + link_argv[1:], name
    return link_argv, None


def link_with(procs, link_argv, record, which=shutil.which, broken=None):
    """Runs the link (`with_fast_linker`); where that linker fails, torch's
    own command runs, and its result is the link's (so a link error is the
    one torch's build gives). A fast linker that failed where torch's
    command succeeded goes into `broken` (default BROKEN_LINKERS). (rc,
    output, seconds); record["link_ms"] and record["linker"] say how it
    went."""
    broken = BROKEN_LINKERS if broken is None else broken
    fast, name = with_fast_linker(link_argv, which, broken)
    rc, out, secs = procs.run(fast)
    record["linker"] = name or "default"
    if name is None and broken:
        record["linker"] = "default (%s failed before)" % ", ".join(sorted(broken))
        record["linker_why"] = next(iter(broken.values()))
    if rc != 0 and name and rc != -9:
        record["linker"] = "default (%s failed)" % name
        said = [line for line in out.splitlines() if line.strip()]
        why = next((line for line in said if "error" in line.lower()), said[0] if said else "")[:300]
        record["linker_why"] = why
        rc, out, more = procs.run(link_argv)
        secs += more
        if rc == 0:
            broken[name] = why
    record["link_ms"] = round(secs * 1e3, 1)
    return rc, out, secs


# clang's precompiled header, unlike GCC's, can hold the template
# instantiations the header's own inline code asks for: a unit that includes
# torch's headers then skips performing them at its end, which is most of
# its cost (the ReLU answer's host unit on an idle 2-core machine: g++ 3.0 s
# against its .gch, clang++ 0.55 s against a .pch built with this flag, 1.96 s
# without it; docs/programs.md).
CLANG_PCH_FLAGS = ["-fpch-instantiate-templates"]
CLANG_MIN_MAJOR = 11  # the first clang with -fpch-instantiate-templates


def clang_major(version_text):
    """The major version in `clang++ --version`'s text, or None where the
    text is not clang's."""
    m = re.search(r"clang version (\d+)\.", version_text)
    return int(m.group(1)) if m else None


def host_clang(env=None, which=shutil.which, identity=None):
    """The clang++ that compiles a split build's host unit, or None (then
    torch's g++ does): $KBENCH_LOAD_INLINE_CLANG names it ("0" or "": none),
    else clang++ on the PATH; either only where its version is at least
    CLANG_MIN_MAJOR. (path or None, why not)."""
    env = os.environ if env is None else env
    given = env.get("KBENCH_LOAD_INLINE_CLANG")
    if given is not None and given.strip() in ("", "0"):
        return None, "$KBENCH_LOAD_INLINE_CLANG turns it off"
    path = which(given.strip()) if given else which("clang++")
    if not path:
        return None, ("$KBENCH_LOAD_INLINE_CLANG names %r, which is not an executable" % given if given
                      else "no clang++ on the PATH")
    major = clang_major((identity or _tool_identity)(path))
    if major is None or major < CLANG_MIN_MAJOR:
        return None, "%s is not clang %d or later" % (path, CLANG_MIN_MAJOR)
    return path, None


def clang_host_argv(host_argv, clang, pch_dir=None, header=None):
    """torch's g++ command for the host unit made clang's: the same flags
    (clang reads GCC's), against `pch_dir`/<header>.pch where given. clang
    warns, not fails, on a GCC warning option it lacks."""
    pch = ["-include-pch", os.path.join(pch_dir, header + ".pch")] if pch_dir else []
    return [clang] + pch + ["-Wno-unknown-warning-option"] + host_argv[1:]


def image_assembly(fatbin):
    """An assembler file that holds the fatbinary as kbench_li_image (hidden:
    each extension finds its own)."""
    return ('\t.section .rodata\n\t.balign 64\n\t.globl kbench_li_image\n\t.hidden kbench_li_image\n'
            '\t.type kbench_li_image, @object\nkbench_li_image:\n\t.incbin "%s"\n'
            '\t.section .note.GNU-stack,"",@progbits\n' % fatbin.replace("\\", "\\\\").replace('"', '\\"'))


# Messages that can mean a name the lighter headers lack; the name is the
# first quoted one.
_UNDECLARED = re.compile(r"was not declared|is not a member of|has not been declared|does not name a type|"
                         r"is undefined|no member named|not declared in this scope|is not a template|"
                         r"no template named|has no member")
_QUOTED = re.compile(r"""["'\u2018]([A-Za-z_][\w:]*)["'\u2019]""")


def retry_reason(output, full, torch_include):
    """Why a failed split build is left to the whole build, or None when its
    error is the answer's: an error outside the answer's files (kbench's
    units), or, with the lighter headers, a name that is undeclared there
    and that torch's headers have (the whole build would have declared it).
    A name torch's headers lack is the answer's own mistake."""
    fe = first_error(output)
    if fe is None:
        return "the split build failed without a compiler error"
    if fe[0] not in ("cuda.cu", "main.cpp"):
        return "the first error is in %s, not the answer's sources" % fe[0]
    if full or not _UNDECLARED.search(fe[2]):
        return None
    m = _QUOTED.search(fe[2].split("error", 1)[-1])
    if m is None:
        return "a name the lighter headers may lack: %s" % fe[2][:200]
    name = m.group(1).split("::")[-1] or m.group(1)
    try:
        r = subprocess.run(["grep", "-rqwF", "--", name, torch_include], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:  # no grep: the whole build decides
        return "%s, which torch's headers may declare (not searched: %s)" % (name, e)
    if r.returncode == 1:
        return None
    return "%s, which torch's headers declare and the lighter ones may not" % name


def _import_library(module_name, lib):
    import importlib.util
    _capture_library(module_name, lib)
    spec = importlib.util.spec_from_file_location(module_name, lib)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FastBuilder:
    """Builds load_inline and load calls the fast way (see the module's
    docstring); `torch` is the imported torch, `work_root` the folder the
    private build folders are made in, `cache_root` the precompiled headers'
    folder (outside the candidate's)."""

    def __init__(self, torch, work_root, cache_root, jobs=None, private_cache_root=None):
        self.torch = torch
        import torch.utils.cpp_extension as ce
        self.ce = ce
        self.work_root = work_root
        self.cache = PchCache(cache_root, os.path.join(os.path.dirname(torch.__file__), "include"),
                              private_cache_root)
        self.jobs = jobs or max(2, os.cpu_count() or 2)
        self.versions = {}  # name -> builds of that name in this process (torch's name_vN)
        self.answer_text = None  # the candidate's file, for error lines
        self._gcc = {}
        self._clang = None  # (path or None, why not), found once
        self._clang_pch_failed = {}  # clang and pch flags -> why: g++ compiles those host units

    def clang(self):
        """The clang++ of host units (`host_clang`): (path or None, why not)."""
        if self._clang is None:
            self._clang = host_clang()
        return self._clang

    def clang_pch(self, host_argv):
        """The folder of the clang precompiled kbench_li_host.h for the g++
        host command `host_argv` (built now if missing), or raises."""
        clang = self.clang()[0]
        flags = pch_flags(clang_host_argv(host_argv, clang)) + CLANG_PCH_FLAGS
        key = "\0".join([clang] + flags)
        if key in self._clang_pch_failed:
            raise BuildError(self._clang_pch_failed[key])
        try:
            return self.cache.get(clang, flags, header=HOST_HEADER, suffix=".pch")
        except BuildError as e:
            self._clang_pch_failed[key] = str(e)[:400]
            raise

    def is_gcc(self, compiler):
        """GCC's precompiled headers only (torch's use_pch makes the same
        choice)."""
        if compiler not in self._gcc:
            self._gcc[compiler] = bool(self.ce.check_compiler_is_gcc(compiler))
        return self._gcc[compiler]

    def module_name(self, name):
        n = self.versions.get(name, 0)
        self.versions[name] = n + 1
        return name if n == 0 else "%s_v%d" % (name, n)

    def warm(self, extra_cflags=(), headers=(HOST_HEADER, MAIN_HEADER, EXTENSION_HEADER)):
        """Builds the precompiled headers a CUDA load_inline with these extra
        C++ flags needs, if the cache lacks them: run by the builder process
        (or a thread when the worker starts), so the first answer finds them
        ready."""
        build_dir = tempfile.mkdtemp(prefix="load-inline-warm-", dir=self.work_root)
        try:
            sources = [os.path.join(build_dir, "main.cpp"), os.path.join(build_dir, "cuda.cu")]
            for path in sources:
                with open(path, "w") as f:
                    f.write(EXTENSION_INCLUDE + "\n")
            bound = {"name": "kbench_warm", "extra_cflags": list(extra_cflags)}
            for rule, outs, ins, argv in self.plan("kbench_warm", sources, bound, build_dir):
                if rule == "compile" and self.is_gcc(argv[0]):
                    got = self._warm_headers(argv, headers)
                    if MAIN_HEADER in headers:
                        got += self._warm_objects(argv)
                    return got
        finally:
            shutil.rmtree(build_dir, ignore_errors=True)

    def _warm_objects(self, argv):
        """The bindings' objects most answers link (the module's, and
        USUAL_SIGNATURES' with torch's error handling) for the g++ command
        `argv`, built at once against its precompiled kbench_li_main.h."""
        flags = pch_flags(argv)
        inc = self.cache.get(argv[0], flags, header=MAIN_HEADER)[0]
        sources = [module_source()] + [signature_source(sig) for sig in USUAL_SIGNATURES]
        return at_once([lambda src=src: self.cache.get_object(argv[0], flags, src, lambda: inc) for src in sources])

    def _warm_headers(self, argv, headers):
        """Each header's entry for the g++ command `argv`, built at once, one
        g++ each, and clang's kbench_li_host.h where clang compiles host
        units; joined before it returns."""
        calls = [lambda h=h: self.cache.get(argv[0], pch_flags(argv), header=h) for h in headers]
        if HOST_HEADER in headers and self.clang()[0]:
            calls.append(lambda: self._warm_clang(argv))
        return at_once(calls)

    def _warm_clang(self, argv):
        try:
            return self.clang_pch(argv)
        except BuildError as e:  # g++ compiles the host units instead
            sys.stderr.write("kbench load_inline: clang's precompiled header failed; g++ compiles host "
                             "units: %s\n" % str(e)[:400])
            return None

    def build_inline(self, bound, record):
        name = bound["name"]
        no_hdr = bool(bound.get("no_implicit_headers", False))
        main = main_cpp_text(bound.get("cpp_sources"), bound.get("functions"),
                             bound.get("with_pytorch_error_handling", True), no_hdr)
        cu = cuda_cu_text(bound.get("cuda_sources"), no_hdr)
        where = {"cuda.cu": (_as_list(bound.get("cuda_sources")), cuda_prefix_lines(no_hdr)),
                 "main.cpp": (_as_list(bound.get("cpp_sources")), 0 if no_hdr else 1)}
        lists = [v for v in (bound.get("cpp_sources"), bound.get("cuda_sources")) if isinstance(v, list)]
        saved = [list(v) for v in lists]
        mutate_like_torch(bound)
        build_dir = tempfile.mkdtemp(prefix="load-inline-%s-" % name, dir=self.work_root)
        try:
            sources = [os.path.join(build_dir, "main.cpp")]
            with open(sources[0], "w") as f:
                f.write(main)
            if cu is not None:
                sources.append(os.path.join(build_dir, "cuda.cu"))
                with open(sources[1], "w") as f:
                    f.write(cu)
            module = reason = None
            module_name = self.module_name(name)
            split = self._split(cu, bound, record) if cu is not None else None
            if split is not None:
                module = self._build_split(name, module_name, split, main, cu, bound, build_dir, record, where)
            if module is None:
                module, reason = self._build(name, sources, bound, build_dir, record, where, module_name)
            if module is None:
                for v, old in zip(lists, saved):  # torch's own build changes them itself
                    v[:] = old
            return module, reason
        finally:
            shutil.rmtree(build_dir, ignore_errors=True)

    def build_files(self, bound, record):
        build_dir = tempfile.mkdtemp(prefix="load-%s-" % bound["name"], dir=self.work_root)
        try:
            sources = [os.path.abspath(s) for s in _as_list(bound.get("sources"))]
            return self._build(bound["name"], sources, bound, build_dir, record, {})
        finally:
            shutil.rmtree(build_dir, ignore_errors=True)

    def plan(self, name, sources, bound, build_dir):
        """torch's own build file for the call, in `build_dir`, read back:
        [(rule, outputs, inputs, argv)]."""
        ce = self.ce
        with_cuda = bound.get("with_cuda")
        if with_cuda is None:
            with_cuda = any(map(ce._is_cuda_file, sources))
        verbose = bool(bound.get("verbose", False))
        ldflags = ce._prepare_ldflags(list(bound.get("extra_ldflags") or []), with_cuda, False, verbose, False)
        path = os.path.join(build_dir, "build.ninja")
        ce._write_ninja_file_to_build_library(
            path=path, name=name, sources=sources, extra_cflags=list(bound.get("extra_cflags") or []),
            extra_cuda_cflags=list(bound.get("extra_cuda_cflags") or []), extra_sycl_cflags=[],
            extra_ldflags=ldflags, extra_include_paths=list(bound.get("extra_include_paths") or []),
            with_cuda=with_cuda, with_sycl=False, is_standalone=False)
        with open(path) as f:
            text = f.read()
        return [(rule, outs, ins, _split_command(cmd)) for rule, outs, ins, cmd in ninja_commands(text)]

    def _build(self, name, sources, bound, build_dir, record, where, module_name=None):
        t0 = time.monotonic()
        module_name = module_name or self.module_name(name)
        steps = self.plan(module_name, sources, bound, build_dir)
        rules = {s[0] for s in steps}
        if not rules <= set(KNOWN_RULES):
            # Decided on torch's build file, before anything is compiled.
            return None, "torch's build file has the rules %s" % ", ".join(sorted(rules - set(KNOWN_RULES)))
        compiles = [s for s in steps if s[0] != "link"]
        links = [s for s in steps if s[0] == "link"]
        # The steps without a precompiled header start first; a header not
        # yet in the cache is built while they run.
        plain, with_pch = [], []
        for i, (rule, outs, ins, argv) in enumerate(compiles):
            first = False
            if rule == "compile" and len(ins) == 1 and ins[0].endswith(CXX_SUFFIXES):
                with open(ins[0], errors="replace") as f:
                    first = begins_with_extension_include(f.read())
            (with_pch if first and self.is_gcc(argv[0]) else plain).append((i, argv))
        record["pch"] = bool(with_pch)
        procs = Processes(build_dir, float(os.environ.get("KBENCH_LOAD_INLINE_DEADLINE_S", "900")))
        t1 = time.monotonic()
        results = {}
        done = threading.Condition()

        def job(i, rule, argv):
            try:
                if rule == "cuda_compile":
                    r = self.nvcc(procs, argv, os.path.join(build_dir, "nvcc-%d" % i), record)
                else:
                    rc, out, secs = procs.run(argv)
                    r = (argv, rc, out, secs)
            except BaseException as e:  # noqa: BLE001 (reported as the build's failure)
                r = (argv, -1, "kbench's build step failed: %s: %s" % (type(e).__name__, e), 0.0)
            with done:
                results[i] = r
                done.notify()

        threads = [threading.Thread(target=job, args=(i, compiles[i][0], argv), daemon=True) for i, argv in plain]
        for t in threads:
            t.start()
        try:
            for i, argv in with_pch:
                try:
                    inc, built_now, secs = self.cache.get(argv[0], pch_flags(argv))
                    record["pch_built"] = bool(record.get("pch_built")) or built_now
                    record["pch_ms"] = round(secs * 1e3, 1)
                    # -I directories are searched before torch's -isystem
                    # ones: GCC finds torch/extension.h.gch there first.
                    # -Winvalid-pch (a warning only) says when GCC finds the
                    # header and cannot use it.
                    argv = [argv[0], "-I", inc, "-Winvalid-pch"] + argv[1:]
                except (BuildError, OSError, subprocess.SubprocessError) as e:
                    # kbench's failure, not the answer's: the plain compile.
                    record["pch"] = False
                    record["pch_error"] = str(e)[:400]
                t = threading.Thread(target=job, args=(i, "compile", argv), daemon=True)
                t.start()
                threads.append(t)
            # The first failure stops the others: its message is the answer's.
            with done:
                while len(results) < len(compiles) and not any(r[1] != 0 for r in results.values()):
                    done.wait(1.0)
        finally:
            if len(results) < len(compiles):
                procs.stop()
            for t in threads:
                t.join()
        record["compile_ms"] = round((time.monotonic() - t1) * 1e3, 1)
        ordered = [results[i] for i in sorted(results)]
        if record["pch"] and any("-Winvalid-pch" in r[0] and "[-Winvalid-pch]" in r[2] for r in ordered):
            record["pch_rejected"] = True  # GCC compiled the header itself: the same object, slower
        record["steps"] = [{"tool": os.path.basename(r[0][0]), "ms": round(r[3] * 1e3, 1)} for r in ordered]
        failed = [r for r in ordered if r[1] != 0 and r[1] != -9] or [r for r in ordered if r[1] != 0]
        if failed:
            raise self._error(name, failed[:1], where, procs.timed_out)
        for rule, outs, ins, argv in links:
            rc, out, secs = link_with(procs, argv, record)
            if rc != 0:
                raise self._error(name, [(argv, rc, out, secs)], where, procs.timed_out)
        module = _import_library(module_name, os.path.join(build_dir, module_name + ".so"))
        record["ms"] = round((time.monotonic() - t0) * 1e3, 1)
        return module, None

    def _split(self, cu, bound, record):
        """The split of cuda.cu (kbench_cuda_split), or None where the answer
        builds without it: record["split_why"] says why."""
        if os.environ.get("KBENCH_LOAD_INLINE_SPLIT", "1") == "0":
            record["split_why"] = "KBENCH_LOAD_INLINE_SPLIT=0"
            return None
        try:
            return kcs.split(cu)
        except kcs.Unsupported as e:
            record["split_why"] = str(e)
            return None
        except (ValueError, IndexError, RecursionError) as e:  # kbench's reading failed: say so, build whole
            record["split_why"] = "the source could not be read (%s: %s)" % (type(e).__name__, e)
            return None

    def _build_split(self, name, module_name, sp, main, cu, bound, build_dir, record, where):
        """Builds the module from the split units (kbench_cuda_split): g++ on
        main.cpp and on the host unit against precompiled headers, nvcc on the
        device unit, at once; the device unit's fatbinary assembled into an
        object; torch's link. Returns the module; None where the answer is
        left to the build that compiles cuda.cu whole (record["split_retry"]
        says why: a name the lighter headers may lack, or an error outside
        the answer's files); raises BuildError for the answer's compile
        error."""
        t0 = time.monotonic()
        work = os.path.join(build_dir, "split")
        os.makedirs(work)
        paths = {k: os.path.join(work, k) for k in ("main.cpp", "cuda.cu", "host.cpp", "device.cu")}
        steps = self.plan(module_name, [paths["main.cpp"], paths["cuda.cu"]], bound, work)
        rules = [st[0] for st in steps]
        if sorted(rules) != ["compile", "cuda_compile", "link"]:
            record["split_why"] = "torch's build file has the steps %s" % ", ".join(rules)
            return None
        by_rule = {st[0]: st for st in steps}
        compile_argv, nvcc_argv, link_argv = (by_rule[r][3] for r in ("compile", "cuda_compile", "link"))
        if not self.is_gcc(compile_argv[0]):
            record["split_why"] = "the host compiler is not GCC (no precompiled headers)"
            return None
        full = needs_full_headers(bound)
        record["split"] = True
        record["headers"] = "full" if full else "light"
        with open(paths["main.cpp"], "w") as f:
            f.write(main if full else light_main(main))
        with open(paths["host.cpp"], "w") as f:
            f.write(host_unit(sp.host, nvcc_argv, full))
        with open(paths["device.cu"], "w") as f:
            f.write(sp.device)
        main_argv = _retarget(compile_argv, paths["main.cpp"], "main.o")
        host_argv = _retarget(compile_argv, paths["host.cpp"], "host.o")
        dev_argv = device_argv(nvcc_argv, paths["device.cu"], "device.fatbin")
        procs = Processes(work, float(os.environ.get("KBENCH_LOAD_INLINE_DEADLINE_S", "900")))
        results = {}
        extra_objects = []  # the bindings' objects, where main.cpp has them apart
        done = threading.Condition()

        def finish(key, r):
            with done:
                results[key] = r
                done.notify()

        def run_with(key, argv, header):
            try:
                inc, built_now, secs = self.cache.get(argv[0], pch_flags(argv), header=header)
                record["pch_built"] = bool(record.get("pch_built")) or built_now
                record.setdefault("pch_ms", {})[key] = round(secs * 1e3, 1)
                argv = [argv[0], "-I", inc, "-I", NATIVE, "-Winvalid-pch"] + argv[1:]
            except (BuildError, OSError, subprocess.SubprocessError) as e:
                record["pch_error"] = str(e)[:400]  # kbench's failure: the plain compile
                argv = [argv[0], "-I", NATIVE] + argv[1:]
            rc, out, secs = procs.run(argv)
            return argv, rc, out, secs

        def compile_with(key, argv, header):
            finish(key, run_with(key, argv, header))

        def host_unit_job():
            # clang++ against its precompiled header where the machine has
            # it; where clang fails for any reason, torch's g++ compiles the
            # unit and its result stands (so a compile error is g++'s, and
            # an answer g++ takes is never refused for clang's sake).
            clang, why = (None, "the whole headers") if full else self.clang()
            if clang:
                try:
                    inc, _, secs = self.clang_pch(host_argv)
                    record.setdefault("pch_ms", {})["host_clang"] = round(secs * 1e3, 1)
                    argv = clang_host_argv(host_argv, clang, inc, HOST_HEADER)
                    argv = argv[:1] + ["-I", NATIVE] + argv[1:]
                    rc, out, secs = procs.run(argv)
                    if rc == 0 or rc == -9:
                        record["host_compiler"] = "clang"
                        return finish("host", (argv, rc, out, secs))
                    fe = first_error(out)
                    why = "clang failed: " + (fe[2] if fe else out.strip()[-300:])
                except (BuildError, OSError, subprocess.SubprocessError) as e:
                    why = "clang's precompiled header: %s" % str(e)[:300]
            record["host_compiler"] = "g++"
            record["host_compiler_why"] = why
            compile_with("host", host_argv, EXTENSION_HEADER if full else HOST_HEADER)

        def main_unit():
            if full:
                return compile_with("main", main_argv, EXTENSION_HEADER)
            t = time.monotonic()
            objects, why = self._bindings_apart(procs, bound, paths["main.cpp"], main_argv, record)
            if objects is None:
                record["bindings"] = {"apart": False, "why": why}
                with open(paths["main.cpp"], "w") as f:
                    f.write(light_main(main))
                return compile_with("main", main_argv, MAIN_HEADER)
            extra_objects[:] = objects
            finish("main", (main_argv, 0, "", time.monotonic() - t))

        def device():
            if sp.dependent:
                # Template kernels launched with a dispatch's types: the
                # host object names the instantiations the device needs.
                with done:
                    while "host" not in results:
                        done.wait(1.0)
                if results["host"][1] != 0:
                    return
                rc, out, _ = procs.run(["nm", "-C", "--defined-only", "host.o"])
                try:
                    uses = kcs.instantiations_from_symbols(out, sp.kernels) if rc == 0 else None
                except kcs.Unsupported as e:
                    record["split_retry"] = str(e)
                    uses = None
                if uses is None:
                    finish("device", (["nm"], -2, out, 0.0))
                    return
                with open(paths["device.cu"], "w") as f:
                    f.write(sp.device + kcs.instantiations([u for u in uses if u not in sp.uses]))
            rc, out, secs = procs.run(dev_argv)
            finish("device", (dev_argv, rc, out, secs))

        def guarded(key, job, *args):
            # kbench's own failure (a tool missing, say) ends the step, not
            # the build's wait: the split build then leaves the answer to
            # the whole build (retry_reason: no compiler error).
            try:
                job(*args)
            except BaseException as e:  # noqa: BLE001
                finish(key, ([key], -1, "kbench's build step failed: %s: %s" % (type(e).__name__, e), 0.0))

        jobs = [threading.Thread(target=guarded, args=("host", host_unit_job), daemon=True),
                threading.Thread(target=guarded, args=("device", device), daemon=True),
                threading.Thread(target=guarded, args=("main", main_unit), daemon=True)]
        for t in jobs:
            t.start()
        try:
            with done:
                while len(results) < 3 and not any(r[1] != 0 for r in results.values()):
                    done.wait(1.0)
        finally:
            if len(results) < 3:
                procs.stop()
            for t in jobs:
                t.join()
        record["compile_ms"] = round((time.monotonic() - t0) * 1e3, 1)
        record["steps"] = [{"tool": os.path.basename(r[0][0]), "unit": k, "ms": round(r[3] * 1e3, 1)}
                           for k, r in sorted(results.items())]
        failed = [r for k, r in sorted(results.items()) if r[1] not in (0, -9)]
        if any(r[1] == -2 for r in failed):
            record.setdefault("split_retry", "the host object's template instantiations could not be read")
            return None
        if failed:
            why = retry_reason(failed[0][2], full, self.cache.torch_include)
            if why:
                record["split_retry"] = why
                return None
            raise self._error(name, failed[:1], where, procs.timed_out)
        if len(results) < 3:
            raise self._error(name, [(["build"], -9, "stopped", 0.0)], where, procs.timed_out)
        with open(os.path.join(work, "image.S"), "w") as f:
            f.write(image_assembly(os.path.join(work, "device.fatbin")))
        rc, out, secs = procs.run([compile_argv[0], "-c", "image.S", "-o", "image.o"])
        if rc != 0:
            raise BuildError("kbench's error, not the answer's: assembling the device image failed:\n" + out)
        link = _relink(link_argv, ["host.o", "image.o"] + extra_objects)
        rc, out, secs = link_with(procs, link, record)
        if rc != 0:
            raise self._error(name, [(link, rc, out, secs)], where, procs.timed_out)
        module = _import_library(module_name, os.path.join(work, module_name + ".so"))
        record["ms"] = round((time.monotonic() - t0) * 1e3, 1)
        return module

    def _bindings_apart(self, procs, bound, path, main_argv, record):
        """Compiles main.cpp with the bindings apart (`apart_main`) into
        main.o and finds the module's and each signature's object in the
        cache (built there where missing); (objects, None), or (None, why)
        where main.cpp is to be compiled as torch writes it: the answer's
        C++ needs more than kbench_li_bind.h declares (its error, if it is
        one, then comes from torch's main.cpp), or a type only main.cpp can
        name, or an object could not be built."""
        if os.environ.get("KBENCH_LOAD_INLINE_BINDINGS_APART", "1") == "0":
            return None, "KBENCH_LOAD_INLINE_BINDINGS_APART=0"
        text, why = apart_main(bound.get("cpp_sources"), bound.get("functions"),
                               bound.get("with_pytorch_error_handling", True),
                               bool(bound.get("no_implicit_headers", False)))
        if text is None:
            return None, why
        with open(path, "w") as f:
            f.write(text)
        argv = [main_argv[0], "-I", NATIVE] + main_argv[1:]
        rc, out, secs = procs.run(argv)
        info = record["bindings"] = {"apart": True, "main_ms": round(secs * 1e3, 1)}
        if rc != 0:
            return None, "the answer's C++ needs more than kbench_li_bind.h declares"
        rc, out, _ = procs.run(["nm", "-C", "-u", main_argv[main_argv.index("-o") + 1]])
        try:
            sigs = bound_signatures(out) if rc == 0 else None
        except ValueError as e:
            return None, str(e)
        if not sigs:
            return None, "nm found no bound signature in main.o"
        odd = [sig for _, sig in sigs if not nameable(sig)]
        if odd:
            return None, "a signature names what only main.cpp knows: %s" % odd[0][:200]
        flags = pch_flags(main_argv)
        t = time.monotonic()
        pch, pch_lock = [], threading.Lock()

        def pch_include():  # the precompiled kbench_li_main.h, where an object is built
            with pch_lock:
                if not pch:
                    pch.append(self.cache.get(main_argv[0], flags, header=MAIN_HEADER)[0])
            return pch[0]
        try:
            sources = [module_source()] + [signature_source(sig, raw) for raw, sig in sigs]
            # In the build's processes: a stop (another unit's error, the
            # deadline) ends a missing object's compile too.
            got = at_once([lambda src=src: self.cache.get_object(main_argv[0], flags, src, pch_include,
                                                                 run=procs.run) for src in sources])
        except (BuildError, OSError, subprocess.SubprocessError) as e:
            return None, "the bindings' objects were not built: %s" % str(e)[:300]
        info.update({"signatures": [sig for _, sig in sigs], "objects_built": sum(1 for g in got if g[1]),
                     "objects_ms": round((time.monotonic() - t) * 1e3, 1)})
        return [g[0] for g in got], None

    def nvcc(self, procs, argv, keep_dir, record):
        return nvcc_compile(procs, argv, keep_dir, record)

    def _error(self, name, failed, where, timed_out=False):
        outputs = "\n".join("%s\n%s" % (shlex.join(argv), out) for argv, rc, out, _ in failed)
        head = ""
        if timed_out:
            head = "the build ran past its deadline (KBENCH_LOAD_INLINE_DEADLINE_S) and was stopped"
        for argv, rc, out, _ in failed:
            fe = first_error(out)
            if fe is None or head:
                continue
            head = fe[2]
            srcs, prefix = where.get(fe[0], ([], 0))
            line = fe[1] - prefix
            if srcs and line >= 1:
                al = answer_line(self.answer_text, "\n".join(srcs), line)
                if al is not None:
                    head += " (the answer's line %d)" % al
            break
        return BuildError("Error building extension '%s': %s\n%s" % (name, head or "the build failed", outputs))


# ---------------------------------------------------------------------------
# Installing the fast build in place of torch's functions

_BUILDS = []

# Builds ahead of the lanes (docs/programs.md, "Builds ahead of the GPU"). A
# builder worker, which has no device, imports the candidate while
# `capture` is on: each load_inline call's module is built as usual and a
# copy of its library kept under the call's key. The candidate worker that
# later loads the same candidate gets those libraries (`use_prebuilt`): a
# call whose key it finds imports the library the builder made, or raises
# the builder's compile error, instead of building.
_CAPTURE = {"folder": None, "modules": [], "failed": []}
_CALL = threading.local()  # the key of the load_inline call being built on this thread
_PREBUILT = {}  # key -> {"module", "path", "record"} or {"error"}


def call_key(kind, bound):
    """The digest of a load_inline call's arguments (as bound by name, before
    torch's changes to the source lists), or None: a `load` call (its sources
    are files, which the two processes write apart) or an argument that is
    not plain data."""
    if kind != "load_inline":
        return None
    import json
    try:
        text = json.dumps({k: bound[k] for k in sorted(bound)}, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def capture(folder):
    """Starts keeping a copy of every library a load_inline call builds, in
    `folder` (the builder worker)."""
    _CAPTURE.update({"folder": folder, "modules": [], "failed": []})


def captured():
    """How many calls the capture under way has kept so far: libraries and
    compile errors."""
    return len(_CAPTURE["modules"]) + len(_CAPTURE["failed"])


def end_capture():
    """Stops capture: ({"key", "module", "file", "record"} per library built,
    {"key", "error"} per call whose build failed)."""
    out = (_CAPTURE["modules"], _CAPTURE["failed"])
    _CAPTURE.update({"folder": None, "modules": [], "failed": []})
    return out


def _capture_library(module_name, lib):
    key = getattr(_CALL, "key", None)
    if _CAPTURE["folder"] is None or key is None:
        return
    dest = os.path.join(_CAPTURE["folder"], "%s.so" % key)
    shutil.copyfile(lib, dest)
    _CAPTURE["modules"].append({"key": key, "module": module_name, "file": dest})


def use_prebuilt(entries):
    """The libraries a builder made for the candidate about to load:
    [{"key", "module", "path", "record"} or {"key", "error"}]; [] for none."""
    _PREBUILT.clear()
    for e in entries or []:
        if isinstance(e, dict) and isinstance(e.get("key"), str):
            _PREBUILT[e["key"]] = e


def builds_since(mark):
    """The builds recorded after `mark` (a len(...) taken earlier)."""
    return list(_BUILDS[mark:])


def mark():
    return len(_BUILDS)


def install(torch, work_root, cache_root, answer_text_of=None, warm=False, private_cache_root=None):
    """Replaces torch.utils.cpp_extension.load_inline and load (the module's
    attributes: an answer's `from torch.utils.cpp_extension import
    load_inline` after this gets the fast one) by functions that build the
    fast way or hand the call to torch's own. `answer_text_of()` gives the
    candidate's file text, for error lines. `warm` builds the usual
    precompiled header in a thread now. Returns the FastBuilder."""
    import torch.utils.cpp_extension as ce
    if getattr(ce.load_inline, "__kbench_fast__", False):
        return ce.load_inline.__kbench_builder__
    builder = FastBuilder(torch, work_root, cache_root, private_cache_root=private_cache_root)
    # torch's own functions, looked up here at each call.
    builder.torch_functions = {"load_inline": ce.load_inline, "load": ce.load}
    hip = bool(getattr(torch.version, "hip", None))
    off = os.environ.get("KBENCH_LOAD_INLINE", "") == "torch"

    def run(kind, args, kwargs):
        reason = "KBENCH_LOAD_INLINE=torch" if off else fallback_reason(kind, args, kwargs, hip)
        names = LOAD_INLINE_ARGS if kind == "load_inline" else LOAD_ARGS
        bound = dict(zip(names, args))
        bound.update(kwargs)
        record = {"function": kind, "name": bound.get("name")}
        _BUILDS.append(record)
        t0 = time.monotonic()
        key = call_key(kind, bound) if reason is None else None
        if key is not None and key in _PREBUILT:
            return prebuilt(_PREBUILT[key], bound, record, t0)
        if reason is None:
            builder.answer_text = answer_text_of() if answer_text_of else None
            record["build"] = "fast"
            _CALL.key = key
            try:
                if kind == "load_inline":
                    module, reason = builder.build_inline(bound, record)
                else:
                    module, reason = builder.build_files(bound, record)
            except BuildError as e:
                if key is not None and _CAPTURE["folder"] is not None:
                    _CAPTURE["failed"].append({"key": key, "error": str(e)})
                raise
            finally:
                _CALL.key = None
            if reason is None:
                if key is not None and _CAPTURE["modules"] and _CAPTURE["modules"][-1]["key"] == key:
                    _CAPTURE["modules"][-1]["record"] = dict(record)
                return module
        if _CAPTURE["folder"] is not None:
            # The builder leaves torch's own builds to the candidate worker:
            # they take a minute, and the worker's would be the same build.
            record["build"] = "torch"
            record["why"] = reason
            raise PrebuildStopped("torch's own build (%s) is left to the candidate worker" % reason)
        record["build"] = "torch"
        record["why"] = reason
        try:
            return builder.torch_functions[kind](*args, **kwargs)
        finally:
            record["ms"] = round((time.monotonic() - t0) * 1e3, 1)

    def prebuilt(entry, bound, record, t0):
        record["build"] = "fast"
        record["prebuilt"] = True
        mutate_like_torch(bound)  # what torch's load_inline does to the caller's lists
        if "error" in entry:
            record["ms"] = round((time.monotonic() - t0) * 1e3, 1)
            raise BuildError(entry["error"])
        module = _import_library(entry["module"], entry["path"])
        for k, v in (entry.get("record") or {}).items():
            if k not in ("function", "name", "build", "ms"):
                record[k] = v
        record["built_ms"] = (entry.get("record") or {}).get("ms")
        record["ms"] = round((time.monotonic() - t0) * 1e3, 1)
        return module

    def load_inline(*args, **kwargs):
        return run("load_inline", args, kwargs)

    def load(*args, **kwargs):
        return run("load", args, kwargs)

    for f, orig in ((load_inline, builder.torch_functions["load_inline"]), (load, builder.torch_functions["load"])):
        f.__doc__ = orig.__doc__
        f.__wrapped__ = orig
        f.__kbench_fast__ = True
        f.__kbench_builder__ = builder
    ce.load_inline = load_inline
    ce.load = load
    if warm and not off:
        threading.Thread(target=warm_usual, args=(builder,), name="kbench-pch-warm", daemon=True).start()
    return builder


def at_once(calls):
    """The results of `calls`, each run in a thread of its own, all joined
    before it returns (no thread of kbench's outlives it); the first
    exception raised is raised here."""
    out, errors = [None] * len(calls), []

    def one(i):
        try:
            out[i] = calls[i]()
        except Exception as e:  # noqa: BLE001 (raised below, in the caller's thread)
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i,), name="kbench-load-inline-%d" % i, daemon=True)
               for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return out


def warm_usual(builder):
    """Builds the precompiled headers most answers need, if the cache lacks
    them: no extra C++ flags, and -O3 (most KernelBench answers pass one or
    the other), for the split build's two first includes and
    torch/extension.h, then the bindings' usual objects for each. Returns
    whether all are there."""
    try:
        # The six headers at once (about 1.5 GB of memory each), then nine
        # objects a set of flags.
        at_once([lambda x=x: builder.warm(x) for x in ([], ["-O3"])])
        return True
    except Exception as e:
        sys.stderr.write("kbench load_inline: the precompiled header was not built ahead: %s\n" % e)
        return False


def default_cache_root():
    """$KBENCH_LOAD_INLINE_CACHE, else ~/.cache/kbench/load-inline (outside
    every worker's folder)."""
    v = os.environ.get("KBENCH_LOAD_INLINE_CACHE")
    if v:
        return v
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kbench", "load-inline")


if __name__ == "__main__":  # a quick look at the sources torch would write
    print(main_cpp_text(sys.argv[1:] or ["int f();"], ["f"]))
