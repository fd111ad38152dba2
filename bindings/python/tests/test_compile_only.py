"""The Python binding on a machine without a GPU: a compile-only context
loads a task, compiles a candidate, and reports errors as KbenchError.
Run by CTest with PYTHONPATH at the built package and KBENCH_SOURCE_DIR at
the repository (for tasks/)."""
import concurrent.futures
import gc
import json
import os
import pathlib
import threading
import time
import unittest

import kbench

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASK = SOURCE_DIR / "tasks" / "elementwise" / "vector_add_f32" / "task.json"
CANDIDATE = SOURCE_DIR / "tasks" / "elementwise" / "vector_add_f32" / "candidates" / "correct.cu"


class CompileOnly(unittest.TestCase):
    def setUp(self):
        self.ctx = kbench.Context(device=kbench.DEVICE_NONE)
        self.task = kbench.Task(TASK)

    def tearDown(self):
        self.task.close()
        self.ctx.close()

    def test_task_facts(self):
        self.assertEqual(self.task.name, "vector_add_f32")
        self.assertEqual(self.task.cases, ["one", "prime", "not_a_block_multiple", "perf"])
        self.assertEqual(self.task.cases[self.task.perf_case], "perf")
        self.assertEqual(self.task.case_index("prime"), 1)
        self.assertEqual(self.task.json()["name"], "vector_add_f32")
        with self.assertRaises(KeyError):
            self.task.case_index("no_such_case")

    def test_compile_correct_candidate(self):
        with self.ctx.compile(self.task, path=CANDIDATE) as kernel:
            info = kernel.json()
            self.assertEqual(info["image"], "ptx", info)  # compile-only: PTX
            self.assertIn(info["symbols"]["vector_add"], info["entries"])
            self.assertIn(b".entry", kernel.image)  # PTX text, as bytes
            self.assertIsInstance(kernel.log, str)

    def test_compile_code_given_as_text(self):
        with self.ctx.compile(self.task, CANDIDATE.read_text(), label="inline") as kernel:
            self.assertIn(b".entry", kernel.image)

    def test_compile_error_raises_with_log(self):
        with self.assertRaises(kbench.KbenchError) as caught:
            self.ctx.compile(self.task, "__global__ void vector_add(const float* a, float* c, int n) { oops }")
        self.assertEqual(caught.exception.status, kbench.Status.COMPILE)
        self.assertIn("oops", caught.exception.detail)

    def test_bad_task_names_the_json_path(self):
        doc = json.loads(TASK.read_text())
        doc["args"][0]["dtype"] = "f33"
        doc["reference"]["source_file"] = str(TASK.parent / "reference.cu")
        with self.assertRaises(kbench.KbenchError) as caught:
            kbench.Task(doc)
        err = caught.exception
        self.assertEqual(err.status, kbench.Status.TASK_INVALID)
        self.assertIn("args[0].dtype", str(err))
        self.assertIn("args[0].dtype", err.detail)

    def test_running_needs_a_device(self):
        with self.assertRaises(kbench.KbenchError) as caught:
            self.ctx.run_reference(self.task, "one")
        self.assertEqual(caught.exception.status, kbench.Status.NO_DEVICE)

    def test_closed_handles_refuse_use(self):
        with kbench.Task(TASK) as task:
            pass
        self.assertTrue(task.closed)
        with self.assertRaises(ValueError):
            task.name
        task.close()  # idempotent

    def test_handles_freed_by_collector(self):
        kernel = self.ctx.compile(self.task, path=CANDIDATE)
        del kernel
        gc.collect()  # __del__ frees the kb_kernel; a double free would crash here

    def test_concurrent_compiles_share_a_context(self):
        errors, kernels = [], []

        def work():
            try:
                kernels.append(self.ctx.compile(self.task, path=CANDIDATE))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(kernels), 4)

    def test_contain_traps_reaches_the_context(self):
        # docs/isolation.md, "Contained faults and hangs": None (the default)
        # contains the builds only compared, True every build, False none.
        if os.environ.get("KBENCH_CONTAIN_TRAPS") is not None:
            self.skipTest("$KBENCH_CONTAIN_TRAPS overrides the option")
        self.assertFalse(self.ctx.info["contain_traps"])
        self.assertEqual(self.ctx.info["containment"], "comparisons")
        for given, name in ((True, "all"), (False, "none"), (None, "comparisons")):
            with kbench.Context(device=kbench.DEVICE_NONE, contain_traps=given) as ctx:
                self.assertEqual(ctx.info["containment"], name)
                self.assertEqual(ctx.info["contain_traps"], given is True)
        with self.assertRaisesRegex(TypeError, "contain_traps must be None"):
            kbench.Context(device=kbench.DEVICE_NONE, contain_traps="yes")

    def test_confine_option(self):
        # KB_CONTEXT_NO_CONFINE, for debugging: the context says what it asked for.
        self.assertTrue(self.ctx.info["confine"])
        with kbench.Context(device=kbench.DEVICE_NONE, confine=False) as ctx:
            self.assertFalse(ctx.info["confine"])
        with self.assertRaisesRegex(TypeError, "confine must be True or False"):
            kbench.Context(device=kbench.DEVICE_NONE, confine=None)

    def test_version(self):
        self.assertRegex(kbench.version(), r"^\d+\.\d+\.\d+$")

    def test_verdict_names(self):
        # KB_VERDICT_NO_CODE was appended for batch runs (docs/batch.md).
        self.assertEqual(kbench.capi.KB_VERDICT_NO_CODE, 10)
        self.assertEqual(kbench.capi.kb_verdict_string(kbench.capi.KB_VERDICT_NO_CODE), "no_code")
        self.assertEqual(kbench.capi.kb_verdict_string(kbench.capi.KB_VERDICT_WRONG_ANSWER), "wrong_answer")


class DeviceContext(unittest.TestCase):
    def test_device_context_without_device_raises_no_device(self):
        if kbench.device_count() > 0:
            self.skipTest("a CUDA device is present")
        with self.assertRaises(kbench.KbenchError) as caught:
            kbench.Context(device=0)
        self.assertEqual(caught.exception.status, kbench.Status.NO_DEVICE)


SALT = f"{os.getpid()}.{time.time_ns()}"  # a new source each run: no disk-cache hits


def variant(i):
    """A distinct correct vector add: distinct sources miss the compile cache."""
    return (f"// variant {SALT}.{i}\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {{\n"
            "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n")


class BatchCompileOnly(unittest.TestCase):
    """kbench.Batch's delivery paths with compile-only jobs (no GPU needed)."""

    def setUp(self):
        self.ctx = kbench.Context(device=kbench.DEVICE_NONE, nvcc_fallback=False)
        self.task = kbench.Task(TASK)

    def tearDown(self):
        self.task.close()
        self.ctx.close()

    def test_results_iterator_reports_every_job_once(self):
        with self.ctx.batch(capacity=4, compile_threads=2) as batch:
            ids = {}
            for i in range(3):
                ids[batch.submit(self.task, variant(i), tag=i, compile_only=True)] = i
            broken = batch.submit(self.task, "__global__ void vector_add() { x = ; }", tag=99, compile_only=True)
            with self.assertRaises(kbench.KbenchError) as full:
                batch.submit(self.task, variant(5), tag=5, compile_only=True, timeout=0)
            self.assertEqual(full.exception.status, kbench.Status.TIMEOUT)
            seen = {}
            for job in batch.results():
                self.assertNotIn(job.id, seen)
                seen[job.id] = job
            self.assertEqual(set(seen), set(ids) | {broken})
            for job_id, tag in ids.items():
                self.assertEqual(seen[job_id].tag, tag)
                self.assertEqual(seen[job_id].result().verdict, "none")
            self.assertEqual(seen[broken].result().verdict, "compile_error")
            self.assertIsNone(batch.next(timeout=1))

    def test_futures_and_errors(self):
        with self.ctx.batch(compile_threads=2) as batch:
            futs = [batch.submit_future(self.task, variant(10 + i), compile_only=True) for i in range(6)]
            missing = batch.submit_future(self.task, path="/nonexistent/candidate.cu", compile_only=True)
            no_device = batch.submit_future(self.task, variant(20))  # compiles, then needs the GPU
            done = list(concurrent.futures.as_completed(futs + [missing, no_device], timeout=120))
            self.assertEqual(len(done), 8)
            for f in futs:
                self.assertEqual(f.result().verdict, "none")
            with self.assertRaises(kbench.KbenchError) as io:
                missing.result()
            self.assertEqual(io.exception.status, kbench.Status.IO)
            with self.assertRaises(kbench.KbenchError) as nd:
                no_device.result()
            self.assertEqual(nd.exception.status, kbench.Status.NO_DEVICE)
            with self.assertRaises(RuntimeError):
                batch.next(timeout=0)  # futures deliver this batch's jobs

    def test_cancel_and_close_with_work_in_flight(self):
        batch = self.ctx.batch(compile_threads=1)
        ids = [batch.submit(self.task, variant(30 + i), tag=i, compile_only=True) for i in range(8)]
        self.assertTrue(batch.cancel(ids[-1]))
        self.assertFalse(batch.cancel(123456789))
        statuses = {}
        for job in batch.results():
            statuses[job.id] = job.error.status if job.error else kbench.Status.OK
        self.assertEqual(statuses[ids[-1]], kbench.Status.CANCELLED)
        self.assertEqual(len(statuses), 8)
        for i in range(8):
            batch.submit(self.task, variant(40 + i), compile_only=True)
        batch.close()  # jobs in flight: cancelled or finished, none leaked
        self.assertTrue(batch.closed)
        with self.assertRaises(ValueError):
            batch.submit(self.task, variant(50), compile_only=True)


if __name__ == "__main__":
    unittest.main()
