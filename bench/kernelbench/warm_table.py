#!/usr/bin/env python3
"""One table of warm_bench.py's results over several calls (bench/RESULTS.md):
a row per problem, ordered by its fresh-compile median, then the median of
the problems' medians against the 1.5 s target (issue 10).

    python3 bench/kernelbench/warm_table.py LABEL=kernelbench_warm.json [LABEL=...]

A problem in several files keeps its last row.
"""
import json
import statistics
import sys


def main(argv):
    if not argv or any("=" not in a for a in argv):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = {}
    for arg in argv:
        label, path = arg.split("=", 1)
        with open(path) as f:
            d = json.load(f)
        for p in d["problems"]:
            st = {k: v["median"] for k, v in p["fresh_stages_ms"].items()}
            rows[p["problem"]] = (p["problem"], label, p["fresh_compile_ms"]["median"], st["correctness_ms"],
                                  st["timing_ms"], ",".join(sorted(set(p["verdicts"]))))
    ordered = sorted(rows.values(), key=lambda r: r[2])
    print("| problem | call | fresh-compile score, median ms | correctness ms | timing ms | verdicts |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in ordered:
        print("| %s | %s | %.0f | %.0f | %.0f | %s |" % r)
    meds = [r[2] for r in ordered]
    print()
    print("%d problems; the median of their medians: %.0f ms (target <= 1500 ms); %d of %d at or under 1500 ms"
          % (len(meds), statistics.median(meds), sum(m <= 1500 for m in meds), len(meds)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
