#!/usr/bin/env python3
"""bench/kernelbench/program_bench.py's task cache (--task-cache): a problem
is imported once and read back while its file and the importer are
unchanged; a changed problem or an unreadable entry is imported again. The
import itself (kbench.problem_task) is stood in for: it needs torch.

    python3 tests/kernelbench/test_task_cache.py [-v]
"""
import json
import os
import shutil
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "kernelbench"))

import program_bench as pb  # noqa: E402


class Task:
    def __init__(self, doc):
        self.doc = doc

    def json(self):
        return self.doc


class TaskCache(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.saved = sys.modules.get("kbench")
        sys.modules["kbench"] = types.SimpleNamespace(Task=Task)
        self.imported = []

        def import_tasks(paths, benchmark, build, jobs):
            self.imported.extend(os.path.basename(p) for p in paths)
            return [Task({"name": os.path.basename(p), "text": open(p).read()}) for p in paths]
        self.real_import, pb.import_tasks = pb.import_tasks, import_tasks
        self.paths = []
        for name in ("1_a.py", "2_b.py"):
            p = os.path.join(self.dir, name)
            with open(p, "w") as f:
                f.write("N = 4\n")
            self.paths.append(p)
        self.cache = os.path.join(self.dir, "cache")

    def tearDown(self):
        pb.import_tasks = self.real_import
        if self.saved is None:
            sys.modules.pop("kbench", None)
        else:
            sys.modules["kbench"] = self.saved

    def load(self):
        tasks, kept = pb.cached_tasks(self.paths, "kernelbench", "", 1, self.cache)
        return [t.json() for t in tasks], kept

    def test_a_problem_is_imported_once_and_again_when_it_changes(self):
        first, kept = self.load()
        self.assertEqual((self.imported, kept), (["1_a.py", "2_b.py"], 0))
        again, kept = self.load()
        self.assertEqual((self.imported, kept), (["1_a.py", "2_b.py"], 2))
        self.assertEqual(again, first)
        with open(self.paths[1], "w") as f:
            f.write("N = 8\n")
        changed, kept = self.load()
        self.assertEqual((self.imported[2:], kept), (["2_b.py"], 1))
        self.assertEqual(changed[1]["text"], "N = 8\n")
        # Another benchmark's import of the same file is its own.
        pb.cached_tasks(self.paths[:1], "tritonbench", "", 1, self.cache)
        self.assertEqual(self.imported[3:], ["1_a.py"])

    def test_an_unreadable_entry_or_no_cache_imports(self):
        self.load()
        with open(os.path.join(self.cache, "kernelbench", "1_a.json"), "w") as f:
            f.write("{not json")
        _, kept = self.load()
        self.assertEqual((self.imported[2:], kept), (["1_a.py"], 1))
        with open(os.path.join(self.cache, "kernelbench", "1_a.json")) as f:
            self.assertEqual(json.load(f)["task"]["name"], "1_a.py")
        tasks, kept = pb.cached_tasks(self.paths, "kernelbench", "", 1, "")
        self.assertEqual((len(tasks), kept, self.imported[3:]), (2, 0, ["1_a.py", "2_b.py"]))

    def test_the_key_covers_the_importer(self):
        key = pb.task_key(self.paths[0], "kernelbench")
        files = pb.IMPORTER_FILES
        extra = os.path.join(self.dir, "importer_part.py")
        with open(extra, "w") as f:
            f.write("# another importer\n")
        pb.IMPORTER_FILES = files + [extra]
        try:
            self.assertNotEqual(pb.task_key(self.paths[0], "kernelbench"), key)
        finally:
            pb.IMPORTER_FILES = files


if __name__ == "__main__":
    unittest.main()
