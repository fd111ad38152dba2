"""kbench.ray on the GPUs of this machine (CTest label gpu): a local Ray
cluster with one GPU actor per device scores correct and wrong vector adds,
timed against the baseline. Exits 77 without a device or without Ray."""
import os
import pathlib
import sys

try:
    import ray
except ImportError:
    print("skipped: Ray is not installed (pip install ray)")
    sys.exit(77)
import kbench
import kbench.ray as kray

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASKS = SOURCE_DIR / "tasks"
CANDS = TASKS / "elementwise" / "vector_add_f32" / "candidates"


def main():
    gpus = kbench.device_count()
    if gpus == 0:
        print("skipped: no CUDA device")
        return 77
    correct = CANDS / "correct.cu"
    wrong = next(p for p in sorted(CANDS.glob("*.cu")) if p.name != "correct.cu")
    lines = [{"task": "vector_add_f32", "id": f"good{i}", "answer": f"```cuda\n// {i}\n{correct.read_text()}```"}
             for i in range(4)]
    lines.append({"task": "vector_add_f32", "id": "wrong", "answer": f"```cuda\n{wrong.read_text()}```"})
    ray.init(num_gpus=gpus, num_cpus=max(2, gpus), log_to_driver=False, include_dashboard=False)
    kept = {}
    try:
        results = {r["id"]: r for r in kray.score_many([TASKS], lines)}
        # A kept pool: the second run finds the first one's actors, warm.
        for run in range(2):
            rs = {r["id"]: r for r in kray.score_many([TASKS], lines, keep_pool="gpu_test")}
            pids = sorted(ray.get(ray.get_actor(n, namespace=kray.POOL_NAMESPACE).where.remote())[1]
                          for n in kray.kept_pools()["gpu_test"])
            kept[run] = (rs, pids)
    finally:
        kray.stop_pool("gpu_test")
        ray.shutdown()
    ok = True
    for key, r in sorted(results.items()):
        print(key, r["verdict"], r.get("speedup"), r.get("gpu"), r.get("device"), r["message"])
    for i in range(4):
        r = results[f"good{i}"]
        ok &= r["verdict"] == "pass" and r.get("speedup", 0) > 0 and r.get("candidate_median_us", 0) > 0
        ok &= r.get("gpu") is not None and bool(r.get("device"))
    ok &= results["wrong"]["verdict"] not in ("pass", "compiled", "error")
    ok &= len(results) == 5
    for run, (rs, pids) in kept.items():
        print("kept pool, run", run, {k: r["verdict"] for k, r in sorted(rs.items())}, "actor pids", pids)
        ok &= {k: r["verdict"] for k, r in rs.items()} == {k: r["verdict"] for k, r in results.items()}
    ok &= len(kept) == 2 and kept[0][1] == kept[1][1] and len(kept[0][1]) == gpus
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
