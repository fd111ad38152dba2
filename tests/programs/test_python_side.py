#!/usr/bin/env python3
"""CPU tests of kbench's Python side of program candidates (docs/programs.md):
the KBW1 frame codec, reading and rewriting problem files, the importer, the
candidate source scan and the integrity checks. Tests that need torch are
skipped without it (CI does not install torch: it is 5 GB from PyPI).

    python3 tests/programs/test_python_side.py [-v]
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.path.join(ROOT, "python", "kbench_programs")
sys.path.insert(0, PROGRAMS)

import kbench_checks as kc  # noqa: E402
import kbench_frames as kf  # noqa: E402
import kbench_importer as ki  # noqa: E402
import kbench_problem as kp  # noqa: E402

PROBLEMS = os.path.join(HERE, "problems")

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except Exception:
    HAVE_TORCH = False


class Frames(unittest.TestCase):
    def test_round_trip_with_blobs(self):
        a, b = socket.socketpair()
        ca, cb = kf.Connection(a.detach()), kf.Connection(b.detach())
        self.addCleanup(ca.sock.close)
        self.addCleanup(cb.sock.close)
        ca.send(kf.MSG_PROGRAM_RUN, 77, {"case": 3, "text": "\u00e9\u4e2d"}, [b"\x00\x01", b"", b"xyz"])
        t, i, doc, blobs = cb.read_frame()
        self.assertEqual((t, i), (kf.MSG_PROGRAM_RUN, 77))
        self.assertEqual(doc, {"case": 3, "text": "\u00e9\u4e2d"})
        self.assertEqual(blobs, [b"\x00\x01", b"", b"xyz"])
        ca.reply(kf.MSG_PROGRAM_RUN, 77, {"x": 1})
        t, i, doc, _ = cb.read_frame()
        self.assertEqual(t, kf.MSG_PROGRAM_RUN | kf.REPLY_BIT)
        self.assertEqual(doc, {"ok": True, "result": {"x": 1}})

    def test_header_matches_the_cpp_layout(self):
        frame = kf.encode_frame(kf.MSG_HELLO, 5, {"a": 1})
        self.assertEqual(frame[:4], b"KBW1")
        self.assertEqual(int.from_bytes(frame[4:6], "little"), 1)
        self.assertEqual(int.from_bytes(frame[6:8], "little"), 1)
        self.assertEqual(int.from_bytes(frame[8:16], "little"), 5)
        self.assertEqual(int.from_bytes(frame[16:20], "little"), len(frame) - 24)
        self.assertEqual(int.from_bytes(frame[20:24], "little"), 0)

    def test_malformed_frames_are_refused(self):
        good = kf.encode_frame(kf.MSG_HELLO, 1, {"a": 1}, [b"abc"])
        with self.assertRaisesRegex(kf.ProtocolError, "magic"):
            kf.decode_header(b"XBW1" + good[4:24])
        with self.assertRaisesRegex(kf.ProtocolError, "version"):
            kf.decode_header(good[:4] + b"\x09\x00" + good[6:24])
        _, _, jb, bb = kf.decode_header(good[:24])
        with self.assertRaisesRegex(kf.ProtocolError, "add up"):
            kf.decode_body(good[24:], jb, bb - 1)
        with self.assertRaisesRegex(kf.ProtocolError, "parse"):
            kf.decode_body(b"{nope" + good[29:], jb, bb)

    def test_nan_is_refused_rather_than_written_as_invalid_json(self):
        with self.assertRaises(ValueError):
            kf.encode_frame(kf.MSG_HELLO, 1, {"x": float("nan")})


class WorkerRequests(unittest.TestCase):
    def serve(self, worker, requests):
        """kbench_program_worker.serve over a socket pair: `requests` (type,
        id, doc) then a shutdown; the replies to `requests`, in order."""
        import kbench_program_worker as kw
        a, b = socket.socketpair()
        host, conn = kf.Connection(a.detach()), kf.Connection(b.detach())
        self.addCleanup(host.sock.close)
        self.addCleanup(conn.sock.close)
        worker.conn = conn
        for t, i, doc in requests:
            host.send(t, i, doc)
        host.send(kf.MSG_SHUTDOWN, 0, {})
        server = threading.Thread(target=kw.serve, args=(worker,))
        server.start()
        replies = [host.read_frame()[:3] for _ in requests]
        self.assertEqual(host.read_frame()[0], kf.MSG_SHUTDOWN | kf.REPLY_BIT)
        server.join(10)
        return replies

    def test_release_drops_the_exported_outputs_and_trims_the_cache(self):
        """program_release (ipc/frame.h): the host sends it once the
        reference compared the candidate's exported outputs."""
        class Stub:
            trims = 0

            def trim_cache(self):
                Stub.trims += 1
        worker = Stub()
        worker.shared = ["an exported output"]
        replies = self.serve(worker, [(kf.MSG_PROGRAM_RELEASE, 5, {})])
        self.assertEqual(replies, [(kf.MSG_PROGRAM_RELEASE | kf.REPLY_BIT, 5, {"ok": True, "result": {}})])
        self.assertEqual(worker.shared, [])
        self.assertEqual(Stub.trims, 1)

    def test_release_of_every_cache_drops_them_before_the_trim(self):
        """program_release with "caches": the host asks it of the reference
        before a run that ran out of device memory runs again."""
        calls = []

        class Stub:
            def release_caches(self):
                calls.append("release_caches")

            def drop_timing_inputs(self):
                calls.append("drop_timing_inputs")

            def trim_cache(self):
                calls.append("trim_cache")
        replies = self.serve(Stub(), [(kf.MSG_PROGRAM_RELEASE, 6, {"caches": True}),
                                      (kf.MSG_PROGRAM_RELEASE, 7, {"timing_inputs": True})])
        self.assertEqual([r[2] for r in replies], [{"ok": True, "result": {}}] * 2)
        self.assertEqual(calls, ["release_caches", "trim_cache", "drop_timing_inputs", "trim_cache"])
        self.assertEqual(kf.MSG_PROGRAM_RELEASE, 14)

    def test_release_after_a_timing_drops_the_inputs_its_rounds_shared(self):
        """program_release with "timing_inputs": the host sends it when a
        timing ends; the copy of the inputs kept across its rounds goes, and
        a plain release keeps it (the rounds of a timing still use it)."""
        class Stub:
            held_at_trims = []
            timing_inputs = ("key", ["6 GB of inputs"], [])

            def trim_cache(self):
                Stub.held_at_trims.append(self.timing_inputs is not None)

            def drop_timing_inputs(self):
                self.timing_inputs = None
        worker = Stub()
        worker.shared = []
        replies = self.serve(worker, [(kf.MSG_PROGRAM_RELEASE, 5, {}),
                                      (kf.MSG_PROGRAM_RELEASE, 6, {"timing_inputs": True})])
        self.assertEqual([i for _, i, _ in replies], [5, 6])
        self.assertEqual(Stub.held_at_trims, [True, False])
        self.assertIsNone(worker.timing_inputs)

    def test_trimming_drops_cached_inputs_that_keep_a_segment(self):
        """A cached input inside a large free segment keeps it from the
        driver: trim_cache then drops the input cache and empties again."""
        import kbench_program_worker as kw

        class Cuda:
            def __init__(self, reserved, allocated, pinned_by_inputs):
                self.reserved, self.allocated, self.pinned = reserved, allocated, pinned_by_inputs
                self.empties = 0
                self.worker = None

            def memory_reserved(self, device):
                return self.reserved

            def memory_allocated(self, device):
                return self.allocated

            def empty_cache(self):
                self.empties += 1
                if not (self.pinned and self.worker.inputs):
                    self.reserved = self.allocated

        def trimmed(reserved, allocated, pinned):
            w = kw.Worker.__new__(kw.Worker)
            cuda = Cuda(reserved, allocated, pinned)
            cuda.worker = w
            w.torch = types.SimpleNamespace(cuda=cuda)
            w.device = "cuda:0"
            w.inputs = {("t", 0, 1, "strict"): ([], [{"bytes": 64 << 20}])}
            w.input_bytes = 64 << 20
            w.kept_bytes = w.audit_bytes = 0
            w.timing_inputs = None
            kw.Worker.trim_cache(w)
            return cuda.empties, len(w.inputs), w.input_bytes
        gib = 1 << 30
        self.assertEqual(trimmed(7 * gib, gib // 16, True), (2, 0, 0))   # pinned: the inputs go
        self.assertEqual(trimmed(7 * gib, gib // 16, False), (1, 1, 64 << 20))  # freed at once: they stay
        self.assertEqual(trimmed(gib, gib // 2, True), (0, 1, 64 << 20))  # little unused: nothing

    def test_kept_outputs_make_room_by_task_then_by_recent_use(self):
        """The reference's kept outputs: a newcomer pushes out other tasks'
        outputs, least recently used first, then its own task's that were
        used less of late (note_use); it is compared on the GPU even when
        not kept (run again at its compare), but not one larger than the
        budget. The budget holds two runs of a task's size (its correctness
        case's and its recheck's) where 15% of the device does not."""
        import kbench_program_worker as kw
        import collections

        class T:
            def __init__(self, gb):
                self.n = gb

            def numel(self):
                return self.n

            def element_size(self):
                return 1 << 30

        empties = []
        w = kw.Worker.__new__(kw.Worker)
        w.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
            mem_get_info=lambda device: (0, 80 << 30), empty_cache=lambda: empties.append(1)))
        w.device = "cuda:0"
        w.kept, w.kept_bytes, w.uses = collections.OrderedDict(), 0, {}
        w.audit, w.audit_bytes = collections.OrderedDict(), 0

        def use(key, gb):  # a use: the first run, or a compare that ran it again
            kw.Worker.note_use(w, key)
            if key not in w.kept:
                return kw.Worker.keep_outputs(w, key, [T(gb)])
            return True
        # The budget is 15% of 80 GiB (12 GiB), or room for two runs of the
        # newcomer's size up to 20% (16 GiB): two 7 GiB outputs. An untimed
        # series: the correctness run's and the recheck's, each used once a
        # candidate; both stay, and neither runs again.
        for _ in range(3):
            self.assertTrue(use(("a", 3, "S"), 7))
            self.assertTrue(use(("a", 3, "R"), 7))
        self.assertEqual(list(w.kept), [("a", 3, "S"), ("a", 3, "R")])
        # A timed series: the timing's outputs, compared each round, win a
        # place.
        for _ in range(3):
            use(("a", 3, "S"), 7)
            for _ in range(3):
                use(("a", 3, "T"), 7)
            use(("a", 3, "R"), 7)
        self.assertIn(("a", 3, "T"), w.kept)
        self.assertEqual(len(w.kept), 2)
        # Another task's newcomer pushes the first task's out, least
        # recently used first, as far as it needs room.
        self.assertTrue(use(("b", 3, "S"), 7))
        self.assertEqual(len(w.kept), 2)
        self.assertEqual(list(w.kept)[-1], ("b", 3, "S"))
        # A small newcomer's budget is the 15%: the first task's last goes.
        self.assertTrue(use(("b", 0, "S"), 1))
        self.assertEqual(list(w.kept), [("b", 3, "S"), ("b", 0, "S")])
        self.assertFalse(use(("c", 3, "S"), 17))  # larger than 20%: the host compares
        self.assertEqual(list(w.kept), [("b", 3, "S"), ("b", 0, "S")])
        self.assertEqual(w.kept_bytes, 8 << 30)

    def test_a_worker_beside_the_builder_warms_no_headers_itself(self):
        """A worker's own warm-up runs threads while its first candidates
        run, which their integrity check would read as the candidate's."""
        import kbench_program_worker as kw
        from unittest import mock

        class Stub:
            torch = object()
            work_dir = "/w"
            loading = None

        calls = []
        with mock.patch.object(kw.kli, "install", lambda *a, **k: calls.append(k["warm"])):
            for device, shared in (("cuda:0", "/cache"), ("cuda:0", ""), ("cpu", "")):
                stub = Stub()
                stub.device, stub.load_inline_cache = device, shared
                kw.Worker.install_fast_load_inline(stub)
        self.assertEqual(calls, [False, True, False])


class TrimCache(unittest.TestCase):
    """Worker.trim_cache on a torch-like stand-in whose allocated memory is
    that of the live stand-in tensors: a finished request's output kept only
    by a reference cycle is collected when the worker holds over 1 GiB more
    than its caches; memory the caches hold is not a reason to collect."""

    def test_a_cycle_that_holds_an_output_is_collected_and_caches_are_not(self):
        import gc
        import weakref
        import kbench_program_worker as kw
        live = weakref.WeakSet()
        collects = []

        class Output:
            def __init__(self, n):
                self.n = n
                live.add(self)

        class Cuda:
            def memory_allocated(self, device):
                return sum(t.n for t in live)

            def memory_reserved(self, device):
                return self.memory_allocated(device)

            def empty_cache(self):
                pass

        class Stub:
            torch = types.SimpleNamespace(cuda=Cuda())
            device = "cuda:0"
            role = "candidate"
            input_bytes = kept_bytes = audit_bytes = 0
            timing_inputs = None
            inputs = {}
            cached_bytes = kw.Worker.cached_bytes

        stub = Stub()
        real_collect = gc.collect

        def counting_collect(*a):
            collects.append(1)
            return real_collect(*a)
        gc.collect = counting_collect
        enabled = gc.isenabled()
        gc.disable()  # only the trim collects here
        try:
            pair = ["output", Output(6 << 30)]
            pair.append(pair)  # a cycle: unreachable once dropped, freed only by a collection
            del pair
            self.assertEqual(Cuda().memory_allocated("cuda:0"), 6 << 30)
            kw.Worker.trim_cache(stub)
            self.assertEqual(len(collects), 1)
            self.assertEqual(Cuda().memory_allocated("cuda:0"), 0)
            # 6 GiB of cached inputs: the caches' own, nothing to collect.
            cached = Output(6 << 30)
            stub.input_bytes = 6 << 30
            kw.Worker.trim_cache(stub)
            self.assertEqual(len(collects), 1)
            self.assertEqual(Cuda().memory_allocated("cuda:0"), 6 << 30)
            del cached
        finally:
            gc.collect = real_collect
            if enabled:
                gc.enable()


class HeldMemory(unittest.TestCase):
    """kbench_profile.held_memory ($KBENCH_PROFILE_MEMORY), on a torch-like
    stand-in: what an idle worker holds on the device, and who holds it."""

    def test_names_the_holder_of_a_large_device_tensor_once_in_two_seconds(self):
        import kbench_profile as kprof

        class Storage:
            def __init__(self, n):
                self.n = n

            def nbytes(self):
                return self.n

        class Tensor:
            is_cuda = True
            dtype = "float32"

            def __init__(self, n):
                self.shape = [n // 4]
                self.storage = Storage(n)

            def untyped_storage(self):
                return self.storage

        class Cuda:
            reserved = 7 << 30

            def memory_snapshot(self):
                return [{"total_size": 6 << 30, "allocated_size": 1 << 20,
                         "blocks": [{"size": 1 << 20, "state": "active_allocated"}, {"size": 6 << 30, "state": "x"}]},
                        {"total_size": 2 << 20, "allocated_size": 0, "blocks": []}]

            def memory_allocated(self, device):
                return (1 << 30) + (1 << 20)

            def memory_reserved(self, device):
                return Cuda.reserved

        class Holder:
            pass
        fake = types.SimpleNamespace(Tensor=Tensor, cuda=Cuda())
        holder = Holder()
        holder.kept = Tensor(1 << 30)
        small = Tensor(1 << 20)  # under 256 MiB: not listed
        saved = kprof._HELD_PATH, kprof._HELD_LAST[0]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "held.jsonl")
            kprof._HELD_PATH, kprof._HELD_LAST[0] = path, 0.0
            try:
                self.assertTrue(kprof.tracing_memory())
                kprof.held_memory(fake, "cuda:0", "trimmed")
                kprof.held_memory(fake, "cuda:0", "trimmed")  # within 2 s of the last: nothing
                kprof._HELD_LAST[0] = 0.0
                Cuda.reserved = 512 << 20  # under 1 GiB: nothing
                kprof.held_memory(fake, "cuda:0", "trimmed")
                kprof.held_memory(fake, "cpu", "trimmed")  # not a device: nothing
            finally:
                kprof._HELD_PATH, kprof._HELD_LAST[0] = saved
            with open(path) as f:
                lines = [json.loads(x) for x in f]
        self.assertEqual(len(lines), 1)
        self.assertEqual(lines[0]["when"], "trimmed")
        self.assertEqual(lines[0]["reserved"], 7 << 30)
        self.assertEqual(lines[0]["segments"], [[6 << 30, 1 << 20, [1 << 20]]])
        self.assertEqual([(t["bytes"], t["shape"]) for t in lines[0]["tensors"]], [(1 << 30, [1 << 28])])
        self.assertIn("Holder.kept", lines[0]["tensors"][0]["held_by"])
        self.assertEqual(small.shape, [1 << 18])


class ProblemFiles(unittest.TestCase):
    SRC = ("import torch\n"
           "N = 2048 * 2\n"
           "M: int = 7\n"
           "shape = (N, 3)\n"
           "other = compute()\n"
           "eps = 1e-5\n"
           "def get_inputs():\n"
           "    return [torch.rand(*shape), torch.rand(M)]\n")

    def test_constants_are_read_without_running_the_file(self):
        c = kp.module_constants(self.SRC)
        self.assertEqual(c["N"]["value"], 4096)
        self.assertEqual(c["M"]["value"], 7)
        self.assertEqual(c["shape"]["value"], (4096, 3))
        self.assertEqual(c["eps"]["value"], 1e-5)
        self.assertNotIn("other", c)

    def test_dims_are_the_constants_get_inputs_reads_through_others(self):
        c = kp.module_constants(self.SRC)
        self.assertEqual(kp.names_used_by(self.SRC, "get_inputs", c), ["N", "shape", "M"])

    def test_rewriting_a_constant_keeps_every_line_number(self):
        out = kp.source_with_constants(self.SRC, {"N": 31})
        self.assertEqual(len(out.splitlines()), len(self.SRC.splitlines()))
        self.assertIn("N = 31\n", out)
        ns = {}
        exec(compile(out.replace("compute()", "0").replace("import torch", ""), "x", "exec"), ns)
        self.assertEqual(ns["shape"], (31, 3))
        with self.assertRaisesRegex(kp.ProblemError, "no top-level constant 'K'"):
            kp.source_with_constants(self.SRC, {"K": 1})

    def test_tritonbench_files_split_at_the_146_hashes(self):
        path = os.path.join(PROBLEMS, "tritonbench_G", "vec_add.py")
        with open(path) as f:
            code, test, line = kp.split_tritonbench(f.read())
        self.assertIn("def add(", code)
        self.assertIn("def test_add", test)
        cleaned, fn = kp.clean_test_section(test)
        self.assertEqual(fn, "test_add")
        self.assertNotIn("result_gold", cleaned)
        self.assertEqual(len(cleaned.splitlines()), len(test.splitlines()))
        with self.assertRaisesRegex(kp.ProblemError, "146"):
            kp.split_tritonbench("x = 1\n")


class Importer(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="kbench-import-test-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def imported(self, name, validate=False):
        doc, _ = ki.import_kernelbench_file(os.path.join(PROBLEMS, "kernelbench", name), validate=validate)
        return doc

    def test_a_problem_becomes_a_task_with_its_sizes_as_the_perf_case(self):
        doc = self.imported("2_softmax_rows.py")
        self.assertEqual(doc["format"], "kbench-task/1")
        self.assertEqual(doc["reference"]["language"], "python")
        self.assertEqual(doc["reference"]["entry"], "Model")
        self.assertEqual(doc["reference"]["candidate_entry"], "ModelNew")
        self.assertEqual(doc["perf_case"], {"name": "faithful", "dims": {"batch_size": 32, "features": 1000}})
        self.assertEqual(list(doc["dims"]), ["batch_size", "features"])
        small = doc["cases"][0]["dims"]
        self.assertEqual(small, {"batch_size": 31, "features": 997})  # primes below the problem's sizes
        self.assertIn("batch_of_one", [c["name"] for c in doc["cases"]])
        self.assertEqual(doc["tolerance"]["f32"], {"atol": 1e-4, "rtol": 1e-4, "equal_nan": False})
        self.assertEqual(doc["tolerance"]["f16"]["atol"], 1e-2)
        self.assertEqual(doc["policy"]["torch_compute"], "report")
        self.assertEqual(doc["reference"]["inputs"][0]["init"], {"dist": "normal", "mean": 0.0, "std": 1.0})

    def test_integer_inputs_stay_integers(self):
        doc = self.imported("3_cross_entropy.py")
        ins = doc["reference"]["inputs"]
        self.assertEqual([i["name"] for i in ins], ["predictions", "targets"])
        self.assertEqual(ins[0]["shape"], ["batch_size", "num_classes"])
        self.assertEqual(ins[1]["dtype"], "i64")
        self.assertEqual(ins[1]["init"]["dist"], "randint")
        self.assertTrue(any("issue 151" in n for n in doc["origin"]["notes"]))
        # `dim` is an init argument, not a size: it is no dim and keeps its value.
        self.assertNotIn("dim", doc["dims"])

    def test_init_only_constants_are_not_dims(self):
        doc = self.imported("4_scaled_linear.py")
        self.assertEqual(list(doc["dims"]), ["batch_size", "in_features"])

    def test_literal_sizes_give_one_case_and_a_note(self):
        doc = self.imported("5_literal_sizes.py")
        self.assertEqual(doc["dims"], {})
        self.assertEqual(len(doc["cases"]), 1)
        self.assertTrue(any("not module constants" in n for n in doc["origin"]["notes"]))

    def test_a_file_without_model_is_refused_with_the_reason(self):
        with self.assertRaisesRegex(ki.ImportFailure, "no top-level class Model"):
            self.imported("6_not_a_problem.py")

    def test_tritonbench_operators(self):
        for channel, name, fn, wrappers in (("G", "vec_add.py", "test_add", ["add"]),
                                            ("T", "scaled_gelu.py", "test_scaled_gelu", ["scaled_gelu"])):
            doc, code = ki.import_tritonbench_file(os.path.join(PROBLEMS, "tritonbench_" + channel, name), channel)
            self.assertEqual(doc["reference"]["style"], "tritonbench")
            self.assertEqual(doc["reference"]["entry"], fn)
            self.assertEqual(doc["reference"]["candidate_functions"], wrappers)
            self.assertEqual(doc["policy"]["torch_compute"], "forbid")
            self.assertEqual(doc["program"], {"timing": False})
            self.assertNotIn("#" * 146, code)

    def test_the_command_writes_family_folders_and_reports_failures(self):
        r = subprocess.run([sys.executable, os.path.join(PROGRAMS, "kbench_importer.py"), "kernelbench",
                            os.path.join(PROBLEMS, "kernelbench"), "-o", self.out, "--no-validate"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # 6_not_a_problem.py
        self.assertIn("1 of 6 files could not be imported", r.stderr)
        task = os.path.join(self.out, "kernelbench", "kernelbench_2_softmax_rows", "task.json")
        with open(task) as f:
            doc = json.load(f)
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(task), doc["reference"]["source_file"])))
        r = subprocess.run([sys.executable, os.path.join(PROGRAMS, "kbench_importer.py"), "kernelbench",
                            os.path.join(PROBLEMS, "kernelbench", "2_softmax_rows.py"), "--stdout", "--no-validate"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertIn("torch.softmax", doc["reference"]["source"])

    @unittest.skipUnless(HAVE_TORCH, "needs torch")
    def test_validation_flags_relu_on_positive_inputs_and_proposes_inputs_that_tell(self):
        doc = self.imported("1_relu_positive.py", validate=True)
        self.assertTrue(doc["origin"]["validated"])
        findings = doc["origin"]["findings"]
        self.assertEqual(len(findings), 1)
        self.assertEqual(findings[0]["reason"], "equals_input")
        self.assertEqual(findings[0]["proposal"]["input_transforms"], [{"input": 0, "scale": 2.0, "shift": -1.0}])
        ok = self.imported("2_softmax_rows.py", validate=True)
        self.assertEqual(ok["origin"]["findings"], [])
        self.assertEqual(ok["reference"]["outputs"][0]["dtype"], "f32")

    @unittest.skipUnless(HAVE_TORCH, "needs torch")
    def test_validation_writes_the_kernel_signature_where_sizes_and_state_allow(self):
        doc = self.imported("2_softmax_rows.py", validate=True)
        args = doc["args"]
        self.assertEqual([a["role"] for a in args], ["in", "out"])
        self.assertEqual(args[0]["shape"], doc["reference"]["inputs"][0]["shape"])
        self.assertEqual(args[1]["name"], "out")
        self.assertEqual(args[1]["shape"], args[0]["shape"])  # softmax keeps its input's shape
        self.assertEqual(doc["candidate"]["triton_args"], [args[0]["name"], "out"])
        ce = self.imported("3_cross_entropy.py", validate=True)  # two inputs, one of them int64; a scalar out
        self.assertEqual([a["dtype"] for a in ce["args"]], ["f32", "i64", "f32"])
        self.assertEqual(ce["args"][2]["shape"], [])
        linear = self.imported("4_scaled_linear.py", validate=True)  # a model with weights: none
        self.assertNotIn("args", linear)
        self.assertTrue(any("no kernel signature: the model holds parameters" in n for n in linear["origin"]["notes"]))

    @unittest.skipUnless(HAVE_TORCH, "needs torch")
    def test_cases_the_reference_rejects_are_dropped(self):
        src = ("import torch\nimport torch.nn as nn\n"
               "class Model(nn.Module):\n"
               "    def forward(self, x):\n"
               "        assert x.shape[1] % 4 == 0\n"
               "        return x * 2\n"
               "batch_size = 8\nwidth = 64\n"
               "def get_inputs():\n    return [torch.randn(batch_size, width)]\n"
               "def get_init_inputs():\n    return []\n")
        path = os.path.join(self.out, "7_needs_multiple_of_4.py")
        with open(path, "w") as f:
            f.write(src)
        doc, _ = ki.import_kernelbench_file(path, validate=True)
        names = [c["name"] for c in doc["cases"]]
        self.assertNotIn("small_primes", names)  # width 61 is rejected
        self.assertTrue(any("small_primes" in n for n in doc["origin"]["notes"]))


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class NegativeControls(unittest.TestCase):
    """kbench_controls on torch tensors, and what the import writes for strict."""

    def setUp(self):
        self.out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.out)

    def problem(self, name, forward, inputs="[torch.rand(batch_size, width)]", extra=""):
        src = ("import torch\nimport torch.nn as nn\n" + extra +
               "class Model(nn.Module):\n    def forward(self, x):\n        return %s\n" % forward +
               "batch_size = 16\nwidth = 256\n"
               "def get_inputs():\n    return %s\n" % inputs +
               "def get_init_inputs():\n    return []\n")
        path = os.path.join(self.out, name + ".py")
        with open(path, "w") as f:
            f.write(src)
        doc, _ = ki.import_kernelbench_file(path, validate=True)
        return doc

    def test_controls_on_hand_made_tensors(self):
        import kbench_controls as kcn
        import torch
        x = torch.rand(8, 64)
        self.assertEqual(kcn.controls(torch.relu(x), [x], torch.relu(torch.rand(8, 64)), 1e-4, 1e-4), ["input:0"])
        y = torch.softmax(torch.rand(2, 65536), dim=1)  # every element below 3e-5
        other = torch.softmax(torch.rand(2, 65536), dim=1)
        self.assertIn("zeros", kcn.controls(y, [], other, 1e-4, 1e-4))
        atol, rtol = kcn.magnitude_tolerance(y, "f32", 1e-4, 1e-4)
        self.assertLess(atol, 1e-7)
        self.assertEqual(kcn.controls(y, [], other, atol, rtol), [])
        # A one-element output: its mean is itself, not a control.
        self.assertEqual(kcn.controls(torch.tensor(3.0), [], torch.tensor(4.0), 1e-4, 1e-4), [])

    def test_relu_on_positive_inputs_gets_the_centring_transform_in_strict_only(self):
        doc = self.problem("relu_positive", "torch.relu(x)")
        st = doc["origin"]["controls"]["strict"]
        self.assertEqual(st["input_transforms"], [{"input": 0, "scale": 2.0, "shift": -1.0}])
        self.assertEqual(st["dropped_cases"], [])
        self.assertNotIn("refused", st)
        self.assertTrue(all("input:0" in c["outputs"][0]["passing"] for c in doc["origin"]["controls"]["cases"]))
        self.assertTrue(all(c["strict"]["passing"] == [] for c in doc["origin"]["controls"]["cases"]))
        with open(os.path.join(self.out, "relu_positive.py")) as f:
            doc["reference"]["source"] = f.read()
        ref = kp.Reference(doc)
        m = kp.load_module(ref.problem_source_at(0), ref.source_name, self.out, "t")
        try:
            strict = kp.make_inputs(m, ref, 5, "cpu", "strict")[0]
            faithful = kp.make_inputs(m, ref, 5, "cpu", "kernelbench")[0]
        finally:
            kp.unload_module(m)
        self.assertGreaterEqual(float(faithful.min()), 0.0)  # kernelbench: the problem's own inputs
        self.assertLess(float(strict.min()), 0.0)            # strict: 2x - 1

    def test_a_constant_output_is_refused(self):
        doc = self.problem("zero_out", "x[:, :1] - x[:, :1]")
        st = doc["origin"]["controls"]["strict"]
        self.assertIn("refused", st)
        self.assertEqual(len(st["dropped_cases"]), len(doc["origin"]["controls"]["cases"]))
        self.assertTrue(any(f["kind"] == "cannot_tell_right_from_wrong" for f in doc["origin"]["findings"]))

    def test_tiny_outputs_get_the_magnitude_aware_tolerance(self):
        # Outputs of about 1e-9: scaling the inputs by 1000 still leaves them
        # far below KernelBench's 1e-4.
        doc = self.problem("tiny", "1e-9 * x")
        st = doc["origin"]["controls"]["strict"]
        self.assertNotIn("refused", st)
        self.assertIn("f32", st["tolerance"])
        self.assertLess(st["tolerance"]["f32"]["atol"], 1e-8)

    def test_a_reference_that_draws_random_numbers_is_not_deterministic(self):
        doc = self.problem("noisy", "x + torch.rand_like(x)")
        c = doc["origin"]["controls"]
        self.assertFalse(c["deterministic"])
        self.assertTrue(all(not case["deterministic"] for case in c["cases"]))
        self.assertIn("refused", c["strict"])  # every case disagrees with itself beyond the tolerance


class SourceScan(unittest.TestCase):
    def rules(self, src):
        return {f["rule"] for f in kc.scan_source(src)}

    def test_cheats_on_record_are_found(self):
        self.assertIn("gc_search", self.rules("import gc\nx = [o for o in gc.get_objects()]\n"))
        self.assertIn("patches_timer", self.rules("import torch\ntorch.cuda.Event = object\n"))
        self.assertIn("patches_timer", self.rules("import time\ntime.perf_counter = lambda: 0\n"))
        self.assertIn("thread", self.rules("import threading\nthreading.Thread(target=print).start()\n"))
        self.assertIn("try_except", self.rules("try:\n    f()\nexcept Exception:\n    g()\n"))
        self.assertIn("side_stream", self.rules("import torch\ns = torch.cuda.Stream()\n"))
        self.assertIn("side_stream", self.rules("import torch\nwith torch.cuda.stream(s):\n    pass\n"))
        self.assertIn("exits", self.rules("import os\nos._exit(0)\n"))
        self.assertIn("frame_walk", self.rules("import sys\nf = sys._getframe(1).f_locals\n"))
        self.assertIn("patches_module", self.rules("import torch\nsetattr(torch, 'relu', None)\n"))

    def test_an_honest_candidate_has_no_finding(self):
        with open(os.path.join(HERE, "candidates", "softmax_torch.py")) as f:
            self.assertEqual(kc.scan_source(f.read()), [])

    def test_a_syntax_error_is_one_finding(self):
        f = kc.scan_source("def f(:\n")
        self.assertEqual(f[0]["rule"], "syntax")


class Integrity(unittest.TestCase):
    def test_a_replaced_timer_and_a_thread_left_running_are_seen(self):
        integ = kc.Integrity()
        before = kc.thread_idents()
        saved = time.perf_counter
        try:
            time.perf_counter = lambda: 0.0
            self.assertIn("time.perf_counter", integ.changed())
        finally:
            time.perf_counter = saved
        self.assertEqual(integ.changed(), [])
        stop = threading.Event()
        t = threading.Thread(target=stop.wait, name="left-running")
        t.start()
        try:
            self.assertEqual([x.name for x in kc.new_threads(before)], ["left-running"])
        finally:
            stop.set()
            t.join()
        self.assertEqual(kc.new_threads(before), [])


class TritonWarm(unittest.TestCase):
    """kbench_triton_warm against stand-ins for Triton's JITFunction and
    Autotuner (the real ones need a GPU to compile for)."""

    def setUp(self):
        import types
        self.saved = {k: sys.modules.get(k) for k in ("triton.runtime.jit", "triton.runtime.autotuner",
                                                     "triton.runtime._async_compile")}
        calls = self.calls = []

        class Kernel(str):
            """What Triton's run returns on a warm-up: the compiled kernel,
            whose module and launcher `_init_handles` makes."""
            fail = False

            def _init_handles(self):
                calls.append(("init", (), None, None))
                if Kernel.fail:
                    raise RuntimeError("out of resources: shared memory")

        self.Kernel = Kernel

        class JITFunction:
            def run(self, *args, grid, warmup, **kwargs):
                calls.append(("run", args, warmup, kwargs.get("BLOCK")))
                return "launched" if not warmup else Kernel("compiled")

            def warmup(self, *args, grid, **kwargs):
                return self.run(*args, grid=grid, warmup=True, **kwargs)

        class Autotuner:
            def __init__(self, fn):
                self.fn, self.cache = fn, {}

            def run(self, *args, **kwargs):
                self.cache["chosen"] = 64
                return self.fn.run(*args, BLOCK=64, **kwargs)

            def warmup(self, *args, **kwargs):
                return [self.fn.warmup(*args, BLOCK=b, **kwargs) for b in (32, 64)]

        jit = types.ModuleType("triton.runtime.jit")
        jit.JITFunction = JITFunction
        tuner = types.ModuleType("triton.runtime.autotuner")
        tuner.Autotuner = Autotuner
        sys.modules["triton.runtime.jit"], sys.modules["triton.runtime.autotuner"] = jit, tuner
        sys.modules.pop("kbench_triton_warm", None)
        import kbench_triton_warm
        self.ktw, self.JITFunction, self.Autotuner = kbench_triton_warm, JITFunction, Autotuner

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        sys.modules.pop("kbench_triton_warm", None)

    def test_launches_compile_only_inside_and_run_outside(self):
        self.assertTrue(self.ktw.install())
        fn = self.JITFunction()
        launch = fn.run  # bound before the warm-up, as the launch counters bind it
        with self.ktw.compile_only():
            self.assertEqual(launch(1, 2, grid=(1,), warmup=False), "compiled")
        self.assertEqual(launch(1, 2, grid=(1,), warmup=False), "launched")
        # Inside, the kernel's module and launcher are made too; outside,
        # the launch is Triton's own.
        self.assertEqual([(c[0], c[2]) for c in self.calls], [("run", True), ("init", None), ("run", False)])

    def test_a_kernel_that_fails_to_load_leaves_the_failure_to_its_launch(self):
        self.assertTrue(self.ktw.install())
        self.Kernel.fail = True
        with self.ktw.compile_only():
            self.assertEqual(self.JITFunction().run(1, grid=(1,), warmup=False), "compiled")
        self.assertEqual([c[0] for c in self.calls], ["run", "init"])

    def test_autotuner_compiles_every_config_and_chooses_none(self):
        self.assertTrue(self.ktw.install())
        tuned = self.Autotuner(self.JITFunction())
        with self.ktw.compile_only():
            self.assertIsNone(tuned.run(7, grid=(1,), warmup=False))
        runs = [c for c in self.calls if c[0] == "run"]
        self.assertEqual(sorted(c[3] for c in runs), [32, 64])
        self.assertTrue(all(c[2] for c in runs))
        self.assertEqual(len(self.calls), 4)  # each configuration loaded too
        self.assertEqual(tuned.cache, {})
        self.assertEqual(tuned.run(7, grid=(1,), warmup=False), "launched")
        self.assertEqual(tuned.cache, {"chosen": 64})

    def test_compiles_side_by_side_are_loaded_here_once_all_end(self):
        """side_by_side: under an AsyncCompileMode stand-in with the contract
        of Triton's (submit by key, finalize every compile on exit), a load's
        compiles run on the pool's threads, each kernel is loaded in this
        thread once all have ended, a failed compile is left to its launch,
        and no thread of the pool is left behind."""
        import contextvars
        import threading
        ktw, Kernel, calls = self.ktw, self.Kernel, self.calls
        mod = types.ModuleType("triton.runtime._async_compile")
        mod.active_mode = contextvars.ContextVar("mode", default=None)

        class Future:
            def __init__(self, future):
                self.future, self.kernel = future, None

            def result(self, ignore_errors=False):
                try:
                    self.kernel = self.future.result()
                except Exception:
                    if not ignore_errors:
                        raise
                return self.kernel

        class AsyncCompileMode:
            def __init__(self, executor, ignore_errors=False):
                self.executor, self.ignore_errors, self.future_kernels = executor, ignore_errors, {}

            def submit(self, key, fn):
                return self.future_kernels.setdefault(key, Future(self.executor.submit(fn)))

            def __enter__(self):
                mod.active_mode.set(self)

            def __exit__(self, *exc):
                for f in self.future_kernels.values():
                    f.result(self.ignore_errors)
                mod.active_mode.set(None)
        mod.AsyncCompileMode = AsyncCompileMode
        self.saved["triton.runtime._async_compile"] = sys.modules.get("triton.runtime._async_compile")
        sys.modules["triton.runtime._async_compile"] = mod
        threads, both = set(), threading.Barrier(2, timeout=5)

        def compile_block(block):
            threads.add(threading.current_thread().name)
            both.wait()  # the two compiles run at the same time, or this times out
            if block == 3:
                raise RuntimeError("a compile error")
            return Kernel("compiled %d" % block)

        def run(fn, *args, grid, warmup, **kwargs):
            calls.append(("run", args, warmup, kwargs.get("BLOCK")))
            mode = mod.active_mode.get()
            return mode.submit(kwargs["BLOCK"], lambda: compile_block(kwargs["BLOCK"]))
        self.JITFunction.run = run
        self.assertTrue(ktw.install())
        fn = self.JITFunction()
        before = set(t.ident for t in threading.enumerate())
        with ktw.side_by_side(2):
            with ktw.compile_only():
                for block in (1, 2, 2, 3):
                    fn.run(grid=(1,), warmup=False, BLOCK=block)
            self.assertEqual([c[0] for c in calls], ["run"] * 4)  # none loaded while compiles run
        self.assertEqual([c[0] for c in calls[4:]], ["init", "init"])  # blocks 1 and 2; 3 failed
        self.assertEqual(len(threads), 2)
        self.assertTrue(all(n.startswith("kbench-triton-compile") for n in threads))
        self.assertEqual(set(t.ident for t in threading.enumerate()), before)
        # One thread: compiles at their launches, as without the mode.
        del calls[:]
        with ktw.side_by_side(1):
            self.assertIsNone(mod.active_mode.get())

    def test_compile_threads_follow_the_setting_else_the_cpus(self):
        os.environ["KBENCH_TRITON_COMPILE_THREADS"] = "3"
        try:
            self.assertEqual(self.ktw.compile_threads(), 3)
        finally:
            del os.environ["KBENCH_TRITON_COMPILE_THREADS"]
        self.assertEqual(self.ktw.compile_threads(), max(1, min(8, len(os.sched_getaffinity(0)))))

    def test_without_triton_nothing_is_installed(self):
        sys.modules.pop("triton.runtime.jit")
        self.assertFalse(self.ktw.install())


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class Inputs(unittest.TestCase):
    def reference(self, name, dims=None):
        path = os.path.join(PROBLEMS, "kernelbench", name)
        doc, source = ki.import_kernelbench_file(path, validate=False)
        doc["reference"]["source"] = source
        return kp.Reference(doc)

    def test_the_same_seed_gives_the_same_bytes_and_integers_stay_integers(self):
        import torch
        ref = self.reference("3_cross_entropy.py")
        work = tempfile.mkdtemp()
        try:
            m = kp.load_module(ref.problem_source_at(0), ref.source_name, work, "t")
            a = kp.make_inputs(m, ref, 5, "cpu", "kernelbench")
            b = kp.make_inputs(m, ref, 5, "cpu", "strict")
            c = kp.make_inputs(m, ref, 6, "cpu", "strict")
        finally:
            shutil.rmtree(work)
        self.assertEqual(a[1].dtype, torch.int64)
        self.assertEqual([kp.checksum(x) for x in a], [kp.checksum(x) for x in b])
        self.assertNotEqual(kp.checksum(a[0]), kp.checksum(c[0]))
        self.assertEqual(tuple(a[0].shape), (251, 97))

    def test_the_checksum_sees_one_changed_element_and_a_swap(self):
        import torch
        x = torch.randn(1000)
        s = kp.checksum(x)
        y = x.clone()
        y[500] += 1e-6
        self.assertNotEqual(kp.checksum(y), s)
        z = x.clone()
        z[[3, 4]] = z[[4, 3]]
        self.assertNotEqual(kp.checksum(z), s)
        self.assertEqual(kp.checksum(x.clone()), s)

    def test_a_meta_warm_up_has_the_shapes_without_memory_and_skips_weights(self):
        """meta_call: the warm-up's inputs for a case too large to warm on
        real ones; none for a model with weights on the device."""
        import torch
        import kbench_program_worker as kw
        work = tempfile.mkdtemp()
        try:
            for name, model, has in (("2_softmax_rows.py", torch.nn.Softmax(dim=1), True),
                                     ("4_scaled_linear.py", torch.nn.Linear(4, 4), False)):
                ref = self.reference(name)
                m = kp.load_module(ref.problem_source_at(0), ref.source_name, work, "t")
                w = kw.Worker.__new__(kw.Worker)
                w.torch = torch
                w.candidate = {"cuda": [], "source": "import triton\n"}
                w.model = lambda h, r, case, who, seed: model
                w.problem_module = lambda h, r, case: m
                got_model, args = kw.Worker.meta_call(w, "h", ref, 0, 7, "strict", 42)
                if not has:
                    self.assertEqual((got_model, args), (None, None))
                    continue
                real = kp.make_inputs(m, ref, 7, "cpu", "strict")
                self.assertIs(got_model, model)
                self.assertEqual([(tuple(x.shape), x.dtype, x.device.type) for x in args],
                                 [(tuple(x.shape), x.dtype, "meta") for x in real])
                self.assertEqual(tuple(model(*args).shape), tuple(real[0].shape))
                self.assertEqual(kw.Worker.meta_call(w, "h", ref, 0, 7, "kernelbench", 42), (None, None))
                # Device code compile-only does not stop: real inputs only.
                for cand in ({"cuda": ["relu_kernel"], "source": ""},
                             {"cuda": [], "source": "", "kernel": {"language": "triton"}},
                             {"cuda": [], "source": "from torch.utils.cpp_extension import load\n"}):
                    w.candidate = cand
                    self.assertEqual(kw.Worker.meta_call(w, "h", ref, 0, 7, "strict", 42), (None, None))
                w.candidate = {"cuda": [], "source": ""}
        finally:
            shutil.rmtree(work)

    def timing_worker(self, model, make):
        """A worker on the CPU that times `model` on inputs from `make`, with
        nothing else of a worker's set-up."""
        import torch
        import kbench_program_worker as kw
        w = kw.Worker.__new__(kw.Worker)
        w.torch, w.device, w.role, w.test_hooks = torch, "cpu", "candidate", False
        w.candidate = {"name": "c.py"}
        w.cupti, w.integrity, w.timing_inputs = None, None, None
        w.inputs, w.input_bytes = {}, 0
        w.conn = types.SimpleNamespace(note=lambda *a: None)
        ref = types.SimpleNamespace(style="kernelbench", task_name="t", case_name=lambda c: "c%d" % c)
        w.task = lambda doc, blobs: ("h", ({}, ref))
        w.model = lambda h, r, case, who, seed: model
        w.make_inputs = make
        return w

    def test_a_timing_round_ends_once_its_median_is_known_to_the_target(self):
        """program_time stops a round after min_trials samples whose median's
        relative standard error is within target_rel_noise (the host's
        rel_noise, src/measure/stats.cpp); noisy samples run to `trials`."""
        import torch
        import kbench_program_worker as kw
        self.assertEqual(kw.rel_noise([2.0] * 4 + [9.0]), 0.0)
        self.assertAlmostEqual(kw.rel_noise([1.0, 2.0, 3.0, 4.0, 5.0]), 1.2533 * 1.4826 / 5 ** 0.5 / 3)
        self.assertEqual(kw.rel_noise([]), float("inf"))
        calls = []

        def model(x):
            calls.append(1)
            # Noisy: 2, 4, 6, 8 and 10 ms in turn.
            time.sleep(0.002 * (1 + len(calls) * 7 % 5) if slow else 0.002)
            return x

        def make(h, r, case, seed, mode):
            return [torch.zeros(4)], [{"index": 0, "dtype": "f32", "shape": [4], "bytes": 16, "device": "cpu"}]
        w = self.timing_worker(model, make)
        doc = {"case": 0, "seed": 5, "warmup_seed": 5, "warmup_calls": 1, "trials": 12, "min_trials": 5,
               "target_rel_noise": 0.1, "measure": "spans", "alias_inputs": True}
        for slow, want in ((False, 5), (True, 12)):
            calls.clear()
            w.timing_inputs = None
            result, _ = kw.Worker.program_time(w, dict(doc), [])
            self.assertEqual(len(result["wall_samples_ms"]), want, "slow=%s" % slow)
        # Without a target, every trial runs.
        slow = False
        result, _ = kw.Worker.program_time(w, dict(doc, target_rel_noise=0), [])
        self.assertEqual(len(result["wall_samples_ms"]), 12)

    def test_the_timing_warm_up_copies_only_the_caches_inputs(self):
        """program_time's warm-up calls share one copy of cached inputs (the
        cache stays as made) but run on inputs made for the request alone
        without a copy: at KernelBench's sizes a copy is 4 ms of GPU time and
        6 GB more memory."""
        import torch
        import kbench_program_worker as kw
        made, seen = [], []

        def model(x):
            seen.append(x.data_ptr())
            return x + 1

        def make(h, r, case, seed, mode):
            x = torch.full((4,), float(len(made)))
            made.append(x.data_ptr())
            d = [{"index": 0, "dtype": "f32", "shape": [4], "bytes": 16, "device": "cpu"}]
            if cached:
                w.inputs[w.input_key(h, case, seed, mode)] = ([x], d)
            return [x], d
        w = self.timing_worker(model, make)
        doc = {"case": 0, "seed": 5, "warmup_seed": 6, "warmup_calls": 2, "trials": 2, "alias_inputs": True}
        for cached in (False, True):
            made.clear(), seen.clear(), w.inputs.clear()
            w.timing_inputs = None
            result, _ = kw.Worker.program_time(w, dict(doc), [])
            self.assertEqual(len(result["wall_samples_ms"]), 2)
            warm_ptrs = set(seen[:2])
            self.assertEqual(len(warm_ptrs), 1)
            self.assertEqual(warm_ptrs == {made[0]}, not cached, "cached=%s" % cached)

    def test_kernelbench_trial_seeds_are_its_own(self):
        import torch
        torch.manual_seed(42)
        expected = [torch.randint(0, 2 ** 32 - 1, (1,)).item() for _ in range(5)]
        got = [kp.resolve_seed({"kernelbench_trial": i, "base": 42}) for i in range(5)]
        self.assertEqual(got, expected)


@unittest.skipUnless(HAVE_TORCH, "needs torch")
class PrecisionModes(unittest.TestCase):
    """kbench_precision: the reduced-precision recomputations of the
    precision audit (src/compare/precision.h) and the flags they restore."""

    def flags(self):
        import torch
        m = torch.backends.cuda.matmul
        state = [m.allow_tf32, torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision()]
        if hasattr(m, "fp32_precision"):
            state += [m.fp32_precision, torch.backends.cudnn.conv.fp32_precision]
        return state

    def test_tf32_sets_the_flags_for_the_call_and_restores_them_exactly(self):
        import torch
        import kbench_precision as kpr
        before = self.flags()
        for _ in range(2):
            with kpr.reduced_precision(torch, "tf32", "cpu"):
                self.assertTrue(torch.backends.cuda.matmul.allow_tf32)
                self.assertTrue(torch.backends.cudnn.allow_tf32)
            self.assertEqual(self.flags(), before)
        with self.assertRaises(RuntimeError):
            with kpr.reduced_precision(torch, "tf32", "cpu"):
                raise RuntimeError("the reference raised")
        self.assertEqual(self.flags(), before)

    def test_bf16_autocast_gives_what_a_bf16_matmul_gives_and_tf32_changes_nothing_on_the_cpu(self):
        import torch
        import kbench_precision as kpr
        torch.manual_seed(0)
        a, b = torch.randn(64, 48), torch.randn(48, 32)
        full = a @ b
        with kpr.reduced_precision(torch, "bf16", "cpu"):
            r = a @ b
        self.assertEqual(r.dtype, torch.bfloat16)
        cand = (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).float()
        self.assertEqual(kpr.max_abs_diff(torch, cand, r.float()), 0.0)
        self.assertGreater(kpr.max_abs_diff(torch, cand, full), 1e-3)
        with kpr.reduced_precision(torch, "tf32", "cpu"):
            t = a @ b
        self.assertTrue(kpr.same_bits(torch, t, full))
        self.assertFalse(kpr.same_bits(torch, r.float(), full))
        with self.assertRaises(ValueError):
            with kpr.reduced_precision(torch, "int8", "cpu"):
                pass

    def test_errors_and_scale_treat_nan_and_inf_as_the_comparator_does(self):
        import torch
        import kbench_precision as kpr
        nan, inf = float("nan"), float("inf")
        self.assertEqual(kpr.max_abs_diff(torch, torch.tensor([nan, inf, 1.0]), torch.tensor([nan, inf, 1.5])), 0.5)
        self.assertNotEqual(kpr.max_abs_diff(torch, torch.tensor([nan]), torch.tensor([1.0])),
                            kpr.max_abs_diff(torch, torch.tensor([nan]), torch.tensor([1.0])))  # NaN
        self.assertEqual(kpr.scale(torch, torch.tensor([-3.0, inf, nan, 2.0])), 3.0)


class KernelModel(unittest.TestCase):
    """kbench_kernel_model: a kernel candidate's ModelNew launches exactly
    what kbench's table says (src/engine/kernel_program.cpp)."""

    TABLE = {"language": "triton",
             "inputs": [{"name": "x", "dtype": "f32", "role": "in"}],
             "outputs": [{"name": "out", "dtype": "f32"}],
             "cases": [{"name": "small", "buffers": {"x": {"dtype": "f32", "shape": [3, 5]},
                                                    "out": {"dtype": "f32", "shape": [3, 5]}},
                        "scratch": [],
                        "steps": [{"kernel": "relu_kernel", "grid": [1, 1, 1], "constexprs": {"BLOCK": 16},
                                   "num_warps": 2, "num_stages": 3, "num_ctas": 1,
                                   "args": [{"buffer": "x"}, {"buffer": "out"}, {"scalar": 15, "dtype": "i32"}]}]}]}

    def test_scalars_take_the_parameters_c_type(self):
        import ctypes
        import kbench_kernel_model as kk
        self.assertIsInstance(kk.scalar_ctype("i32", 7), ctypes.c_int32)
        self.assertEqual(kk.scalar_ctype("i64", 1 << 40).value, 1 << 40)
        self.assertIsInstance(kk.scalar_ctype("f32", 0.5), ctypes.c_float)
        self.assertEqual(kk.scalar_ctype("u8", 255).value, 255)
        self.assertIs(kk.scalar_python("bool", 1), True)
        self.assertIsInstance(kk.scalar_python("f64", 3), float)
        self.assertIsInstance(kk.scalar_python("i64", 3.0), int)
        with self.assertRaises(kk.KernelError):
            kk.scalar_ctype("c64", 1)

    def test_declared_functions_are_the_tables_kernels_once_each(self):
        import kbench_kernel_model as kk
        table = {"cases": [{"steps": [{"kernel": "a", "function": "_Z1av"}, {"zero": "out"}]},
                           {"steps": [{"kernel": "a", "function": "_Z1av"}, {"kernel": "b"}]}]}
        self.assertEqual(kk.declared_functions(table), ["_Z1av", "b"])

    def test_a_case_out_of_the_table_is_an_error(self):
        import kbench_kernel_model as kk
        with self.assertRaises(kk.KernelError):
            kk.KernelModel(self.TABLE, 1, None, None, None, "cpu")

    @unittest.skipUnless(HAVE_TORCH, "needs torch")
    def test_forward_launches_the_steps_with_the_inputs_and_new_outputs(self):
        import types
        import torch
        import kbench_kernel_model as kk
        seen = []

        class Launcher:
            def __getitem__(self, grid):
                def run(*args, **kwargs):
                    seen.append((grid, args, kwargs))
                    args[1].copy_(torch.relu(args[0]))
                return run

        module = types.SimpleNamespace(relu_kernel=Launcher())
        m = kk.KernelModel(self.TABLE, 0, module, None, torch, "cpu")
        x = torch.randn(3, 5)
        out = m(x)
        self.assertTrue(torch.equal(out, torch.relu(x)))
        grid, args, kwargs = seen[0]
        self.assertEqual(grid, (1, 1, 1))
        self.assertIs(args[0], x)
        self.assertEqual(args[2], 15)
        self.assertEqual(kwargs, {"BLOCK": 16, "num_warps": 2, "num_stages": 3})
        with self.assertRaises(kk.KernelError):
            m(torch.randn(4, 5))  # not the case's size
        with self.assertRaises(kk.KernelError):
            m(x, x)  # two tensors, one declared


class TritonBenchPerf(unittest.TestCase):
    """kbench_tritonbench_perf: TritonBench's performance scripts run with
    their operator imports bound to the module being judged."""

    SCRIPT = (
        "import sys\nimport os\n"
        "sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), '..')))\n"
        "from TritonBench_v1.twice import twice\n"
        "from performance_utils import Performance_Metrics, do_bench_config\n"
        "class performance_metrics(Performance_Metrics):\n"
        "    def __init__(self, dtype=None, is_backward=False, **kwargs):\n"
        "        super().__init__('twice', dtype=dtype, is_backward=is_backward, **kwargs)\n"
        "    def get_input_tensors(self):\n"
        "        self.input_tensors = [[1, 2], [3]]\n"
        "    def to_cuda(self, x):\n"
        "        return list(x)\n"
        "    def call_op(self, x):\n"
        "        return twice(x)\n")

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="kbench-tb-perf-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def test_the_operator_import_is_bound_to_the_judged_module_and_every_input_is_run(self):
        import types
        import kbench_tritonbench_perf as ktp
        self.assertEqual(ktp.operator_imports(self.SCRIPT), [("TritonBench_v1", "twice")])
        for factor in (2, 3):  # the reference's code, then a candidate's
            target = types.ModuleType("target")
            target.twice = lambda xs, f=factor: [f * v for v in xs]
            module, cls = ktp.load(self.SCRIPT, target, self.work)
            run = ktp.PerfRun(module, cls, seed=1) if HAVE_TORCH else None
            if run is None:
                m = cls()
                m.get_input_tensors()
                self.assertEqual([m.call_op(m.to_cuda(x)) for x in m.input_tensors],
                                 [[factor, 2 * factor], [3 * factor]])
            else:
                self.assertEqual(run(), [[factor, 2 * factor], [3 * factor]])
                run.close()
        self.assertNotIn("TritonBench_v1", sys.modules)  # nothing left behind
        self.assertNotIn("performance_utils", sys.modules)

    def test_the_gate_counts_the_candidates_function_calls_in_progress(self):
        import types
        import kbench_attribution as ka
        gate = [0]
        seen = []
        m = types.ModuleType("cand")
        m.add = lambda x, y: seen.append(gate[0]) or x + y
        m.helper = lambda: seen.append(gate[0])
        ka.gate_functions(m, ["add", "missing"], gate)
        self.assertEqual(m.add(1, 2), 3)
        m.helper()
        self.assertEqual(seen, [1, 0])  # inside add, then outside any candidate function
        self.assertEqual(gate, [0])

    def test_a_script_without_its_class_is_an_error_that_says_so(self):
        import types
        import kbench_tritonbench_perf as ktp
        with self.assertRaises(ktp.PerfScriptError) as e:
            ktp.load("x = 1\n", types.ModuleType("t"), self.work)
        self.assertIn("performance_metrics", str(e.exception))

    def test_the_importer_attaches_the_script_and_times_the_operator_on_it(self):
        doc, _ = ki.import_tritonbench_file(os.path.join(PROBLEMS, "tritonbench_G", "vec_add.py"), "G", False)
        self.assertEqual(doc["program"], {"timing": False})
        ki.attach_perf_script(doc, os.path.join(PROBLEMS, "tritonbench_G_perf"), "vec_add")
        self.assertEqual(doc["program"], {"timing": True})
        self.assertEqual(doc["perf_case"]["name"], "perf_script")
        self.assertIn("from TritonBench_v1.vec_add import add", doc["reference"]["perf_source"])
        other, _ = ki.import_tritonbench_file(os.path.join(PROBLEMS, "tritonbench_G", "vec_add.py"), "G", False)
        ki.attach_perf_script(other, self.work, "vec_add")  # no script there: correctness only
        self.assertNotIn("perf_source", other["reference"])
        self.assertTrue(any("no performance script" in n for n in other["origin"]["notes"]))


if __name__ == "__main__":
    unittest.main()
