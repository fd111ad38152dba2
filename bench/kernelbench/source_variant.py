"""A variant of a Triton program candidate whose kernels Triton must compile
afresh: a comment naming the variant goes into the body of every
@triton.jit function. Triton keys its caches (in memory and on disk) on the
kernel's own source text, comments included, and on its first line number
(triton/runtime/jit.py: DependenciesFinder hashes `src`, cache_key appends
starting_line_number), so a comment inside the body changes the key and
nothing else: the candidate computes exactly what it did.
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


def variant(source, tag):
    """The source with `# kbench warm_bench variant TAG` as the first line of
    every @triton.jit function's body. Raises ValueError when there is none
    (then nothing would be compiled afresh, and the benchmark would lie)."""
    spots = jit_function_body_lines(source)
    if not spots:
        raise ValueError("no @triton.jit function in the candidate")
    lines = source.splitlines(keepends=True)
    for lineno, indent in reversed(spots):
        prefix = lines[lineno - 1][:indent]
        if prefix.strip():  # the body starts on the def's own line: no line to put a comment before
            raise ValueError(f"line {lineno}: a @triton.jit body that does not start on a line of its own")
        lines.insert(lineno - 1, prefix + f"# kbench warm_bench variant {tag}\n")
    return "".join(lines)
