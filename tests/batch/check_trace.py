"""KBENCH_TRACE (util/profile.h) and bench/trace_lanes.py, without a GPU:
`kbench compile` with a trace writes one whole JSON line per span, with the
fields trace_lanes.py reads; and trace_lanes.py splits a made-up lane's time
between the GPU's phases as the spans say.

usage: python3 tests/batch/check_trace.py --kbench KBENCH --source SOURCE_DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbench", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.jsonl")
        task = os.path.join(a.source, "tasks/elementwise/vector_add_f32/task.json")
        cand = os.path.join(a.source, "tasks/elementwise/vector_add_f32/candidates/correct.cu")
        env = dict(os.environ, KBENCH_TRACE=trace, KBENCH_CACHE_DIR=os.path.join(tmp, "cache"))
        r = subprocess.run([a.kbench, "compile", task, cand, "--arch", "sm_90"], env=env, capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"kbench compile failed ({r.returncode}): {r.stderr.strip()[-400:]}")
        lines = open(trace).read().splitlines() if os.path.exists(trace) else []
        if not lines:
            failures.append("KBENCH_TRACE wrote nothing")
        names = set()
        for line in lines:
            e = json.loads(line)
            if set(e) != {"pid", "tid", "name", "ts", "dur"} or e["dur"] < 0:
                failures.append(f"a trace line without the fields trace_lanes.py reads: {line}")
                break
            names.add(e["name"])
        if lines and "nvrtc.compile_program" not in names:
            failures.append(f"no nvrtc.compile_program span in the trace of a compile: {sorted(names)}")

        # One lane: a share held 10..40 us (after waiting 0..10), the GPU alone
        # 60..90 (after waiting 40..60), a recheck's share 92..100.
        made_up = os.path.join(tmp, "made_up.jsonl")
        spans = [("engine.finish_score", 0, 100), ("engine.case_compare", 0, 40), ("engine.wait_gpu_shared", 0, 10),
                 ("engine.time", 40, 50), ("engine.wait_gpu_alone", 40, 20), ("engine.recheck", 90, 10),
                 ("engine.wait_gpu_shared", 90, 2)]
        with open(made_up, "w") as f:
            for name, ts, dur in spans:
                f.write(json.dumps({"pid": 1, "tid": 3, "name": name, "ts": ts, "dur": dur}) + "\n")
        # The same phases in a batch lane's spans (engine/timing_backlog.h):
        # a job's correctness, then a timing turn (the wait for the GPU alone,
        # then two kept candidates' timings) and a recheck after it.
        batch_spans = [("engine.lane_work", 0, 40), ("engine.case_compare", 0, 40), ("engine.wait_gpu_shared", 0, 10),
                       ("engine.lane_work", 40, 60), ("engine.timing_turn", 40, 50), ("engine.wait_gpu_alone", 40, 20),
                       ("engine.time", 60, 15), ("engine.time", 75, 15), ("engine.recheck", 90, 10),
                       ("engine.wait_gpu_shared", 90, 2), ("host.reference_first", 10, 3),
                       ("host.reference_again", 20, 2), ("host.reference_again", 30, 4),
                       ("host.reference_installed", 35, 1)]
        with open(made_up, "a") as f:
            for name, ts, dur in batch_spans:
                f.write(json.dumps({"pid": 2, "tid": 4, "name": name, "ts": ts, "dur": dur}) + "\n")
        for pid in ("1", "2"):
            out = subprocess.run([sys.executable, os.path.join(a.source, "bench/trace_lanes.py"), made_up, "--pid", pid],
                                 capture_output=True, text=True).stdout
            for state, share in (("alone", "30.0 %"), ("shared", "38.0 %"), ("waiting, nobody holds", "32.0 %"),
                                 ("idle", "0.0 %")):
                row = next((l for l in out.splitlines() if l.strip().startswith(state)), "")
                if not row.endswith(share):
                    failures.append(f"trace_lanes.py, process {pid}: '{state}' should be {share}: {row!r}\n{out}")
            if "1 scores on the device" not in out:
                failures.append(f"trace_lanes.py, process {pid}: one score expected\n{out}")
            refs = next((l for l in out.splitlines() if l.startswith("reference requests:")), None)
            want = None if pid == "1" else \
                "reference requests: 1 first (0.00 s), 2 again (0.00 s), 1 installed (0.00 s)"
            if (refs or "").split(" (again:")[0] != (want or ""):
                failures.append(f"trace_lanes.py, process {pid}: reference line {refs!r}, expected {want!r}\n{out}")
        # Two lanes, both inside long spans from 1.0 s to 2.5 s into the batch,
        # nothing ending: one stall of 1.5 s, each lane named by its innermost
        # span; a gap of 0.5 s is not one.
        stall_spans = [(5, "engine.lane_work", 0, 2_600_000), (5, "engine.case_compare", 1_000_000, 1_550_000),
                       (5, "host.worker_ready", 1_000_000, 1_500_000),
                       (6, "engine.case_compare", 0, 500_000), (6, "engine.lane_work", 0, 1_000_000),
                       (6, "engine.lane_work", 1_000_000, 1_600_000),
                       (6, "engine.wait_gpu_alone", 1_000_000, 1_500_000), (6, "engine.case_compare", 2_600_000, 500_000)]
        with open(made_up, "a") as f:
            for tid, name, ts, dur in stall_spans:
                f.write(json.dumps({"pid": 3, "tid": tid, "name": name, "ts": ts, "dur": dur}) + "\n")
        out = subprocess.run([sys.executable, os.path.join(a.source, "bench/trace_lanes.py"), made_up, "--pid", "3"],
                             capture_output=True, text=True).stdout
        lines = out.splitlines()
        head = next((l for l in lines if l.startswith("stalls")), "")
        if not head.endswith(": 1, 1.50 s in all"):
            failures.append(f"trace_lanes.py, process 3: one stall of 1.50 s expected: {head!r}\n{out}")
        want = "1.00 s +1.50 s: thread 5 in host.worker_ready, thread 6 in engine.wait_gpu_alone"
        if not any(l.strip() == want for l in lines):
            failures.append(f"trace_lanes.py, process 3: stall line {want!r} expected\n{out}")
        # --monitor: a made-up gpu_disturbance monitor beside it, in the same
        # clock: two slow round trips 30 ms apart are one stretch; a start
        # that began before the stall and was still starting in it is seen
        # in it; one outside the batch is not counted.
        monitor = os.path.join(tmp, "monitor.json")
        with open(monitor, "w") as f:
            json.dump({"device": 1, "round_trips": {"median": 0.01, "n": 1000},
                       "slow": [[1_200_000, 20.0], [1_250_000, 40.0]], "slow_alloc": [],
                       "starts": [[100_000, 200.0], [900_000, 900.0, [1.0, 50.0, 820.0, 1.0, 28.0]], [2_000_000, 210.0], [9_000_000, 5000.0]]}, f)
        out = subprocess.run([sys.executable, os.path.join(a.source, "bench/trace_lanes.py"), made_up, "--pid", "3",
                              "--monitor", monitor], capture_output=True, text=True).stdout
        for want in ("slow round trips (over 10 ms): 1 stretches, 0.09 s in all",
                     "starts over twice the median: 1; 0.90 s took 900 ms (exec 1, cuInit 50, context 820, cudaMalloc 1, kernel 28)",
                     "during the stall at 1.00 s: 2 slow round trips (worst 40 ms), starts 900 ms, 210 ms"):
            if not any(l.strip() == want for l in out.splitlines()):
                failures.append(f"trace_lanes.py --monitor: line {want!r} expected\n{out}")
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
