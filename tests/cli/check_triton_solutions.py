#!/usr/bin/env python3
"""Static checks of the Triton example solutions (examples/solutions/*.py and
their kbench-candidate/1 documents), until kbench runs Triton candidates:
each .py parses, imports only triton, triton.language (as tl) and math, and
defines the @triton.jit kernel its document launches; the document's launch
entries name task arguments in the kernel's parameter order (every output
among them), give every tl.constexpr parameter a value, and use only the
task's dims and those constexprs in their grids. Exit status 1 on any problem.
"""
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "examples" / "solutions"
ALLOWED_IMPORTS = {"triton", "triton.language", "math"}
FUNCS = {"ceil_div", "min", "max"}


def jit_kernels(tree):
    """name -> (positional parameters, constexpr parameters) of @triton.jit functions."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        jit = any(ast.unparse(d) in ("triton.jit", "jit") or ast.unparse(d).startswith("triton.jit(") for d in node.decorator_list)
        if not jit:
            continue
        plain, const = [], []
        for a in node.args.args:
            ann = ast.unparse(a.annotation) if a.annotation else ""
            (const if ann.endswith("constexpr") else plain).append(a.arg)
        out[node.name] = (plain, const)
    return out


def check_imports(tree, path):
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ALLOWED_IMPORTS:
                    problems.append(f"{path}: imports {alias.name}; only triton, triton.language and math are allowed")
                if alias.name == "triton.language" and alias.asname != "tl":
                    problems.append(f"{path}: import triton.language as tl")
        elif isinstance(node, ast.ImportFrom):
            problems.append(f"{path}: 'from {node.module} import ...'; use import triton / triton.language as tl / math")
    return problems


def check(entry):
    problems = []
    doc_path = SOLUTIONS / entry["candidate"]
    task = json.loads((ROOT / "tasks" / entry["task"] / "task.json").read_text())
    doc = json.loads(doc_path.read_text())
    where = str(doc_path.relative_to(ROOT))
    if doc.get("format") != "kbench-candidate/1" or doc.get("language") != "triton":
        problems.append(f"{where}: expected format kbench-candidate/1 and language triton")
    src = doc_path.parent / doc.get("source_file", "")
    try:
        tree = ast.parse(src.read_text(), filename=str(src))
    except (OSError, SyntaxError) as e:
        return problems + [f"{where}: source_file {src}: {e}"]
    problems += check_imports(tree, src.relative_to(ROOT))
    kernels = jit_kernels(tree)
    args = {a["name"]: a for a in task["args"]}
    dims = set(task["dims"])
    launch = doc.get("launch") or []
    if not launch:
        problems.append(f"{where}: no launch entries")
    covered = set()
    for i, step in enumerate(launch):
        at = f"{where}: launch[{i}]"
        name = step.get("kernel")
        if name not in kernels:
            problems.append(f"{at}: no @triton.jit function '{name}' in {src.name} (found: {', '.join(kernels) or 'none'})")
            continue
        plain, const = kernels[name]
        step_args = step.get("args", [])
        if len(step_args) != len(plain):
            problems.append(f"{at}: {len(step_args)} args for the {len(plain)} non-constexpr parameters of {name}({', '.join(plain)})")
        for a in step_args:
            if a not in args:
                problems.append(f"{at}: '{a}' is not an argument of task {task['name']}")
        covered.update(step_args)
        constexprs = step.get("constexprs", {})
        if set(constexprs) != set(const):
            problems.append(f"{at}: constexprs {sorted(constexprs)} do not match {name}'s constexpr parameters {sorted(const)}")
        grid = step.get("grid")
        if not isinstance(grid, list) or not 1 <= len(grid) <= 3:
            problems.append(f"{at}: grid must be a list of 1 to 3 expressions")
        else:
            for g in grid:
                for ident in re.findall(r"[A-Za-z_]\w*", str(g)):
                    if ident not in dims and ident not in constexprs and ident not in FUNCS:
                        problems.append(f"{at}: grid expression '{g}' names '{ident}', neither a dim nor a constexpr")
        warps = step.get("num_warps", 4)
        if warps not in (1, 2, 4, 8, 16, 32):
            problems.append(f"{at}: num_warps {warps} is not a power of two up to 32")
        if step.get("num_stages", 1) < 1:
            problems.append(f"{at}: num_stages must be at least 1")
    for a in task["args"]:
        if a["role"] in ("out", "inout") and a["name"] not in covered:
            problems.append(f"{where}: the task's output '{a['name']}' is passed to no kernel")
    return problems


def main():
    manifest = json.loads((SOLUTIONS / "solutions.json").read_text())
    entries = [e for e in manifest["solutions"] if e.get("language") == "triton"]
    problems = []
    for e in entries:
        problems += check(e)
    for p in problems:
        print(p)
    families = {e["task"].split("/")[0] for e in entries}
    print(f"{len(entries)} Triton solution(s) in {len(families)} families checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
