"""What the lanes of a batch did when: reads a KBENCH_TRACE file (util/profile.h)
and says, for the host process that ran the lanes, how the wall time splits
between the GPU's phases (a timer has it alone, correctness shares it, nobody
holds it while someone waits for it, nobody wants it) and how each lane spent
its time. The phase a lane holds runs from the end of its wait span
(engine.wait_gpu_alone / engine.wait_gpu_shared) to the end of the stage span
around it (engine.time / engine.case_compare / engine.recheck, or a batch
lane's engine.timing_turn: one wait for the GPU alone, then the timings of the
candidates the lane kept waiting, engine/timing_backlog.h).

A lane's work is its engine.finish_score spans (kb_score) or engine.lane_work
spans (a batch lane: one job's correctness and what follows it at once, or a
timing turn and the rechecks after it); a score that reached the device has
one engine.case_compare span.

Lane threads whose scores overlap in time are one batch: a process that ran
several batches one after another (bench/batch_bench.cpp) gets a section each.

Stalls: stretches of at least --stall seconds (1) in which no span of any
lane thread ended, each with what every lane was in at its middle (its
innermost span). A typical one: three lanes waiting for their replacement
workers together.

--monitor FILE lays `gpu_disturbance monitor DEV SECONDS` beside the batch
(bench/gpu_disturbance.cu: a tiny kernel's round trip, allocations and fresh
processes' starts on another GPU or the same one, in the trace's clock): its
slow stretches in the batch's time, and what it saw during each stall.

usage: python3 bench/trace_lanes.py TRACE.jsonl [--pid PID] [--stall SECONDS] [--monitor FILE]
"""
import argparse
import collections
import json
import sys

STAGES = ("engine.time", "engine.case_compare", "engine.recheck", "engine.timing_turn")
WORK = ("engine.finish_score", "engine.lane_work")


def load(path):
    by_pid = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue
            by_pid[e["pid"]].append(e)
    return by_pid


def holds_and_waits(events):
    """(kind, start, end) intervals: 'alone' / 'shared' holds and 'wait' spans."""
    by_tid = collections.defaultdict(list)
    for e in events:
        by_tid[e["tid"]].append(e)
    out = []
    for tid, evs in by_tid.items():
        stages = sorted((e for e in evs if e["name"] in STAGES), key=lambda e: e["ts"])
        waits = sorted((e for e in evs if e["name"] in ("engine.wait_gpu_alone", "engine.wait_gpu_shared")),
                       key=lambda e: e["ts"])
        for w in waits:
            end_w = w["ts"] + w["dur"]
            out.append(("wait", w["ts"], end_w))
            stage = next((s for s in stages if s["ts"] <= w["ts"] and end_w <= s["ts"] + s["dur"] + 1), None)
            if stage is None:
                continue
            kind = "alone" if w["name"] == "engine.wait_gpu_alone" else "shared"
            out.append((kind, end_w, stage["ts"] + stage["dur"]))
        # The recheck kept in the timing's window: no wait span of its own.
        for s in stages:
            if s["name"] == "engine.recheck" and not any(s["ts"] <= w["ts"] <= s["ts"] + s["dur"] for w in waits):
                out.append(("alone", s["ts"], s["ts"] + s["dur"]))
    return out


def sweep(intervals, t0, t1):
    """Seconds of [t0, t1] in each state, by priority: alone > shared > wait > idle."""
    points = []
    for kind, a, b in intervals:
        points.append((a, 1, kind))
        points.append((b, -1, kind))
    points.sort()
    active = collections.Counter()
    spent = collections.Counter()
    last = t0
    for t, d, kind in points:
        state = "alone" if active["alone"] else "shared" if active["shared"] else "waiting, nobody holds" if active["wait"] else "idle"
        spent[state] += max(0.0, t - last)
        last = t
        active[kind] += d
    spent["idle"] += max(0.0, t1 - last)
    return spent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--stall", type=float, default=1.0, help="the shortest stall reported, seconds")
    ap.add_argument("--monitor", help="the JSON of `gpu_disturbance monitor DEV SECONDS`, run beside the batch")
    a = ap.parse_args()
    monitor = None
    if a.monitor:
        with open(a.monitor) as f:
            monitor = json.load(f)
    by_pid = load(a.trace)
    pid = a.pid or max(by_pid, key=lambda p: sum(1 for e in by_pid[p] if e["name"] in WORK))
    events = by_pid[pid]
    groups = batches(events)
    if not groups:
        sys.exit(f"{a.trace}: no engine.finish_score or engine.lane_work spans in process {pid}")
    for n, tids in enumerate(groups):
        report(pid, n, len(groups), [e for e in events if e["tid"] in tids], a.stall, monitor)


def episodes(points, gap_us=50e3):
    """[(start_us, end_us, count, worst_ms)] of [ts_us, ms] points, merged
    where one starts within gap_us of the last one's end."""
    out = []
    for ts, ms in sorted(points):
        end = ts + ms * 1e3
        if out and ts <= out[-1][1] + gap_us:
            a, b, n, worst = out[-1]
            out[-1] = (a, max(b, end), n + 1, max(worst, ms))
        else:
            out.append((ts, end, 1, ms))
    return out


def report_monitor(m, t0, t1, found):
    """The monitor's slow stretches inside [t0, t1], relative to t0."""
    rt = m.get("round_trips", {})
    # [ts, ms] or [ts, ms, [exec, cuInit, context, cudaMalloc, kernel ms]]
    steps = {st[0]: st[2] for st in m.get("starts", []) if len(st) > 2}
    starts = [(st[0], st[1]) for st in m.get("starts", []) if t0 <= st[0] <= t1]
    ready = sorted(ms for _, ms in starts if ms >= 0)
    print(f"monitor on device {m.get('device')}: round trip median {rt.get('median', 0):.3f} ms over {rt.get('n', 0)}; "
          f"{len(starts)} fresh starts in the batch, median {ready[len(ready) // 2] if ready else -1:.0f} ms, "
          f"worst {ready[-1] if ready else -1:.0f} ms")
    for label, key in (("slow round trips (over 10 ms)", "slow"), ("slow 1 MiB allocations (over 10 ms)", "slow_alloc")):
        eps = [e for e in episodes(m.get(key, [])) if t0 <= e[0] <= t1]
        print(f"  {label}: {len(eps)} stretches, {sum(b - a for a, b, _, _ in eps) / 1e6:.2f} s in all")
        for a, b, n, worst in sorted(eps, key=lambda e: e[0] - e[1])[:5]:
            print(f"    {(a - t0) / 1e6:8.2f} s +{(b - a) / 1e6:.2f} s: {n} slow, worst {worst:.0f} ms")
    slow_starts = [(ts, ms) for ts, ms in starts if ready and (ms < 0 or ms > 2 * ready[len(ready) // 2])]
    def step_text(ts):
        if ts not in steps:
            return ""
        return " (" + ", ".join(f"{name} {v:.0f}" for name, v in
                               zip(("exec", "cuInit", "context", "cudaMalloc", "kernel"), steps[ts])) + ")"
    print(f"  starts over twice the median: {len(slow_starts)}" + "".join(
        f"; {(ts - t0) / 1e6:.2f} s took {ms:.0f} ms{step_text(ts)}"
        for ts, ms in sorted(slow_starts, key=lambda x: -x[1])[:5]))
    for a, b, _ in found:
        inside = [ms for ts, ms in m.get("slow", []) if a <= ts <= b]
        st = [ms for ts, ms in starts if a <= ts <= b or (ts < a and ts + ms * 1e3 > a)]
        print(f"  during the stall at {(a - t0) / 1e6:.2f} s: {len(inside)} slow round trips"
              f"{f' (worst {max(inside):.0f} ms)' if inside else ''}, starts {', '.join(f'{x:.0f} ms' for x in st) or 'none'}")


def batches(events):
    """The lane threads, grouped: threads whose scores' time ranges overlap."""
    ranges = {}
    for e in events:
        if e["name"] in WORK:
            a, b = ranges.get(e["tid"], (e["ts"], e["ts"] + e["dur"]))
            ranges[e["tid"]] = (min(a, e["ts"]), max(b, e["ts"] + e["dur"]))
    groups = []  # [start, end, set of tids]
    for tid, (a, b) in sorted(ranges.items(), key=lambda kv: kv[1][0]):
        if groups and a < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], b)
            groups[-1][2].add(tid)
        else:
            groups.append([a, b, {tid}])
    return [g[2] for g in groups]


def stalls(events, t0, t1, shortest_s):
    """[(start, end, {tid: innermost span name at the middle})]: stretches of
    [t0, t1] of at least shortest_s in which no span ended."""
    ends = sorted({t0, t1} | {e["ts"] + e["dur"] for e in events if t0 <= e["ts"] + e["dur"] <= t1})
    out = []
    for a, b in zip(ends, ends[1:]):
        if (b - a) / 1e6 < shortest_s:
            continue
        mid = (a + b) / 2
        inside = {}
        for e in events:
            if e["ts"] <= mid <= e["ts"] + e["dur"]:
                best = inside.get(e["tid"])
                if best is None or e["dur"] < best["dur"]:
                    inside[e["tid"]] = e
        out.append((a, b, {tid: e["name"] for tid, e in inside.items()}))
    return out


def report(pid, n, count, events, stall_s=1.0, monitor=None):
    work = [e for e in events if e["name"] in WORK]
    scores = sum(1 for e in events if e["name"] == "engine.case_compare")
    t0 = min(e["ts"] for e in work)
    t1 = max(e["ts"] + e["dur"] for e in work)
    wall = (t1 - t0) / 1e6
    spent = sweep(holds_and_waits(events), t0, t1)
    print(f"process {pid}, batch {n + 1} of {count}: {scores} scores on the device, "
          f"{len(set(e['tid'] for e in work))} lane thread(s) over {wall:.2f} s (first work's start to last work's end)")
    print("the GPU phase, share of that wall time:")
    for state in ("alone", "shared", "waiting, nobody holds", "idle"):
        print(f"  {state:24s} {spent[state] / 1e6:8.2f} s  {100 * spent[state] / max(1, t1 - t0):5.1f} %")
    names = ("work", "engine.case_compare", "engine.wait_gpu_shared", "host.ensure_reference",
             "host.worker_ready", "engine.time", "engine.wait_gpu_alone", "engine.recheck")
    lanes = collections.defaultdict(collections.Counter)
    for e in events:
        name = "work" if e["name"] in WORK else e["name"]
        if name in names:
            lanes[e["tid"]][name] += e["dur"] / 1e6
    print("per lane thread, seconds: " + ", ".join(n.split(".", 1)[-1] for n in names))
    for tid, c in sorted(lanes.items()):
        if c["work"]:
            print(f"  thread {tid:3d}: " + " ".join(f"{c[n]:7.2f}" for n in names))
    # A worker's reference requests (inside ensure_reference): those no
    # earlier worker of the lane ran, those run again because the worker that
    # held them was replaced, and those a replacement held from the digest
    # an earlier worker's run left (worker_host/worker_backend.cpp).
    kinds = ("first", "again", "installed")
    refs = {kind: [e["dur"] for e in events if e["name"] == "host.reference_" + kind] for kind in kinds}
    if any(refs.values()):
        print("reference requests: " + ", ".join(
            f"{len(d)} {kind} ({sum(d) / 1e6:.2f} s)" for kind, d in refs.items()) +
            " (again: run before by a worker since replaced; installed: held from an earlier worker's digest)")
    found = stalls(events, t0, t1, stall_s)
    print(f"stalls (no lane's span ended for {stall_s:g} s or more): {len(found)}, "
          f"{sum(b - a for a, b, _ in found) / 1e6:.2f} s in all")
    for a, b, inside in sorted(found, key=lambda x: x[0] - x[1])[:5]:
        print(f"  {(a - t0) / 1e6:8.2f} s +{(b - a) / 1e6:.2f} s: " +
              ", ".join(f"thread {tid} in {name}" for tid, name in sorted(inside.items())))
    if monitor is not None:
        report_monitor(monitor, t0, t1, found)

if __name__ == "__main__":
    main()
