"""Splits the CUDA source of a load_inline answer (cuda.cu as torch writes it)
into two translation units that build without compiling torch's headers with
nvcc (docs/programs.md, "CUDA answers: the split build"):

* the device unit: the kernels, the device functions and variables, the
  types, macros and includes they can use, and no torch header; nvcc makes a
  fatbinary of it in well under a second;
* the host unit: the answer's host code, each kernel replaced by a host
  function of the same name and signature (its "stub"), each launch
  `k<<<grid, block, shared, stream>>>(args)` by
  `::kbench_li::launch(&k, ::kbench_li::Launch(grid, block, shared, stream), args)`;
  g++ compiles it against a precompiled header of torch's.

At run time `kbench_li::launch` finds the kernel by its stub's symbol name:
the stub and the kernel have the same name, template arguments and parameter
types, so the same mangled name, which is how nvcc's own runtime registration
pairs them. The arguments convert to the kernel's parameter types as at a
`<<<...>>>` launch, and `cudaLaunchKernel` records a failed launch where
`cudaGetLastError` sees it, as `<<<...>>>` does.

What this cannot take raises `Unsupported` with the construct, decided on
the source before anything is built: the answer then builds the usual way.

The source's line numbers are kept in both units (removed text becomes empty
lines; `#line 1 "cuda.cu"` comes before it), so a compiler's message names
the line of cuda.cu that torch's own build would name.

No torch here: the CPU tests use it as it is.
"""

import re

# Headers that only the host unit may include: torch's, ATen's, c10's,
# pybind11's and Python's.
HOST_HEADER = re.compile(r"#\s*include\s*[<\"](torch|ATen|c10|caffe2|pybind11|Python\.h|THC)")
INCLUDE = re.compile(r"#\s*include\b")

# Device code that names torch loses it in the device unit.
TORCH_NAMES = re.compile(r"\b(torch|at|c10|caffe2|py|pybind11)\s*::|\b(TORCH|AT|C10)_[A-Z0-9_]+\b")

# Qualifiers of a declaration, as written.
GLOBAL = re.compile(r"\b__global__\b")
DEVICE = re.compile(r"\b__device__\b")
HOST = re.compile(r"\b__host__\b")
DEVICE_VARS = re.compile(r"\b(__constant__|__shared__|__device__|__managed__)\b")

IDENT = re.compile(r"[A-Za-z_]\w*")

# Template arguments a launch may spell that the device unit can instantiate
# as they stand: literals, built-in and CUDA vector types, arithmetic.
LITERAL_TEMPLATE_ARG = re.compile(
    r"^(\s|[-+*/%()<>=!&|^~?:,.]|\d[\w.']*|true|false|void|bool|char|short|int|long|unsigned|signed|float|"
    r"double|size_t|u?int(8|16|32|64)_t|__half2?|__nv_bfloat162?|half2?|(u?char|u?short|u?int|u?long|"
    r"u?longlong|float|double)[1-4]|sizeof)*$")

# What the device unit includes instead of torch/types.h: the CUDA headers
# and the standard ones torch's headers bring into cuda.cu.
DEVICE_PRELUDE = """#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cfloat>
#include <climits>
#include <limits>
#include <algorithm>
#include <type_traits>
#include <utility>
"""


class Unsupported(Exception):
    """A construct the split build does not take; str() says which."""


def mask(text, literals=True):
    """`text` with comments and the insides of string and character literals
    (with literals=False: comments only) replaced by spaces (newlines kept),
    so braces and names can be scanned for without reading literals; same
    length."""
    out = list(text)
    i, n = 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            blank(i, j)
            i = j
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            if literals:
                blank(i + 2, end - 1)
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if literals:
                blank(i + 1, min(j, n))
            i = j + 1
        else:
            i += 1
    return "".join(out)


def _matching(m, i, open_c, close_c):
    """Index of the bracket closing the one at `i` in masked text `m`."""
    depth = 0
    for j in range(i, len(m)):
        if m[j] == open_c:
            depth += 1
        elif m[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    raise Unsupported("an unbalanced %r" % open_c)


class Item:
    """A top-level piece of the source: a preprocessor line ("pp"), a
    declaration ending in ';' ("decl"), a function definition ("func"), or
    the opening or closing of a namespace or extern "C" block ("open",
    "close"). `start`/`end` index the source; `ns` is the enclosing
    namespaces."""

    def __init__(self, kind, start, end, ns, head_end=None):
        self.kind, self.start, self.end, self.ns, self.head_end = kind, start, end, tuple(ns), head_end
        self.where = "both"  # both | host | device | kernel
        self.name = None


def items(text, m):
    """The top-level items of `text` (masked as `m`)."""
    out = []
    ns = []  # names of the open blocks ("" for anonymous, None for extern "C")
    i, n = 0, len(text)
    while i < n:
        c = m[i]
        if c.isspace() or c == ";":
            i += 1
            continue
        if c == "#":
            j = i
            while j < n and m[j] != "\n":
                j += 2 if m[j] == "\\" and j + 1 < n and m[j + 1] == "\n" else 1
            out.append(Item("pp", i, j, ns))
            i = j
            continue
        if c == "}":
            if not ns:
                raise Unsupported("a '}' closing nothing at line %d" % (text.count("\n", 0, i) + 1))
            out.append(Item("close", i, i + 1, ns))
            ns.pop()
            i += 1
            continue
        # A declaration or definition: up to ';' or a body at depth 0.
        j = i
        paren = 0
        while j < n:
            d = m[j]
            if d in "([":
                paren += 1
            elif d in ")]":
                paren -= 1
            elif d == ";" and paren == 0:
                out.append(Item("decl", i, j + 1, ns))
                j += 1
                break
            elif d == "#" and (j == 0 or m[text.rfind("\n", 0, j) + 1:j].strip() == ""):
                raise Unsupported("a preprocessor line inside a declaration at line %d" %
                                  (text.count("\n", 0, j) + 1))
            elif d == "{" and paren == 0:
                head = m[i:j]
                block = re.match(r"^\s*(inline\s+)?namespace\b\s*([A-Za-z_][\w:]*)?\s*$", head)
                if block:
                    out.append(Item("open", i, j + 1, ns))
                    ns.append(block.group(2) or "")
                    j += 1
                    break
                if re.match(r'^\s*extern\s*"\s*"\s*$', head) and text[i:j].split('"')[1] in ("C", "C++"):
                    out.append(Item("open", i, j + 1, ns))
                    ns.append(None)
                    j += 1
                    break
                close = _matching(m, j, "{", "}")
                is_type = re.match(r"^\s*(template\s*<.*>\s*)?(typedef\s+)?(struct|class|union|enum)\b", head, re.S)
                if "(" in head and not is_type and "=" not in _outside_parens(head):
                    out.append(Item("func", i, close + 1, ns, head_end=j))
                    j = close + 1
                    break
                j = close  # a type's body or an initialiser: on to its ';'
            j += 1
        else:
            out.append(Item("decl", i, n, ns))
        i = j
    if ns:
        raise Unsupported("a namespace or extern block left open")
    return out


def _outside_parens(s):
    out, depth = [], 0
    for c in s:
        if c in "([<":
            depth += c != "<"
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def _strip_template(head):
    """(head less a leading `template <...>`, the template header or "")."""
    t = re.match(r"^\s*template\s*<", head)
    if not t:
        return head, ""
    depth = 0
    for j in range(t.end() - 1, len(head)):
        if head[j] == "<":
            depth += 1
        elif head[j] == ">":
            depth -= 1
            if depth == 0:
                return head[j + 1:], head[:j + 1]
    raise Unsupported("a template header that does not close")


def _function_name(head):
    """(name, index of its '(' in head, index of the name) of the function a head declares: the
    identifier before the parameter list's '(' (the last top-level '(' not
    part of __launch_bounds__ or an attribute)."""
    depth = 0
    cand = None
    for j, c in enumerate(head):
        if c == "(":
            if depth == 0:
                before = head[:j].rstrip()
                mm = re.search(r"([A-Za-z_]\w*)$", before)
                if mm and mm.group(1) not in ("__launch_bounds__", "__attribute__", "__declspec", "alignas",
                                              "__align__", "decltype", "__maxnreg__", "__cluster_dims__"):
                    cand = (mm.group(1), j, mm.start(1))
            depth += 1
        elif c == ")":
            depth -= 1
    if cand is None:
        raise Unsupported("a function whose name cannot be read: %s" % " ".join(head.split())[:120])
    return cand


def parameters(head, open_paren):
    """The parameter list text of a function head (between its parentheses)."""
    close = _matching(head, open_paren, "(", ")")
    return head[open_paren + 1:close], close


def split_parameters(params):
    """A parameter list's parameters (none for `void`)."""
    out = [p for p in _split_top(params, ",") if p.strip()]
    if len(out) == 1 and out[0].strip() == "void":
        return []
    return out


class Kernel:
    def __init__(self, name, qualified, template, stub):
        self.name, self.qualified, self.template, self.stub = name, qualified, template, stub


class Split:
    """The two units and what the build needs to know about them.

    device: the device unit's text; host: the host unit's text (after its
    preamble); kernels: {qualified name: Kernel}; uses: template-ids the
    device unit instantiates (e.g. "k<256>"); dependent: template kernels
    launched with arguments only the host compile knows (a dispatch's
    `scalar_t`): the build instantiates those from the host object's
    symbols (`instantiations_from_symbols`)."""

    def __init__(self):
        self.device = ""
        self.host = ""
        self.kernels = {}
        self.uses = []
        self.dependent = []


def _qualified(ns, name):
    parts = [p for p in ns if p]
    return "::".join(parts + [name])


def _check_ns(ns, what):
    if "" in ns:
        raise Unsupported("%s in an anonymous namespace" % what)


def split(text):
    """Splits cuda.cu's `text`; raises Unsupported."""
    m = mask(text)
    plain = mask(text, literals=False)  # the text less its comments
    its = items(text, m)
    s = Split()
    host = list(text)
    device = list(text)
    device_vars = set()
    edits = []  # (start, end, replacement) on the host text

    def drop(buf, it):
        for k in range(it.start, it.end):
            if buf[k] != "\n":
                buf[k] = " "

    for it in its:
        seg = m[it.start:it.end]
        if it.kind == "pp":
            if HOST_HEADER.match(seg.strip()) or (INCLUDE.match(seg.strip()) and
                                                  HOST_HEADER.match(text[it.start:it.end].strip())):
                it.where = "host"
                drop(device, it)
            continue
        if it.kind in ("open", "close"):
            continue
        if it.kind == "func":
            head_m = m[it.start:it.head_end]
            rest, template = _strip_template(head_m)
            name, paren, at = _function_name(rest)
            if GLOBAL.search(rest[:paren]):
                _check_ns(it.ns, "the kernel %s" % name)
                it.where = "kernel"
                it.name = name
                q = _qualified(it.ns, name)
                sig_end = it.head_end
                stub = _stub(plain, m, it, template, rest, name, paren, at)
                old = s.kernels.get(q)
                if old is not None and old.stub[1] != stub[1]:
                    raise Unsupported("the kernel %s is overloaded" % q)
                s.kernels[q] = Kernel(name, q, bool(template), stub)
                edits.append((it.start, it.end, stub[0]))
                _device_static(device, m, it, sig_end)
                if TORCH_NAMES.search(seg):
                    raise Unsupported("the kernel %s uses torch's names (%s)" % (q, TORCH_NAMES.search(seg).group(0)))
                continue
            quals = rest[:paren]
            if DEVICE.search(quals) and not HOST.search(quals):
                it.where = "device"
                drop(host, it)
                if TORCH_NAMES.search(seg):
                    raise Unsupported("the device function %s uses torch's names (%s)" %
                                      (name, TORCH_NAMES.search(seg).group(0)))
            elif HOST.search(quals) or re.search(r"\bconstexpr\b", quals):
                if TORCH_NAMES.search(seg):
                    it.where = "host"
                    drop(device, it)
            else:
                it.where = "host"
                drop(device, it)
            continue
        # A declaration.
        if GLOBAL.search(seg):
            rest, template = _strip_template(seg)
            name, paren, at = _function_name(rest)
            _check_ns(it.ns, "the kernel %s" % name)
            q = _qualified(it.ns, name)
            it.where = "kernel"
            it.name = name
            if re.match(r"^\s*(typedef|using)\b", rest):
                raise Unsupported("a typedef of a kernel type")
            stub = _stub(plain, m, it, template, rest, name, paren, at, declaration=True)
            old = s.kernels.get(q)
            if old is not None and old.stub[1] != stub[1]:
                raise Unsupported("the kernel %s is overloaded" % q)
            if old is None:
                s.kernels[q] = Kernel(name, q, bool(template), stub)
            edits.append((it.start, it.end, stub[0]))
            _device_static(device, m, it, it.end)
            continue
        if DEVICE_VARS.search(seg) and not HOST.search(seg):
            if re.search(r"\b__managed__\b", seg):
                raise Unsupported("a __managed__ variable")
            if re.search(r"\b(struct|class|union)\b[^;{]*\{", seg):
                raise Unsupported("a struct or class with device members")
            it.where = "device"
            drop(host, it)
            if "(" not in _outside_parens(seg.split("=")[0]) or "=" in seg.split("(")[0]:
                for v in _declared_names(seg):
                    device_vars.add(v)
            continue
        if re.search(r"\b(struct|class|union)\b", seg) and (DEVICE.search(seg) or GLOBAL.search(seg)):
            raise Unsupported("a struct or class with device members")
        if TORCH_NAMES.search(seg) or re.search(r"\bTensor\b", seg):
            it.where = "host"
            drop(device, it)

    # Host code: no device variable by name, every kernel only launched.
    n = len(text)
    gone = bytearray(n)
    for k in range(n):
        if host[k] == " " and text[k] != " ":
            gone[k] = 1
    for a, b, _ in edits:
        for k in range(a, b):
            gone[k] = 1
    hm = "".join(" " if gone[k] and m[k] != "\n" else m[k] for k in range(n))
    for v in sorted(device_vars):
        mm = re.search(r"\b%s\b" % re.escape(v), hm)
        if mm:
            raise Unsupported("host code uses the device variable %s (line %d)" %
                              (v, text.count("\n", 0, mm.start()) + 1))
    launches, s.uses, s.dependent = _launches(plain, hm, s.kernels)
    edits += launches
    for a, b, _ in edits:
        for k in range(a, b):
            if host[k] != "\n":
                host[k] = " "
    s.host = _apply(host, [(a, a, r) for a, b, r in edits])
    s.device = DEVICE_PRELUDE + '#line 1 "cuda.cu"\n' + "".join(device) + instantiations(s.uses)
    return s


def instantiations(uses):
    """Device-unit text that instantiates the template-ids `uses` (taking a
    kernel's address makes nvcc compile it)."""
    if not uses:
        return ""
    return "\n// The template kernels the host code launches.\n" + "".join(
        "void* kbench_li_use_%d = (void*)&%s;\n" % (k, u) for k, u in enumerate(uses))


def _declared_names(seg):
    """The variables a device variable declaration declares."""
    body = seg.strip().rstrip(";")
    out = []
    for part in _split_top(body, ","):
        left = part.split("=")[0]
        left = re.sub(r"\[.*?\]", "", left)
        idents = IDENT.findall(left)
        if idents:
            out.append(idents[-1])
    return out


def _split_top(s, sep):
    """`s` split at each `sep` outside brackets (angle brackets counted as
    brackets: a parameter's template arguments)."""
    out, depth, cur = [], 0, []
    for c in s:
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


def _apply(buf, inserts):
    """`buf` (a list of characters) with text inserted at positions, as a
    string."""
    out, last = [], 0
    for a, _, r in sorted(inserts, key=lambda x: x[0]):
        out.append("".join(buf[last:a]))
        out.append(r)
        last = a
    out.append("".join(buf[last:]))
    return "".join(out)


def _device_static(device, m, it, end):
    """Drops `static`/`inline` before a kernel in the device unit, so its
    symbol is the external one its stub's is (a static kernel's name may be
    made unique per unit)."""
    head = m[it.start:end]
    rest, template = _strip_template(head)
    off = it.start + len(template)
    for mm in re.finditer(r"\b(static|inline)\b", rest.split("(")[0]):
        for k in range(off + mm.start(), off + mm.end()):
            device[k] = " "


def _stub(text, m, it, template, rest, name, paren, at, declaration=False):
    """(host text, signature) of a kernel's stub: a host function of the
    kernel's name, template header and parameters, exported so that its
    symbol can be looked up; never called (a kernel called as a function is
    nvcc's error, the stub's throw here). On one line: the kernel's own
    lines stay in the host text as empty lines. `text` is the source less
    its comments."""
    params, close = parameters(rest, paren)
    for p in split_parameters(params):
        if "=" in _outside_parens(p):
            raise Unsupported("the kernel %s has a default argument" % name)
    quals = rest[:at]
    c_linkage = re.search(r'\bextern\s*"\s*"', quals) is not None  # extern "C", masked
    ret = re.sub(r'\bextern\s*"\s*"', " ", quals)
    ret = re.sub(r"\b(__global__|static|inline|__forceinline__|__noinline__|extern)\b", " ", ret)
    ret = re.sub(r"__launch_bounds__\s*\(", "\0(", ret)
    while "\0" in ret:
        k = ret.index("\0")
        j = _matching(ret, k + 1, "(", ")")
        ret = ret[:k] + " " * (j + 1 - k) + ret[j + 1:]
    ret = re.sub(r"__(maxnreg|cluster_dims)__\s*\([^)]*\)", " ", ret)
    if ret.split() != ["void"]:
        raise Unsupported("the kernel %s is declared with %r before its name" % (name, " ".join(ret.split())))
    off = it.start + len(template)
    # The real parameter text (literals included), from the unmasked source.
    ptext = text[off + paren + 1:off + close]
    sig = " ".join(ptext.split())
    tmpl = text[it.start:it.start + len(template)]
    if declaration:
        attrs, body = 'visibility("default")', ";"
    else:
        attrs, body = 'visibility("default"), used', " { ::kbench_li::called_directly(\"%s\"); }" % name
    decl = '%s%s __attribute__((%s)) void %s(%s)' % ('extern "C" ' if c_linkage else "", " ".join(tmpl.split()),
                                                    attrs, name, sig)
    return decl.strip() + body, (" ".join(tmpl.split()), _parameter_types(sig))


_TYPE_WORDS = {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool", "void", "const",
               "volatile", "__restrict__", "restrict", "size_t", "auto"}


def _parameter_types(sig):
    """A parameter list less its parameter names: a prototype and its
    definition compare equal."""
    out = []
    for p in split_parameters(sig):
        toks = re.findall(r"[A-Za-z_]\w*|::|\S", p)
        if len(toks) > 1 and IDENT.fullmatch(toks[-1]) and toks[-1] not in _TYPE_WORDS and toks[-2] != "::":
            toks = toks[:-1]
        out.append(" ".join(toks))
    return ", ".join(out)


def _launches(text, hm, kernels):
    """Edits that turn each `k<<<cfg>>>(args)` of the host code into a call of
    ::kbench_li::launch; Unsupported where a kernel's name appears other
    than so. `text`: the source less its comments; `hm`: the host text,
    masked, without the kernels' own items."""
    by_name = {}
    for q, k in kernels.items():
        by_name.setdefault(k.name, []).append(k)
    edits = []
    uses = []
    for mm in re.finditer(r"[A-Za-z_]\w*", hm):
        name = mm.group(0)
        if name not in by_name:
            continue
        if mm.start() > 0 and (hm[mm.start() - 1].isalnum() or hm[mm.start() - 1] == "_"):
            continue
        line = hm.count("\n", 0, mm.start()) + 1
        # The callee: optional qualification before, template arguments after.
        start = mm.start()
        q = re.search(r"((?:[A-Za-z_]\w*\s*::\s*)*(?:::\s*)?)$", hm[:start])
        if q and q.group(1):
            start -= len(q.group(1))
        j = mm.end()
        while j < len(hm) and hm[j].isspace():
            j += 1
        targs = None
        if hm.startswith("<", j) and not hm.startswith("<<<", j):
            close = _matching_angle(hm, j)
            targs = text[j + 1:close]
            j = close + 1
            while j < len(hm) and hm[j].isspace():
                j += 1
        if not hm.startswith("<<<", j):
            raise Unsupported("host code names the kernel %s other than in a <<<...>>> launch (line %d)" %
                              (name, line))
        cfg_end = hm.find(">>>", j + 3)
        if cfg_end < 0:
            raise Unsupported("a <<< without >>> at line %d" % line)
        k = cfg_end + 3
        while k < len(hm) and hm[k].isspace():
            k += 1
        if not hm.startswith("(", k):
            raise Unsupported("a launch without arguments at line %d" % line)
        args_close = _matching(hm, k, "(", ")")
        callee = text[start:j].rstrip()
        kern = by_name[name][0]
        if targs is not None:
            if not kern.template:
                raise Unsupported("template arguments on the kernel %s, not a template" % name)
            if LITERAL_TEMPLATE_ARG.match(targs):
                uses.append((_qualify(callee, kern), kern.qualified))
            else:
                uses.append((None, kern.qualified))  # known to the host compile only
        elif kern.template:
            raise Unsupported("the template kernel %s launched without its template arguments (line %d)" %
                              (name, line))
        cfg = text[j + 3:cfg_end]
        args = text[k + 1:args_close]
        rep = "::kbench_li::launch(&%s, ::kbench_li::Launch(%s)%s)" % (callee, cfg,
                                                                    (", " + args) if args.strip() else "")
        # On one line: the launch's own lines stay as empty lines after it.
        rep = rep.replace("\n", " ")
        edits.append((start, args_close + 1, rep))
    # Launches inside other launches' arguments are not rewritten twice.
    edits.sort()
    kept, end = [], -1
    for e in edits:
        if e[0] < end:
            raise Unsupported("a launch inside another launch's arguments")
        kept.append(e)
        end = e[1]
    dependent = sorted({k for u, k in uses if u is None})
    return kept, list(dict.fromkeys(u for u, _ in uses if u is not None)), dependent


def _qualify(callee, kern):
    """A template-id naming the kernel from the global namespace."""
    c = re.sub(r"\s+", " ", callee).strip()
    targs = c[c.index("<"):]
    return kern.qualified + targs


def _matching_angle(m, i):
    depth = 0
    for j in range(i, len(m)):
        if m[j] in "<([":
            depth += 1
        elif m[j] in ">)]":
            depth -= 1
            if depth == 0:
                return j
    raise Unsupported("template arguments that do not close")


def instantiations_from_symbols(nm_demangled, kernels):
    """Template-ids of the template kernels whose stubs a host object
    defines, from `nm -C --defined-only` output: what the device unit must
    instantiate."""
    out = []
    for line in nm_demangled.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[1] not in ("W", "T", "t", "w"):
            continue
        sym = parts[2]
        for q, k in kernels.items():
            if not k.template:
                continue
            pos = sym.find(q + "<")
            if pos < 0 or (pos > 0 and (sym[pos - 1].isalnum() or sym[pos - 1] in "_:")):
                continue
            close = _matching_angle(sym, pos + len(q))
            if sym[close + 1:close + 2] != "(":
                continue
            tid = sym[pos:close + 1]
            if TORCH_NAMES.search(tid):
                raise Unsupported("the kernel %s instantiated with torch's types (%s)" % (q, tid))
            if tid not in out:
                out.append(tid)
    return out
