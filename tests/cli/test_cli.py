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
        self.assertFalse(self.doc("validate", "/no/such/task.json", rc=1)[0]["ok"])

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
            for cand, phrase in ((binary, "binary file"), (latin1, "not UTF-8"), (broken, "oops")):
                d = self.doc("compile", TASK, cand, rc=1)
                self.assertFalse(d[0]["ok"])
                self.assertIn(phrase, d[0]["error"])
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


class ExitCodes(unittest.TestCase):
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
