"""Sums the spans of a KBENCH_PROFILE file (docs/measurement.md) over its
processes and prints the largest, so a device call's log says where the time
went without bringing the file back.

usage: python3 bench/profile_sum.py PROFILE.jsonl [--top 30]
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("--top", type=int, default=30)
    a = ap.parse_args()
    totals = {}
    processes = 0
    try:
        f = open(a.profile)
    except OSError as e:
        print(f"profile_sum: {e}", file=sys.stderr)
        return 2
    with f:
        for n, line in enumerate(f, 1):
            try:
                rec = json.loads(line)
            except ValueError:
                print(f"profile_sum: {a.profile}:{n}: not JSON, skipped", file=sys.stderr)
                continue
            processes += 1
            for name, (count, ms) in rec.get("spans", {}).items():
                c, t, p = totals.get(name, (0, 0.0, 0))
                totals[name] = (c + count, t + ms, p + 1)
    print(f"{a.profile}: {processes} processes")
    print(f"{'span':48} {'count':>9} {'total ms':>11} {'mean ms':>9} {'procs':>6}")
    for name, (c, t, p) in sorted(totals.items(), key=lambda kv: -kv[1][1])[: a.top]:
        print(f"{name:48} {c:9d} {t:11.1f} {t / max(c, 1):9.3f} {p:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
