"""The agreement check's judgement and table, apart from running anything, so
a CPU test can feed it canned records (tests/kernelbench/).

A record (one JSON line of agreement.py) holds, per problem:
  "kbench_kernelbench", "kbench_strict": kbench_scoring.summarize_result's
      fields (verdict, runtime_ms, ref_runtime_ms, wall_s, ...) or
      {"error": ..., "wall_s": ...}
  "kernelbench": kb_harness_eval.py's fields (compiled, correctness,
      runtime_ms, ref_runtime_ms, eval_s) plus wall_s, or {"error": ...}
Each side may be absent (skipped).
"""
import re

# Problem number -> family, for the 22 vendored level-1 problems
# (bench/kernelbench/problems/README.md).
FAMILIES = {
    1: "matmul", 3: "matmul", 4: "matmul", 5: "matmul",
    19: "activation", 20: "activation", 21: "activation", 26: "activation", 88: "activation",
    23: "softmax", 24: "softmax",
    36: "normalization", 37: "normalization", 40: "normalization",
    47: "reduction", 49: "reduction", 51: "reduction",
    41: "pooling", 89: "scan",
    94: "loss", 96: "loss", 100: "loss",
}


def family(problem_stem):
    m = re.match(r"(\d+)_", problem_stem)
    return FAMILIES.get(int(m.group(1)), "other") if m else "other"


def usable(side):
    return isinstance(side, dict) and not side.get("error")


def agreement(record):
    """True when kbench's kernelbench-protocol verdict and KernelBench's
    correctness say the same (pass <-> correctness True), False when they
    differ, None when either side is missing or errored (nothing compared)."""
    kb = record.get("kbench_kernelbench")
    harness = record.get("kernelbench")
    if not usable(kb) or not usable(harness):
        return None
    return (kb.get("verdict") == "pass") == bool(harness.get("correctness"))


def exit_code(records):
    """1 if any verdict disagrees; 2 if none disagrees but some problem could
    not be compared (or there were none); 0 when every one agrees."""
    results = [agreement(r) for r in records]
    if any(a is False for a in results):
        return 1
    if not results or any(a is None for a in results):
        return 2
    return 0


def _verdict(side):
    if side is None:
        return "-"
    if not usable(side):
        return "error: " + str(side.get("error", "?"))[:40]
    return str(side.get("verdict"))


def _harness(side):
    if side is None:
        return "-"
    if not usable(side):
        return "error: " + str(side.get("error", "?"))[:40]
    if not side.get("compiled"):
        return "not compiled"
    return "correct" if side.get("correctness") else "incorrect"


def _ms(x):
    return "-" if x is None else f"{x:.3g}"


def _pair(side):
    """candidate / reference runtime in ms."""
    if not usable(side):
        return "-"
    return f"{_ms(side.get('runtime_ms'))} / {_ms(side.get('ref_runtime_ms'))}"


def _wall(side):
    if not isinstance(side, dict) or side.get("wall_s") is None:
        return "-"
    return f"{side['wall_s']:.1f}"


def _sizes(s):
    if not s or isinstance(s, str):
        return s or "the problem's own"
    return ", ".join(f"{k}={v}" for k, v in s.items())


def render(records):
    """The markdown table, with a totals line under it."""
    lines = [
        "| problem | family | sizes | kbench (kernelbench) | KernelBench | agree | kbench (strict) "
        "| runtime ms kbench-kb: cand / ref | runtime ms KernelBench: cand / ref | runtime ms strict: cand / ref "
        "| wall s kbench-kb | wall s KernelBench | wall s strict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in records:
        a = agreement(r)
        lines.append("| " + " | ".join([
            r.get("problem", "?"), r.get("family") or family(r.get("problem", "")), _sizes(r.get("sizes")),
            _verdict(r.get("kbench_kernelbench")), _harness(r.get("kernelbench")),
            {True: "yes", False: "**NO**", None: "n/a"}[a], _verdict(r.get("kbench_strict")),
            _pair(r.get("kbench_kernelbench")), _pair(r.get("kernelbench")), _pair(r.get("kbench_strict")),
            _wall(r.get("kbench_kernelbench")), _wall(r.get("kernelbench")), _wall(r.get("kbench_strict")),
        ]) + " |")
    results = [agreement(r) for r in records]
    lines.append("")
    lines.append(f"{len(records)} problem(s): {results.count(True)} agree, {results.count(False)} disagree, "
                 f"{results.count(None)} not compared (a side skipped or errored)")
    overlapped = [r.get("problem") for r in records if r.get("overlapped")]
    if overlapped:
        lines.append(f"KernelBench's harness ran beside kbench (--overlap) for {len(overlapped)} problem(s): "
                     "their runtimes and wall times are not clean measurements, only the verdicts count")
    return "\n".join(lines)
