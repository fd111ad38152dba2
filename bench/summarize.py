"""Writes bench/RESULTS.md, and summarises one device run.

    python3 bench/summarize.py --write    bench/RESULTS.md from bench/results.json
    python3 bench/summarize.py --check    exit 1 when bench/RESULTS.md is not what --write writes
    python3 bench/summarize.py OUT_DIR [--markdown FILE --date D --command C]

bench/results.json holds the latest figures of each benchmark (its source, its
command, a table of date, GPU, commit and figures); RESULTS.md is its
rendering, and git keeps the figures' history. With OUT_DIR, the short table
of the JSON files bench/run_device.sh leaves there; with --markdown, the same
figures as a Markdown file. Every number printed comes from those files:
nothing is typed in by hand.
"""
import argparse
import json
import os
import re
import sys


def load(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return None


# Targets of the isolation benchmark's figures (issue 3).
ISOLATION_TARGETS = {
    "a_worker_over_inprocess_ratio": "<= 1.25",
    "b_crash_to_healthy_verdict_median_ms": "<= 500",
    "b_crash_to_healthy_verdict_max_ms": "<= 500",
    "c_hang_overshoot_max_ms": "<= 500",
    "d_wrong_verdicts": "0",
    "d_device_free_drift_mib": "flat",
    "host_survived": "true",
    "wrong_verdicts_total": "0",
}


SECTION_NOTES = {
    "Worker isolation (issue 3)":
        "Keys as bench/isolation_bench.cpp writes them: a_ isolated against in-process kb_score of vector_add_f32; "
        "b_ a crashing candidate, then the time to the next healthy verdict (respawn included); c_ a hanging "
        "candidate against a 1 s deadline; d_ 1000 candidates in a row, 10% crashing, 2% hanging.",
    "Triton candidates (issue 9)":
        "bench/triton_bench.py: (a) kb_compile of examples/triton/vector_add with a fresh comment in the kernel "
        "each time (a real compile in a warm worker), then again (a cache hit); (b) kb_time (cold) of each "
        "tutorial candidate on its task's perf case against triton.testing.do_bench (median, cold L2) of the "
        "same kernel launched by Triton's JIT with the same constexprs and options, five runs each.",
    "KernelBench level-1 problems on kbench (issue 10)":
        "bench/kernelbench/: warm_bench.py scores each candidate N times in one kbench context, each a fresh "
        "variant (a comment in every @triton.jit body, so Triton compiles again), after one priming score; "
        "agreement.py scores each of the vendored KernelBench problems with its Triton candidate by kbench "
        "(kernelbench and strict protocols) and by KernelBench's own eval_kernel_against_ref (backend triton, "
        "5 correctness trials) in a fresh process, in the same run on the same GPU.",
    "Timing fidelity against triton.testing.do_bench on the same cubin (issue 2)":
        "kbench times the kernel with kb_time (cold, L2 flushed); CuPy loads the very cubin kbench compiled and "
        "do_bench (median mode, warmup 25 ms, rep 200 ms) times it in the same process. Five runs each.",
}


def collect(out):
    """(section, measure, value, target) rows."""
    rows = []
    s = "Tests on the device"
    for log, what in (("ctest_unit.log", "unit tests (ctest -L unit)"), ("ctest_gpu.log", "GPU tests (ctest -L gpu)"),
                      ("ctest_torch.log", "program-candidate tests on torch (ctest -L torch)")):
        text = read_text(out, log)
        # CTest writes "100% tests passed out of N", or "..., F tests failed out of N".
        m = re.search(r"\d+% tests passed(?:, (\d+) tests failed)? out of (\d+)", text or "")
        if m:
            failed, total = int(m.group(1) or 0), int(m.group(2))
            skipped = sorted(set(re.findall(r"\d+ - (\S+) \(Skipped\)", text)))
            rows.append((s, what, f"{total - failed - len(skipped)} passed, {failed} failed, {len(skipped)} skipped of {total}",
                         "0 failed"))
            if skipped:
                rows.append((s, "  skipped (toolchain or condition absent on the device)", ", ".join(skipped), ""))
    val = read_text(out, "validate.txt")
    if val:
        ok = len(re.findall(r"^OK ", val, re.M))
        bad = len(re.findall(r"^INVALID ", val, re.M))
        rows.append((s, "kbench validate tasks: references run on the device at two seeds", f"{ok} of {ok + bad} valid",
                     "all"))
    suite = read_text(out, "suite.txt")
    m = re.search(r"(\d+) candidate\(s\), (\d+) as expected", suite or "")
    if m:
        rows.append((s, "kbench suite tasks: candidates with the verdict they declare", f"{m.group(2)} of {m.group(1)}",
                     "all"))
    c = load(out, "compile_bench.json")
    if c:
        s = "Compilation (issue 2)"
        rows.append((s, f"kb_compile of a small kernel, fresh source, median of {c['iterations']} ({c['image']} via {c['path']})",
                     f"{c['miss_median_ms']:.1f} ms", "<= 40 ms"))
        rows.append((s, "kb_compile, memory-cache hit, median", f"{c['hit_median_ms']:.3f} ms", "<= 1 ms"))
        sh = c.get("shims")
        if sh:
            s4 = "nvcc compatibility corpus (issue 4)"
            for name, v in sh.items():
                if isinstance(v, dict):
                    rows.append((s4, f"time the nvcc conveniences add over plain NVRTC: {name} "
                                     f"({v['kbench_median_ms']:.1f} vs {v['raw_nvrtc_median_ms']:.1f} ms, via {v['path']})",
                                 f"{v['added_ms']:+.1f} ms", "<= 10 ms"))
    b = load(out, "compile_baselines.json")
    if b:
        s = "Compilation (issue 2)"
        if "torch_load_inline_s" in b:
            rows.append((s, "torch load_inline of the same kernel (KernelBench's path), fresh build dir",
                         f"{b['torch_load_inline_s']:.1f} s", "for comparison"))
        rows.append((s, "Triton first-call JIT of an equivalent kernel, fresh cache",
                     f"{b['triton_first_call_s'] * 1000:.0f} ms", "for comparison"))
    for iso in ("in_process", "worker"):
        sb = load(out, f"score_bench_{iso}.json")
        if sb and "score_median_ms" in sb:
            s = "kb_score of vector_add_f32 end to end (issue 2)"
            rows.append((s, f"kb_context_create ({iso})", f"{sb['context_create_ms']:.0f} ms", "recorded"))
            rows.append((s, f"first kb_score: reference compiled and run on every case ({iso})",
                         f"{sb['first_score_ms']:.0f} ms", ""))
            rows.append((s, f"kb_score, fresh candidate source, median of {sb['iterations']} ({iso})",
                         f"{sb['score_median_ms']:.0f} ms", "<= 300 ms" if iso == "in_process" else ""))
            rows.append((s, f"  of which compile / correctness / timing / recheck ({iso})",
                         f"{sb['compile_median_ms']:.0f} / {sb['correctness_median_ms']:.0f} / "
                         f"{sb['timing_median_ms']:.0f} / {sb['recheck_median_ms']:.0f} ms", ""))
    t = load(out, "timing_fidelity.json")
    if t:
        s = "Timing fidelity against triton.testing.do_bench on the same cubin (issue 2)"
        for r in t["rows"]:
            rows.append((s, f"{r['task']} {r['kernel']}: kbench median / do_bench median "
                            f"({r['kbench_median_us']:.1f} / {r['do_bench_median_us']:.1f} us)",
                         f"{r['kbench_over_do_bench']:.4f}", "1 +- 0.03"))
            rows.append((s, f"{r['task']} {r['kernel']}: spread of kbench's median over {t['repeats']} runs",
                         f"{100 * r['kbench_run_spread']:.2f} %", "<= 1 %"))
    tb = load(out, "triton_bench.json")
    if tb:
        s = "Triton candidates (issue 9)"
        c = tb["compile"]
        rows.append((s, f"Triton {tb.get('triton_version', '?')}: kb_compile of a one-variant Triton candidate, "
                        f"warm compile worker, median of {c['iterations']}",
                     f"{c['warm_compile_median_ms']:.0f} ms", "<= 300 ms"))
        rows.append((s, "  the same candidate again (cache hit)", f"{c['cache_hit_median_ms']:.2f} ms", "<= 2 ms"))
        rows.append((s, "  first compile of the process (starts the worker, imports triton)",
                     f"{c['first_compile_ms']:.0f} ms", ""))
        if c.get("triton_jit_first_call_ms") is not None:
            rows.append((s, "  Triton's own first-call JIT of the same kernel, fresh cache",
                         f"{c['triton_jit_first_call_ms']:.0f} ms", "for comparison"))
        for r in tb["timing"]:
            if "skipped" in r:
                rows.append((s, f"{r['task']}: {r['skipped']}", "-", ""))
                continue
            rows.append((s, f"{r['task']} ({r['kernel']}): kbench median / do_bench median "
                            f"({r['kbench_median_us']:.1f} / {r['do_bench_median_us']:.1f} us)",
                         f"{r['kbench_over_do_bench']:.4f}", "1 +- 0.03"))
            if r.get("speedup_over_baseline") is not None:
                rows.append((s, f"{r['task']} ({r['kernel']}): speedup over the task's baseline "
                                f"({r['baseline_median_us']:.1f} us)", f"{r['speedup_over_baseline']:.3f}", ""))
    i = load(out, "isolation_bench.json")
    if i:
        s = "Worker isolation (issue 3)"
        for k, v in i.items():
            target = ISOLATION_TARGETS.get(k, "")
            if isinstance(v, bool):
                rows.append((s, k, str(v).lower(), target))
            elif isinstance(v, (int, float)):
                rows.append((s, k, f"{v:.4g}", target))
    bb = load(out, "batch_bench.json")
    if bb and "batch_timed_per_s" in bb:
        s = "RL-loop throughput, one GPU, worker isolation, distinct candidates (issue 12)"
        rows.append((s, f"batch API, timed verdicts per second ({bb['n']} candidates of {bb['tasks']})",
                     f"{bb['batch_timed_per_s']:.1f} /s", ">= 50 /s (was 6.7)"))
        rows.append((s, "batch API, correctness-only verdicts per second",
                     f"{bb['batch_correctness_per_s']:.1f} /s", ">= 150 /s (was 19-21)"))
        if "batch_correctness_one_lane_per_s" in bb:
            rows.append((s, "  the same with one device lane (kb_batch_options.device_lanes = 1)",
                         f"{bb['batch_correctness_one_lane_per_s']:.1f} /s", ""))
        rows.append((s, "kb_score latency, timed, median", f"{bb['single_timed_ms']:.1f} ms", "<= 60 ms (was 148)"))
        rows.append((s, "kb_score latency, correctness only, median", f"{bb['single_correctness_ms']:.1f} ms",
                     "<= 20 ms (was 47-53)"))
        rows.append((s, "compile-error verdict, median", f"{bb['compile_error_ms']:.1f} ms", "<= 30 ms (was 440)"))
        rows.append((s, "cache-hit compile, median", f"{bb['cache_hit_compile_ms']:.3f} ms", "<= 1 ms"))
        rows.append((s, "context creation (worker isolation)", f"{bb['context_create_ms']:.0f} ms", "recorded (was 120-136)"))
        st = bb.get("batch_timed_stages_ms", {})
        if st:
            rows.append((s, "  batch, timed: mean compile / queue / correctness / timing / recheck",
                         " / ".join(f"{st.get(k + '_ms_mean', 0):.0f}" for k in
                                    ("compile", "queue", "correctness", "timing", "recheck")) + " ms", ""))
        tc = bb.get("timing_cost")
        if tc:
            def med(runs, key):
                v = sorted(r[key] for r in runs)
                return v[len(v) // 2]
            for name, how in (("cold_10ms", "cold, 10 ms budget, 1 ms warm-up, 1 % target"),
                              ("hot_10ms", "hot (CUDA graph), 10 ms budget, 1 ms warm-up, 1 % target"),
                              ("cold_defaults", "cold, the defaults"), ("hot_defaults", "hot (CUDA graph), the defaults")):
                runs = tc.get(name)
                if not runs:
                    continue
                worst = max(r["rel_noise"] for r in runs)
                lo, hi = min(r["median_us"] for r in runs), max(r["median_us"] for r in runs)
                rows.append((s, f"timing vector_add at n = 100003, {how}, {len(runs)} runs: median (range) / worst "
                                f"rel. noise / protocol wall, median and worst / kb_time call, median",
                             f"{med(runs, 'median_us'):.2f} us ({lo:.2f}-{hi:.2f}) / {100 * worst:.2f} % / "
                             f"{med(runs, 'wall_ms'):.1f}, {max(r['wall_ms'] for r in runs):.1f} ms / "
                             f"{med(runs, 'call_ms'):.1f} ms",
                             "1 % within 10 ms" if name.endswith("10ms") else ""))
        for suffix, deadline in (("", "kbench's computed deadlines"), ("_1s", "1 s deadline")):
            if "mixed_per_s" + suffix not in bb:
                continue
            rows.append((s, f"mixed stream ({bb['mixed_crashes' + suffix]} crashing, {bb['mixed_hangs' + suffix]} "
                            f"hanging of {bb['n']}; {deadline}): rate / clean rate",
                         f"{bb['mixed_per_s' + suffix]:.1f} / {bb['mixed_clean_per_s' + suffix]:.1f} /s = "
                         f"{100 * bb['mixed_ratio' + suffix]:.0f} %",
                         ">= 60 % (was 27 %, 1 s deadline)"))
            mc, cc = bb.get("mixed_correctness" + suffix), bb.get("mixed_clean_correctness" + suffix)
            if mc and cc and "pass" in cc:
                parts = [f"{v} {mc[v]['median_ms']:.0f}" for v in ("pass", "runtime_error", "timeout") if v in mc]
                rows.append((s, "  correctness stage per candidate, median ms, in that stream (the clean stream's "
                                "passes beside it)",
                             ", ".join(parts) + f" (clean: pass {cc['pass']['median_ms']:.0f})", ""))
    lr = load(out, "longrun.json")
    if lr and "checks" in lr:
        s = "Long run: one worker-isolated context, crashes and hangs among the candidates (issue 15)"
        v = lr.get("verdicts", {})
        rows.append((s, f"candidates scored ({lr['deadline_s']} s deadline): verdicts",
                     f"{lr['collected']} of {lr['n']}: " + ", ".join(f"{k} {n}" for k, n in sorted(v.items())),
                     "all with the expected verdict"))
        rows.append((s, "every verdict the expected one", str(lr["checks"]["verdicts"]).lower(), "true"))
        rows.append((s, "rate, candidates per second", f"{lr['per_s']:.1f} /s", ""))
        def mib(series, i):
            return f"{series[i] / 2**20:.0f}" if len(series) > i else "-"
        for key, label in (("rss_bytes", "this process's RSS"), ("family_rss_bytes", "RSS with its workers"),
                           ("device_used_bytes", "device memory in use")):
            ser = lr.get(key, [])
            rows.append((s, f"{label}, MiB: after 50 / 200 / last ({len(ser)} samples)",
                         f"{mib(ser, 0)} / {mib(ser, 3)} / {mib(ser, len(ser) - 1)}", "flat after 200"))
        for k in ("host_rss_flat", "family_rss_flat", "device_memory_flat"):
            rows.append((s, f"check {k}", str(lr["checks"][k]).lower(), "true"))
        rows.append((s, "processes left after kb_context_destroy", str(len(lr.get("leftover_processes", []))), "0"))
        rows.append((s, "worker respawns (most seen in a result)", str(lr.get("max_respawns", 0)), ""))
    rb = load(out, "run_bench.json")
    if rb and "wall_s" in rb:
        s = "kbench run: a candidates file end to end (issue 11)"
        how = "compile-only (a check of the script, not the benchmark)" if rb.get("compile_only") else \
            f"worker isolation, GPUs {rb['gpus']}" + (f", {rb['timeout_s']} s deadline" if rb.get("timeout_s") else "")
        rows.append((s, f"{rb['n']} mixed answers (bench/make_answers.py), {how}: "
                        "candidates per second, process start to exit",
                     f"{rb['per_s_end_to_end']} /s" if rb.get("per_s_end_to_end") else "-", ">= 20 /s"))
        rows.append((s, "  wall time / exit status / lines written (all whole)",
                     f"{rb['wall_s']:.1f} s / {rb['rc']} / {rb['lines']} ({str(rb['lines_whole']).lower()})", ""))
        rows.append((s, "lines with the verdict their meta expects", f"{rb['expected_verdicts']} of {rb['n']}", "all"))
        for k, v in sorted(rb.get("mismatches", {}).items()):
            rows.append((s, f"  expected -> got: {k}", str(v), ""))
        it = rb.get("interrupt") or {}
        if it:
            rows.append((s, f"SIGINT after {it['lines_at_signal']} lines: exit status, lines kept (all whole), "
                            "seconds to stop",
                         f"{it['rc']}, {it['lines_after_stop']} ({str(it['whole']).lower()}), {it['stop_after_signal_s']} s",
                         "130, whole"))
            rows.append((s, "  resumed: lines in the end, duplicates, every candidate present",
                         f"{it['final_lines']}, {it['duplicates']}, {str(it['complete']).lower()}", f"{rb['n']}, 0, true"))
    kw = load(out, "kernelbench_warm.json")
    if kw and "overall_fresh_compile_median_ms" in kw:
        s = "KernelBench level-1 problems on kbench (issue 10)"
        how = "warm Python worker, one context" if kw["warm"] else "NOT warm: `kbench score` per score"
        rows.append((s, f"a level-1 Triton candidate scored, Triton compile included ({how}, {kw['protocol']}): "
                        f"median of {sum(p['fresh_compile_ms']['n'] for p in kw['problems'])} scores of "
                        f"{len(kw['problems'])} problems", f"{kw['overall_fresh_compile_median_ms']:.0f} ms", "<= 1500 ms"))
        for p in kw["problems"]:
            f, same = p["fresh_compile_ms"], p["same_source_ms"]
            rows.append((s, f"  {p['problem']}: fresh compile median (min-max) / same source median / first score; "
                            f"verdicts {','.join(p['verdicts'])}",
                         f"{f['median']:.0f} ({f['min']:.0f}-{f['max']:.0f}) / {same['median'] if same else '-'} / "
                         f"{p['prime_ms']:.0f} ms", ""))
            if p.get("later_correctness_over_prime") is not None:
                rows.append((s, f"  {p['problem']}: correctness stage of later scores over the first "
                                f"(inputs and reference cached: < 1); cache fields {len(p['cache_fields'])}",
                             f"{p['later_correctness_over_prime']:.3f}", "< 1"))
    ka = read_text(out, "kernelbench_agreement.jsonl")
    if ka:
        s = "KernelBench level-1 problems on kbench (issue 10)"
        recs = [json.loads(ln) for ln in ka.splitlines() if ln.strip()]
        agree = [r for r in recs if r.get("agree") is True]
        disagree = [r["problem"] for r in recs if r.get("agree") is False]
        rows.append((s, f"kbench --protocol kernelbench verdicts agreeing with KernelBench's eval_kernel_against_ref "
                        f"({len(set(r.get('family') for r in recs))} families)",
                     f"{len(agree)} of {len(recs)}", "all"))
        if disagree:
            rows.append((s, "  disagreeing", ", ".join(disagree), ""))
        not_compared = [r["problem"] for r in recs if r.get("agree") is None]
        if not_compared:
            rows.append((s, "  not compared (a side errored or was skipped)", ", ".join(not_compared), ""))
        strict_pass = [r for r in recs if (r.get("kbench_strict") or {}).get("verdict") == "pass"]
        if any("kbench_strict" in r for r in recs):
            rows.append((s, "kbench strict protocol: candidates passing", f"{len(strict_pass)} of {len(recs)}", ""))

        def wall(side):
            w = sorted(r[side]["wall_s"] for r in recs if isinstance(r.get(side), dict) and r[side].get("wall_s"))
            return f"{w[len(w) // 2]:.1f}" if w else "-"
        overlapped = any(r.get("overlapped") for r in recs)
        rows.append((s, "median wall time per problem: kbench kernelbench / kbench strict / KernelBench harness"
                        + (" (harness beside kbench: not clean)" if overlapped else ""),
                     f"{wall('kbench_kernelbench')} / {wall('kbench_strict')} / {wall('kernelbench')} s", ""))
    dv = load(out, "devices.json")
    if dv and dv.get("devices"):
        s = "Device ceilings (kbench devices; what efficiency divides by)"
        for d in dv["devices"]:
            c = d["ceilings"]
            g = c["gemm_tflops"]
            rows.append((s, f"gpu {d['ordinal']} {d['name']}: device-to-device copy", f"{c['copy_gbps']:.0f} GB/s",
                         f"peak {d.get('peak_dram_gbps', 0):.0f}"))
            rows.append((s, "  cuBLAS GEMM 8192^3: f16 / bf16 / f32 (no TF32)",
                         f"{g['f16']:.0f} / {g['bf16']:.0f} / {g['f32']:.1f} TFLOP/s", ""))
    for name in ("sweep_gemm_f16_triton", "sweep_gemm_f16_wmma"):
        sw = load(os.path.join(out, "sweep"), name + ".json")
        if not sw:
            continue
        s = "kbench sweep: f16 matmul against cuBLAS over sizes (issue 11)"
        ok = [p for p in sw["points"] if "candidate" in p]
        if ok:
            best = max(ok, key=lambda p: p["candidate"]["value"])
            rows.append((s, f"{sw['candidate']} / {sw['baseline']}, best {sw['unit']} ({','.join(sw['dims'])}="
                            f"{best['size']}; {len(ok)} of {len(sw['points'])} sizes timed)",
                         f"{best['candidate']['value']:.0f} / {best.get('baseline', {}).get('value', float('nan')):.0f}",
                         "plot in bench/"))
    g = read_text(out, "nvrtc_vs_nvcc.log")
    if g:
        s = "nvcc compatibility corpus (issue 4)"
        ok = re.findall(r"\[       OK \] Issue4/NvrtcMatchesNvcc\.SameBitsOnTheDevice/(\w+)", g)
        bad = re.findall(r"\[  FAILED  \] Issue4/NvrtcMatchesNvcc\.SameBitsOnTheDevice/(\w+)", g)
        rows.append((s, "issue 4's cases compiled by NVRTC and by nvcc, run on the device: bit-identical outputs "
                        "(tests/gpu/test_nvrtc_matches_nvcc.cpp)", f"{len(ok)} of {len(ok) + len(set(bad))}", "all"))
        rows.append((s, "  cases", ", ".join(ok), ""))
    p = load(out, "compat_results.json")
    if p:
        s = "nvcc compatibility corpus (issue 4)"
        rows.append((s, f"compile-verdict agreement with nvcc ({p['files']} files)",
                     f"{p['verdict_agreement_pct']} %", "100 %"))
        rows.append((s, "share of nvcc-accepted files compiled by the NVRTC fast path",
                     f"{p['nvrtc_share_pct']} %", ">= 90 %"))
        rows.append((s, "median NVRTC compile (kbench path) / median nvcc",
                     f"{p['median_nvrtc_ms']} / {p['median_nvcc_ms']} ms", ""))
    return rows



HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS_JSON = os.path.join(HERE, "results.json")
RESULTS_MD = os.path.join(HERE, "RESULTS.md")
MAX_LINES = 400


def cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def render_results(doc):
    """RESULTS.md's text from results.json's document."""
    lines = ["# " + doc["title"], ""]
    for p in doc.get("intro", []):
        lines += [p, ""]
    for b in doc["benchmarks"]:
        cols = ["date", "GPU", "commit"] + b["columns"]
        lines += ["## %s (`%s`)" % (b["name"], b["source"]), "", "Command: `%s`" % b["command"], ""]
        if b.get("about"):
            lines += [b["about"], ""]
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("| " + " | ".join("---" for _ in cols) + " |")
        for r in b["rows"]:
            if len(r) != len(cols):
                raise ValueError("%s: a row of %d cells under %d columns: %r" % (b["name"], len(r), len(cols), r))
            lines.append("| " + " | ".join(cell(v) for v in r) + " |")
        lines.append("")
        for n in b.get("notes", []):
            lines += [n, ""]
    text = "\n".join(lines).rstrip("\n") + "\n"
    if text.count("\n") > MAX_LINES:
        raise ValueError("RESULTS.md would have %d lines, more than %d: keep the latest figures only"
                         % (text.count("\n"), MAX_LINES))
    return text


def results_main(check, source, target):
    with open(source) as f:
        doc = json.load(f)
    text = render_results(doc)
    if not doc["benchmarks"]:
        print("error: %s lists no benchmarks" % source)
        return 1
    if not check:
        with open(target, "w") as f:
            f.write(text)
        print("wrote %s (%d lines, %d benchmarks)" % (target, text.count("\n"), len(doc["benchmarks"])))
        return 0
    try:
        with open(target) as f:
            current = f.read()
    except OSError as e:
        print("error: %s" % e)
        return 1
    if current != text:
        import difflib
        diff = difflib.unified_diff(current.splitlines(), text.splitlines(), target, "written from " + source,
                                    lineterm="", n=1)
        for i, line in enumerate(diff):
            if i == 40:
                print("...")
                break
            print(line)
        print("error: %s is not what bench/summarize.py --write makes of %s; run it" % (target, source))
        return 1
    print("%s is current (%d lines, %d benchmarks)" % (target, text.count("\n"), len(doc["benchmarks"])))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--write", action="store_true", help="write RESULTS.md from results.json")
    ap.add_argument("--check", action="store_true", help="fail when RESULTS.md is not what --write writes")
    ap.add_argument("--results", default=RESULTS_JSON, help="the figures (default: bench/results.json)")
    ap.add_argument("--results-md", default=RESULTS_MD, help="the file written (default: bench/RESULTS.md)")
    ap.add_argument("--markdown")
    ap.add_argument("--date", default="")
    ap.add_argument("--command", default="bash bench/run_device.sh full")
    ap.add_argument("--device", default="")
    a = ap.parse_args()
    if a.write or a.check:
        return results_main(a.check, a.results, a.results_md)
    if not a.out:
        ap.error("give OUT_DIR, --write or --check")
    rows = collect(a.out)
    print(f"{'measure':<78} {'value':>22} {'target':>14}")
    for _, m, v, t in rows:
        print(f"{m[:78]:<78} {v:>22} {t:>14}")
    if a.markdown:
        lines = ["# Measured results", "",
                 "Written by `bench/summarize.py` from the JSON files of one device run; a later run "
                 "overwrites this file. Nothing here is typed in by hand.", "",
                 f"- date: {a.date}", f"- device: {a.device}", f"- command: `{a.command}`", ""]
        section = None
        for s, m, v, t in rows:
            if s != section:
                lines += ["", f"## {s}", ""]
                if s in SECTION_NOTES:
                    lines += [SECTION_NOTES[s], ""]
                lines += ["| measure | value | target |", "| --- | --- | --- |"]
                section = s
            lines.append(f"| {m} | {v} | {t} |")
        with open(a.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
