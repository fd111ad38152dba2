"""Prints the short table of a device run from the JSON files in OUT_DIR.

usage: python3 bench/summarize.py OUT_DIR
"""
import json
import os
import sys


def load(out, name):
    path = os.path.join(out, name)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def row(what, value, limit=""):
    print(f"{what:<58} {value:>16} {limit:>14}")


def main():
    out = sys.argv[1]
    print(f"{'measure':<58} {'value':>16} {'target':>14}")
    c = load(out, "compile_bench.json")
    if c:
        row(f"kb_compile, fresh source, median ({c['image']} via {c['path']})", f"{c['miss_median_ms']:.1f} ms", "<= 40 ms")
        row("kb_compile, cache hit, median", f"{c['hit_median_ms']:.3f} ms", "<= 1 ms")
    for iso in ("in_process", "worker"):
        s = load(out, f"score_bench_{iso}.json")
        if s and "score_median_ms" in s:
            row(f"kb_context_create ({iso})", f"{s['context_create_ms']:.0f} ms")
            row(f"kb_score vector_add, first call ({iso})", f"{s['first_score_ms']:.0f} ms")
            row(f"kb_score vector_add, fresh candidate, median ({iso})", f"{s['score_median_ms']:.0f} ms",
                "<= 300 ms" if iso == "in_process" else "")
            row(f"  compile / correctness / timing / recheck ({iso})",
                f"{s['compile_median_ms']:.0f}/{s['correctness_median_ms']:.0f}/{s['timing_median_ms']:.0f}/"
                f"{s['recheck_median_ms']:.0f}")
    i = load(out, "isolation_bench.json")
    if i:
        for k, v in i.items():
            if isinstance(v, (int, float)):
                row(k, f"{v:.3f}")
    t = load(out, "timing_fidelity.json")
    if t:
        for r in t["rows"]:
            row(f"{r['task']}/{r['kernel']}: kbench / do_bench median", f"{r['kbench_over_do_bench']:.4f}", "within 3%")
            row(f"  kbench {r['kbench_median_us']:.1f} us, do_bench {r['do_bench_median_us']:.1f} us; run spread",
                f"{100 * r['kbench_run_spread']:.2f} %", "<= 1%")
    b = load(out, "compile_baselines.json")
    if b:
        row("Triton first-call JIT (vector add)", f"{b['triton_first_call_s'] * 1000:.0f} ms")
        if "torch_load_inline_s" in b:
            row("torch load_inline (vector add)", f"{b['torch_load_inline_s']:.1f} s")
    p = load(out, "compat_results.json")
    if p:
        for k in ("agreement_percent", "nvrtc_share_percent", "median_nvrtc_ms"):
            if k in p:
                row(f"compat corpus: {k}", f"{p[k]}")


if __name__ == "__main__":
    main()
