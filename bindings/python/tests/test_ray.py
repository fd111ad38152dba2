"""kbench.ray on a local Ray cluster, compile-only (no GPU needed): the pool
scores a handful of candidates, an actor killed mid-run loses none of them,
an actor that dies every time gives an "error" line after its retries, and
`python3 -m kbench.ray run` writes and resumes a results file.

Run by CTest (label `ray`) with PYTHONPATH at the built package, KBENCH_CLI at
the built kbench tool and KBENCH_SOURCE_DIR at the repository. Exits 77
(skipped) only when Ray cannot be imported."""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import ray
except ImportError:
    print("skipped: Ray is not installed (pip install ray)")
    sys.exit(77)

import kbench
import kbench.ray as kray

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASKS = SOURCE_DIR / "tasks"
SALT = f"{os.getpid()}.{time.time_ns()}"


def kernel(i):
    return (f"// ray test {SALT}.{i}\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n")


def answer(i):
    return f"Here is the kernel:\n\n```cuda\n{kernel(i)}```\n\nIt adds the vectors."


def candidates():
    lines = [{"task": "vector_add_f32", "id": f"good{i}", "sample": i, "model": "m", "answer": answer(i)}
             for i in range(4)]
    lines.append({"task": "vector_add_f32", "id": "broken", "answer": "```cuda\n__global__ void vector_add(float* c) { x = ; }\n```"})
    lines.append({"task": "vector_add_f32", "id": "prose", "answer": "I cannot write this kernel, sorry."})
    lines.append({"task": "no_such_task", "id": "lost", "answer": answer(9)})
    return lines


EXPECTED = {"good0": "compiled", "good1": "compiled", "good2": "compiled", "good3": "compiled",
            "broken": "compile_error", "prose": "no_code", "lost": "error"}


class SignalWorker(kray.Worker):
    """Holds candidate "victim" for a while after writing its pid, so the test
    can SIGKILL this actor mid-run; dies by itself on every "poison"."""

    def score(self, item, task_doc, task_key=None):
        marker_dir = pathlib.Path(os.environ["KBENCH_RAY_TEST_DIR"])
        key = item["result"]["id"]
        if key == "victim":
            first = marker_dir / "victim.pid"
            try:
                fd = os.open(first, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                fd = None
            if fd is not None:  # the first attempt: wait to be killed
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
                time.sleep(120)
        if key == "poison":
            os._exit(3)
        return super().score(item, task_doc, task_key)


class RayPool(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        os.environ["KBENCH_RAY_TEST_DIR"] = cls.tmp.name
        ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)

    @classmethod
    def tearDownClass(cls):
        ray.shutdown()
        cls.tmp.cleanup()

    def test_a_gpu_actor_compiles_on_kbench_runs_share_of_the_host(self):
        self.assertEqual(kray.compile_threads_per_gpu(32, 2), 8)
        self.assertEqual(kray.compile_threads_per_gpu(16, 1), 8)
        self.assertEqual(kray.compile_threads_per_gpu(16, 4), 4)
        self.assertEqual(kray.compile_threads_per_gpu(12, 8), 1)
        self.assertEqual(kray.compile_threads_per_gpu(0, 0), 1)
        # This local cluster has no GPUs: the share of a host with one.
        self.assertEqual(kray._node_gpus(), 1)

    def test_compile_only_scores_every_candidate_once(self):
        lines = list(kray.score_many([TASKS], candidates(), compile_only=True, actors=2))
        by_id = {l["id"]: l for l in lines}
        self.assertEqual(len(lines), len(EXPECTED), lines)
        self.assertEqual({k: v["verdict"] for k, v in by_id.items()}, EXPECTED)
        good = by_id["good2"]
        self.assertEqual((good["task"], good["sample"], good["model"], good["family"]),
                         ("vector_add_f32", 2, "m", "elementwise"))
        self.assertEqual(good["extraction"]["outcome"], "ok")
        self.assertGreater(good["compile_ms"], 0)
        self.assertNotIn("ray_retries", good)
        self.assertTrue(by_id["prose"]["message"].startswith("no_code: "), by_id["prose"])
        self.assertIn("no_such_task", by_id["lost"]["message"])

    def test_actor_killed_mid_run_loses_no_candidate(self):
        cands = [{"task": "vector_add_f32", "id": "victim", "answer": answer(20)}]
        cands += [{"task": "vector_add_f32", "id": f"after{i}", "answer": answer(21 + i)} for i in range(4)]
        results = []
        gen = kray.score_many([TASKS], cands, compile_only=True, actors=2, worker_cls=SignalWorker)
        pid_file = pathlib.Path(self.tmp.name) / "victim.pid"
        killed = None
        import threading

        def killer():
            nonlocal killed
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                if pid_file.exists() and pid_file.read_text():
                    killed = int(pid_file.read_text())
                    os.kill(killed, signal.SIGKILL)
                    return
                time.sleep(0.05)

        t = threading.Thread(target=killer)
        t.start()
        for line in gen:
            results.append(line)
        t.join()
        self.assertIsNotNone(killed, "the victim candidate never started")
        by_id = {l["id"]: l for l in results}
        self.assertEqual(sorted(by_id), sorted(c["id"] for c in cands))
        self.assertEqual(len(results), len(cands))
        self.assertEqual(by_id["victim"]["verdict"], "compiled", by_id["victim"])
        self.assertEqual(by_id["victim"]["ray_retries"], 1)
        for i in range(4):
            self.assertEqual(by_id[f"after{i}"]["verdict"], "compiled")

    def test_actor_dying_every_time_gives_an_error_line(self):
        cands = [{"task": "vector_add_f32", "id": "poison", "answer": answer(30)},
                 {"task": "vector_add_f32", "id": "fine", "answer": answer(31)}]
        lines = list(kray.score_many([TASKS], cands, compile_only=True, actors=2, max_retries=2,
                                     worker_cls=SignalWorker))
        by_id = {l["id"]: l for l in lines}
        self.assertEqual(len(lines), 2)
        self.assertEqual(by_id["poison"]["verdict"], "error")
        self.assertIn("died 3 times", by_id["poison"]["message"])
        self.assertEqual(by_id["poison"]["ray_retries"], 2)
        self.assertEqual(by_id["fine"]["verdict"], "compiled")

    def test_a_kept_pool_serves_the_next_run_and_stays_until_stopped(self):
        name = f"test{os.getpid()}"
        cands = [{"task": "vector_add_f32", "id": f"k{i}", "answer": answer(40 + i)} for i in range(4)]
        try:
            phases = {}
            lines = list(kray.score_many([TASKS], cands[:2], compile_only=True, actors=1, keep_pool=name,
                                         phases=phases))
            self.assertEqual({l["id"]: l["verdict"] for l in lines}, {"k0": "compiled", "k1": "compiled"})
            # Ray was running: the candidates were prepared beside the pool's start.
            self.assertIn("prepare_wait_s", phases)
            self.assertLessEqual(phases["prepare_wait_s"], phases["prepare_s"] + 0.01, phases)
            self.assertEqual(kray.kept_pools(), {name: [f"{name}/0"]})
            actor = ray.get_actor(f"{name}/0", namespace=kray.POOL_NAMESPACE)
            first = ray.get(actor.where.remote())
            # The next run: the same actor, its task already loaded.
            lines = list(kray.score_many([TASKS], cands[2:], compile_only=True, actors=1, keep_pool=name))
            self.assertEqual({l["id"]: l["verdict"] for l in lines}, {"k2": "compiled", "k3": "compiled"})
            self.assertEqual(ray.get(actor.where.remote()), first)
            self.assertEqual(len(ray.get(actor.__ray_call__.remote(lambda w: list(w.tasks)))), 1)
            # Other settings: refused, with the way out.
            with self.assertRaises(kray.PoolMismatch) as caught:
                list(kray.score_many([TASKS], cands[:1], compile_only=True, actors=1, keep_pool=name,
                                     context_options={"timeout_s": 5.0}))
            self.assertIn("context_options", str(caught.exception))
            self.assertIn(f"stop --address ADDRESS --pool {name}", str(caught.exception))
            # A bad candidates file fails before the pool is asked for.
            with self.assertRaises(kray.PrepareError):
                list(kray.score_many([TASKS], [{"task": "vector_add_f32", "id": 1, "answr": "x"}],
                                     compile_only=True, actors=1, keep_pool=name))
            with self.assertRaises(ValueError):
                kray.Pool(compile_only=True, actors=1, keep="a/b")
        finally:
            stopped = kray.stop_pool(name)
        self.assertEqual(stopped, 1)
        self.assertNotIn(name, kray.kept_pools())

    def test_a_kept_pool_holding_the_room_is_named_not_waited_for(self):
        name = f"room{os.getpid()}"
        try:
            # Two compile-only actors: both CPUs of this cluster.
            kray.Pool(compile_only=True, actors=2, keep=name).close()
            with self.assertRaises(kray.RayUnavailable) as caught:
                kray.Pool(compile_only=True, actors=1)
            self.assertIn(f"the kept pool(s) '{name}' (2 actor(s)) hold the others", str(caught.exception))
            self.assertIn("--keep-pool NAME", str(caught.exception))
            # The pool itself is welcome.
            with kray.Pool(compile_only=True, actors=2, keep=name) as pool:
                self.assertEqual(len(pool.actors), 2)
        finally:
            kray.stop_pool(name)

    def test_a_kept_pool_is_named_while_the_resource_view_lags(self):
        # Ray's resource view counts a just-started actor's CPU as free for a
        # moment (the race that made the test above flaky): the refusal must
        # not depend on it. Here the view lags for the whole test.
        name = f"lag{os.getpid()}"
        real = ray.available_resources
        try:
            kray.Pool(compile_only=True, actors=2, keep=name).close()
            ray.available_resources = ray.cluster_resources
            with self.assertRaises(kray.RayUnavailable) as caught:
                kray.Pool(compile_only=True, actors=1)
            self.assertIn(f"the kept pool(s) '{name}' (2 actor(s)) hold the others", str(caught.exception))
        finally:
            ray.available_resources = real
            kray.stop_pool(name)

    def test_pool_without_gpus_refuses_gpu_mode(self):
        with self.assertRaises(kray.RayUnavailable) as caught:
            kray.Pool(compile_only=False)
        self.assertIn("no GPUs", str(caught.exception))


class ResultsAndCeilings(unittest.TestCase):
    """The pieces kbench.ray uses without Ray: resume keys and the appender's
    repair of a cut-off line. Efficiency is the score's (engine/efficiency.h;
    tests/unit/test_run_efficiency.cpp)."""

    def test_resume_keys_and_bad_lines(self):
        from kbench import _results
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "r.jsonl"
            self.assertEqual(_results.read_done_keys(path), set())
            path.write_text('{"task":"t","id":17,"verdict":"pass"}\n{"task":"t","id":"a","sample":2,"verdict":"x"}\n'
                            '{"task":"t","id":')
            self.assertEqual(_results.read_done_keys(path), {("t", "17", None), ("t", "a", 2)})
            self.assertEqual(_results.key_of("t", "17", None), _results.key_of("t", 17, None))  # ids compare as text
            with _results.ResultAppender(path) as out:
                self.assertEqual(out.repaired_bytes, len('{"task":"t","id":'))
                out.append({"task": "t", "id": 3, "verdict": "pass", "speedup": float("inf")})
            lines = path.read_text().splitlines()
            self.assertEqual(len(lines), 3)
            self.assertEqual(json.loads(lines[2])["speedup"], "inf")  # kbench's spelling
            path.write_text('{"task":"t","id":1,"verdict":"pass"}\nnot json\n{"task":"t","id":2,"verdict":"pass"}\n')
            with self.assertRaises(_results.ResultsFileError) as caught:
                _results.read_done_keys(path)
            self.assertIn(f"{path}:2:", str(caught.exception))

    def test_a_task_key_names_its_content(self):
        doc = {"name": "t", "args": [{"name": "x"}]}
        self.assertEqual(kray.task_key_of("/t.json", doc), kray.task_key_of("/t.json", json.loads(json.dumps(doc))))
        changed = {"name": "t", "args": [{"name": "y"}]}
        self.assertNotEqual(kray.task_key_of("/t.json", doc), kray.task_key_of("/t.json", changed))
        self.assertTrue(kray.task_key_of("/t.json", doc).startswith("/t.json#"))

    def test_ceilings_come_from_the_devices_cache(self):
        from kbench import devices
        with tempfile.TemporaryDirectory() as d:
            old = os.environ.get("XDG_CACHE_HOME")
            os.environ["XDG_CACHE_HOME"] = d
            try:
                self.assertIsNone(devices.lookup("GPU A", 13000))
                (pathlib.Path(d) / "kbench").mkdir()
                entry = {"name": "GPU A", "ceilings": {"copy_gbps": 1.0}}
                (pathlib.Path(d) / "kbench" / "devices.json").write_text(
                    json.dumps({"format": "kbench-devices/1", "devices": {"GPU A|driver 13000": entry}}))
                self.assertEqual(devices.lookup("GPU A", 13000)["ceilings"], {"copy_gbps": 1.0})
                self.assertIsNone(devices.lookup("GPU A", 12000))  # another driver: measure again
            finally:
                if old is None:
                    del os.environ["XDG_CACHE_HOME"]
                else:
                    os.environ["XDG_CACHE_HOME"] = old


class RayCommandLine(unittest.TestCase):
    """python3 -m kbench.ray run: the entry point `kbench run --ray` executes."""

    def run_cli(self, *args):
        return subprocess.run([sys.executable, "-m", "kbench.ray", *args], capture_output=True, text=True,
                              timeout=600)

    def test_run_writes_and_resumes(self):
        with tempfile.TemporaryDirectory() as d:
            cand = pathlib.Path(d) / "answers.jsonl"
            cand.write_text("".join(json.dumps(c) + "\n" for c in candidates()))
            out = pathlib.Path(d) / "results.jsonl"
            common = ["run", "--address", "local", "--num-cpus", "2", "--compile-only", "--tasks", str(TASKS),
                      "--candidates", str(cand), "--out", str(out)]
            p = self.run_cli(*common, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            summary = json.loads(p.stdout)
            self.assertEqual(summary["scored"], len(EXPECTED))
            # Where the time went: every part, each within the whole, the
            # first result within the scoring.
            phases = summary["phases_s"]
            self.assertEqual(set(phases), {"prepare_s", "connect_s", "pool_s", "first_result_s", "scoring_s",
                                           "shutdown_s"}, phases)
            self.assertTrue(all(0 <= v <= summary["elapsed_s"] for v in phases.values()), phases)
            self.assertLessEqual(phases["first_result_s"], phases["scoring_s"], phases)
            self.assertLessEqual(sum(v for k, v in phases.items() if k != "first_result_s"),
                                 summary["elapsed_s"] + 0.01, phases)
            lines = [json.loads(l) for l in out.read_text().splitlines()]
            self.assertEqual({l["id"]: l["verdict"] for l in lines}, EXPECTED)

            # Resume: a cut-off last line goes, its candidate runs again; the rest are skipped.
            kept = out.read_text().splitlines()[:-1]
            cut = out.read_text().splitlines()[-1]
            out.write_text("\n".join(kept) + "\n" + cut[: len(cut) // 2])
            p = self.run_cli(*common, "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            summary = json.loads(p.stdout)
            self.assertEqual((summary["scored"], summary["skipped"]), (1, len(EXPECTED) - 1))
            self.assertIn("cut-off last line", p.stderr)
            lines = [json.loads(l) for l in out.read_text().splitlines()]
            self.assertEqual(len(lines), len(EXPECTED))
            self.assertEqual({l["id"]: l["verdict"] for l in lines}, EXPECTED)

    def test_a_ray_that_does_not_start_is_a_clear_error(self):
        # Ray raises a bare Exception when its local node misses its start-up
        # deadline (seen on a loaded 2-core machine): a message, not a traceback.
        real, real_initialized = kray._ray.init, kray._ray.is_initialized

        def failing_init(*args, **kwargs):
            raise Exception("The current node timed out during startup. This could happen because ...")

        kray._ray.init, kray._ray.is_initialized = failing_init, lambda: False
        try:
            with self.assertRaises(kray.RayUnavailable) as caught:
                kray._connect("local")
            self.assertIn("cannot start or reach a local Ray cluster", str(caught.exception))
            self.assertIn("timed out during startup", str(caught.exception))
            self.assertIn("ray start --head", str(caught.exception))
            with self.assertRaises(kray.RayUnavailable) as caught:
                kray._connect("10.0.0.1:6379")
            self.assertIn("the Ray cluster at '10.0.0.1:6379'", str(caught.exception))
        finally:
            kray._ray.init, kray._ray.is_initialized = real, real_initialized

    def test_usage_and_input_errors(self):
        files = ["--tasks", str(TASKS), "--candidates", "x.jsonl", "--out", "o.jsonl"]
        usage = [  # (arguments, part of what stderr says); each exits 2
            (["run", "--address", "local"], "required"),
            (["run", "--address", "local", *files, "--gpus", "zero"], "--gpus"),
            (["run", "--address", "local", *files, "--keep-pool", "eval"], "--keep-pool needs a running cluster"),
            (["run", "--address", "auto", *files, "--keep-pool", "a b"], "letters, digits"),
            (["stop", "--address", "local", "--pool", "eval"], "running cluster"),
            (["stop", "--address", "auto"], "--pool"),
        ]
        for args, says in usage:
            p = self.run_cli(*args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(says, p.stderr, args)
        with tempfile.TemporaryDirectory() as d:
            bad = pathlib.Path(d) / "bad.jsonl"
            bad.write_text('{"task": "vector_add_f32", "id": 1, "answr": "x"}\n')
            p = self.run_cli("run", "--address", "local", "--num-cpus", "1", "--compile-only", "--tasks", str(TASKS),
                             "--candidates", str(bad), "--out", str(pathlib.Path(d) / "o.jsonl"), "--json")
            self.assertEqual(p.returncode, 1, p.stderr)
            err = json.loads(p.stdout)
            self.assertIn("answr", json.dumps(err))
            good = pathlib.Path(d) / "good.jsonl"
            good.write_text(json.dumps(candidates()[0]) + "\n")
            p = self.run_cli("run", "--address", "auto", "--compile-only", "--tasks", str(TASKS),
                             "--candidates", str(good), "--out", str(pathlib.Path(d) / "o.jsonl"))
            if "cannot start or reach" not in p.stderr:
                self.skipTest("a Ray cluster is running on this machine")
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("ray start --head", p.stderr)


if __name__ == "__main__":
    unittest.main()
