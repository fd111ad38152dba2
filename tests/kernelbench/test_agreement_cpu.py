#!/usr/bin/env python3
"""CPU tests of bench/kernelbench/ (kbench issue 10's agreement check), no
torch and no GPU needed:

* the vendored KernelBench problems are the 22 of the check, each with Model,
  get_inputs and get_init_inputs, each imported by kbench's importer with its
  own sizes as the perf case; the licence and provenance note are there;
* every candidate names a problem, defines ModelNew and a @triton.jit kernel,
  and every problem has one (when candidates/ exists);
* source_variant makes Triton compile afresh without changing the program;
* the agreement judgement, its table and exit status on canned records
  (a disagreement exits 1), and agreement.py end to end with a stand-in
  `kbench` CLI and a stand-in interpreter for KernelBench's harness.

    python3 tests/kernelbench/test_agreement_cpu.py [-v]
"""
import ast
import re
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KB = os.path.join(ROOT, "bench", "kernelbench")
PROBLEMS = os.path.join(KB, "problems")
CANDIDATES = os.path.join(KB, "candidates")
sys.path.insert(0, KB)
sys.path.insert(0, os.path.join(ROOT, "python", "kbench_programs"))

import agreement_table as at  # noqa: E402
import source_variant as sv  # noqa: E402
import kbench_importer as ki  # noqa: E402

PROBLEM_FILES = [
    "1_Square_matrix_multiplication_.py", "3_Batched_matrix_multiplication.py",
    "4_Matrix_vector_multiplication_.py", "5_Matrix_scalar_multiplication.py", "19_ReLU.py", "20_LeakyReLU.py",
    "21_Sigmoid.py", "26_GELU_.py", "88_MinGPTNewGelu.py", "23_Softmax.py", "24_LogSoftmax.py", "36_RMSNorm_.py",
    "37_FrobeniusNorm_.py", "40_LayerNorm.py", "47_Sum_reduction_over_a_dimension.py",
    "49_Max_reduction_over_a_dimension.py", "51_Argmax_over_a_dimension.py", "41_Max_Pooling_1D.py", "89_cumsum.py",
    "94_MSELoss.py", "96_HuberLoss.py", "100_HingeLoss.py",
]


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def top_level_names(path):
    tree = ast.parse(read(path), path)
    return {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}


class VendoredProblems(unittest.TestCase):
    def test_the_22_problems_and_nothing_else(self):
        have = sorted(f for f in os.listdir(PROBLEMS) if f.endswith(".py"))
        self.assertEqual(have, sorted(PROBLEM_FILES))

    def test_each_defines_model_and_its_inputs(self):
        for f in PROBLEM_FILES:
            with self.subTest(problem=f):
                self.assertLessEqual({"Model", "get_inputs", "get_init_inputs"},
                                     top_level_names(os.path.join(PROBLEMS, f)))

    def test_each_has_a_family(self):
        for f in PROBLEM_FILES:
            self.assertNotEqual(at.family(f[:-3]), "other", f)
        self.assertEqual(len(set(at.FAMILIES.values())), 8)

    def test_kbench_imports_each_with_its_own_sizes_as_the_perf_case(self):
        for f in PROBLEM_FILES:
            with self.subTest(problem=f):
                doc, source = ki.import_kernelbench_file(os.path.join(PROBLEMS, f), False)
                self.assertEqual(doc["perf_case"]["name"], "faithful")
                self.assertEqual(doc["reference"]["language"], "python")
                self.assertEqual(source, read(os.path.join(PROBLEMS, f)))

    def test_licence_and_provenance(self):
        for folder in (PROBLEMS, os.path.join(KB, "third_party", "kernelbench")):
            lic = read(os.path.join(folder, "LICENSE"))
            self.assertIn("MIT License", lic)
            readme = read(os.path.join(folder, "README.md"))
            self.assertIn("423217d9fda91e0c2d67e4a43bf62f96f6d104f1", readme)
            self.assertIn("ScalingIntelligence/KernelBench", readme)

    def test_harness_has_eval_kernel_against_ref(self):
        names = top_level_names(os.path.join(KB, "third_party", "kernelbench", "eval.py"))
        self.assertIn("eval_kernel_against_ref", names)
        # utils.py is the one file changed: it must not need the LLM clients.
        utils = read(os.path.join(KB, "third_party", "kernelbench", "utils.py"))
        for mod in ("openai", "litellm", "dotenv"):
            self.assertNotIn(f"import {mod}", utils.replace(f"from {mod}", f"import {mod}"))
        self.assertIn("def get_gpu_vendor", utils)


class Candidates(unittest.TestCase):
    def setUp(self):
        if not os.path.isdir(CANDIDATES):
            self.skipTest("bench/kernelbench/candidates/ is not there yet")
        # Candidates are named for their problem, whose stem starts with its
        # number; the folder's tools (check_on_cpu.py, ...) are not candidates.
        self.cands = sorted(f for f in os.listdir(CANDIDATES) if f.endswith(".py") and f[:1].isdigit())

    def test_every_candidate_names_a_problem(self):
        self.assertEqual(sorted(set(self.cands) - set(PROBLEM_FILES)), [])

    def test_every_problem_has_a_candidate(self):
        self.assertEqual(sorted(set(PROBLEM_FILES) - set(self.cands)), [])

    def test_each_is_a_triton_model_new(self):
        for f in self.cands:
            with self.subTest(candidate=f):
                src = read(os.path.join(CANDIDATES, f))
                self.assertIn("ModelNew", top_level_names(os.path.join(CANDIDATES, f)))
                self.assertTrue(sv.jit_function_body_lines(src), "no @triton.jit kernel")


TRITON_SOURCE = textwrap.dedent('''\
    import torch
    import triton
    import triton.language as tl


    @triton.autotune(configs=[triton.Config({"B": 128})], key=["n"])
    @triton.jit
    def scale_kernel(x_ptr, y_ptr, n, B: tl.constexpr):
        """y = 2 x"""
        i = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(y_ptr + i, 2 * tl.load(x_ptr + i, mask=i < n), mask=i < n)


    @triton.jit(do_not_specialize=["n"])
    def copy_kernel(x_ptr, y_ptr, n, B: tl.constexpr):
        i = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n), mask=i < n)


    def helper(x):
        return x


    class ModelNew(torch.nn.Module):
        def forward(self, x):
            return x
    ''')


class SourceVariant(unittest.TestCase):
    def kernel_sources(self, src):
        tree = ast.parse(src)
        return {n.name: ast.get_source_segment(src, n) for n in tree.body if isinstance(n, ast.FunctionDef)}

    def test_every_kernel_changes_and_nothing_else(self):
        v = sv.variant(TRITON_SOURCE, "7")
        self.assertEqual(ast.dump(ast.parse(v)), ast.dump(ast.parse(TRITON_SOURCE)))  # the same program
        before, after = self.kernel_sources(TRITON_SOURCE), self.kernel_sources(v)
        for k in ("scale_kernel", "copy_kernel"):
            self.assertNotEqual(before[k], after[k])
            self.assertIn("# kbench warm_bench variant 7", after[k])
        self.assertEqual(before["helper"], after["helper"])
        self.assertNotEqual(sv.variant(TRITON_SOURCE, "8"), v)

    def test_no_kernel_is_an_error(self):
        with self.assertRaises(ValueError):
            sv.variant("def f():\n    return 1\n", "1")


def side(verdict=None, correctness=None, error=None, wall=1.0):
    if error:
        return {"error": error, "wall_s": wall}
    if verdict is not None:
        return {"verdict": verdict, "runtime_ms": 0.5, "ref_runtime_ms": 1.0, "wall_s": wall}
    return {"compiled": True, "correctness": correctness, "runtime_ms": 0.5, "ref_runtime_ms": 1.0, "wall_s": wall}


def record(problem, kb_verdict, harness_correct, harness_error=None):
    return {"problem": problem, "kbench_kernelbench": side(kb_verdict), "kbench_strict": side("pass"),
            "kernelbench": side(correctness=harness_correct, error=harness_error)}


class AgreementLogic(unittest.TestCase):
    def test_agreement_of_a_record(self):
        self.assertTrue(at.agreement(record("19_ReLU", "pass", True)))
        self.assertTrue(at.agreement(record("19_ReLU", "wrong_answer", False)))
        self.assertFalse(at.agreement(record("19_ReLU", "pass", False)))
        self.assertFalse(at.agreement(record("19_ReLU", "runtime_error", True)))
        self.assertIsNone(at.agreement(record("19_ReLU", "pass", None, harness_error="timed out")))
        self.assertIsNone(at.agreement({"problem": "x", "kernelbench": side(correctness=True)}))

    def test_exit_status(self):
        ok = [record("19_ReLU", "pass", True), record("23_Softmax", "wrong_answer", False)]
        self.assertEqual(at.exit_code(ok), 0)
        self.assertEqual(at.exit_code(ok + [record("40_LayerNorm", "pass", False)]), 1)
        self.assertEqual(at.exit_code(ok + [record("40_LayerNorm", "pass", None, "crash")]), 2)
        # A disagreement outranks an error.
        self.assertEqual(at.exit_code([record("1_x", "pass", None, "crash"), record("2_y", "pass", False)]), 1)
        self.assertEqual(at.exit_code([]), 2)

    def test_table_rows(self):
        t = at.render([record("19_ReLU", "pass", True), record("40_LayerNorm", "pass", False)])
        rows = [ln for ln in t.splitlines() if ln.startswith("| 19_") or ln.startswith("| 40_")]
        self.assertEqual(len(rows), 2)
        self.assertIn("| activation | the problem's own | pass | correct | yes | pass |", rows[0])
        self.assertIn("| normalization | the problem's own | pass | incorrect | **NO** |", rows[1])
        self.assertIn("0.5 / 1", rows[0])
        self.assertIn("2 problem(s): 1 agree, 1 disagree, 0 not compared", t)

    def test_table_from_recorded_lines(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "lines.jsonl")
            for records, want in (([record("19_ReLU", "pass", True)], 0),
                                  ([record("19_ReLU", "pass", True), record("23_Softmax", "pass", False)], 1)):
                with open(path, "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in records)
                p = subprocess.run([sys.executable, os.path.join(KB, "agreement.py"), "--table-from", path],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, want, p.stdout + p.stderr)
                self.assertIn("| 19_ReLU | activation | the problem's own | pass | correct | yes |", p.stdout)


# A stand-in for `kbench score --json --protocol P PROBLEM CANDIDATE`: passes
# a candidate unless its text says `FAKE_KBENCH = "fail"`.
FAKE_KBENCH = '''\
import json, sys
args = sys.argv[1:]
protocol = args[args.index("--protocol") + 1]
cand = open(args[-1]).read()
ok = 'FAKE_KBENCH = "fail"' not in cand
stat = "mean" if protocol == "kernelbench" else "median"
doc = {"verdict": "pass" if ok else "wrong_answer", "message": "fake", "compile": {"ok": True},
       "stages": {"compile_ms": 1.0, "correctness_ms": 2.0, "timing_ms": 3.0, "recheck_ms": 0.0},
       "elapsed_ms": 6.0,
       "program": {"protocol": protocol, "import_ms": 0.5, "findings": [], "reference_warnings": [],
                   "timing": {"method": "cuda_events", "statistic": stat, "speedup": 2.0,
                              "excessive_speedup": False,
                              "candidate": {stat + "_ms": 0.25}, "reference": {stat + "_ms": 0.5}}}}
print(json.dumps(doc))
sys.exit(0 if ok else 1)
'''

# A stand-in for the interpreter running kb_harness_eval.py PROBLEM CANDIDATE:
# correct unless the candidate says `FAKE_HARNESS = "fail"`; hangs on "hang".
FAKE_PYTHON = '''\
import json, sys, time
script, problem, cand = sys.argv[1:4]
assert script.endswith("kb_harness_eval.py"), script
text = open(cand).read()
if 'FAKE_HARNESS = "hang"' in text:
    time.sleep(60)
print("[Eval] KernelBench's own chatter")
ok = 'FAKE_HARNESS = "fail"' not in text
print("KB_RESULT " + json.dumps({"compiled": True, "correctness": ok, "runtime_ms": 0.3 if ok else None,
                                 "ref_runtime_ms": 0.6 if ok else None, "eval_s": 0.1}))
'''


class AgreementEndToEnd(unittest.TestCase):
    """agreement.py's own loop: pairing, the CLI scorer, the harness process
    (its result line, its deadline), the JSON lines and the exit status."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.problems = os.path.join(d, "problems")
        self.cands = os.path.join(d, "candidates")
        os.makedirs(self.problems)
        os.makedirs(self.cands)
        for stem in ("19_ReLU", "23_Softmax", "40_LayerNorm"):
            write(os.path.join(self.problems, stem + ".py"), "# problem\n")
        self.kbench = self.script("kbench", FAKE_KBENCH)
        self.python = self.script("python", FAKE_PYTHON)

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, body):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(f"#!{sys.executable}\n" + body)
        os.chmod(path, 0o755)
        return path

    def candidate(self, stem, text):
        write(os.path.join(self.cands, stem + ".py"), text)

    def run_agreement(self, *extra):
        out = os.path.join(self.tmp.name, "lines.jsonl")
        p = subprocess.run([sys.executable, os.path.join(KB, "agreement.py"), "--via", "cli", "--kbench", self.kbench,
                            "--python", self.python, "--problems", self.problems, "--candidates", self.cands,
                            "--out", out, "--build", self.tmp.name, *extra], capture_output=True, text=True, timeout=120)
        lines = [json.loads(ln) for ln in read(out).splitlines()] if os.path.exists(out) else []
        return p, lines

    def test_agreeing_verdicts_exit_0(self):
        self.candidate("19_ReLU", "x = 1\n")
        self.candidate("23_Softmax", 'FAKE_KBENCH = "fail"\nFAKE_HARNESS = "fail"\n')
        p, lines = self.run_agreement()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual([r["problem"] for r in lines], ["19_ReLU", "23_Softmax"])
        relu = lines[0]
        self.assertEqual(relu["kbench_kernelbench"]["verdict"], "pass")
        self.assertEqual(relu["kbench_kernelbench"]["runtime_ms"], 0.25)   # the kernelbench protocol's mean
        self.assertEqual(relu["kbench_strict"]["statistic"], "median")
        self.assertEqual(relu["kernelbench"]["runtime_ms"], 0.3)
        self.assertGreater(relu["kernelbench"]["wall_s"], 0)
        self.assertEqual(lines[1]["kbench_kernelbench"]["verdict"], "wrong_answer")
        self.assertIn("problems without a candidate (not scored): 40_LayerNorm", p.stdout)

    def test_a_disagreement_exits_1(self):
        self.candidate("19_ReLU", "x = 1\n")
        self.candidate("40_LayerNorm", 'FAKE_HARNESS = "fail"\n')   # kbench passes it, KernelBench does not
        p, lines = self.run_agreement()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual([r["agree"] for r in lines], [True, False])
        self.assertIn("**NO**", p.stdout)

    def test_a_hanging_harness_is_an_error_not_an_agreement(self):
        self.candidate("23_Softmax", 'FAKE_HARNESS = "hang"\n')
        p, lines = self.run_agreement("--timeout", "2", "--skip-strict")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("timed out", lines[0]["kernelbench"]["error"])
        self.assertNotIn("kbench_strict", lines[0])

    def test_only_and_overlap(self):
        self.candidate("19_ReLU", "x = 1\n")
        self.candidate("23_Softmax", 'FAKE_HARNESS = "fail"\n')
        p, lines = self.run_agreement("--only", "^19_", "--overlap")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual([r["problem"] for r in lines], ["19_ReLU"])
        self.assertTrue(lines[0]["overlapped"])
        self.assertIn("not clean measurements", p.stdout)


class WarmBenchWithoutThePackage(unittest.TestCase):
    """Without kbench's Python package warm_bench.py measures the CLI and must
    not claim a warm worker or the target."""

    def test_cli_fallback_says_not_warm(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "build"))
            os.makedirs(os.path.join(d, "cands"))
            kb = os.path.join(d, "build", "kbench")
            write(kb, f"#!{sys.executable}\n" + FAKE_KBENCH)
            os.chmod(kb, 0o755)
            write(os.path.join(d, "cands", "19_ReLU.py"), TRITON_SOURCE)
            p = subprocess.run([sys.executable, os.path.join(KB, "warm_bench.py"), "--build", os.path.join(d, "build"),
                                "--candidates", os.path.join(d, "cands"), "-n", "2", "--same", "2"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual((doc["via"], doc["warm"], doc["meets_target"]), ("cli", False, False))
            relu = doc["problems"][0]
            self.assertEqual([x["series"] for x in relu["scores"]], ["prime", "fresh", "fresh", "same", "same"])
            self.assertEqual(relu["fresh_compile_ms"]["n"], 2)
            self.assertTrue(relu["all_pass"])



class ProblemSizes(unittest.TestCase):
    """problem_sizes.py: the smaller sizes agreement.py --scale-large runs."""

    def test_every_scaled_problem_exists_and_rewrites(self):
        import problem_sizes
        for stem, changes in problem_sizes.SCALED.items():
            with self.subTest(problem=stem):
                path = os.path.join(PROBLEMS, stem + ".py")
                self.assertTrue(os.path.exists(path))
                text = read(path)
                out = problem_sizes.rewrite(text, changes)
                for name, value in changes.items():
                    self.assertRegex(out, r"(?m)^%s\s*=\s*%s" % (re.escape(name), re.escape(value)))
                # Only the named constants' lines change.
                changed = [a for a, b in zip(text.splitlines(), out.splitlines()) if a != b]
                self.assertEqual(len(changed), len(changes))

    def test_a_missing_constant_is_an_error(self):
        import problem_sizes
        with self.assertRaises(KeyError):
            problem_sizes.rewrite("x = 1\n", {"batch_size": "8"})

    def test_comment_after_the_value_stays(self):
        import problem_sizes
        self.assertEqual(problem_sizes.rewrite("M = 256 * 8 # 2048\n", {"M": "128"}), "M = 128 # 2048\n")

if __name__ == "__main__":
    unittest.main()
