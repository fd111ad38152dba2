"""A variant of a program candidate whose kernels must be compiled afresh.

Triton answers: a comment naming the variant goes into the body of every
@triton.jit function. Triton keys its caches (in memory and on disk) on the
kernel's own source text, comments included, and on its first line number
(triton/runtime/jit.py: DependenciesFinder hashes `src`, cache_key appends
starting_line_number), so a comment inside the body changes the key and
nothing else: the candidate computes exactly what it did.

CUDA (load_inline) answers: a C++ comment naming the variant goes on the first
line of every string literal that holds a __global__ kernel, so torch's own
load_inline (which keys its build folder on the sources) builds afresh too.
"""
import ast


def _is_triton_jit(decorator):
    """@triton.jit, @triton.jit(...), @jit, and @triton.autotune/heuristics
    stacks whose last decorator is one of those."""
    d = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(d, ast.Attribute):
        return d.attr == "jit"
    return isinstance(d, ast.Name) and d.id == "jit"


def jit_function_body_lines(source):
    """(line number, indentation) of the first statement of each @triton.jit
    function, 1-based, in source order."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _is_triton_jit(d) for d in node.decorator_list):
            first = node.body[0]
            out.append((first.lineno, first.col_offset))
    return sorted(out)


def cuda_string_starts(source):
    """Offsets just inside the opening quotes of each string literal that
    holds a __global__ kernel."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__global__" in node.value:
            lines = source.splitlines(keepends=True)
            off = sum(len(x) for x in lines[:node.lineno - 1]) + node.col_offset
            q = source.find('"""', off)
            if q < 0 or source[off:q].strip("rRbBuU") != "":
                raise ValueError("line %d: a kernel source that is not a triple-quoted string" % node.lineno)
            out.append(q + 3)
    return sorted(out)


def variant(source, tag):
    """The source with `# kbench warm_bench variant TAG` as the first line of
    every @triton.jit function's body, or (a CUDA answer) `// kbench
    warm_bench variant TAG` opening every kernel source string. Raises
    ValueError when there is none (then nothing would be compiled afresh, and
    the benchmark would lie)."""
    spots = jit_function_body_lines(source)
    if not spots:
        starts = cuda_string_starts(source)
        if not starts:
            raise ValueError("no @triton.jit function and no CUDA kernel source in the candidate")
        for at in reversed(starts):
            source = source[:at] + "// kbench warm_bench variant %s\n" % tag + source[at:]
        return source
    lines = source.splitlines(keepends=True)
    for lineno, indent in reversed(spots):
        prefix = lines[lineno - 1][:indent]
        if prefix.strip():  # the body starts on the def's own line: no line to put a comment before
            raise ValueError(f"line {lineno}: a @triton.jit body that does not start on a line of its own")
        lines.insert(lineno - 1, prefix + f"# kbench warm_bench variant {tag}\n")
    return "".join(lines)
