"""A markdown table of several benchmark JSON files side by side, for
bench/RESULTS.md when one device call measured settings against each other
(a lane count, one GPU or two, Ray or not). Each file is a run_bench.py
output (`kbench run` end to end) or a `kbench_batch_bench ... rates` output;
every number printed comes from the files.

usage: python3 bench/compare_runs.py LABEL=FILE [LABEL=FILE ...]
"""
import json
import sys


def row(label, j):
    if "per_s_end_to_end" in j:
        return ("run", [label, f"{j['per_s_end_to_end']} /s", f"{j.get('wall_s')} s",
                        f"{j.get('expected_verdicts')} of {j.get('lines')}", "ray" if j.get("ray") else "native",
                        j.get("gpus", "")])
    if "batch_timed_per_s" in j:
        return ("batch", [label, j.get("device_lanes_asked"), f"{j['batch_timed_per_s']:.1f} /s",
                          f"{j['batch_correctness_per_s']:.1f} /s", f"{j['batch_correctness_one_lane_per_s']:.1f} /s",
                          f"{j['single_timed_ms']:.1f} ms", f"{j['single_correctness_ms']:.1f} ms"])
    raise ValueError("neither a run_bench.py nor a batch bench output")


HEADERS = {
    "run": ["setting", "answers per second", "wall", "expected verdicts", "scheduler", "--gpus"],
    "batch": ["setting", "lanes", "batch timed", "batch correctness-only", "one lane, correctness-only",
              "kb_score timed", "kb_score correctness-only"],
}


def main(args):
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    tables = {}
    for a in args:
        label, _, path = a.partition("=")
        if not path:
            print(f"compare_runs: '{a}' is not LABEL=FILE", file=sys.stderr)
            return 2
        try:
            with open(path) as f:
                kind, cells = row(label, json.load(f))
        except (OSError, ValueError) as e:
            print(f"compare_runs: {path}: {e}", file=sys.stderr)
            return 1
        tables.setdefault(kind, []).append(cells)
    for kind, rows in tables.items():
        print("| " + " | ".join(HEADERS[kind]) + " |")
        print("|" + " --- |" * len(HEADERS[kind]))
        for cells in rows:
            print("| " + " | ".join(str(c) for c in cells) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
