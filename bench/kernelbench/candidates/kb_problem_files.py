"""The KernelBench problems behind the candidates in this folder, and the small size cases they are
checked at: shared by check_on_cpu.py (values, under Triton's interpreter) and compile_for_sm90.py
(compilation for the H100). Imports neither triton nor the candidates' kernels."""
import ast
import glob
import os
import subprocess
import sys
import types

DEFAULT_MIRROR = "/work/.mirror/ScalingIntelligence+KernelBench/repo"
# Past the candidates' largest block (4096), so every blocked loop runs more than once.
LONG = 4099
# Dims raised to at least this when a problem rejects a case (MaxPool1d needs a sequence longer
# than its dilated kernel).
ROOMY = 17
BATCH_NAMES = ("batch_size", "batch", "n_batch", "num_batches")


def candidate_paths(folder, only=()):
    """The candidate files of a folder (NUMBER_Name.py), in problem order; only: stems to keep."""
    paths = sorted(glob.glob(os.path.join(folder, "[0-9]*_*.py")), key=lambda p: int(os.path.basename(p).split("_")[0]))
    if only:
        wanted = {s[:-3] if s.endswith(".py") else s for s in only}
        paths = [p for p in paths if os.path.basename(p)[:-3] in wanted]
    return paths


def read_header(path):
    """(problem file name, level folder) from the candidate's '# problem:' and '# kernelbench:' lines."""
    problem, level = None, "level1"
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            if line.startswith("# problem:"):
                problem = line.split(":", 1)[1].strip()
            elif line.startswith("# kernelbench:"):
                level = line.split(":", 1)[1].strip()
    return problem, level


def problem_source(problem, level, problems_dir, mirror):
    if problems_dir:
        with open(os.path.join(problems_dir, problem), encoding="utf-8") as f:
            return f.read()
    return subprocess.run(["git", "-C", mirror, "show", "HEAD:KernelBench/%s/%s" % (level, problem)],
                          check=True, capture_output=True, text=True).stdout


def module_from_source(name, source, filename):
    module = types.ModuleType(name)
    module.__file__ = filename
    # Triton's @jit reads the kernel's source with inspect, which needs the module in sys.modules
    # and a file to read; candidates are real files, problems carry no kernels.
    sys.modules[name] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def size_dims(source, module):
    """The size constants get_inputs() reads, in order of first use, as [(name, index or None)]:
    an int constant, or one element of a tuple constant (input_shape = (32768,))."""
    tree = ast.parse(source)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"), None)
    if fn is None:
        return []
    dims, seen = [], set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in seen:
            value = module.__dict__.get(node.id)
            if isinstance(value, bool):
                continue
            if isinstance(value, int):
                dims.append((node.id, None))
            elif isinstance(value, tuple) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                            for v in value):
                dims.extend((node.id, i) for i in range(len(value)))
            else:
                continue
            seen.add(node.id)
    # ast.walk is breadth-first; sort by source position so "the last dim" is the innermost one.
    order = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id not in order:
            order[node.id] = (node.lineno, node.col_offset)
    dims.sort(key=lambda d: (order.get(d[0], (0, 0)), d[1] or 0))
    return dims


def dim_value(module, dim):
    name, index = dim
    value = module.__dict__[name]
    return value if index is None else value[index]


def set_dims(module, values):
    """Writes {(name, index): value} into the problem's module globals (get_inputs reads them at call time)."""
    tuples = {}
    for (name, index), v in values.items():
        if index is None:
            module.__dict__[name] = v
        else:
            tuples.setdefault(name, list(module.__dict__[name]))[index] = v
    for name, items in tuples.items():
        module.__dict__[name] = tuple(items)


# ---------------------------------------------------------------------------
# Size cases

def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def prime_at_most(n):
    while n > 2 and not is_prime(n):
        n -= 1
    return n


def roomier(values, faithful):
    """values with every dim below ROOMY raised to min(its faithful value, ROOMY); a dim of 1 (a
    batch of one) stays 1."""
    return {d: (v if v == 1 else max(v, min(faithful[d], ROOMY))) for d, v in values.items()}


def size_cases(dims, faithful):
    """[(case name, {dim: value})]. Dims of value <= 3 keep it (as kbench's import does)."""
    if not dims:
        return [("as_written", {})]
    n = len(dims)
    cases = []
    cap = {1: 131, 2: 37, 3: 13, 4: 7}.get(n, 5)
    small = {d: (v if v <= 3 else prime_at_most(min(v - 1, cap))) for d, v in zip(dims, faithful)}
    cases.append(("small_primes", small))
    # Distinct primes per dim catch swapped dims (m and n in a GEMM) that equal sizes hide.
    start = {1: 257, 2: 67, 3: 29, 4: 13}.get(n, 11)
    distinct, p = {}, start
    for d, v in zip(dims, faithful):
        distinct[d] = v if v <= 3 else prime_at_most(min(v - 1, p))
        if distinct[d] > 5:
            p = distinct[d] - 1  # the next dim gets the next prime down
    cases.append(("distinct_primes", distinct))
    batch = [d for d in dims if d[0] in BATCH_NAMES]
    if batch:
        one = dict(small)
        for d in batch:
            one[d] = 1
        cases.append(("batch_of_one", one))
    # Each dim in turn past every block size, the others at 3: blocked loops, tails and masks.
    for d, v in zip(dims, faithful):
        if v <= 3:
            continue
        longer = {e: (w if w <= 3 else 3) for e, w in zip(dims, faithful)}
        longer[d] = min(v, LONG)
        label = d[0] if d[1] is None else "%s[%d]" % d
        cases.append(("long_" + label, longer))
    return cases


