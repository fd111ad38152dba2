"""A torch-free stand-in for kbench's Python program worker, for CPU tests of
the program pipeline where no torch is installed (CI installs none).

It speaks the program worker's requests (ipc/frame.h: hello, canary,
program_load, program_run, program_time, program_release, shutdown) through
python/kbench_programs/kbench_frames.py, on problems and candidates written in
plain Python: a problem's Model and a candidate's ModelNew take and return
flat lists of floats, and the inputs are made here from the task's reference
inputs (f32, `init.dist` normal or uniform, shapes from the case's dims).
Outputs go back as f32 bytes, so the host compares them as it compares any
program candidate's on the host.

The host starts it when $KBENCH_PROGRAM_WORKER names this file
(worker_host/program_workers.cpp); tests/unit/test_program_batch.cpp does.
Where $KBENCH_STANDIN_LOG names a file, each request is appended to it as
one line: the worker's role and pid, the message type, for a release
what it drops (0 the exported outputs, 1 a timing's inputs too, 2 every
cache), and for a load how
many warm-up runs it names and how many of them on the meta device, so a
test sees what the host asked of each worker; a program_run's line also
says whether the model ran and whether the request carried candidate
outputs to compare. $KBENCH_STANDIN_HELLO_S (seconds) makes its
start that slow, as a real worker's import of torch is, and
$KBENCH_STANDIN_OOM_TIMING=1 makes a candidate worker's first timing fail
as a real one does when other workers fill the device ("CUDA out of
memory").

Where $KBENCH_STANDIN_SHARE_DIR names a folder both workers may write, they
act out the GPU comparison (docs/programs.md, "Processes") on files: the
candidate worker "exports" each output as a file there (its handle is the
file's path in hex), and the reference worker keeps its outputs, says
`gpu_compare`, and compares the candidate's files with them by the same
rule as the comparator (compare_math.h): a compare request is answered
from the kept outputs, or runs the reference, keeps and compares.
"""
import hashlib
import os
import random
import struct
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python", "kbench_programs"))
import kbench_frames as kf  # noqa: E402

KB_ERR_INVALID_ARGUMENT = kf.KB_ERR_INVALID_ARGUMENT
KB_ERR_REFERENCE_FAILED = kf.KB_ERR_REFERENCE_FAILED


class RequestError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def f32(values):
    """The values as float32 would hold them."""
    return list(struct.unpack("<%df" % len(values), struct.pack("<%df" % len(values), *values)))


def f32_bytes(values):
    return struct.pack("<%df" % len(values), *values)


def checksum(values):
    return hashlib.sha256(f32_bytes(values)).hexdigest()[:32]


def compare_stats(cand, ref, atol, rtol):
    """The comparator's statistics (GpuCompareStats) of two f32 lists,
    NaN-free: |c - r| <= atol + rtol * |r| matches; the worst element is the
    first of the largest violation."""
    mism, max_abs, max_rel, max_vio, worst = 0, 0.0, 0.0, 0.0, 0
    for i, (c, r) in enumerate(zip(cand, ref)):
        diff = abs(c - r)
        allowed = atol + rtol * abs(r)
        vio = diff / allowed if allowed > 0 else (float("inf") if diff > 0 else 0.0)
        if diff > allowed:
            mism += 1
        max_abs = max(max_abs, diff)
        max_rel = max(max_rel, diff / abs(r) if r != 0 else (float("inf") if diff > 0 else 0.0))
        if vio > max_vio:
            max_vio, worst = vio, i

    def bits(v):
        return struct.unpack("<I", struct.pack("<f", v))[0]

    def number(v):
        return "inf" if v == float("inf") else v
    return {"mismatches": mism, "unwritten": 0, "max_abs_err": number(max_abs), "max_rel_err": number(max_rel),
            "max_violation": number(max_vio), "worst_index": worst, "worst_bits": bits(cand[worst]) if cand else 0,
            "expected_bits": bits(ref[worst]) if ref else 0}


class Standin:
    def __init__(self, conn, role):
        self.conn = conn
        self.role = role
        self.tasks = {}
        self.candidate = None
        self.candidate_name = ""
        self.share_dir = os.environ.get("KBENCH_STANDIN_SHARE_DIR") or ""
        self.kept = {}     # reference: a run's key -> its output values
        self.exported = []  # candidate: the files of its last run's outputs
        self.ran = False    # the last request ran the model
        self.oom_timings = 1 if os.environ.get("KBENCH_STANDIN_OOM_TIMING") == "1" else 0

    # ---- tasks, inputs, models -------------------------------------------
    def task(self, doc, blobs):
        t = doc.get("task") or {}
        h = t.get("hash")
        if h not in self.tasks:
            if "json_blob" not in t:
                return h, None
            import json
            self.tasks[h] = json.loads(blobs[int(t["json_blob"])].decode("utf-8"))
        return h, self.tasks[h]

    @staticmethod
    def case_dims(task, case):
        cases = list(task.get("cases", [])) + [task.get("perf_case")]
        return cases[case].get("dims", {})

    @staticmethod
    def seed_of(spec):
        if isinstance(spec, int):
            return spec
        if isinstance(spec, dict):
            return int(spec.get("value", spec.get("base", 0))) + 7919 * int(spec.get("kernelbench_trial", 0))
        return 0

    def inputs(self, task, case, seed):
        dims = self.case_dims(task, case)
        out = []
        for i, spec in enumerate(task["reference"].get("inputs", [])):
            n = 1
            for s in spec.get("shape", []):
                n *= int(dims[s]) if isinstance(s, str) else int(s)
            rng = random.Random(seed * 1000003 + i)
            init = spec.get("init", {})
            if init.get("dist") == "uniform":
                lo, hi = float(init.get("low", 0.0)), float(init.get("high", 1.0))
                values = [rng.uniform(lo, hi) for _ in range(n)]
            else:
                mean, std = float(init.get("mean", 0.0)), float(init.get("std", 1.0))
                values = [rng.gauss(mean, std) for _ in range(n)]
            out.append(f32(values))
        return out

    @staticmethod
    def module(source, name):
        ns = {"__name__": "standin_" + os.path.splitext(name)[0]}
        exec(compile(source, name, "exec"), ns)
        return ns

    def model(self, task, who):
        if who == "reference":
            ns = self.module(task["reference"]["source"], task["reference"].get("source_name", "problem.py"))
            return ns[task["reference"].get("entry", "Model")]()
        if self.candidate is None:
            raise RequestError(KB_ERR_INVALID_ARGUMENT, "no candidate is loaded")
        return self.candidate[task["reference"].get("candidate_entry", "ModelNew")]()

    # ---- requests --------------------------------------------------------
    def hello(self, doc):
        return {"pid": os.getpid(), "role": self.role, "python": sys.executable,
                "python_version": "%d.%d.%d" % sys.version_info[:3], "worker_version": "standin",
                "torch_version": None, "triton_version": None, "device": "cpu", "cupti": False,
                "gpu_compare": False}

    def program_load(self, doc, blobs):
        cand = doc.get("candidate") or {}
        source = blobs[int(cand["source_blob"])].decode("utf-8", "replace")
        name = os.path.basename(cand.get("source_name") or "candidate.py")
        self.task(doc, blobs)
        self.candidate = None
        t0 = time.perf_counter()
        try:
            ns = self.module(source, name)
        except Exception as e:  # the candidate's own error: its verdict
            return {"loaded": False, "error": "%s: %s" % (type(e).__name__, e), "where": name}
        self.candidate, self.candidate_name = ns, name
        return {"loaded": True, "import_ms": (time.perf_counter() - t0) * 1e3, "findings": [],
                "triton_kernels": [], "cuda_kernels": []}

    def outputs(self, out, blobs):
        if not isinstance(out, list) or not all(isinstance(v, float) for v in out):
            return [{"label": "output", "is_tensor": False, "type": type(out).__name__}]
        blobs.append(f32_bytes(out))
        return [{"label": "output", "is_tensor": True, "dtype": "f32", "shape": [len(out)], "device": "cpu",
                 "blob": len(blobs) - 1}]

    def export(self, out):
        """The candidate's output as a file of the share folder, described
        as the real worker describes an exported CUDA output."""
        path = os.path.join(self.share_dir, "out-%d-%d.bin" % (os.getpid(), len(self.exported)))
        with open(path, "wb") as f:
            f.write(f32_bytes(out))
        self.exported.append(path)
        return {"label": "output", "is_tensor": True, "dtype": "f32", "shape": [len(out)], "device": "cuda:0",
                "ipc": {"handle": path.encode().hex(), "offset": 0, "bytes": 4 * len(out)}}

    def compare(self, expected, items):
        out = []
        for it in items:
            with open(bytes.fromhex(it["handle"]).decode(), "rb") as f:
                data = f.read()
            if int(it.get("bytes", -1)) != 4 * len(expected) or len(data) != 4 * len(expected):
                out.append({"error": "the candidate's output holds %s bytes, the reference's %d"
                                     % (it.get("bytes"), 4 * len(expected))})
                continue
            cand = list(struct.unpack("<%df" % len(expected), data))
            out.append(compare_stats(cand, expected, float(it["atol"]), float(it["rtol"])))
        return out

    def program_run(self, doc, blobs):
        h, task = self.task(doc, blobs)
        if task is None:
            return {"missing": ["task:%s" % h]}, []
        who = self.role
        case = int(doc["case"])
        key = (h, case, repr(doc.get("seed", 0)), doc.get("mode", "strict"), repr(doc.get("model_seed", 42)))
        if doc.get("precision") is not None:
            return {"case": case}, []  # no precision audit here
        if doc.get("compare") is not None and key in self.kept:
            return {"case": case, "compared": self.compare(self.kept[key], doc["compare"])}, []
        if who == "candidate":
            for path in self.exported:
                os.remove(path)
            self.exported = []
        seed = self.seed_of(doc.get("seed", 0))
        inputs = self.inputs(task, case, seed)
        descs = [{"index": i, "dtype": "f32", "shape": [len(x)], "checksum": checksum(x)}
                 for i, x in enumerate(inputs)]
        result = {"case": case, "seed_value": seed, "inputs": descs}
        args = [list(x) for x in inputs]
        try:
            model = self.model(task, who)
            t0 = time.perf_counter()
            self.ran = True
            out = model.forward(*args)
            result["run_ms"] = (time.perf_counter() - t0) * 1e3
        except RequestError:
            raise
        except Exception as e:
            if who == "reference":
                raise RequestError(KB_ERR_REFERENCE_FAILED, "the reference raised: %s" % e)
            result["error"] = {"stage": "call", "message": "%s: %s" % (type(e).__name__, e),
                               "where": traceback.format_exc(limit=2)}
            return result, []
        out_blobs = []
        flat = isinstance(out, list) and all(isinstance(v, float) for v in out)
        if self.share_dir and flat and who == "candidate" and doc.get("share_outputs"):
            result["outputs"] = [self.export(out)]
        else:
            result["outputs"] = self.outputs(out, out_blobs)
        if self.share_dir and flat and who == "reference":
            for o in result["outputs"]:
                o["device"] = "cuda:0"
            if doc.get("keep_outputs") or doc.get("compare") is not None:
                self.kept[key] = f32(out)
                result["gpu_compare"] = True
            if doc.get("compare") is not None:
                result["compared"] = self.compare(f32(out), doc["compare"])
        if who == "candidate":
            result["inputs_after"] = [{"index": i, "checksum": checksum(x)} for i, x in enumerate(args)]
            result["integrity"] = {}
        else:
            result["model_state"] = []
        result["attribution"] = {"cupti": False}
        return result, out_blobs

    def program_time(self, doc, blobs):
        h, task = self.task(doc, blobs)
        if task is None:
            return {"missing": ["task:%s" % h]}, []
        case = int(doc["case"])
        inputs = self.inputs(task, case, self.seed_of(doc.get("seed", 0)))
        if self.role == "candidate" and self.oom_timings > 0:
            self.oom_timings -= 1
            return {"error": {"stage": "timing", "message": "OutOfMemoryError: CUDA out of memory. Tried to "
                              "allocate 6.00 GiB (a stand-in: other workers fill the device)"}}, []
        try:
            model = self.model(task, self.role)
            warm = 0
            while warm < int(doc.get("warmup_calls", 3)):
                model.forward(*[list(x) for x in inputs])
                warm += 1
            walls, last = [], None
            for _ in range(max(1, int(doc.get("trials", 10)))):
                args = [list(x) for x in inputs]
                t0 = time.perf_counter()
                last = model.forward(*args)
                walls.append((time.perf_counter() - t0) * 1e3)
        except Exception as e:
            if self.role == "reference":
                raise RequestError(KB_ERR_REFERENCE_FAILED, "the reference failed while timing: %s" % e)
            return {"error": {"stage": "timing", "message": "%s: %s" % (type(e).__name__, e)}}, []
        result = {"warmup_calls": warm, "wall_samples_ms": walls, "wall_ms": sum(walls), "events": False,
                  "cupti": False, "attribution": {"cupti": False}}
        out_blobs = []
        if doc.get("check_outputs") and self.role == "candidate":
            result["last"] = {"case": case, "outputs": self.outputs(last, out_blobs)}
        if self.role == "candidate":
            result["integrity"] = {}
        return result, out_blobs


def serve(worker):
    conn = worker.conn
    while True:
        frame = conn.read_frame()
        if frame is None:
            return
        msg_type, msg_id, doc, blobs = frame
        log = os.environ.get("KBENCH_STANDIN_LOG")
        warm = doc.get("warm") or []
        drops = 2 if doc.get("caches") else int(bool(doc.get("timing_inputs")))
        line = "%s %d %d %d %d %d" % (getattr(worker, "role", "") or doc.get("role", "?"), os.getpid(), msg_type,
                                      drops, len(warm),
                                      sum(1 for w in warm if w.get("meta")))

        def note(extra=""):
            if log:
                with open(log, "a") as f:
                    f.write(line + extra + "\n")
        if msg_type != kf.MSG_PROGRAM_RUN:
            note()
        try:
            if msg_type == kf.MSG_HELLO:
                time.sleep(float(os.environ.get("KBENCH_STANDIN_HELLO_S") or 0))
                conn.reply(msg_type, msg_id, worker.hello(doc))
            elif msg_type == kf.MSG_CANARY:
                conn.reply(msg_type, msg_id, {"healthy": True, "detail": "the torch-free stand-in"})
            elif msg_type == kf.MSG_SHUTDOWN:
                conn.reply(msg_type, msg_id, {})
                return
            elif msg_type == kf.MSG_PROGRAM_LOAD:
                conn.reply(msg_type, msg_id, worker.program_load(doc, blobs))
            elif msg_type in (kf.MSG_PROGRAM_RUN, kf.MSG_PROGRAM_TIME):
                f = worker.program_run if msg_type == kf.MSG_PROGRAM_RUN else worker.program_time
                worker.ran = False
                try:
                    result, out_blobs = f(doc, blobs)
                finally:
                    if msg_type == kf.MSG_PROGRAM_RUN:
                        note(" %d %d" % (int(worker.ran), int(doc.get("compare") is not None)))
                conn.reply(msg_type, msg_id, result, out_blobs)
            elif msg_type == kf.MSG_PROGRAM_RELEASE:
                if doc.get("caches"):
                    worker.kept.clear()
                conn.reply(msg_type, msg_id, {})
            else:
                conn.reply_error(msg_type, msg_id, KB_ERR_INVALID_ARGUMENT,
                                 "the stand-in does not serve message type %d" % msg_type)
        except RequestError as e:
            conn.reply_error(msg_type, msg_id, e.status, str(e))


def main(argv):
    fd, role = -1, ""
    for i, a in enumerate(argv):
        if a == "--fd":
            fd = int(argv[i + 1])
        elif a == "--role":
            role = argv[i + 1]
    if fd < 0 or role not in ("reference", "candidate"):
        sys.stderr.write("usage: kbench_program_worker.py --fd N --role reference|candidate ...\n")
        return 2
    kf.close_leaked_fds(fd)
    serve(Standin(kf.Connection(fd), role))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
