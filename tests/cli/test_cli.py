"""The kbench command-line tool, driven as a user drives it: help, exit codes,
--json on every path (errors and no GPU included), missing and wrong paths,
empty suites, the no-device notice and the missing-kernel hint.

Run by CTest (tests/cli/CMakeLists.txt) with KBENCH_CLI (the built binary) and
KBENCH_SOURCE_DIR set; each TestCase class is one CTest. Every run passes
--no-device where a GPU would change the behaviour, so the tests mean the same
on a machine with one.
"""
import json
import os
import subprocess
import tempfile
import unittest

CLI = os.environ["KBENCH_CLI"]
SRC = os.environ["KBENCH_SOURCE_DIR"]
TASK = os.path.join(SRC, "tasks", "elementwise", "vector_add_f32", "task.json")
TASK_DIR = os.path.join(SRC, "tasks", "elementwise", "vector_add_f32")
# A family of tasks: a suite small enough to compile on every test run.
FAMILY = os.path.join(SRC, "tasks", "elementwise")
CORRECT = os.path.join(TASK_DIR, "candidates", "correct.cu")
COMMANDS = ["info", "validate", "compile", "score", "suite"]
RAW_COMMANDS = ["extract", "report", "audit"]  # parse their own options (cmd_extract.cpp, cmd_report.cpp, ...)


def kbench(*args):
    """Runs the tool; returns (exit code, stdout, stderr)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True, errors="replace", timeout=300)
    return p.returncode, p.stdout, p.stderr


def write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


class Help(unittest.TestCase):
    def test_tool_help_lists_commands_and_exit_codes(self):
        for args in (["--help"], ["-h"], ["help"]):
            rc, out, _ = kbench(*args)
            self.assertEqual(rc, 0, args)
            for c in COMMANDS:
                self.assertIn(f"\n  {c}", out)
            self.assertIn("exit codes:", out)
            for code in ("  0  ", "  1  ", "  2  "):
                self.assertIn(code, out)

    def test_every_command_has_help_with_an_example(self):
        for c in COMMANDS:
            for args in ([c, "--help"], ["help", c], [c, "-h"]):
                rc, out, err = kbench(*args)
                self.assertEqual(rc, 0, (args, err))
                self.assertTrue(out.startswith(f"usage: kbench {c}"), out)
                self.assertIn("examples:\n  kbench " + c, out)
                self.assertIn("exit codes:", out)
                self.assertIn("--json", out)

    def test_commands_with_their_own_options_answer_help_too(self):
        for c in RAW_COMMANDS:
            for args in ([c, "--help"], ["help", c]):
                rc, out, err = kbench(*args)
                self.assertEqual(rc, 0, (args, err))
                self.assertTrue(out.startswith(f"usage: kbench {c}"), out)
                self.assertIn("examples:\n  kbench " + c, out)
            rc, out, _ = kbench("--help")
            self.assertIn(f"\n  {c} ", out)

    def test_help_lists_only_the_options_a_command_takes(self):
        _, out, _ = kbench("info", "--help")
        self.assertNotIn("--seed", out)
        _, out, _ = kbench("score", "--help")
        self.assertIn("--seed", out)

    def test_version(self):
        rc, out, _ = kbench("--version")
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"^kbench \d+\.\d+\.\d+\n$")
        rc, out, _ = kbench("--version", "--json")
        self.assertEqual(rc, 0)
        self.assertRegex(json.loads(out)["kbench_version"], r"^\d+\.\d+\.\d+$")


class Usage(unittest.TestCase):
    """Exit 2 for a wrong command line, with a pointer to --help."""

    def check(self, args, phrase):
        rc, out, err = kbench(*args)
        self.assertEqual(rc, 2, (args, out, err))
        self.assertEqual(out, "", "usage errors go to stderr")
        self.assertIn(phrase, err)
        self.assertIn("--help", err)
        rc, out, err = kbench(*args, "--json")
        self.assertEqual(rc, 2, args)
        doc = json.loads(out)
        self.assertEqual(doc["error"]["kind"], "usage")
        self.assertIn(phrase, doc["error"]["message"])

    def test_no_command(self):
        self.check([], "no command given")

    def test_unknown_command_suggests_the_closest(self):
        self.check(["scroe"], "did you mean 'score'?")

    def test_unknown_option(self):
        self.check(["info", "--frobnicate"], "unknown option '--frobnicate'")

    def test_option_that_does_not_apply(self):
        self.check(["info", "--seed", "3"], "--seed does not apply to 'info'")

    def test_missing_arguments(self):
        self.check(["score", TASK], "score needs TASK CANDIDATE")
        self.check(["compile"], "compile needs TASK [CANDIDATE]")
        self.check(["validate"], "validate needs at least one task file")

    def test_bad_number(self):
        self.check(["score", "--budget-ms", "lots", TASK, CORRECT], "--budget-ms expects a number")


class Paths(unittest.TestCase):
    """A missing path, a directory for a file, an empty suite: exit 1, never 0."""

    def test_missing_task_and_candidate(self):
        for args, phrase in ((["compile", "/no/such/task.json"], "task '/no/such/task.json'"),
                             (["compile", TASK, "/no/such.cu"], "candidate '/no/such.cu'"),
                             (["score", "--no-device", TASK, "/no/such.cu"], "candidate '/no/such.cu'"),
                             (["validate", "/no/such/task.json"], "/no/such/task.json")):
            rc, out, err = kbench(*args)
            self.assertEqual(rc, 1, (args, out, err))
            self.assertIn(phrase, out + err)
            self.assertIn("No such file", out + err)

    def test_directory_where_a_file_is_expected(self):
        rc, out, err = kbench("compile", TASK_DIR)
        self.assertEqual(rc, 1)
        self.assertIn("is a directory", err)
        self.assertIn("did you mean '" + TASK_DIR + "/task.json'?", err)
        rc, out, err = kbench("compile", TASK, TASK_DIR)
        self.assertEqual(rc, 1)
        self.assertIn("candidate '" + TASK_DIR + "' is a directory", err)
        # validate takes folders: a task's folder stands for its task.json, and
        # a folder without any task is an error.
        rc, out, err = kbench("validate", "--no-device", TASK_DIR)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("OK       " + TASK, out)
        with tempfile.TemporaryDirectory() as empty:
            rc, out, err = kbench("validate", "--no-device", empty)
            self.assertEqual(rc, 1)
            self.assertIn("no task under", err)

    def test_empty_or_missing_suite(self):
        with tempfile.TemporaryDirectory() as empty:
            rc, out, err = kbench("suite", "--no-device", empty)
            self.assertEqual(rc, 1)
            self.assertIn("empty suite: no task under", err)
            os.makedirs(os.path.join(empty, "t", "candidates"))
            write(os.path.join(empty, "t"), "task.json", open(TASK).read())
            rc, out, err = kbench("suite", "--no-device", empty)
            self.assertEqual(rc, 1)
            self.assertIn("but no candidates", err)
        rc, out, err = kbench("suite", "--no-device", "/no/such/folder")
        self.assertEqual(rc, 1)
        self.assertIn("No such file", err)
        rc, out, err = kbench("suite", "--no-device", TASK)
        self.assertEqual(rc, 1)
        self.assertIn("expected a folder", err)


class Json(unittest.TestCase):
    """--json: exactly one JSON document on stdout, whatever happens."""

    def doc(self, *args, rc):
        code, out, err = kbench(*args, "--json")
        self.assertEqual(code, rc, (args, out, err))
        try:
            return json.loads(out)
        except json.JSONDecodeError as e:
            self.fail(f"kbench {' '.join(args)} --json printed invalid JSON ({e}): {out!r}")

    def test_success_documents(self):
        self.assertIsNone(self.doc("info", "--no-device", rc=0)["device"])
        self.assertTrue(self.doc("validate", "--no-device", TASK, rc=0)[0]["ok"])
        self.assertEqual(self.doc("compile", TASK, CORRECT, rc=0)[0]["image"], "ptx")
        suite = self.doc("suite", "--no-device", FAMILY, rc=0)
        self.assertEqual(suite["mismatches"], 0)
        self.assertGreater(suite["candidates"], 0)

    def test_failure_documents(self):
        self.assertEqual(self.doc("compile", "/no/such/task.json", rc=1)["error"]["status"], "i/o error")
        self.assertEqual(self.doc("suite", "/no/such/folder", rc=1)["error"]["kind"], "failure")
        self.assertEqual(self.doc("validate", "/no/such/task.json", rc=1)["error"]["status"], "i/o error")
        with tempfile.TemporaryDirectory() as tmp:
            bad_task = write(tmp, "task.json", '{"format": "kbench-task/1"}')
            self.assertFalse(self.doc("validate", "--no-device", bad_task, rc=1)[0]["ok"])

    def test_score_without_a_device(self):
        d = self.doc("score", "--no-device", TASK, CORRECT, rc=1)
        self.assertIsNone(d["verdict"])
        self.assertEqual(d["error"]["status"], "no device")
        self.assertEqual(d["compile"]["image"], "ptx")

    def test_candidates_that_fail(self):
        with tempfile.TemporaryDirectory() as tmp:
            binary = write(tmp, "ls.cu", open("/bin/sh", "rb").read()[:4096])
            latin1 = write(tmp, "latin1.cu", b"// caf\xe9\n" + open(CORRECT, "rb").read())
            broken = write(tmp, "broken.cu", "__global__ void vector_add(float* a) { a[0] = oops; }\n")
            # Empty candidates are the author's compile error, not the task's fault nor kbench's.
            empty_cu = write(tmp, "empty.cu", "")
            empty_py = write(tmp, "empty.py", "\n  \n")
            for cand, phrase in ((binary, "binary file"), (latin1, "not UTF-8"), (broken, "oops"),
                                 (empty_cu, "empty.cu is empty"), (empty_py, "empty.py is empty")):
                d = self.doc("compile", TASK, cand, rc=1)
                self.assertFalse(d[0]["ok"])
                self.assertIn(phrase, d[0]["error"])
                self.assertEqual(d[0]["status"], "compile error", d)
                s = self.doc("score", "--no-device", TASK, cand, rc=1)
                self.assertEqual(s["verdict"], "compile_error")
                self.assertIn(phrase, s["compile"]["error"])


class NoDevice(unittest.TestCase):
    """Without a GPU: one short line on stderr, nothing on stdout that lies."""

    def one_line(self, err):
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("kbench: no CUDA device (--no-device): "), err)
        self.assertLess(len(lines[0]), 120, err)

    def test_score_compiles_and_fails(self):
        rc, out, err = kbench("score", "--no-device", TASK, CORRECT)
        self.assertEqual(rc, 1, "a score without a verdict is not a pass")
        self.one_line(err)
        self.assertIn("not run (no device)", out)
        rc, out, err = kbench("score", "--no-device", "--json", TASK, CORRECT)
        self.one_line(err)

    def test_validate_and_suite(self):
        rc, out, err = kbench("validate", "--no-device", TASK)
        self.assertEqual(rc, 0)
        self.one_line(err)
        rc, out, err = kbench("suite", "--no-device", FAMILY)
        self.assertEqual(rc, 0, out)
        self.one_line(err)

    def test_compile_needs_no_device_and_says_nothing(self):
        rc, out, err = kbench("compile", "--no-device", TASK, CORRECT)
        self.assertEqual(rc, 0)
        self.assertEqual(err, "")


class KernelHint(unittest.TestCase):
    """A wrong kernel name: one hint, pointing the way the user can act."""

    def test_task_plan_asks_to_rename_the_kernel(self):
        with tempfile.TemporaryDirectory() as tmp:
            code = open(CORRECT).read().replace("vector_add(", "vadd(")
            cand = write(tmp, "vadd.cu", code)
            rc, out, err = kbench("compile", TASK, cand)
            self.assertEqual(rc, 1)
            self.assertEqual(out.count("Name your kernel 'vector_add'"), 1, out)
            self.assertNotIn("Did you mean", out)

    def test_own_plan_asks_about_the_plans_spelling(self):
        plan = json.dumps({"launch": [{"kernel": "vector_ad", "grid": "ceil_div(n, 256)", "block": 256,
                                       "args": ["a", "b", "c", "n"]}]})
        rc, out, err = kbench("compile", "--launch", plan, TASK, CORRECT)
        self.assertEqual(rc, 1)
        self.assertEqual(out.count("Did you mean 'vector_add'?"), 1, out)
        self.assertNotIn("Name your kernel", out)


class ErrorShape(unittest.TestCase):
    """Every command's errors with --json: exactly one document on stdout,
    {"error": {"kind", "status", "message"}} (README, "The command-line
    tool"), and the README's exit codes: 2 for a wrong command line, 1 for
    invalid input (a missing file included) or a failure."""

    def cases(self, tmp):
        out = os.path.join(tmp, "r.jsonl")
        tasks = os.path.join(SRC, "tasks")
        bad_lines = write(tmp, "bad.jsonl", '{"task": "vector_add_f32", "id": 1, "answr": "x"}\n')
        return [
            (["nosuchcommand"], 2), ([], 2),
            (["info", "--frobnicate"], 2),
            (["validate"], 2), (["validate", "/no/such/task.json"], 1), (["validate", "/no/such/folder/"], 1),
            (["validate", tmp], 1),  # a folder without tasks
            (["compile"], 2), (["compile", "/no/such/task.json"], 1), (["compile", TASK, "/no/such.cu"], 1),
            (["score", TASK], 2), (["score", "--no-device", "/no/such/task.json", CORRECT], 1),
            (["score", "--no-device", TASK, "/no/such.cu"], 1),
            (["suite"], None), (["suite", "/no/such/folder"], 1), (["suite", "--frobnicate", FAMILY], 2),
            (["extract", "--frobnicate", "x"], 2), (["extract", "/no/such/answer.txt"], 1),
            (["run"], 2), (["run", "--tasks", tasks, "--candidates", "/no/such.jsonl", "--out", out], 1),
            (["run", "--compile-only", "--tasks", tasks, "--candidates", bad_lines, "--out", out], 1),
            (["report"], 2), (["report", "/no/such/results.jsonl"], 1),
            (["import"], 2), (["import", "nosuchbenchmark", "x.py"], 2), (["import", "kernelbench", "/no/such.py"], 1),
            (["import", "kernelbench", tmp], 1),  # a folder without problem files
            (["devices", "--frobnicate"], 2),
            (["sweep"], 2), (["sweep", "/no/such/task", CORRECT, "--dim", "n=1024..2048", "--dry-run"], 1),
            (["audit"], 2), (["audit", "--frobnicate", TASK], 2), (["audit", "/no/such/task.json"], 1),
        ]

    def test_every_command_error_is_one_document(self):
        _, help_text, _ = kbench("--help")
        with tempfile.TemporaryDirectory() as tmp:
            cases = self.cases(tmp)
            tried = {args[0] for args, _ in cases if args}
            for line in help_text.split("commands:")[-1].split("\n\n")[0].splitlines()[1:]:
                name = line.split()[0] if line.startswith("  ") and line.strip() else None
                if name and name not in ("help",):
                    self.assertIn(name, tried, f"no error case for `kbench {name}` here")
            for args, rc in cases:
                if rc is None:
                    continue
                for where in (args + ["--json"], ["--json"] + args):
                    code, out, err = kbench(*where)
                    self.assertEqual(code, rc, (where, out, err))
                    try:
                        doc = json.loads(out)
                    except json.JSONDecodeError as e:
                        self.fail(f"kbench {' '.join(where)} printed no single JSON document ({e}): {out!r} {err!r}")
                    self.assertIsInstance(doc, dict, (where, out))
                    e = doc.get("error")
                    self.assertIsInstance(e, dict, (where, out))
                    for key in ("kind", "status", "message"):
                        self.assertIsInstance(e.get(key), str, (where, key, out))
                        self.assertTrue(e[key], (where, key, out))
                    self.assertEqual(e["kind"] == "usage", rc == 2, (where, out))

    def test_bad_lines_are_inside_the_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = write(tmp, "bad.jsonl", '{"task": "vector_add_f32", "id": 1, "answr": "x"}\n')
            code, out, _ = kbench("run", "--json", "--compile-only", "--tasks", os.path.join(SRC, "tasks"),
                                  "--candidates", bad, "--out", os.path.join(tmp, "r.jsonl"))
            self.assertEqual(code, 1)
            e = json.loads(out)["error"]
            self.assertEqual(e["errors"][0]["line"], 1)
            self.assertIn("answer", e["errors"][0]["message"])


class HelpExamples(unittest.TestCase):
    """Every example of every command's --help runs, from a folder that
    holds a few of the built-in tasks under tasks/ and the files a user
    brings (USER_FILES), so that no example names a path that is not there.
    Without a GPU an example may fail only for that reason (or for the Ray
    cluster it names); never with a usage error or a missing file."""

    # The files an example may name as the user's own: (name, made from).
    USER_FILES = {
        "my_kernel.cu": "tasks/elementwise/vector_add_f32/candidates/correct.cu",
        "add.cu": "tasks/elementwise/vector_add_f32/candidates/correct.cu",
        "k.cu": "tasks/gemm/gemm_f16/candidates/correct.cu",
        "my_task.json": None,  # vector_add_f32's task.json, its reference beside it
        "my_tasks": None,  # a folder of tasks
        "answer.txt": None, "answers.jsonl": None, "results.jsonl": None,
        "23_Softmax.py": None, "softmax_triton.py": None, "my_matmul.py": None,
        "KernelBench/level1": None,  # a folder of KernelBench problems
    }
    # What examples write.
    OUTPUTS = {"results.jsonl", "calls.jsonl", "report.html"}
    ENVIRONMENT = r"(?i)no (CUDA )?device|no GPU|GPUs?\b|\bray\b|cannot start or reach"

    def sandbox(self, tmp):
        import shutil
        for t in ("elementwise/vector_add_f32", "gemm/gemm_f16"):
            shutil.copytree(os.path.join(SRC, "tasks", t), os.path.join(tmp, "tasks", t))
        for name, src in self.USER_FILES.items():
            if src:
                shutil.copy(os.path.join(SRC, src), os.path.join(tmp, name))
        for f in ("task.json", "reference.cu"):
            shutil.copy(os.path.join(TASK_DIR, f), os.path.join(tmp, f if f != "task.json" else "my_task.json"))
        shutil.copytree(TASK_DIR, os.path.join(tmp, "my_tasks", "vector_add_f32"))
        code = open(CORRECT).read()
        write(tmp, "answer.txt", f"Here it is:\n\n```cuda\n{code}```\n")
        write(tmp, "answers.jsonl", json.dumps({"task": "vector_add_f32", "id": 1, "model": "m",
                                                "answer": f"```cuda\n{code}```"}) + "\n")
        write(tmp, "23_Softmax.py", "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                                    "    def forward(self, x):\n        return torch.softmax(x, dim=1)\n\n\n"
                                    "batch_size = 16\ndim = 16384\n\n\ndef get_inputs():\n"
                                    "    return [torch.randn(batch_size, dim)]\n\n\ndef get_init_inputs():\n"
                                    "    return []\n")
        write(tmp, "softmax_triton.py", "import torch\n\n\nclass ModelNew(torch.nn.Module):\n"
                                        "    def forward(self, x):\n        return torch.softmax(x, dim=1)\n")
        os.makedirs(os.path.join(tmp, "KernelBench", "level1"))
        shutil.copy(os.path.join(tmp, "23_Softmax.py"), os.path.join(tmp, "KernelBench", "level1"))
        write(tmp, "my_matmul.py", "import torch\n\n\ndef matmul(a, b):\n    return a @ b\n")
        rc, _, err = kbench("run", "--compile-only", "--tasks", os.path.join(tmp, "tasks"), "--candidates",
                            os.path.join(tmp, "answers.jsonl"), "--out", os.path.join(tmp, "results.jsonl"))
        self.assertEqual(rc, 0, err)

    def examples(self):
        """(command, example) for every example line of every help text."""
        _, help_text, _ = kbench("--help")
        names = [l.split()[0] for l in help_text.split("commands:")[-1].split("\n\n")[0].splitlines()[1:]
                 if l.startswith("  ") and l.strip()]
        self.assertIn("compile", names)
        out = []
        for name in names:
            rc, text, err = kbench(name, "--help")
            self.assertEqual(rc, 0, (name, err))
            block = text.split("examples:\n", 1)
            self.assertEqual(len(block), 2, f"`kbench {name} --help` has no examples")
            current = None
            for line in block[1].splitlines():
                if line.startswith("  kbench "):
                    current = [line[2:]]
                    out.append((name, current))
                elif line.startswith("    ") and current is not None:
                    current.append(line[4:])  # a continued example
                else:
                    current = None
        return [(n, "\n".join(lines)) for n, lines in out]

    def test_every_help_example_names_real_paths_and_runs(self):
        import re
        import shlex
        import shutil
        have_jq = shutil.which("jq") is not None
        examples = self.examples()
        self.assertGreater(len(examples), 20)
        with tempfile.TemporaryDirectory() as tmp:
            self.sandbox(tmp)
            for name, example in examples:
                command = re.sub(r"\s+#[^'\n]*$", "", example)  # the comment after it
                words = shlex.split(command.split(" | ")[0])
                for w in words[1:]:
                    if w.startswith("-") or w.startswith("{"):
                        continue
                    if w.startswith("tasks/"):
                        self.assertTrue(os.path.exists(os.path.join(SRC, w)), f"{example!r} names {w}: not in the repository")
                    elif re.search(r"\.(cu|py|json|jsonl|txt|html)$", w) or "/" in w:
                        self.assertTrue(w in self.USER_FILES or w in self.OUTPUTS or os.path.exists(os.path.join(tmp, w)),
                                        f"{example!r} names {w}, which is neither the repository's nor a user file")
                if not have_jq:
                    command = command.split(" | jq")[0]
                shell = "set -o pipefail; " + command.replace("kbench ", shlex.quote(CLI) + " ", 1)
                p = subprocess.run(["bash", "-c", shell], cwd=tmp, capture_output=True, text=True, timeout=600,
                                   errors="replace")
                both = p.stdout + p.stderr
                self.assertNotEqual(p.returncode, 2, f"{example!r}: usage error: {both[-2000:]}")
                # (the missing driver's own "No such file" is the missing GPU)
                files = both.replace("cannot open shared object file: No such file or directory", "")
                self.assertNotRegex(files, r"(?i)no such file", f"{example!r}: {both[-2000:]}")
                if p.returncode != 0:
                    self.assertRegex(both, self.ENVIRONMENT, f"{example!r} failed ({p.returncode}) for a reason "
                                                             f"other than the missing GPU: {both[-2000:]}")


RELU_PROBLEM = ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
                "        return torch.relu(x)\n\n\nbatch_size = 16\ndim = 4096\n\n\ndef get_inputs():\n"
                "    return [torch.randn(batch_size, dim)]\n\n\ndef get_init_inputs():\n    return []\n")


def python_has_torch():
    python = os.environ.get("KBENCH_PYTHON", "python3")
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


class ExitCodes(unittest.TestCase):
    def test_an_imported_task_compiles_without_failures(self):
        # Its reference is Python: nothing to compile, no C API jargon, exit 0.
        with tempfile.TemporaryDirectory() as tmp:
            problem = write(tmp, "19_ReLU.py", RELU_PROBLEM)
            rc, out, err = kbench("import", "kernelbench", problem, "-o", os.path.join(tmp, "out"), "--no-validate")
            self.assertEqual(rc, 0, err)
            task = out.split(":")[0]
            rc, out, err = kbench("compile", task)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("not compiled", out)
            for jargon in ("kb_score", "FAILED"):
                self.assertNotIn(jargon, out + err)
            d = json.loads(kbench("compile", "--json", task)[1])
            self.assertEqual(d[0]["language"], "python")

    def test_a_program_answer_compiles_by_its_import(self):
        # kbench compile TASK answer.py of an imported task imports the
        # ModelNew in a Python worker: its syntax error names its line, with
        # or without torch; a correct one imports with torch, and without it
        # the error says torch is missing, never blaming the answer.
        with tempfile.TemporaryDirectory() as tmp:
            problem = write(tmp, "19_ReLU.py", RELU_PROBLEM)
            rc, out, err = kbench("import", "kernelbench", problem, "-o", os.path.join(tmp, "out"), "--no-validate")
            self.assertEqual(rc, 0, err)
            task = out.split(":")[0]
            broken = write(tmp, "broken.py", "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x)\n"
                                             "        return x\n")
            rc, out, err = kbench("compile", "--no-device", task, broken)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("SyntaxError", out + err)
            self.assertIn("line 5", out + err)
            good = write(tmp, "good.py", "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
                                         "        return torch.relu(x)\n")
            rc, out, err = kbench("compile", "--no-device", task, good)
            if python_has_torch():
                self.assertEqual(rc, 0, out + err)
                self.assertIn("imported", out)
            else:
                self.assertEqual(rc, 1, out + err)
                self.assertIn("has no torch", out + err)
                self.assertNotIn("compile_error", out + err)
            d = json.loads(kbench("compile", "--json", "--no-device", task, broken)[1])
            self.assertFalse(d[0]["ok"])
            self.assertEqual(d[0]["verdict"], "compile_error")

    def test_import_without_torch_says_what_was_not_done(self):
        if python_has_torch():
            self.skipTest("torch is installed: the references are run")
        with tempfile.TemporaryDirectory() as tmp:
            problem = write(tmp, "19_ReLU.py", RELU_PROBLEM)
            rc, out, err = kbench("import", "kernelbench", problem, "-o", os.path.join(tmp, "out"))
            self.assertEqual(rc, 0, err)
            self.assertIn("not validated (no torch)", out)
            self.assertIn("torch is not installed", err)
            self.assertIn("kernel signature", err)
            rc, out, err = kbench("import", "--json", "kernelbench", problem, "-o", os.path.join(tmp, "out2"))
            self.assertEqual(rc, 0, err)
            doc = json.loads(out)
            self.assertFalse(doc["tasks"][0]["validated"])
            self.assertIn("torch is not installed", doc["notices"][0])

    def test_torch_for_programs_is_one_documented_command(self):
        # pyproject's extra and setup.sh's pins agree, and docs/programs.md names both.
        import re
        pyproject = open(os.path.join(SRC, "pyproject.toml")).read()
        extra = re.search(r"^programs = \[(.*)\]$", pyproject, re.M)
        self.assertIsNotNone(extra, "pyproject.toml has no `programs` extra")
        setup = open(os.path.join(SRC, "scripts", "setup.sh")).read()
        pinned = re.search(r"^triton_version=(\S+)$", setup, re.M).group(1)
        self.assertIn(f'"triton=={pinned}"', extra.group(1))
        self.assertIn('"torch', extra.group(1))
        self.assertIn("KBENCH_TORCH", setup)
        docs = open(os.path.join(SRC, "docs", "programs.md")).read()
        self.assertIn("pip install '.[programs]'", docs)
        self.assertIn("KBENCH_TORCH=1 bash scripts/setup.sh", docs)

    def test_ok_and_failures(self):
        self.assertEqual(kbench("compile", TASK, CORRECT)[0], 0)
        self.assertEqual(kbench("validate", "--no-device", TASK)[0], 0)
        with tempfile.TemporaryDirectory() as tmp:
            bad_task = write(tmp, "task.json", '{"format": "kbench-task/1"}')
            rc, out, err = kbench("validate", "--no-device", bad_task)
            self.assertEqual(rc, 1)
            self.assertIn("INVALID", out)
            broken = write(tmp, "broken.cu", "__global__ void vector_add(float* a) { a[0] = oops; }\n")
            self.assertEqual(kbench("compile", TASK, broken)[0], 1)


if __name__ == "__main__":
    unittest.main()
