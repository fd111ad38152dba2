#!/usr/bin/env python3
"""kbench's Python worker for program candidates (docs/programs.md).

A process the C core starts and supervises like kbench-worker (watchdog,
deadline per request, respawn): src/worker_host/program_workers.cpp. It runs
Python with torch (and triton when installed) on one device and answers KBW1
frames (kbench_frames.py) on the socket it is given. Two of them serve a
context: the *reference* worker runs the problem's own code (Model) and the
*candidate* worker runs candidates (ModelNew); expected outputs never exist in
the candidate's address space. Outputs go back to the host, whose comparator
(src/compare/) judges them.

    hello        -> versions, device, CUPTI
    canary       -> a small computation on the device, checked
    program_load -> (candidate worker) the candidate imported from a real file,
                    its findings and the kernels it declares
    program_run  -> the model at a case on inputs from a seed: outputs (blobs,
                    files when large, or, asked to share, CUDA IPC handles
                    the reference worker compares on the GPU; asked to
                    compare, the reference worker does so against the
                    outputs it kept), input checksums before and after,
                    the kernels and aten operators of the call, integrity
    program_time -> the model timed at a case under a protocol's parameters
    shutdown     -> exit

    kbench_program_worker.py --fd N --parent PID (--device D | --no-device)
        --role reference|candidate --work-dir DIR [--cupti-lib PATH] [--gpu-compare-lib PATH] [--test-hooks]

Without torch the worker still starts (hello says so), answers the canary
when it has no device, and imports candidates: the supervision tests run
without torch or a GPU.
"""

import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import kbench_frames as kf  # noqa: E402
import kbench_problem as kp  # noqa: E402
import kbench_checks as kc  # noqa: E402
import kbench_attribution as ka  # noqa: E402
import kbench_gpu_share as kg  # noqa: E402
import kbench_kernel_model as kk  # noqa: E402
import kbench_tritonbench_perf as ktp  # noqa: E402
import kbench_profile as kprof  # noqa: E402
import kbench_load_inline as kli  # noqa: E402
import kbench_triton_warm as ktw  # noqa: E402
import kbench_precision as kpr  # noqa: E402
import collections  # noqa: E402

WORKER_VERSION = "1"
_perf_counter = time.perf_counter  # captured before any candidate can replace it

# Outputs larger than this (in all) go to files in the work dir instead of blobs.
FILE_OUTPUT_BYTES = 256 << 20

POISON = {"f32": ("int32", 0x7fa5a5a5), "f16": ("int16", 0x7da5), "bf16": ("int16", 0x7fa5),
          "f64": ("int64", 0x7ff5a5a5a5a5a5a5)}


# Words in a candidate's text that mark device code Triton's compile-only
# mode does not stop: its warm-up then stays off the meta device (meta_call).
META_UNSAFE = ("cpp_extension", "cupy", "ctypes", "numba", "pycuda", "cuda.core", "cuda.bindings")


def rel_noise(samples):
    """The relative standard error of the samples' median, as the host's
    summarize() computes it (src/measure/stats.cpp): 1.2533 sigma / sqrt(n)
    over the median, sigma from the median absolute deviation."""
    n = len(samples)
    if n == 0:
        return float("inf")
    # statistics.median is quantile_sorted(v, 0.5): the mean of the two
    # middle values of an even count.
    med = statistics.median(samples)
    if med <= 0:
        return 0.0
    mad = statistics.median(abs(x - med) for x in samples)
    return 1.2533 * 1.4826 * mad / math.sqrt(n) / med


def nbytes(tensors):
    """The bytes the tensors hold, all together."""
    return sum(x.numel() * x.element_size() for x in tensors)


class RequestError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def freeze_setup():
    """Moves every object made so far (torch's, Triton's and kbench's own
    modules, which live as long as the worker) out of the collector's reach:
    a collection then walks only what came after, such as a candidate's
    module and what its import and runs made. Unloading a candidate collects
    its cycles (gc.collect), which otherwise walked all of torch each time:
    65-85 ms with torch and Triton imported on a 2-core host (x86-64), and
    the bulk of the 130-150 ms a TritonBench-G candidate's load took in a
    warm worker on an H100 host (PROFILE_PROGRAMS=1 RUN_TB_BENCH=1 bash
    bench/run_device.sh programs: py.program_load), where a fresh worker's
    first load, with nothing to unload, took 3 ms. Frozen objects are also
    absent from gc.get_objects(), one less way for a candidate to reach the
    worker's own."""
    import gc
    gc.collect()
    gc.freeze()


def construction_stage(exc):
    """The stage of an error raised while a candidate's model was made:
    "build" for a load_inline or load call of its ModelNew.__init__ whose
    compile failed (the answer's compile error, worded as torch words it:
    "Error building extension ...", by kbench_load_inline or torch's own
    build), which the host scores as a compile_error like the import's; else
    "construction". kbench's own build failures say "kbench's error" instead
    and stay the construction's."""
    if isinstance(exc, RuntimeError) and str(exc).startswith("Error building extension"):
        return "build"
    return "construction"


def short_traceback(exc, source_name=None, limit=6):
    """The exception with the frames that matter: the candidate's own lines first."""
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if source_name and os.path.basename(f.filename).endswith(source_name)] or tb[-limit:]
    lines = ["  %s:%d in %s: %s" % (os.path.basename(f.filename), f.lineno, f.name, (f.line or "").strip())
             for f in frames[-limit:]]
    head = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0] if str(exc).strip() else "")
    return head, "\n".join(lines)


class Worker:
    def __init__(self, conn, role, device, work_dir, cupti_lib, test_hooks, gpu_compare_lib=""):
        self.conn = conn
        self.role = role
        self.device_index = device
        self.work_dir = work_dir
        self.load_inline_cache = ""  # the shared precompiled headers (--load-inline-cache)
        self.test_hooks = test_hooks
        self.cupti_lib = cupti_lib
        self.torch = None
        self.torch_error = None
        self.device = "cpu"
        self.tasks = {}        # hash -> (doc, kp.Reference)
        self.modules = {}      # (hash, case) -> problem module
        self.models = {}       # (hash, case, who, model seed) -> model
        self.inputs = {}       # (hash, case, seed key, mode) -> (tensors, descriptions)
        self.input_bytes = 0
        # The timed inputs of the timing under way: (key, tensors, descriptions),
        # kept from one round's request to the next (program_time) and dropped
        # by any other request.
        self.timing_inputs = None
        self.candidate = None  # {"id", "module", "source", "name", "triton", "cuda", "launches"}
        self.loading = None    # {"source"} while a candidate imports (the fast load_inline's error lines)
        self.cupti = None
        self.libcuda = None
        self.integrity = None
        self.test_cpu = False
        self.gpu_compare_lib = gpu_compare_lib
        self.comparer = None      # reference worker: kg.GpuComparer once on a device
        self.shared = []          # candidate worker: outputs exported by IPC, alive until the next request
        self.kept = collections.OrderedDict()  # reference worker: run key -> output tensors (for GPU compares)
        self.kept_bytes = 0
        self.uses = {}  # reference worker: run key -> its recent uses (note_use)
        # reference worker: the precision audit's recomputations, (run key,
        # mode) -> {"outputs": tensors} | {"same_bits": True} | {"skipped": why},
        # and (run key, "full") -> the full reference's outputs where they are
        # not kept above; least recently used out past audit_budget().
        self.audit = collections.OrderedDict()
        self.audit_bytes = 0
        self.perf = None          # (key, kbench_tritonbench_perf.PerfRun): a TritonBench task's perf inputs
        self.tb_gate = [0]        # TritonBench: calls of the candidate's functions in progress

    # ---- start-up --------------------------------------------------------
    def start_torch(self, want_device):
        try:
            import torch
        except Exception as e:
            self.torch_error = "cannot import torch (%s: %s)" % (type(e).__name__, e)
            return
        self.torch = torch
        try:
            # Importing torch._dynamo replaces torch.manual_seed with a wrapper
            # (seen with torch 2.15), and it is imported lazily, by the first
            # dispatch mode or torch.compile: import it now, before the
            # integrity snapshot, so that only a candidate's own replacements
            # count.
            import torch._dynamo  # noqa: F401
        except Exception:
            pass
        if want_device >= 0:
            if not torch.cuda.is_available():
                self.torch_error = "torch %s sees no CUDA device" % torch.__version__
                return
            if want_device >= torch.cuda.device_count():
                self.torch_error = "torch sees %d CUDA devices, device %d was asked for" % (
                    torch.cuda.device_count(), want_device)
                return
            torch.cuda.set_device(want_device)
            self.device = "cuda:%d" % want_device
            torch.zeros(1, device=self.device)  # create the context now, not in the first request
            self.libcuda = ka.load_libcuda()
            self.cupti = ka.Cupti(self.cupti_lib)
            # Both workers checksum on the GPU with the C core's kernel when
            # the library loads (the reference also compares with it): one
            # kind of checksum in both, as the values are exchanged.
            native = kg.GpuComparer(self.gpu_compare_lib)
            if native.available:
                kp.use_gpu_checksum(native.checksum)
            if self.role == "reference":
                self.comparer = native
        try:
            import triton  # noqa: F401  (imported now so its start-up is not a candidate's time)
        except Exception:
            pass

    def hello(self, doc):
        want = int(doc.get("device", self.device_index))
        self.test_cpu = bool(doc.get("test_cpu", False)) and self.test_hooks
        # The share of device memory this worker's input cache may hold: the
        # host divides it among the workers that share the GPU (a context's
        # reference worker and one candidate worker per lane).
        self.cache_share = float(doc.get("cache_share", 0.15))
        self.start_torch(want if not self.test_cpu else -1)
        info = {"pid": os.getpid(), "role": self.role, "python": sys.executable,
                "python_version": "%d.%d.%d" % sys.version_info[:3], "worker_version": WORKER_VERSION,
                "torch_version": getattr(self.torch, "__version__", None), "device": self.device}
        try:
            import triton
            info["triton_version"] = triton.__version__
        except Exception:
            info["triton_version"] = None
        if self.device.startswith("cuda"):
            info["device_name"] = self.torch.cuda.get_device_name(self.device)
        info["cupti"] = bool(self.cupti and self.cupti.available)
        info["gpu_compare"] = bool(self.comparer and self.comparer.available)
        if self.comparer and not self.comparer.available:
            info["gpu_compare_why"] = self.comparer.why
        if self.cupti and not self.cupti.available:
            info["cupti_why"] = self.cupti.why
        if doc.get("cuda_arch_list") and (self.role == "builder" or (
                self.role == "candidate" and not str(self.device).startswith("cuda"))):
            # A builder, or a candidate worker of a compile-only context,
            # sees no device: torch takes the architectures its -gencode
            # flags name from here, as a candidate worker's torch finds them
            # on its device (unless the environment names them for both).
            os.environ.setdefault("TORCH_CUDA_ARCH_LIST", str(doc["cuda_arch_list"]))
        if self.role in ("candidate", "builder"):
            self.install_fast_load_inline()
        self.integrity = kc.Integrity()
        if want >= 0 and not self.test_cpu and (self.torch is None or self.torch_error):
            raise RequestError(kf.KB_ERR_NO_DEVICE if self.torch else kf.KB_ERR_NOT_FOUND,
                               "the Python program worker cannot run on device %d: %s; install torch with CUDA "
                               "for the interpreter kbench starts (%s), or set $KBENCH_PYTHON to one that has it"
                               % (want, self.torch_error or "torch is unusable", sys.executable))
        freeze_setup()
        return info

    def install_fast_load_inline(self):
        """torch's load_inline and load built the fast way
        (kbench_load_inline), before the integrity snapshot."""
        if self.torch is None or os.environ.get("KBENCH_LOAD_INLINE", "") == "off":
            return
        try:
            # The shared cache the host's builder fills (read-only to a
            # confined worker), and this worker's own for what it lacks. With
            # a builder (--load-inline-cache) the worker warms nothing
            # itself: its warm-up thread starts threads of its own while the
            # first candidates run, which their integrity check would read as
            # threads a candidate left running (on an H100 a fresh context's
            # first CUDA answer once got a policy_violation while that warm-up
            # ran; its findings were not kept). The first answer waits for
            # the builder's headers instead.
            kli.install(self.torch, self.work_dir, self.load_inline_cache or kli.default_cache_root(),
                        answer_text_of=lambda: (self.loading or {}).get("source"),
                        warm=self.device != "cpu" and not self.load_inline_cache,
                        private_cache_root=os.path.join(self.work_dir, "load-inline-pch"))
        except Exception as e:  # torch's own build stays in place
            sys.stderr.write("kbench program worker: the fast load_inline is not installed: %s\n" % e)

    # ---- program_prebuild (the builder role) ------------------------------
    def program_prebuild(self, doc, blobs):
        """Imports the candidate with no device while kbench_load_inline
        keeps each load_inline call's library (docs/programs.md, "Builds
        ahead of the GPU"), and drops it again. Whatever the import raises
        after its builds (a module that touches the GPU, say) only ends the
        builds; the candidate worker's own import decides the verdict.
        Returns ({"modules": [{"key", "module", "record", "blob"}],
        "failed": [{"key", "error"}], "stopped", "integrity"}, blobs)."""
        if self.role != "builder":
            raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "only the builder worker builds ahead")
        source = blobs[0].decode("utf-8", "replace")
        name = os.path.basename(doc.get("source_name") or "candidate.py")
        ce = sys.modules.get("torch.utils.cpp_extension")
        if ce is None or not getattr(ce.load_inline, "__kbench_fast__", False):
            # torch's own functions are in place (KBENCH_LOAD_INLINE=off, or
            # no torch): an import here would build with torch's ninja for
            # nothing the candidate worker could load.
            return ({"modules": [], "failed": [], "integrity": {"patched": [], "threads": []},
                     "stopped": "the fast load_inline is not installed in the builder (KBENCH_LOAD_INLINE=off, "
                                "or no torch)"}, [])
        # A KernelBench problem: its ModelNew is constructed too, from the
        # init inputs at the problem's own sizes (the last case), so that the
        # load_inline calls of ModelNew.__init__ are built ahead as well.
        problem = None
        if doc.get("task"):
            h, known = self.task(doc, blobs)
            if known is None:
                return {"missing": ["task:%s" % h]}, []
            task_doc, ref = known
            if ref.style == "kernelbench":
                problem = (h, ref, max(0, len(task_doc.get("cases") or []) - 1))
        folder = tempfile.mkdtemp(prefix="prebuild-", dir=self.work_dir)
        before_threads = kc.thread_idents()
        stopped = None
        self.loading = {"source": source}
        kli.capture(folder)
        try:
            module = kp.load_module(source, name, self.work_dir, "kbench_prebuild")
            try:
                # Only where the source has more load_inline calls than the
                # import made: constructing a model of large parameters on
                # the CPU takes seconds.
                if problem is not None and len(re.findall(r"\bload_inline\s*\(", source)) > kli.captured():
                    h, ref, case = problem
                    cls = getattr(module, ref.candidate_entry, None)
                    if cls is not None:
                        pm = self.problem_module(h, ref, case)
                        cls(*kp.init_inputs(pm, ref, 42, "cpu"))
            finally:
                kp.unload_module(module)
        except BaseException as e:  # noqa: BLE001 (SystemExit too: the builds made so far stand)
            stopped = short_traceback(e, name)[0]
        finally:
            modules, failed = kli.end_capture()
            self.loading = None
        out, out_blobs = [], []
        try:
            for m in modules:
                with open(m["file"], "rb") as f:
                    out_blobs.append(f.read())
                out.append({"key": m["key"], "module": m["module"], "record": m.get("record") or {},
                            "blob": len(out_blobs) - 1})
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        import gc
        gc.collect()
        return ({"modules": out, "failed": failed, "stopped": stopped,
                 "integrity": self.integrity_report(before_threads)}, out_blobs)

    def canary(self, doc):
        if self.torch is None:
            return {"healthy": True, "detail": "no torch: nothing to check (supervision only)"}
        t = self.torch
        x = t.arange(1024, device=self.device, dtype=t.float32)
        got = float((x * 2).sum().item())
        ok = got == 1024 * 1023.0
        return {"healthy": ok, "detail": "" if ok else "2*sum(0..1023) gave %r" % got}

    # ---- tasks, problems, inputs, models ---------------------------------
    def task(self, doc, blobs):
        t = doc.get("task") or {}
        h = t.get("hash")
        if h in self.tasks:
            return h, self.tasks[h]
        if "json_blob" not in t:
            return h, None
        import json
        task_doc = json.loads(blobs[int(t["json_blob"])].decode("utf-8"))
        ref = kp.Reference(task_doc)
        self.tasks[h] = (task_doc, ref)
        if len(self.tasks) > 32:  # the host resends what was dropped
            old = next(iter(self.tasks))
            self.drop_task(old)
        return h, self.tasks[h]

    def drop_task(self, h):
        self.tasks.pop(h, None)
        for key in [k for k in self.modules if k[0] == h]:
            kp.unload_module(self.modules.pop(key))
        for key in [k for k in self.models if k[0] == h]:
            del self.models[key]
        for key in [k for k in self.inputs if k[0] == h]:
            self.forget_inputs(key)
        for key in [k for k in self.kept if k[0] == h]:
            old = self.kept.pop(key)
            self.kept_bytes -= nbytes(old)
        for key in [k for k in self.uses if k[0] == h]:
            del self.uses[key]
        for key in [k for k in self.audit if k[0][0] == h]:
            self.forget_audit(key)

    def forget_inputs(self, key):
        tensors, descs = self.inputs.pop(key)
        self.input_bytes -= sum(d.get("bytes", 0) for d in descs)

    def forget_all_inputs(self):
        for key in list(self.inputs):
            self.forget_inputs(key)

    def input_key(self, h, case, seed_spec, mode):
        """The key of the inputs at (case, seed, mode) of task `h`."""
        return (h, case, self.seed_key(seed_spec), mode)

    def timed_inputs(self, h, ref, case, seed_spec, mode):
        """The timing's own copy of the inputs at (case, seed, mode) and their
        descriptions with checksums: made once per timing and kept across its
        rounds (a round's request is one per side and round; at KernelBench's
        sizes making 6 GB of inputs again each round costs milliseconds of GPU
        time and a copy of them as much again). A copy where the inputs are
        the cache's, so that calls which write their inputs leave the cache
        as it was; the checksums are the inputs' as made."""
        key = self.input_key(h, case, seed_spec, mode)
        if self.timing_inputs is not None and self.timing_inputs[0] == key:
            return self.timing_inputs[1], self.timing_inputs[2]
        self.timing_inputs = None
        tensors, descs = self.make_inputs(h, ref, case, seed_spec, mode)
        self.with_checksums(tensors, descs)
        if self.inputs.get(key) is not None:
            tensors = [x.clone() if isinstance(x, self.torch.Tensor) else x for x in tensors]
        descs = [dict(d) for d in descs]
        self.timing_inputs = (key, tensors, descs)
        return tensors, descs

    def drop_timing_inputs(self):
        self.timing_inputs = None

    def problem_module(self, h, ref, case):
        key = (h, case)
        m = self.modules.get(key)
        if m is None:
            if ref.style == "tritonbench":
                text = ref.source + "\n" + ref.test_source if self.role == "reference" else None
                if text is None:
                    return None
                m = kp.load_module(text, ref.source_name, self.work_dir, "kbench_reference")
            else:
                m = kp.load_module(ref.problem_source_at(case), ref.source_name, self.work_dir, "kbench_problem")
            self.modules[key] = m
        return m

    def seed_key(self, spec):
        return spec if isinstance(spec, int) else tuple(sorted(spec.items()))

    def make_inputs(self, h, ref, case, seed_spec, mode):
        """The problem's inputs at (case, seed, mode): made once and cached;
        each call gets its own copies (clone_inputs)."""
        key = self.input_key(h, case, seed_spec, mode)
        hit = self.inputs.get(key)
        if hit is not None:
            return hit
        module = self.problem_module(h, ref, case)
        seed = kp.resolve_seed(seed_spec)
        tensors = kp.make_inputs(module, ref, seed, self.device, mode)
        descs = []
        for i, x in enumerate(tensors):
            if isinstance(x, self.torch.Tensor):
                # The checksum is taken by a run, before its call
                # (with_checksums), not here: timing never needs it, and at
                # KernelBench's sizes one costs about 30 ms per 6 GB input.
                descs.append({"index": i, "dtype": kp.kb_dtype(x), "shape": list(x.shape),
                              "bytes": x.numel() * x.element_size(), "device": str(x.device)})
            else:
                descs.append({"index": i, "value": repr(x)[:100], "type": type(x).__name__})
        # Inputs of at most a few cases and seeds stay: a second candidate
        # neither regenerates them nor waits for the CPU.
        size = sum(d.get("bytes", 0) for d in descs)
        budget = self.input_budget()
        if size > budget:
            # Larger than this worker's share: made again when needed rather
            # than held, so that workers of several lanes fit on the device.
            return tensors, descs
        while self.inputs and self.input_bytes + size > budget:
            self.forget_inputs(next(iter(self.inputs)))
        self.inputs[key] = (tensors, descs)
        self.input_bytes += size
        return tensors, descs

    def run_args(self, h, case, seed_spec, mode, tensors):
        """One call's inputs: a copy of the cached ones, so that a call that
        edits its inputs (which the checksums after it catch) cannot change
        what later runs and later candidates get. Inputs too large for the
        cache were made for this call alone and are its own already: a copy
        of a 6 GB input costs 4 ms of GPU time and 6 GB more of the run's
        memory (bench/kernelbench/worker_costs.py)."""
        cached = self.inputs.get(self.input_key(h, case, seed_spec, mode)) is not None
        return [x.clone() if cached and isinstance(x, self.torch.Tensor) else x for x in tensors]

    def with_checksums(self, tensors, descs):
        """`descs` with each tensor's checksum, taken once per cached input."""
        for d in descs:
            if "dtype" in d and "checksum" not in d:
                d["checksum"] = kp.checksum(tensors[d["index"]])
        return descs

    def input_budget(self):
        if self.device.startswith("cuda"):
            free, total = self.torch.cuda.mem_get_info(self.device)
            # Every worker's inputs and the reference's kept outputs share
            # the device with the candidate's own work.
            return max(int(total * getattr(self, "cache_share", 0.15)), 256 << 20)
        return 4 << 30

    def model(self, h, ref, case, who, model_seed):
        key = (h, case, who, self.seed_key(model_seed))
        m = self.models.get(key)
        if m is not None:
            return m
        module = self.problem_module(h, ref, case)
        seed = kp.resolve_seed(model_seed)
        if who == "reference":
            cls = getattr(module, ref.entry, None)
            if cls is None:
                raise RequestError(kf.KB_ERR_REFERENCE_FAILED, "the problem defines no %s" % ref.entry)
        elif self.candidate.get("kernel") is not None:
            m = kk.KernelModel(self.candidate["kernel"], case, self.candidate["module"], self.kernel_image,
                               self.torch, self.device)
            self.models[key] = m
            return m
        else:
            cls = getattr(self.candidate["module"], ref.candidate_entry, None)
            if cls is None:
                raise CandidateFailure("definition", "the candidate defines no %s (the class this task's candidates "
                                                     "define)" % ref.candidate_entry)
        m = kp.build_model(cls, module, ref, seed, self.device)
        # Only the latest few models stay (weights can be large).
        while len(self.models) >= 8:
            del self.models[next(iter(self.models))]
        self.models[key] = m
        return m

    def kernel_image(self):
        """The kernel candidate's CUDA image, loaded into this worker's
        context on its first launch."""
        c = self.candidate
        if c.get("image") is None:
            if self.libcuda is None:
                raise kk.KernelError("a CUDA kernel candidate needs the driver (libcuda) and a device")
            c["image"] = kk.CudaImage(self.libcuda, c.get("image_bytes", b""), c["kernel"].get("image", "cubin"))
        return c["image"]

    # ---- synchronisation and clocks no candidate can replace ------------
    def sync(self):
        if not self.device.startswith("cuda"):
            return
        if self.libcuda is not None:
            rc = self.libcuda.cuCtxSynchronize()
            if rc != 0:
                raise CandidateFailure("cuda", "the device reported CUDA error %d while synchronising after the "
                                               "candidate's call" % rc)
        else:
            self.torch.cuda.synchronize(self.device)

    # ---- program_load ----------------------------------------------------
    def program_load(self, doc, blobs):
        if self.role != "candidate":
            raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "the reference worker never loads candidates")
        cand = doc.get("candidate") or {}
        source = blobs[int(cand["source_blob"])].decode("utf-8", "replace")
        name = os.path.basename(cand.get("source_name") or "candidate.py")
        h, t = self.task(doc, blobs)
        self.unload_candidate()
        # The libraries a builder worker made ahead for this candidate's
        # load_inline calls (kept until the next candidate: a ModelNew may
        # call load_inline when it is built).
        kli.use_prebuilt(cand.get("prebuilt"))
        # A kernel candidate (kbench_kernel_model): CUDA code is never
        # imported (kbench compiled it; its image comes as a blob), Triton
        # code is imported like any candidate's.
        kernel = cand.get("kernel")
        cuda_kernel = kernel is not None and kernel.get("language") == "cuda"
        findings = [] if cuda_kernel else kc.scan_source(source, name)
        self.conn.note(doc.get("_id", 0), "importing the candidate %s" % name)
        fault = doc.get("test_fault", "") if self.test_hooks else ""
        if fault:
            self.test_fault(fault)
        before_threads = kc.thread_idents()
        builds_mark = kli.mark()
        self.loading = {"source": source}
        t0 = _perf_counter()
        try:
            if cuda_kernel:
                module = types.ModuleType("kbench_candidate_kernel")
            else:
                module = kp.load_module(source, name, self.work_dir, "kbench_candidate")
        except BaseException as e:  # SystemExit and KeyboardInterrupt too: the candidate's import failed
            head, where = short_traceback(e, name)
            line = None
            if isinstance(e, SyntaxError):
                line = e.lineno
            else:
                for f in traceback.extract_tb(e.__traceback__):
                    if os.path.basename(f.filename).startswith("kbench_candidate"):
                        line = f.lineno
            return {"loaded": False, "error": head, "where": where, "line": line, "findings": findings,
                    "import_ms": (_perf_counter() - t0) * 1e3, "load_inline": kli.builds_since(builds_mark)}
        finally:
            self.loading = None
        import_ms = (_perf_counter() - t0) * 1e3
        # Before the kernels are wrapped for counting (which binds their run).
        ktw.install()
        triton = ka.triton_kernels(module)
        cuda = ka.cuda_kernels_in_source(source)
        if cuda_kernel:
            # CUPTI records the image's symbols (mangled names included).
            cuda = sorted(set(cuda) | set(kk.declared_functions(kernel)))
        self.candidate = {"id": cand.get("id"), "module": module, "name": name, "source": source,
                          "triton": sorted(triton), "cuda": cuda,
                          "launches": ka.count_triton_launches(module), "kernel": kernel, "image": None}
        if cuda_kernel:
            self.candidate["image_bytes"] = blobs[int(cand["image_blob"])] if "image_blob" in cand else b""
        # Builds after this point are the model's construction's (a
        # load_inline call in ModelNew.__init__): a run's reply lists them.
        self.candidate["builds_mark"] = kli.mark()
        result = {"loaded": True, "import_ms": import_ms, "findings": findings,
                  "triton_kernels": sorted(triton), "cuda_kernels": self.candidate["cuda"],
                  "load_inline": kli.builds_since(builds_mark)}
        if kernel is not None:
            missing = [n for n in kk.declared_functions(kernel) if kernel["language"] == "triton" and n not in triton]
            if missing:
                result.update({"loaded": False, "error": "the candidate defines no Triton kernel %s (its launch plan "
                                                         "launches it; a @triton.jit function of that name)"
                                                         % ", ".join(missing)})
        elif t is not None:
            ref = t[1]
            wanted = [ref.candidate_entry] if ref.style == "kernelbench" else ref.candidate_functions
            missing = [w for w in wanted if not hasattr(module, w)]
            if missing:
                result.update({"loaded": False, "error": "the candidate defines no %s (a candidate for this task "
                                                         "defines %s)" % (", ".join(missing), ", ".join(wanted))})
        if result["loaded"] and doc.get("warm") and t is not None and triton:
            result.update(self.warm(h, t[1], doc["warm"]))
        result["integrity"] = self.integrity_report(before_threads)
        return result

    def note_later_builds(self, result):
        """Adds to a candidate's run reply the load_inline builds made since
        the import or the last such reply (`load_inline`, as the load's)."""
        if self.role != "candidate" or not self.candidate or not isinstance(result, dict):
            return
        mark = self.candidate.get("builds_mark")
        if mark is None:
            return
        later = kli.builds_since(mark)
        if later:
            result["load_inline"] = later
            self.candidate["builds_mark"] = kli.mark()

    def warm(self, h, ref, runs):
        """Calls the loaded candidate once per run of `runs` (case, seed,
        mode, model seed) with every Triton launch compile-only
        (kbench_triton_warm), so that its kernels compile now and not in the
        GPU phases. The inputs and model it makes are those the runs then
        use, or, for a run marked "meta", inputs of the same shapes on
        torch's meta device (meta_call); a TritonBench run calls the test
        function, which makes its own,
        under the run's seed (a case of the performance script is left to
        its run). Nothing it computes is kept; what it raises, the real call
        raises again where it counts. Returns {"warmed", "warm_ms"}."""
        if ref.style not in ("kernelbench", "tritonbench") or not self.device.startswith("cuda") or \
                not ktw.install():
            return {}
        t0 = _perf_counter()
        with ktw.side_by_side(ktw.compile_threads()):
            warmed = self.warm_calls(h, ref, runs)
        self.sync()
        return {"warmed": warmed, "warm_ms": (_perf_counter() - t0) * 1e3}

    def warm_calls(self, h, ref, runs):
        """warm()'s calls, one per run; returns how many were made."""
        warmed = 0
        for r in runs:
            args = None
            try:
                case = int(r["case"])
                if ref.style == "tritonbench":
                    if ref.is_perf_script_case(case):
                        continue
                    module = self.tritonbench_module(h, ref)
                    kp.set_seed(kp.resolve_seed(r.get("seed", 0)))
                    with ktw.compile_only():
                        self.call(None, [], ref, "candidate", module)
                    warmed += 1
                    continue
                seed, mode = r.get("seed", 0), r.get("mode", "strict")
                if r.get("meta"):
                    model, args = self.meta_call(h, ref, case, seed, mode, r.get("model_seed", 42))
                    if model is None:
                        continue
                else:
                    tensors, _ = self.make_inputs(h, ref, case, seed, mode)
                    model = self.model(h, ref, case, "candidate", r.get("model_seed", 42))
                    args = self.run_args(h, case, seed, mode, tensors)
                with ktw.compile_only():
                    self.call(model, args, ref, "candidate", None)
                warmed += 1
            except (Exception, SystemExit):
                pass
            finally:
                args = None
        return warmed

    def meta_call(self, h, ref, case, seed_spec, mode, model_seed):
        """The model and inputs of a warm-up call on torch's meta device: the
        case's shapes and dtypes without their memory or values, for a case
        too large to warm on real inputs (program_backend.cpp's load). A
        Triton launch binds the same specialisation there (a meta tensor's
        address is 0, divisible by 16 as the allocator's are). (None, None)
        where that cannot work: inputs that strict does not make on the
        device, a kernel candidate (kbench's launch plan allocates its
        outputs on the device), a model that holds weights on the device, or
        a candidate with device code of its own besides Triton's (CUDA
        kernels in its text, an extension built from files, cupy, ctypes):
        compile-only stops Triton's launches, not those, and one launched on
        a meta tensor's address 0 would fault the worker's CUDA context."""
        if mode != "strict" or self.candidate.get("kernel") is not None or self.candidate.get("cuda") or \
                any(w in self.candidate.get("source", "") for w in META_UNSAFE):
            return None, None
        model = self.model(h, ref, case, "candidate", model_seed)
        t = self.torch
        if isinstance(model, t.nn.Module) and (next(model.parameters(), None) is not None or
                                               next(model.buffers(), None) is not None):
            return None, None
        module = self.problem_module(h, ref, case)
        return model, kp.make_inputs(module, ref, kp.resolve_seed(seed_spec), "meta", mode)

    def unload_candidate(self):
        if self.perf is not None and self.perf[0][1] == "candidate":
            self.close_perf_run()
        if self.candidate is not None:
            if self.candidate.get("image") is not None:
                self.candidate["image"].unload()
            kp.unload_module(self.candidate["module"])
            for key in [k for k in self.models if k[2] != "reference"]:
                del self.models[key]
            self.candidate = None
            import gc
            gc.collect()

    def integrity_report(self, before_threads):
        out = {"patched": self.integrity.changed() if self.integrity else []}
        threads = kc.new_threads(before_threads)
        out["threads"] = [t.name for t in threads]
        return out

    # ---- running ---------------------------------------------------------
    def poison_free_memory(self, dtype, nbytes, sizes=()):
        """Fills `nbytes` of the caching allocator's free memory with the
        poison pattern of `dtype` and frees it again: an output the candidate
        allocates and never writes then holds the pattern, and the comparison
        says so (output_not_written), instead of passing on stale memory.

        The cache is emptied first, so no stale free block is left to serve
        the candidate's allocation, and a few blocks of each size in `sizes`
        (the reference's outputs) are poisoned too: torch serves allocations
        under 1 MiB from a separate small pool, best fit first, so one large
        poisoned block would never back a small output."""
        t = self.torch
        if not self.device.startswith("cuda") or nbytes <= 0:
            return
        kind, value = POISON.get(dtype, ("uint8", 0xa5))
        tdt = getattr(t, kind)
        size = t.tensor([], dtype=tdt).element_size()
        free, _ = t.cuda.mem_get_info(self.device)
        nbytes = min(nbytes, free // 3)
        if nbytes < size:
            return
        if kind == "int64" or kind == "int32" or kind == "int16":
            # two's complement of the unsigned pattern, so fill_ takes it
            bits = 8 * size
            if value >= 1 << (bits - 1):
                value -= 1 << bits
        t.cuda.empty_cache()
        held = []
        # Best fit picks the smallest free block that holds an allocation,
        # such as the unpoisoned rest of the segment the inputs' copies came
        # from: poisoned blocks of each output's exact size win over those.
        # Four of a small size; one of a large one, within free memory (four
        # copies of a 6 GB output would not fit).
        room = free // 2 - nbytes
        for s in list(sizes)[:16]:
            copies = 4 if int(s) < 16 << 20 else 1
            for _ in range(copies):
                if int(s) > room:
                    break
                room -= int(s)
                held.append(t.empty(max(1, (int(s) + size - 1) // size), dtype=tdt, device=self.device))
        held.append(t.empty(nbytes // size, dtype=tdt, device=self.device))
        for p in held:
            p.fill_(value)
        del held, p

    def call(self, model, args, ref, who, module):
        t = self.torch
        with t.no_grad():
            if ref.style == "tritonbench":
                if model is not None:  # the performance script's call_op over its inputs
                    return model()
                fn = getattr(module, ref.entry)
                return fn()
            return model(*args)

    def perf_run(self, h, ref, module, who, seed):
        """The TritonBench performance script bound to `module` (the
        reference's code or the candidate's), its inputs made under `seed`
        and moved to the device; the latest one is kept."""
        key = (h, who, seed, self.candidate["id"] if who == "candidate" else None)
        if self.perf is not None and self.perf[0] == key:
            return self.perf[1]
        self.close_perf_run()
        try:
            pmod, cls = ktp.load(ref.perf_source, module, self.work_dir, "%s_perf.py" % ref.task_name)
            run = ktp.PerfRun(pmod, cls, seed)
        except ktp.PerfScriptError as e:
            raise RequestError(kf.KB_ERR_TASK_INVALID, "task '%s': %s" % (ref.task_name, e))
        self.perf = (key, run)
        return run

    def close_perf_run(self):
        if self.perf is not None:
            self.perf[1].close()
            self.perf = None

    def tritonbench_target(self, h, ref, case, who):
        """The module a TritonBench run calls into: the operator's own code
        (reference) or the candidate's, each with the test section."""
        return self.problem_module(h, ref, case) if who == "reference" else self.tritonbench_module(h, ref)

    def tritonbench_module(self, h, ref):
        """The candidate's code with the test section, as one module (the
        test calls the candidate's functions by name)."""
        key = (h, "cand-tb", self.candidate["id"])
        m = self.modules.get(key)
        if m is None:
            text = self.candidate["source"] + "\n\n" + ref.test_source
            m = kp.load_module(text, self.candidate["name"], self.work_dir, "kbench_candidate_tb")
            # Only what the candidate's functions call is its torch compute.
            ka.gate_functions(m, ref.candidate_functions, self.tb_gate)
            self.modules[key] = m
        return m

    def describe_outputs(self, value, want_data, expect_device, share=False, data_limit=None):
        """The outputs' descriptions, the blobs that carry their bytes, and the
        output tensors themselves (contiguous, in order).

        share: CUDA outputs are exported as IPC handles instead of copied to
        the host (kg.export_ipc), and kept alive until the next request, for
        the reference worker to compare on the GPU; an output that cannot be
        exported is copied as before. data_limit: bytes are sent only when the
        tensor outputs total at most this much (None: always)."""
        t = self.torch
        outs, blobs, files, tensors = [], [], [], []
        flat = kp.flatten_outputs(value)
        total = 0
        for label, v in flat:
            x = kp.as_tensor(v)
            if x is None:
                outs.append({"label": label, "type": type(v).__name__, "is_tensor": False})
                continue
            total += x.numel() * x.element_size()
        to_files = total > FILE_OUTPUT_BYTES
        if data_limit is not None and total > data_limit:
            want_data = False
        for label, v in flat:
            x = kp.as_tensor(v)
            if x is None:
                continue
            d = {"label": label, "is_tensor": isinstance(v, t.Tensor), "dtype": kp.kb_dtype(x),
                 "shape": list(x.shape), "device": str(x.device)}
            data = x.detach()
            if not data.is_contiguous():
                data = data.contiguous()
            tensors.append(data)
            if share and data.is_cuda:
                try:
                    d["ipc"] = kg.export_ipc(self.libcuda, data)
                    self.shared.append(data)
                    outs.append(d)
                    continue
                except kg.IpcExportError as e:
                    d["ipc_why"] = str(e)
            if not want_data:
                outs.append(d)
                continue
            data = data.reshape(-1).view(t.uint8).cpu()
            if to_files:
                path = os.path.join(self.work_dir, "out-%d-%d.bin" % (os.getpid(), len(files)))
                data.numpy().tofile(path)
                d["file"] = path
                files.append(path)
            else:
                d["blob"] = len(blobs)
                blobs.append(data.numpy().tobytes())
            outs.append(d)
        return outs, blobs, tensors

    def run_key(self, h, case, doc):
        return (h, case, self.seed_key(doc.get("seed", 0)), doc.get("mode", "strict"),
                self.seed_key(doc.get("model_seed", 42)))

    def note_use(self, key):
        """Counts a use of the reference's outputs at a run (its first run, or
        a compare against them), the task's earlier uses weighing 0.9 each
        time: what keep_outputs weighs a task's runs by."""
        for k in self.uses:
            if k[0] == key[0]:
                self.uses[k] *= 0.9
        self.uses[key] = self.uses.get(key, 0.0) + 1.0

    def keep_outputs(self, key, tensors):
        """Keeps the reference's outputs of a run on the device for later
        GPU comparisons, within a budget: other tasks' outputs go first,
        least recently used first; then the same task's, only those used
        clearly less of late than this run (note_use).

        Every candidate of a task needs the same few runs at the problem's
        own sizes, in order: the correctness case, the timing's inputs
        (compared once a round, 2-4 rounds) and the recheck. At
        KernelBench's sizes the budget holds one or two of them (a 6 GB
        output each), and least-recently-used order dropped each just
        before its next use: 853 reference runs for 224 candidate loads
        (PROFILE_PROGRAMS=1 with bench/kernelbench/program_bench.py over the
        22 problems). Weighed by their recent uses, the timing's outputs
        stay while candidates are timed, one run's of the two an untimed
        score compares stays while they are not, and only the rest are made
        again. Returns whether the outputs fit the budget at all (kept now
        or not), which is when the worker compares them on the GPU."""
        size = nbytes(tensors)
        _, total = self.torch.cuda.mem_get_info(self.device)
        # 15% of the device: with the input caches (10% among all workers)
        # and one GPU phase's working set (a timed call at KernelBench's
        # sizes: inputs, their copy, outputs; 20-30 GB for a 6-7 GB input)
        # it leaves room for the lanes' warm-ups. At least two runs of this
        # size, up to 20%: every candidate of a task compares with two runs
        # at its own sizes, the correctness case's and the recheck's (whose
        # secret seed serves 256 scores: Context::recheck_seed), and 15% of
        # an 80 GB device is just short of two of 19_ReLU's 6 GiB outputs,
        # so the reference ran again at every recheck.
        budget = max(int(total * 0.15), min(2 * size, int(total * 0.20)))
        if key in self.kept:
            return True
        if size > budget:
            return False
        # The precision audit's recomputations share the budget and go first.
        evicted = self.shrink_audit(max(0, budget - self.kept_bytes - size))
        mine = self.uses.get(key, 0.0)
        others = [k for k in self.kept if k[0] != key[0]]
        # A run of the same task goes for this one only if used clearly less
        # (by one use or more): two runs used as often would push each
        # other out in turn.
        own = sorted((k for k in self.kept if k[0] == key[0] and self.uses.get(k, 0.0) + 1.0 < mine),
                     key=lambda k: self.uses.get(k, 0.0))
        # Only if that makes room: a victim pushed out for nothing is a run
        # made again for nothing.
        room = budget - self.kept_bytes + sum(nbytes(self.kept[k]) for k in others + own)
        for old_key in (others + own) if size <= room else []:
            if self.kept_bytes + size <= budget:
                break
            old = self.kept.pop(old_key)
            self.kept_bytes -= nbytes(old)
            evicted = True
        if evicted:
            self.torch.cuda.empty_cache()
        if self.kept_bytes + size <= budget:
            self.kept[key] = tensors
            self.kept_bytes += size
        return True

    def compare_on_gpu(self, expected, items):
        """Each item: a candidate output (by IPC handle) against the kept
        reference output at its position, by the C core's comparator."""
        out = []
        for it in items:
            k = int(it["output"])
            if k < 0 or k >= len(expected):
                raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "no reference output %d to compare with" % k)
            exp = expected[k]
            n = exp.numel() * exp.element_size()
            if int(it.get("bytes", -1)) != n:
                out.append({"error": "the candidate's output holds %s bytes, the reference's %d"
                                     % (it.get("bytes"), n)})
                continue
            try:
                out.append(self.comparer.compare(self.device_index, it["handle"], it["offset"], exp,
                                                 kp.kb_dtype(exp), it["atol"], it["rtol"], it.get("equal_nan", True)))
            except (RuntimeError, ValueError) as e:
                out.append({"error": str(e)})
        return out

    def program_run(self, doc, blobs):
        h, tt = self.task(doc, blobs)
        if tt is None:
            return {"missing": ["task:%s" % h]}, []
        task_doc, ref = tt
        case = int(doc["case"])
        who = "reference" if self.role == "reference" else "candidate"
        if who == "candidate" and self.candidate is None:
            raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "no candidate is loaded")
        mode = doc.get("mode", "strict")
        seed_spec = doc.get("seed", 0)
        self.conn.note(doc.get("_id", 0), "running the %s of task '%s' at case '%s'"
                       % ("reference" if who == "reference" else "candidate " + self.candidate["name"],
                          ref.task_name, ref.case_name(case)))
        fault = doc.get("test_fault", "") if self.test_hooks else ""
        if fault:
            self.test_fault(fault)
        if doc.get("precision") is not None:
            if who != "reference":
                raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "only the reference worker audits precision")
            return {"case": case, "precision": self.precision_audit(h, ref, case, doc, blobs)}, []
        if doc.get("compare") is not None:
            if who != "reference" or self.comparer is None or not self.comparer.available:
                raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "this worker cannot compare on the GPU (%s)"
                                   % (self.comparer.why if self.comparer else "not the reference worker on a device"))
            key = self.run_key(h, case, doc)
            self.note_use(key)
            kept = self.kept.get(key)
            if kept is not None:
                self.kept.move_to_end(key)
                return {"case": case, "compared": self.compare_on_gpu(kept, doc["compare"])}, []
            # Not kept (evicted, a new worker, or a run the host asks for
            # and compares in one request: a recheck seed's first use): run
            # the reference, keep its outputs where the budget lets it, and
            # compare. The run's description goes back where the host asks
            # for it (a data_limit: its outputs' bytes up to that).
            doc["keep_outputs"] = True
            if doc.get("data_limit") is None:
                doc["want_outputs"] = False
        result = {"case": case}
        lap = kprof.laps("py.run")
        try:
            if self.torch is not None:
                result["seed_value"] = kp.resolve_seed(seed_spec)
            if ref.style == "tritonbench":
                module = self.tritonbench_target(h, ref, case, who)
                args, descs, model = [], [], None
                if ref.is_perf_script_case(case):
                    model = self.perf_run(h, ref, module, who, kp.resolve_seed(seed_spec))
                kp.set_seed(kp.resolve_seed(seed_spec))
            else:
                module = self.problem_module(h, ref, case)
                tensors, descs = self.make_inputs(h, ref, case, seed_spec, mode)
                # Before the call: what the candidate's call might reach
                # afterwards must not decide what "before" was.
                self.with_checksums(tensors, descs)
                model = self.model(h, ref, case, who, doc.get("model_seed", 42))
                # A run is one call on inputs of its own (run_args); the
                # request's clone_inputs matters for timing only.
                args = self.run_args(h, case, seed_spec, mode, tensors)
        except CandidateFailure as e:
            result["error"] = e.to_json()
            return result, []
        except Exception as e:
            if who == "reference":
                head, where = short_traceback(e, ref.source_name)
                raise RequestError(kf.KB_ERR_REFERENCE_FAILED, "the problem failed to make its inputs or model at "
                                                               "case '%s': %s\n%s" % (ref.case_name(case), head, where))
            head, where = short_traceback(e, self.candidate["name"])
            result["error"] = {"stage": construction_stage(e), "message": head, "where": where}
            return result, []
        result["inputs"] = [{k: v for k, v in d.items() if k != "bytes"} for d in descs]
        # Runs at KernelBench's own sizes (inputs of gigabytes), whose GPU
        # work dominates, are profiled apart from the small cases'.
        if sum(d.get("bytes", 0) for d in descs) >= 1 << 30:
            lap.prefix = "py.run_large"
        lap("inputs")
        if who == "candidate":
            self.poison_free_memory(doc.get("poison_dtype", "f32"), int(doc.get("poison_bytes", 0)),
                                    doc.get("poison_sizes", []))
            lap("poison")
        record = doc.get("record", {})
        ops = None
        if record.get("ops") and self.torch is not None:
            ops = ka.OpRecorder(gate=self.tb_gate if ref.style == "tritonbench" else None)
        use_cupti = bool(record.get("kernels")) and self.cupti is not None and self.cupti.available
        launches_before = dict(self.candidate["launches"]) if who == "candidate" else {}
        threads_before = kc.thread_idents()
        tally = ka.KernelTally()
        self.sync()
        if use_cupti:
            self.cupti.take()  # drop what came before the call
            t0 = self.cupti.now()
        lap("before_call")
        w0 = _perf_counter()
        try:
            if ops is not None:
                with ops:
                    out = self.call(model, args, ref, who, module)
            else:
                out = self.call(model, args, ref, who, module)
            returned = _perf_counter()
            lap("call")
            self.sync()
        except CandidateFailure as e:
            result["error"] = e.to_json()
            return result, []
        except BaseException as e:
            if who == "reference":
                head, where = short_traceback(e, ref.source_name)
                raise RequestError(kf.KB_ERR_REFERENCE_FAILED, "the reference raised at case '%s': %s\n%s"
                                   % (ref.case_name(case), head, where))
            head, where = short_traceback(e, self.candidate["name"])
            result["error"] = {"stage": "call", "message": head, "where": where,
                               "context_lost": "CUDA error" in head or "illegal" in head.lower()}
            return result, []
        result["run_ms"] = (_perf_counter() - w0) * 1e3
        result["host_call_ms"] = (returned - w0) * 1e3
        lap("sync")
        if use_cupti:
            t1 = self.cupti.now()
            end = tally.add_window(self.cupti.take(), t0, t1)
            result["span_ms"] = max(end - t0, 0) / 1e6
            lap("cupti")
        if descs and who == "candidate":
            after = []
            for i, x in enumerate(args):
                if isinstance(x, self.torch.Tensor):
                    after.append({"index": i, "checksum": kp.checksum(x)})
            result["inputs_after"] = after
            lap("inputs_after")
        share = bool(doc.get("share_outputs", False)) and who == "candidate"
        want = bool(doc.get("want_outputs", True))
        keep = who == "reference" and bool(doc.get("keep_outputs")) and self.comparer is not None and \
            self.comparer.available
        outs, out_blobs, out_tensors = self.describe_outputs(out, want, self.device, share=share,
                                                             data_limit=doc.get("data_limit") if keep else None)
        if keep:
            key = self.run_key(h, case, doc)
            if doc.get("compare") is None:
                self.note_use(key)  # its first run (a compare's counted above)
            # Compared on the GPU where they could be kept: from the kept
            # tensors, or from a run again where they were not (compare).
            result["gpu_compare"] = all(x.is_cuda for x in out_tensors) and self.keep_outputs(key, out_tensors)
            if not result["gpu_compare"] and doc.get("data_limit") is not None:
                # Not kept (off the device, or over the budget): the host
                # compares, so it needs every byte after all.
                outs, out_blobs, out_tensors = self.describe_outputs(out, want, self.device)
        result["outputs"] = outs
        lap("outputs")
        if who == "reference" and self.torch is not None and isinstance(model, self.torch.nn.Module):
            # A kernel candidate gets the inputs only: the host refuses a
            # problem whose model holds state (kernel_program.h).
            result["model_state"] = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
        if who == "reference" and doc.get("compare") is not None:
            result["compared"] = self.compare_on_gpu(out_tensors, doc["compare"])
        attribution = {"cupti": use_cupti}
        if use_cupti:
            attribution.update(tally.to_json())
        elif record.get("kernels") and self.device.startswith("cuda"):
            attribution["cupti_why"] = self.cupti.why if self.cupti else "CUPTI was not loaded"
        if ops is not None:
            attribution["aten_ops"] = ops.counts
        if who == "candidate":
            attribution["triton_declared"] = self.candidate["triton"]
            attribution["cuda_declared"] = self.candidate["cuda"]
            attribution["triton_launches"] = {k: v - launches_before.get(k, 0)
                                              for k, v in self.candidate["launches"].items()}
            result["integrity"] = self.integrity_report(threads_before)
        result["attribution"] = attribution
        lap("report")
        return result, out_blobs

    # ---- the precision audit (src/compare/precision.h) ------------------
    def reference_outputs(self, h, ref, case, doc, precision=None):
        """The reference's output tensors (contiguous) at the run `doc` names,
        computed again; under a reduced-precision mode of kbench_precision
        where `precision` names one."""
        t = self.torch
        seed_spec = doc.get("seed", 0)
        if ref.style == "tritonbench":
            module = self.tritonbench_target(h, ref, case, "reference")
            args, model = [], None
            if ref.is_perf_script_case(case):
                model = self.perf_run(h, ref, module, "reference", kp.resolve_seed(seed_spec))
            kp.set_seed(kp.resolve_seed(seed_spec))
        else:
            module = self.problem_module(h, ref, case)
            tensors, _ = self.make_inputs(h, ref, case, seed_spec, doc.get("mode", "strict"))
            model = self.model(h, ref, case, "reference", doc.get("model_seed", 42))
            args = [x.clone() if isinstance(x, t.Tensor) else x for x in tensors]
        if precision is None:
            out = self.call(model, args, ref, "reference", module)
        else:
            with kpr.reduced_precision(t, precision, self.device):
                out = self.call(model, args, ref, "reference", module)
        self.sync()
        outs = []
        for _, v in kp.flatten_outputs(out):
            x = kp.as_tensor(v)
            if x is not None:
                x = x.detach()
                outs.append(x if x.is_contiguous() else x.contiguous())
        return outs

    def audit_budget(self):
        """What the audit may keep: on a device, what the kept outputs leave
        of their budget (keep_outputs' 15%), which they take back first."""
        if self.device.startswith("cuda"):
            _, total = self.torch.cuda.mem_get_info(self.device)
            return max(0, int(total * 0.15) - self.kept_bytes)
        return 1 << 30

    def shrink_audit(self, room):
        """Drops the audit's kept tensors, least recently used first, until
        they take at most `room` bytes (entries without tensors stay); True
        if any went."""
        dropped = False
        for key in [k for k, e in self.audit.items() if e.get("bytes", 0)]:
            if self.audit_bytes <= room:
                break
            self.forget_audit(key)
            dropped = True
        return dropped

    def forget_audit(self, key):
        entry = self.audit.pop(key)
        self.audit_bytes -= entry.get("bytes", 0)

    def keep_audit(self, key, entry):
        """Keeps an audit entry, least recently used out past the budget; an
        entry larger than the budget is used once and not kept."""
        size = sum(x.numel() * x.element_size() for x in entry.get("outputs", []))
        budget = self.audit_budget()
        if size > budget:
            return entry
        self.shrink_audit(budget - size)
        entry["bytes"] = size
        self.audit[key] = entry
        self.audit_bytes += size
        return entry

    def audit_entry(self, key):
        entry = self.audit.get(key)
        if entry is not None:
            self.audit.move_to_end(key)
        return entry

    def full_outputs(self, key, h, ref, case, doc):
        """The full-precision reference's outputs of a run: those kept for
        GPU comparisons, else those the audit kept, else run again."""
        kept = self.kept.get(key)
        if kept is not None:
            return kept
        entry = self.audit_entry((key, "full"))
        if entry is None:
            entry = self.keep_audit((key, "full"), {"outputs": self.reference_outputs(h, ref, case, doc)})
        return entry["outputs"]

    def reduced_outputs(self, key, h, ref, case, doc, mode, full):
        """The audit's entry for `mode` at the run `key`: computed once, kept."""
        entry = self.audit_entry((key, mode))
        if entry is not None:
            return entry
        try:
            outs = self.reference_outputs(h, ref, case, doc, mode)
        except Exception as e:
            head, _ = short_traceback(e, ref.source_name)
            return self.keep_audit((key, mode), {"skipped": "the reference raised in %s: %s" % (mode, head)})
        f = full()
        if len(outs) != len(f) or any(tuple(a.shape) != tuple(b.shape) for a, b in zip(outs, f)):
            return self.keep_audit((key, mode), {"skipped": "the reference in %s returned outputs of other shapes" % mode})
        # Compared in the full reference's dtypes (autocast returns f16 or bf16).
        outs = [a if a.dtype == b.dtype else a.to(b.dtype).contiguous() for a, b in zip(outs, f)]
        if all(kpr.same_bits(self.torch, a, b) for a, b in zip(outs, f)):
            return self.keep_audit((key, mode), {"same_bits": True})
        return self.keep_audit((key, mode), {"outputs": outs})

    def precision_audit(self, h, ref, case, doc, blobs):
        """The candidate's outputs (IPC handles, or their bytes as blobs)
        against the full reference and each mode's recomputation: per mode,
        per output, max |candidate - full|, max |candidate - reduced| and the
        full reference's largest finite magnitude. The host judges."""
        t = self.torch
        if t is None:
            raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "no torch: nothing to audit")
        key = self.run_key(h, case, doc)
        spec = doc["precision"]
        full_cache = []

        def full():
            if not full_cache:
                full_cache.append(self.full_outputs(key, h, ref, case, doc))
            return full_cache[0]

        cands = []
        for it in spec.get("outputs", []):
            k = int(it["output"])
            if "handle" in it:
                if self.comparer is None or not self.comparer.available:
                    raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "this worker cannot compare on the GPU")
                cands.append((k, it))
            else:
                data = blobs[int(it["blob"])]
                x = t.frombuffer(bytearray(data), dtype=kp.torch_dtype(it["dtype"])) if data else \
                    t.empty(0, dtype=kp.torch_dtype(it["dtype"]))
                cands.append((k, x.reshape([int(d) for d in it["shape"]])))

        def error(c, expected):
            if isinstance(c, dict):  # exported by the candidate worker: the C core's comparator
                n = expected.numel() * expected.element_size()
                if int(c.get("bytes", -1)) != n:
                    return float("nan")
                st = self.comparer.compare(self.device_index, c["handle"], c["offset"], expected,
                                           kp.kb_dtype(expected), 0.0, 0.0, True)
                return float(st["max_abs_err"])  # "inf" and "nan" come as strings
            if tuple(c.shape) != tuple(expected.shape):
                return float("nan")
            return kpr.max_abs_diff(t, c, expected)

        # The full reference's scale and each output's error against it are
        # the same for every mode: one pass each over outputs of gigabytes,
        # not one per mode.
        per_output = {}

        def against_full(k, c, f):
            if k not in per_output:
                per_output[k] = (kg._number(kpr.scale(t, f[k])), kg._number(error(c, f[k])))
            return per_output[k]

        out = []
        for mode in spec.get("modes", []):
            if mode not in kpr.MODES:
                out.append({"mode": mode, "skipped": "kbench has no such mode"})
                continue
            entry = self.reduced_outputs(key, h, ref, case, doc, mode, full)
            if entry.get("same_bits"):
                out.append({"mode": mode, "same_bits": True})
                continue
            if "skipped" in entry:
                out.append({"mode": mode, "skipped": entry["skipped"]})
                continue
            f = full()
            outputs = []
            for k, c in cands:
                if k < 0 or k >= len(f) or not f[k].is_floating_point():
                    continue
                scale, err_full = against_full(k, c, f)
                outputs.append({"output": k, "dtype": kp.kb_dtype(f[k]), "scale": scale, "err_full": err_full,
                                "err_reduced": kg._number(error(c, entry["outputs"][k]))})
            out.append({"mode": mode, "outputs": outputs})
        return out

    # ---- timing ----------------------------------------------------------
    def program_time(self, doc, blobs):
        """Times the model at a case. Parameters come from the host's protocol
        (src/engine/program_protocol.cpp): warm-up calls on the warm-up seed's
        inputs, then `trials` (+ `discard_first`) samples on the timing seed's
        inputs, each after an L2 flush (a fill of `l2_flush_bytes`). A sample is
        measured three ways where it can be: CUDA events on the current stream
        (KernelBench's method), the CUPTI span of every kernel on every stream
        from the call to its last kernel's end, and host wall time to the
        device-wide synchronisation."""
        h, tt = self.task(doc, blobs)
        if tt is None:
            return {"missing": ["task:%s" % h]}
        task_doc, ref = tt
        t = self.torch
        case = int(doc["case"])
        who = "reference" if self.role == "reference" else "candidate"
        mode = doc.get("mode", "strict")
        self.conn.note(doc.get("_id", 0), "timing the %s of task '%s' at case '%s'" % (
            who if who == "reference" else "candidate " + self.candidate["name"], ref.task_name, ref.case_name(case)))
        fault = doc.get("test_fault", "") if self.test_hooks else ""
        if fault:
            self.test_fault(fault)
        if ref.style == "tritonbench" and not ref.is_perf_script_case(case):
            raise RequestError(kf.KB_ERR_INVALID_ARGUMENT, "a TritonBench task is timed at its perf case, on its "
                                                           "performance script's inputs (reference.perf_source)")
        try:
            if ref.style == "tritonbench":
                # The script's inputs under the timing seed, for the warm-up
                # too: they are the script's call_op arguments, not ours to copy.
                module = self.tritonbench_target(h, ref, case, who)
                runner = self.perf_run(h, ref, module, who, kp.resolve_seed(doc.get("seed", 0)))

                def model():
                    return runner()
                warm, timed, timed_descs = [], [], []
            else:
                model = self.model(h, ref, case, who, doc.get("model_seed", 42))
                timed = None  # made after the warm-up, which frees its own inputs first
                if self.seed_key(doc.get("warmup_seed", 0)) == self.seed_key(doc.get("seed", 0)):
                    # One seed for both (KernelBench's protocol, and the
                    # rounds after the first): the warm-up calls run on the
                    # timed inputs, which the candidate has seen already.
                    timed, timed_descs = self.timed_inputs(h, ref, case, doc.get("seed", 0), mode)
                    warm = timed
                else:
                    warm, _ = self.make_inputs(h, ref, case, doc.get("warmup_seed", 0), mode)
                    # The cached inputs stay untouched: with clone_inputs every
                    # call gets its own copy (args_of); without, the calls
                    # share one copy, or the inputs themselves where they were
                    # made for this request alone (run_args).
                    if not bool(doc.get("clone_inputs", False)):
                        warm = self.run_args(h, case, doc.get("warmup_seed", 0), mode, warm)
        except CandidateFailure as e:
            return {"error": e.to_json()}
        except Exception as e:
            head, where = short_traceback(e, self.candidate["name"] if self.candidate else ref.source_name)
            if who == "reference":
                raise RequestError(kf.KB_ERR_REFERENCE_FAILED, "the reference failed while timing: %s\n%s" % (head, where))
            return {"error": {"stage": construction_stage(e), "message": head, "where": where}}
        lap = kprof.laps("py.time")
        clone = bool(doc.get("clone_inputs", False))
        # Without copies, each call may still get tensor objects of its own
        # over the same memory (alias_inputs): a model that keys a cache on
        # its arguments' identity meets new ones at every call, as with copies,
        # while a copy of a 6 GB input per sample doubles a memory-bound
        # sample's GPU time. What a call writes to its inputs, the checksums
        # after the last sample show (check_outputs).
        alias = bool(doc.get("alias_inputs", False))
        cuda = self.device.startswith("cuda")
        use_cupti = cuda and bool(doc.get("spans", True)) and self.cupti is not None and self.cupti.available
        use_events = cuda and bool(doc.get("events", True))
        flush = None
        if cuda and int(doc.get("l2_flush_bytes", 0)) > 0:
            flush = t.empty(int(doc["l2_flush_bytes"]) // 8, dtype=t.int64, device=self.device)
        Event = self._event_class

        def args_of(inputs):
            if clone:
                return [x.clone() if isinstance(x, t.Tensor) else x for x in inputs]
            if alias:
                return [x.detach() if isinstance(x, t.Tensor) else x for x in inputs]
            return list(inputs)

        threads_before = kc.thread_idents()
        w0 = _perf_counter()
        try:
            with t.no_grad():
                # Warm-up: calls on their own inputs, each synchronised.
                n_warm = int(doc.get("warmup_calls", 3))
                warm_ms = float(doc.get("warmup_ms", 0))
                calls = 0
                ws = _perf_counter()
                lap("prepare")
                while calls < n_warm or (_perf_counter() - ws) * 1e3 < warm_ms:
                    model(*args_of(warm))
                    self.sync()
                    calls += 1
                    if calls >= 10000:
                        break
                del warm
                lap("warmup")
                if timed is None:
                    # The warm-up's inputs are gone (unless cached): at
                    # KernelBench's sizes both sets at once are gigabytes more.
                    timed, timed_descs = self.timed_inputs(h, ref, case, doc.get("seed", 0), mode)
                if doc.get("empty_cache_after_warmup", False) and cuda:
                    t.cuda.empty_cache()
                trials = int(doc.get("trials", 100))
                discard = int(doc.get("discard_first", 0))
                budget_ms = float(doc.get("budget_ms", 0))
                min_trials = int(doc.get("min_trials", trials))
                # A round ends early once it has min_trials samples whose
                # median is known to target_rel_noise, in the measure the
                # host judges (engine/program_backend.cpp, samples_of): a
                # stable kernel of milliseconds needs five samples, not the
                # budget's ten or more; a noisy one still gets the budget.
                noise_target = float(doc.get("target_rel_noise", 0))
                measure = doc.get("measure", "spans")
                events, spans, walls = [], [], []
                tally = ka.KernelTally()
                if use_cupti:
                    # Records are taken after each sample, never just before
                    # its call: a forced flush of CUPTI's buffers there puts
                    # the next buffer's set-up inside the timed call (0.43 ms
                    # on every sample on an H100: a 0.10 ms ReLU measured
                    # 0.54 ms; bench/kernelbench/timing_overhead.py). What
                    # comes before a window (the copy, the flush) is outside it.
                    self.cupti.take()
                s0 = _perf_counter()
                i = 0
                last = None
                check = bool(doc.get("check_outputs")) and who == "candidate"
                lap("inputs")
                while i < trials + discard:
                    # One call's outputs alive at a time: a sample's outputs
                    # at KernelBench's sizes are gigabytes, and the reference
                    # worker times next on the same device.
                    last = None
                    args = args_of(timed)
                    self.sync()
                    if flush is not None:
                        flush.fill_(42)
                        self.sync()
                    if use_cupti:
                        c0 = self.cupti.now()
                    if use_events:
                        start, end = Event(enable_timing=True), Event(enable_timing=True)
                        start.record()
                    h0 = _perf_counter()
                    out = model(*args)
                    if use_events:
                        end.record()
                    h1 = _perf_counter()
                    self.sync()
                    h2 = _perf_counter()
                    if i >= discard:
                        walls.append((h2 - h0) * 1e3)
                        if use_events:
                            events.append(start.elapsed_time(end))
                        if use_cupti:
                            c1 = self.cupti.now()
                            end_ns = tally.add_window(self.cupti.take(), c0, c1, count_outside=False)
                            # The call's host time counts too: a call that
                            # launches nothing still took time.
                            spans.append(max(end_ns - c0, int((h1 - h0) * 1e9)) / 1e6)
                    # The host compares the last timed call's outputs with the
                    # reference's (check_outputs): each sample's replaces the
                    # one before, outside the timed window.
                    last = out if check else None
                    out = None
                    i += 1
                    done = i - discard
                    if budget_ms > 0 and done >= min_trials and (_perf_counter() - s0) * 1e3 > budget_ms:
                        break
                    if noise_target > 0 and done >= min_trials:
                        judged = events if measure == "events" and use_events else spans if use_cupti else walls
                        if rel_noise(judged) <= noise_target:
                            break
                lap("samples")
        except CandidateFailure as e:
            return {"error": e.to_json()}
        except BaseException as e:
            head, where = short_traceback(e, self.candidate["name"] if self.candidate else ref.source_name)
            if who == "reference":
                raise RequestError(kf.KB_ERR_REFERENCE_FAILED, "the reference failed while timing: %s\n%s" % (head, where))
            return {"error": {"stage": "timing", "message": head, "where": where}}
        result = {"warmup_calls": calls, "wall_samples_ms": walls, "wall_ms": (_perf_counter() - w0) * 1e3,
                  "events": use_events, "cupti": use_cupti}
        if use_events:
            result["event_samples_ms"] = events
        if use_cupti:
            result["span_samples_ms"] = spans
            # The timed calls' device work (the host holds it against the
            # recheck's: judge.h, timed_replay).
            result["attribution"] = dict(tally.to_json(), cupti=True)
        out_blobs = []
        if check:
            outs, out_blobs, _ = self.describe_outputs(last, True, self.device,
                                                       share=bool(doc.get("share_outputs", False)))
            result["last"] = {"case": case, "outputs": outs}
            if not clone:
                # Every call ran on the same memory: its inputs now must be
                # the inputs as made (the host judges it as a run's).
                result["last"]["inputs"] = [{k: v for k, v in d.items() if k != "bytes"} for d in timed_descs]
                result["last"]["inputs_after"] = [{"index": i, "checksum": kp.checksum(x)}
                                                  for i, x in enumerate(timed) if isinstance(x, t.Tensor)]
        if who == "candidate":
            result["integrity"] = self.integrity_report(threads_before)
        lap("check")
        return result, out_blobs

    @property
    def _event_class(self):
        return _Event[0]

    # ---- memory --------------------------------------------------------------
    def release_caches(self):
        """Frees what the worker holds for later requests (inputs, kept
        reference outputs) and torch's cached blocks; True if anything went.
        Problems at KernelBench's sizes (6-9 GB an input) fill the device
        with two workers' caches."""
        held = self.cached_bytes()
        self.timing_inputs = None
        self.forget_all_inputs()
        self.kept.clear()
        self.kept_bytes = 0
        self.audit.clear()
        self.audit_bytes = 0
        self.shared = []
        if self.torch is not None and self.device.startswith("cuda"):
            import gc
            gc.collect()
            self.torch.cuda.empty_cache()
        return held > 0

    def trim_cache(self):
        """Hands torch's cached free blocks back to the driver when they are
        many (over 1 GiB): two workers share the device, and blocks one of
        them keeps for itself (the poison, a large problem's temporaries) are
        memory the other cannot get.

        torch frees a segment only when all of it is free, and it carves a
        small allocation out of the best-fitting free block, which after a
        run at KernelBench's sizes is part of a segment of gigabytes: an
        input cached for later runs then keeps that whole segment (the
        likely reason why, at eight lanes of 6 GB problems, each idle
        candidate worker held 6.9 GB: MEM_TRACE=1 with
        bench/kernelbench/program_bench.py; not confirmed). Where emptying
        the cache leaves over 1 GiB reserved and unused, the cached inputs
        go too (they are made again on the device in milliseconds), and the
        cache is emptied again."""
        if self.torch is None or not self.device.startswith("cuda"):
            return
        cuda = self.torch.cuda
        slack = 1 << 30
        # Between requests a worker's device memory is its caches'. More is
        # a finished request's, kept by something the collector has not
        # reached yet: idle candidate workers held a run's 6 GiB output
        # through a list and a (name, tensor) pair that no cache of theirs
        # owns (MEM_HOLDERS=1 with bench/kernelbench/program_bench.py at
        # eight lanes, where they ran the reference out of memory). A
        # collection frees what only a cycle keeps, and walks only what the
        # candidate made (freeze_setup).
        collected = 0
        if cuda.memory_allocated(self.device) > self.cached_bytes() + slack:
            before = cuda.memory_allocated(self.device)
            import gc
            gc.collect()
            collected = before - cuda.memory_allocated(self.device)

        def unused():
            return cuda.memory_reserved(self.device) - cuda.memory_allocated(self.device)
        if unused() > slack:
            cuda.empty_cache()
            if unused() > slack and self.inputs:
                self.forget_all_inputs()
                import gc
                gc.collect()
                cuda.empty_cache()
        # What a candidate worker still holds between requests (the
        # reference's kept outputs are its budget's; a timing's rounds keep
        # their inputs): $KBENCH_PROFILE_MEMORY traces it.
        if kprof.tracing_memory() and self.role != "reference" and self.timing_inputs is None:
            kprof.held_memory(self.torch, self.device, "trimmed, %d MiB collected" % (collected >> 20))

    def cached_bytes(self):
        """The device memory the worker's own caches hold for later requests:
        inputs, a timing's inputs, the reference's kept outputs and audits."""
        held = self.input_bytes + self.kept_bytes + self.audit_bytes
        if self.timing_inputs is not None:
            held += sum(d.get("bytes", 0) for d in self.timing_inputs[2])
        return held

    def with_memory_retry(self, f, doc, blobs):
        """f(doc, blobs), run once more after release_caches() when it ran out
        of device memory while the worker's own caches held some."""
        def oom(text):
            return "OutOfMemoryError" in text or "out of memory" in text
        try:
            try:
                r = f(doc, blobs)
            except RequestError as e:
                if not oom(str(e)) or not self.release_caches():
                    raise
                return f(doc, blobs)
            res = r[0] if isinstance(r, tuple) else r
            err = res.get("error") if isinstance(res, dict) else None
            if err and oom(str(err.get("message", ""))) and self.release_caches():
                return f(doc, blobs)
            return r
        finally:
            self.trim_cache()

    # ---- test hooks ------------------------------------------------------
    def test_fault(self, fault):
        import signal
        if fault == "segv":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif fault == "abort":
            os.abort()
        elif fault.startswith("exit:"):
            os._exit(int(fault[5:]))
        elif fault.startswith("sleep:"):
            time.sleep(float(fault[6:]))
        elif fault == "garble":
            self.conn.sock.sendall(b"this is not a frame" * 4)


class CandidateFailure(Exception):
    """The candidate failed in a way that is its verdict, not kbench's error."""

    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage

    def to_json(self):
        # A device error at the synchronisation after a call ("cuda": an
        # illegal address, a trap) may leave this process's CUDA context
        # unusable: the host replaces the worker before the next candidate.
        return {"stage": self.stage, "message": str(self), "context_lost": self.stage == "cuda"}


_Event = [None]


def _profile_methods(cls, names):
    """KBENCH_PROFILE spans (kbench_profile.py) around the worker's stages."""
    for name in names:
        def wrap(f, label):
            def g(*args, **kwargs):
                with kprof.span(label):
                    return f(*args, **kwargs)
            g.__name__ = f.__name__
            g.__doc__ = f.__doc__
            return g
        setattr(cls, name, wrap(getattr(cls, name), "py." + name))


_profile_methods(Worker, ("program_load", "program_run", "program_time", "make_inputs", "model",
                          "poison_free_memory", "call", "describe_outputs", "keep_outputs", "compare_on_gpu", "sync"))
if kprof._PATH:
    _checksum = kp.checksum

    def _profiled_checksum(t):
        with kprof.span("py.checksum"):
            return _checksum(t)
    kp.checksum = _profiled_checksum


def serve(worker):
    conn = worker.conn
    # The environment each candidate and problem file starts with: as the
    # worker's set-up (hello) leaves it, TORCH_CUDA_ARCH_LIST included.
    environment = dict(os.environ)
    while True:
        frame = conn.read_frame()
        if frame is None:
            return
        msg_type, msg_id, doc, blobs = frame
        doc["_id"] = msg_id
        # The outputs a candidate's last run exported are compared by now.
        worker.shared = []
        try:
            if msg_type == kf.MSG_HELLO:
                info = worker.hello(doc)
                environment = dict(os.environ)
                if worker.torch is not None:
                    _Event[0] = worker.torch.cuda.Event
                conn.reply(msg_type, msg_id, info)
            elif msg_type == kf.MSG_CANARY:
                conn.reply(msg_type, msg_id, worker.canary(doc))
            elif msg_type == kf.MSG_SHUTDOWN:
                conn.reply(msg_type, msg_id, {})
                return
            elif msg_type == kf.MSG_PROGRAM_LOAD:
                worker.drop_timing_inputs()
                conn.reply(msg_type, msg_id, worker.program_load(doc, blobs))
            elif msg_type == kf.MSG_PROGRAM_RUN:
                if doc.get("compare") is None:
                    worker.drop_timing_inputs()  # a run: the timing is over
                result, out_blobs = worker.with_memory_retry(worker.program_run, doc, blobs)
                worker.note_later_builds(result)
                conn.reply(msg_type, msg_id, result, out_blobs)
            elif msg_type == kf.MSG_PROGRAM_TIME:
                result = worker.with_memory_retry(worker.program_time, doc, blobs)
                # A reply with the last timed call's outputs carries their bytes.
                result, out_blobs = result if isinstance(result, tuple) else (result, [])
                conn.reply(msg_type, msg_id, result, out_blobs)
            elif msg_type == kf.MSG_PROGRAM_PREBUILD:
                result, out_blobs = worker.program_prebuild(doc, blobs)
                conn.reply(msg_type, msg_id, result, out_blobs)
            elif msg_type == kf.MSG_PROGRAM_RELEASE:
                # The outputs exported for the comparison went above; with
                # "timing_inputs", the copy a timing kept across its rounds
                # goes too (the timing is over); with "caches", everything
                # kept for later requests (a run ran out of device memory
                # and runs again). Their memory goes back to the driver, for
                # the other workers.
                if doc.get("caches"):
                    worker.release_caches()
                elif doc.get("timing_inputs"):
                    worker.drop_timing_inputs()
                worker.trim_cache()
                conn.reply(msg_type, msg_id, {})
            elif msg_type == kf.MSG_TEST and worker.test_hooks:
                fault = doc.get("fault", "")
                if fault:
                    worker.test_fault(fault)
                conn.reply(msg_type, msg_id, {"pid": os.getpid()})
            else:
                conn.reply_error(msg_type, msg_id, kf.KB_ERR_INVALID_ARGUMENT,
                                 "the Python program worker does not serve message type %d" % msg_type)
        except RequestError as e:
            conn.reply_error(msg_type, msg_id, e.status, str(e))
        except (kf.ProtocolError, BrokenPipeError, ConnectionResetError):
            raise
        except Exception:
            conn.reply_error(msg_type, msg_id, kf.KB_ERR_INTERNAL,
                             "the Python program worker failed (a kbench bug): " + traceback.format_exc())
        if msg_type in (kf.MSG_PROGRAM_LOAD, kf.MSG_PROGRAM_RUN, kf.MSG_PROGRAM_TIME, kf.MSG_PROGRAM_PREBUILD):
            kf.after_untrusted_code(environment)


def build_pch(cache, work_dir, parent):
    """The builder of the shared load_inline cache: a process that runs no
    candidate and is the only one the host lets write `cache`. It builds the
    precompiled headers most answers need (kbench_load_inline.warm_usual)
    and exits; candidate workers read them (worker_host/program_workers.cpp)."""
    kf.watch_parent(parent)
    kf.no_core_files()
    os.makedirs(work_dir, exist_ok=True)
    os.chdir(work_dir)
    try:
        import torch
    except Exception as e:  # no torch: nothing to build, and no candidate will need it
        sys.stderr.write("kbench load_inline builder: no torch (%s)\n" % e)
        return 0
    # Planning a build asks torch for CUDA architectures, which it reads from
    # the devices this process cannot see; they go to nvcc only, never into
    # the C++ flags a precompiled header is keyed by.
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    builder = kli.install(torch, work_dir, cache, warm=False)
    ok = kli.warm_usual(builder)
    shutil.rmtree(work_dir, ignore_errors=True)  # its own scratch folder: nothing else is left in it
    return 0 if ok else 1


def main(argv):
    args = {"--fd": -1, "--parent": 0, "--device": -1, "--role": "", "--work-dir": "", "--cupti-lib": "",
            "--gpu-compare-lib": "", "--load-inline-cache": "", "--build-pch": "", "--prebuilt-dir": ""}
    flags = set()
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("--no-device", "--test-hooks"):
            flags.add(a)
        elif a in args and i + 1 < len(argv):
            args[a] = (argv[i + 1] if a in ("--role", "--work-dir", "--cupti-lib", "--gpu-compare-lib",
                                            "--load-inline-cache", "--build-pch", "--prebuilt-dir")
                       else int(argv[i + 1]))
            i += 1
        else:
            sys.stderr.write("usage: kbench_program_worker.py --fd N --parent PID (--device D | --no-device) "
                             "--role reference|candidate|builder --work-dir DIR [--cupti-lib PATH] "
                             "[--gpu-compare-lib PATH] [--load-inline-cache DIR] [--prebuilt-dir DIR] "
                             "[--test-hooks]\n"
                             "       kbench_program_worker.py --fd N --parent PID --no-device --work-dir DIR "
                             "--build-pch DIR\n")
            return 2
        i += 1
    if args["--build-pch"] and args["--work-dir"]:
        return build_pch(args["--build-pch"], args["--work-dir"], args["--parent"])
    if args["--fd"] < 0 or args["--role"] not in ("reference", "candidate", "builder") or not args["--work-dir"]:
        sys.stderr.write("kbench_program_worker.py: --fd, --role and --work-dir are required\n")
        return 2
    fd = args["--fd"]
    kf.close_leaked_fds(fd)
    kf.watch_parent(args["--parent"])
    kf.no_core_files()
    kf.become_subreaper()
    work_dir = args["--work-dir"]
    os.makedirs(work_dir, exist_ok=True)
    # Triton's cache and a candidate's files stay in the worker's own folder.
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(work_dir, "triton-cache"))
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(work_dir, "torch-extensions")
    os.chdir(work_dir)
    # A candidate's print() must not reach the host's stdout (kbench set it
    # to /dev/null); its stderr goes to the worker's log.
    conn = kf.Connection(fd)
    kprof.name_process("python %s worker" % args["--role"])
    worker = Worker(conn, args["--role"], args["--device"], work_dir, args["--cupti-lib"] or
                    ka.default_cupti_library(), "--test-hooks" in flags,
                    args["--gpu-compare-lib"] or kg.default_gpu_compare_library())
    worker.load_inline_cache = args["--load-inline-cache"]
    try:
        serve(worker)
    except (kf.ProtocolError, BrokenPipeError, ConnectionResetError) as e:
        sys.stderr.write("kbench program worker: %s\n" % e)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
