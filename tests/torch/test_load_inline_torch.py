#!/usr/bin/env python3
"""The fast load_inline with torch, on the CPU (CTest label torch; exits 77
where neither this interpreter nor $KBENCH_PYTHON has torch): the sources
match the files torch's own load_inline writes, a CUDA answer builds the fast
way (g++ with the precompiled torch header and nvcc at once) and imports, a
compile error comes back as torch's would, naming the answer's line, and a
construct the fast build does not take goes to torch's own function.

Without a GPU no kernel runs: the built module's function is called on a CPU
tensor, which the answer's own TORCH_CHECK rejects through torch's error
handling. On a GPU (SplitOnTheGpu), the split build's kernels must compute
what torch computes.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "kbench_programs"))

try:
    import torch
    import torch.utils.cpp_extension as ce
except ImportError:
    other = os.environ.get("KBENCH_PYTHON", "")
    if other and os.path.realpath(other) != os.path.realpath(sys.executable) and \
            not os.environ.get("KBENCH_LOAD_INLINE_TEST_REEXEC"):
        os.environ["KBENCH_LOAD_INLINE_TEST_REEXEC"] = "1"
        sys.exit(subprocess.call([other, "-B", __file__] + sys.argv[1:]))
    print("skipped: no torch (set $KBENCH_PYTHON to an interpreter with torch)")
    sys.exit(77)

import kbench_load_inline as kli  # noqa: E402

RELU = ROOT / "bench" / "kernelbench" / "cuda_candidates" / "19_ReLU.py"
COMPILE_ERROR = ROOT / "tests" / "programs" / "cuda_candidates" / "relu_compile_error.py"
OWN_DIR = ROOT / "tests" / "programs" / "cuda_candidates" / "relu_own_build_dir.py"

if not torch.cuda.is_available():
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")  # else torch builds for every architecture
HAS_NVCC = ce.CUDA_HOME is not None and os.path.exists(os.path.join(ce.CUDA_HOME, "bin", "nvcc"))
# The precompiled headers survive between runs when the test names a cache.
CACHE = os.environ.get("KBENCH_TEST_LOAD_INLINE_CACHE") or os.path.join(tempfile.gettempdir(),
                                                                        "kbench-test-load-inline-cache")


def import_answer(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("kbench_candidate_test_%d" % time.monotonic_ns(), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_inline(name, cu, cpp, functions):
    return ce.load_inline(name=name, cpp_sources=cpp, cuda_sources=cu, functions=functions)


# A kernel whose attributes the host code sets: named outside a launch.
ATTR_CU = r"""
__global__ void scale_kernel(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.f; }
torch::Tensor scale(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    cudaFuncSetAttribute(scale_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0);
    auto y = x.clone();
    scale_kernel<<<(y.numel() + 255) / 256, 256>>>(y.data_ptr<float>(), (int)y.numel());
    return y;
}
"""

# A template kernel launched inside AT_DISPATCH_FLOATING_TYPES: only the host
# compile knows which types it is launched with.
DISPATCH_CU = r"""
template <typename scalar_t>
__global__ void twice_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * scalar_t(2);
}
torch::Tensor twice(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int64_t n = xc.numel();
    AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "twice", [&] {
        twice_kernel<scalar_t><<<(unsigned)((n + 255) / 256), 256>>>(xc.data_ptr<scalar_t>(),
                                                                     y.data_ptr<scalar_t>(), n);
    });
    return y;
}
"""

# Host code that calls torch::mps::is_available (torch/mps.h: in
# torch/extension.h, not in the split's lighter first includes).
MPS_CU = r"""
#include <torch/extension.h>
__global__ void noop_kernel() {}
bool on_mps() { return torch::mps::is_available(); }
"""


# Host functions of several signatures beside a kernel, bound by name with
# docstrings: the bindings apart (kbench_li_bind.h) against main.cpp's own.
BIND_CU = r"""
__global__ void noop_kernel(float* y) {}
void touch(torch::Tensor y) { noop_kernel<<<1, 1>>>(y.data_ptr<float>()); }
torch::Tensor scaled(torch::Tensor x, double s) { return x * s; }
int64_t count(torch::Tensor x, int64_t extra) { return x.numel() + extra; }
std::vector<torch::Tensor> halves(torch::Tensor x) { return x.chunk(2); }
void fail(torch::Tensor x) { TORCH_CHECK(false, "failed on purpose"); }
void fail_index(torch::Tensor x) { TORCH_CHECK_INDEX(false, "an index on purpose"); }
void warn(torch::Tensor x) { TORCH_WARN("warned on purpose"); }
"""
BIND_CPP = ("torch::Tensor scaled(torch::Tensor x, double s);\nint64_t count(torch::Tensor x, int64_t extra);\n"
            "std::vector<torch::Tensor> halves(torch::Tensor x);\nvoid fail(torch::Tensor x);\n"
            "void fail_index(torch::Tensor x);\nvoid warn(torch::Tensor x);")
BIND_FUNCTIONS = {"scaled": "x times s", "count": "count", "halves": "halves", "fail": "fail",
                  "fail_index": "fail_index", "warn": "warn"}
BIND_SIGNATURES = ["at::Tensor (at::Tensor, double)", "long (at::Tensor, long)",
                   "std::vector<at::Tensor, std::allocator<at::Tensor> > (at::Tensor)", "void (at::Tensor)"]


class FastBuild(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="kbench-li-test-")
        cls.torch_load_inline = staticmethod(ce.load_inline)
        cls.builder = kli.install(torch, cls.work, CACHE, answer_text_of=lambda: cls.answer_text)
        cls.answer_text = None

    @classmethod
    def tearDownClass(cls):
        ce.load_inline = ce.load_inline.__wrapped__
        ce.load = ce.load.__wrapped__
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_sources_are_the_files_torch_writes(self):
        cases = [dict(cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources="// cuda\nint g();",
                      functions=["f"]),
                 dict(cpp_sources=["int a();", "int b();"], functions={"a": "doc of a", "b": "b"},
                      with_pytorch_error_handling=False),
                 dict(cpp_sources="int a();", cuda_sources=["x", "y"], no_implicit_headers=True, functions="a")]
        real_jit = ce._jit_compile
        try:
            ce._jit_compile = lambda *a, **k: None  # torch writes the files, then builds here
            import copy
            for kw_in in cases:
                kw = copy.deepcopy(kw_in)
                with tempfile.TemporaryDirectory() as d:
                    self.torch_load_inline(name="same_sources", build_directory=d, **copy.deepcopy(kw_in))
                    # torch changes the lists it is given; so does the fast build.
                    torch_kw = copy.deepcopy(kw_in)
                    self.torch_load_inline(name="same_sources", build_directory=d, **torch_kw)
                    mine = copy.deepcopy(kw_in)
                    kli.mutate_like_torch(mine)
                    self.assertEqual(torch_kw, mine)
                    with open(os.path.join(d, "main.cpp")) as f:
                        self.assertEqual(f.read(), kli.main_cpp_text(
                            kw["cpp_sources"], kw.get("functions"), kw.get("with_pytorch_error_handling", True),
                            kw.get("no_implicit_headers", False)))
                    cu = kli.cuda_cu_text(kw.get("cuda_sources"), kw.get("no_implicit_headers", False))
                    self.assertEqual(os.path.exists(os.path.join(d, "cuda.cu")), cu is not None)
                    if cu is not None:
                        with open(os.path.join(d, "cuda.cu")) as f:
                            self.assertEqual(f.read(), cu)
        finally:
            ce._jit_compile = real_jit

    def build_relu(self):
        m0 = kli.mark()
        FastBuild.answer_text = RELU.read_text()
        before = {t.ident for t in threading.enumerate()}
        mod = import_answer(RELU)
        # No thread of the build outlives it (it would read as the answer's).
        self.assertEqual([t.name for t in threading.enumerate() if t.ident not in before], [])
        builds = kli.builds_since(m0)
        self.assertEqual(len(builds), 1, builds)
        self.assertTrue(hasattr(mod.relu_ext, "relu_forward"))
        self.assertEqual(mod.relu_ext.relu_forward.__doc__.strip().splitlines()[-1], "relu_forward")
        # The wrapper runs the answer's own check, through torch's error handling.
        with self.assertRaisesRegex(RuntimeError, "x must be a CUDA tensor"):
            mod.relu_ext.relu_forward(torch.ones(4))
        # The private build folder is gone.
        self.assertEqual([n for n in os.listdir(self.work) if n.startswith("load-inline-")], [])
        return builds[0]

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_cuda_answer_builds_split_and_imports(self):
        b = self.build_relu()
        self.assertEqual((b["build"], b["function"], b["name"], b.get("split"), b["headers"]),
                         ("fast", "load_inline", "kb_answer_relu", True, "light"), b)
        clang = kli.host_clang()[0]
        self.assertEqual(sorted((s["unit"], s["tool"]) for s in b["steps"]),
                         [("device", "nvcc"), ("host", os.path.basename(clang) if clang else "c++"),
                          ("main", "c++")], b)
        self.assertEqual(b["host_compiler"], "clang" if clang else "g++", b)
        self.assertNotIn("pch_error", b)
        self.assertNotIn("split_retry", b)
        print("split build of %s: %s" % (RELU.name, b), file=sys.stderr)

    def with_clang(self, value):
        """Builds the ReLU answer with $KBENCH_LOAD_INLINE_CLANG=value."""
        old = os.environ.get("KBENCH_LOAD_INLINE_CLANG")
        os.environ["KBENCH_LOAD_INLINE_CLANG"] = value
        self.builder._clang = None
        try:
            return self.build_relu()
        finally:
            if old is None:
                del os.environ["KBENCH_LOAD_INLINE_CLANG"]
            else:
                os.environ["KBENCH_LOAD_INLINE_CLANG"] = old
            self.builder._clang = None

    def test_where_clang_is_off_or_fails_gcc_compiles_the_host_unit(self):
        b = self.with_clang("0")
        self.assertEqual((b["host_compiler"], b["host_compiler_why"]),
                         ("g++", "$KBENCH_LOAD_INLINE_CLANG turns it off"), b)
        self.assertIn(("host", "c++"), [(s["unit"], s["tool"]) for s in b["steps"]], b)
        real = kli.host_clang()[0]
        if not real:
            self.skipTest("no clang++ %d or later" % kli.CLANG_MIN_MAJOR)
        fake = os.path.join(self.work, "fake-clang")
        # A clang whose precompiled header fails, then one whose compile of
        # the unit fails: g++'s compile is the build's both times.
        for name, body, why in (
                ("pch", 'echo "fake: cannot" >&2; exit 1', "clang's precompiled header"),
                ("unit", 'case " $* " in *" c++-header "*) exec %s "$@";; esac; '
                         'echo "host.cpp:1:1: error: fake clang refuses" >&2; exit 1' % real,
                 "clang failed: host.cpp:1:1: error: fake clang refuses")):
            path = "%s-%s" % (fake, name)
            with open(path, "w") as f:
                # Its own version text: the cache's key for its header.
                f.write('#!/bin/sh\ncase "$1" in --version) echo "clang version 99.0.0 (fake %s)"; exit 0;; esac\n'
                        % name + body + "\n")
            os.chmod(path, 0o755)
            b = self.with_clang(path)
            self.assertEqual(b["host_compiler"], "g++", b)
            self.assertTrue(b["host_compiler_why"].startswith(why), b)
            self.assertIn(("host", "c++"), [(s["unit"], s["tool"]) for s in b["steps"]], b)

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_cuda_answer_builds_whole_when_asked(self):
        os.environ["KBENCH_LOAD_INLINE_SPLIT"] = "0"
        try:
            b = self.build_relu()
        finally:
            del os.environ["KBENCH_LOAD_INLINE_SPLIT"]
        self.assertEqual((b["build"], b["pch"], b["split_why"]), ("fast", True, "KBENCH_LOAD_INLINE_SPLIT=0"), b)
        self.assertEqual(sorted(s["tool"] for s in b["steps"]), ["c++", "nvcc"], b)
        self.assertNotIn("pch_rejected", b)  # GCC used the precompiled header
        self.assertTrue(b["nvcc_split"], b)
        self.assertEqual(sorted(b["nvcc_ms"]), ["device", "host", "host_compile"], b)

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_constructs_the_split_does_not_take_build_whole(self):
        # A kernel named outside a launch (its attributes set through the
        # runtime) is decided on the source: the whole build, still fast.
        m0 = kli.mark()
        mod = build_inline("kb_split_attr", ATTR_CU, "torch::Tensor scale(torch::Tensor x);", ["scale"])
        b = kli.builds_since(m0)[0]
        self.assertEqual(b["build"], "fast", b)
        self.assertNotIn("split", b)
        self.assertIn("other than in a <<<...>>> launch", b["split_why"])
        with self.assertRaisesRegex(RuntimeError, "x must be a CUDA tensor"):
            mod.scale(torch.ones(2))

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_dispatch_over_template_kernels_instantiates_what_the_host_uses(self):
        m0 = kli.mark()
        mod = build_inline("kb_split_dispatch", DISPATCH_CU, "torch::Tensor twice(torch::Tensor x);", ["twice"])
        b = kli.builds_since(m0)[0]
        self.assertTrue(b.get("split"), b)
        self.assertNotIn("split_retry", b)
        with self.assertRaisesRegex(RuntimeError, "x must be a CUDA tensor"):
            mod.twice(torch.ones(2))

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_the_bindings_apart_bind_as_torchs_main_cpp_does(self):
        # The same answer with its bindings apart and in main.cpp: the same
        # module name, docstrings, results and errors.
        built = {}
        for apart in ("1", "0"):
            for handling in (True, False):
                os.environ["KBENCH_LOAD_INLINE_BINDINGS_APART"] = apart
                try:
                    m0 = kli.mark()
                    mod = ce.load_inline(name="kb_bind_%s_%d" % (apart, handling), cpp_sources=BIND_CPP,
                                         cuda_sources=BIND_CU, functions=dict(BIND_FUNCTIONS),
                                         with_pytorch_error_handling=handling)
                finally:
                    del os.environ["KBENCH_LOAD_INLINE_BINDINGS_APART"]
                b = kli.builds_since(m0)[0]
                self.assertEqual(b["bindings"]["apart"], apart == "1", b)
                self.assertEqual(mod.__name__, "kb_bind_%s_%d" % (apart, handling))
                self.assertEqual(mod.scaled(torch.tensor([1.0, 2.0]), 2.0).tolist(), [2.0, 4.0])
                self.assertEqual(mod.count(torch.ones(3), 2), 5)
                self.assertEqual([t.tolist() for t in mod.halves(torch.arange(4.0))], [[0.0, 1.0], [2.0, 3.0]])
                with self.assertRaisesRegex(RuntimeError, "failed on purpose"):
                    mod.fail(torch.ones(1))
                with self.assertRaises(TypeError):
                    mod.scaled("not a tensor", 2.0)
                with self.assertRaisesRegex(IndexError, "an index on purpose"):
                    mod.fail_index(torch.ones(1))
                # torch's error handling turns a TORCH_WARN into a Python
                # warning; without it, c10 prints it.
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    mod.warn(torch.ones(1))
                self.assertEqual(len([w for w in caught if "warned on purpose" in str(w.message)]),
                                 1 if handling else 0)
                built[(apart, handling)] = ({f: getattr(mod, f).__doc__ for f in BIND_FUNCTIONS}, b)
        for handling in (True, False):
            docs, b = built[("1", handling)]
            self.assertEqual(sorted(b["bindings"]["signatures"]), sorted(BIND_SIGNATURES), b)
            self.assertEqual(docs, built[("0", handling)][0])
        self.assertIn("x times s", built[("1", True)][0]["scaled"])

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_bindings_stay_in_main_cpp_where_only_it_can_build_them(self):
        # C++ that uses more than the bindings' header declares, and a type
        # of the answer's own in a signature: main.cpp as torch writes it.
        cases = (("kb_bind_body", "torch::Tensor twice(torch::Tensor x) { return x * 2; }", BIND_CU, ["twice"],
                  "needs more than kbench_li_bind.h declares"),
                 ("kb_bind_own_type", "enum Mode { kUp, kDown };\nint pick(int m);\nint pick_mode(Mode m);",
                  BIND_CU + "enum Mode { kUp, kDown };\nint pick(int m) { return m; }\n"
                  "int pick_mode(Mode m) { return (int)m; }\n", ["pick", "pick_mode"],
                  "names what only main.cpp knows"))
        for name, cpp, cu, functions, why in cases:
            m0 = kli.mark()
            mod = ce.load_inline(name=name, cpp_sources=cpp, cuda_sources=cu, functions=functions)
            b = kli.builds_since(m0)[0]
            self.assertEqual(b["bindings"]["apart"], False, b)
            self.assertIn(why, b["bindings"]["why"], b)
            self.assertTrue(b.get("split"), b)
            if name == "kb_bind_body":
                self.assertEqual(mod.twice(torch.tensor([1.5])).tolist(), [3.0])
            else:
                self.assertEqual(mod.pick(3), 3)

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_name_only_the_whole_torch_header_has_builds_whole(self):
        # torch::mps is in torch/extension.h, not in the split's lighter
        # first includes: the compile fails there, and the answer builds
        # whole instead of getting a compile error.
        m0 = kli.mark()
        mod = build_inline("kb_split_mps", MPS_CU, "bool on_mps();", ["on_mps"])
        b = kli.builds_since(m0)[0]
        self.assertIn("mps", b.get("split_retry", ""), b)
        self.assertEqual((b["build"], b["pch"]), ("fast", True), b)
        self.assertIs(mod.on_mps(), torch.backends.mps.is_available())

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_compile_error_names_the_answers_line(self):
        FastBuild.answer_text = COMPILE_ERROR.read_text()
        bad_line = next(i for i, l in enumerate(FastBuild.answer_text.splitlines(), 1) if "undeclared_counter" in l)
        m0 = kli.mark()
        t0 = time.monotonic()
        before = {t.ident for t in threading.enumerate()}
        with self.assertRaises(RuntimeError) as cm:
            import_answer(COMPILE_ERROR)
        secs = time.monotonic() - t0
        self.assertEqual([t.name for t in threading.enumerate() if t.ident not in before], [])
        head = str(cm.exception).splitlines()[0]
        self.assertIn("Error building extension 'kb_relu_compile_error'", head)
        self.assertIn("undeclared_counter", head)
        self.assertIn("(the answer's line %d)" % bad_line, head)
        self.assertEqual(kli.builds_since(m0)[0]["build"], "fast")
        print("compile error in %.1f s: %s" % (secs, head), file=sys.stderr)

    def test_load_builds_files_fast(self):
        # A C++ extension of the answer's own files, with the CUDA flags (the
        # precompiled header the CUDA answers use).
        d = tempfile.mkdtemp(dir=self.work)
        src = os.path.join(d, "twice.cpp")
        with open(src, "w") as f:
            f.write("#include <torch/extension.h>\n"
                    "torch::Tensor twice(torch::Tensor x) { return x * 2; }\n"
                    "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"twice\", &twice); }\n")
        m0 = kli.mark()
        mod = ce.load(name="kb_load_twice", sources=[src], with_cuda=True)
        b = kli.builds_since(m0)[0]
        self.assertEqual((b["function"], b["build"], b["pch"]), ("load", "fast", True), b)
        self.assertNotIn("pch_rejected", b)
        self.assertEqual(mod.twice(torch.tensor([1.5, -2.0])).tolist(), [3.0, -4.0])
        shutil.rmtree(d, ignore_errors=True)

    def test_a_construct_it_does_not_take_goes_to_torch(self):
        calls = []
        # torch's own function is replaced by a recorder: the fallback must
        # call it with the answer's arguments.
        real = self.builder.torch_functions["load_inline"]
        self.builder.torch_functions["load_inline"] = lambda *a, **k: calls.append(k) or "torch-built"
        try:
            m0 = kli.mark()
            mod = import_answer(OWN_DIR)
        finally:
            self.builder.torch_functions["load_inline"] = real
        self.assertEqual(mod.relu, "torch-built")
        self.assertEqual(len(calls), 1)
        self.assertEqual(calls[0]["name"], "kb_relu_own_dir")
        self.assertEqual(calls[0]["build_directory"], mod.build_dir)
        b = kli.builds_since(m0)[0]
        self.assertEqual(b["build"], "torch")
        self.assertIn("build_directory", b["why"])
        shutil.rmtree(mod.build_dir, ignore_errors=True)


TWICE_CPP = "torch::Tensor twice(torch::Tensor x) { return x * 2; }"
BROKEN_CPP = "torch::Tensor twice(torch::Tensor x) { return x * undeclared_factor; }"


class BuildsAhead(unittest.TestCase):
    """A builder worker's libraries (kbench_load_inline.capture): the same
    call in the candidate worker loads the library instead of building it,
    and meets the builder's compile error again."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="kbench-li-ahead-")
        kli.install(torch, cls.work, CACHE)

    @classmethod
    def tearDownClass(cls):
        kli.use_prebuilt([])
        ce.load_inline = ce.load_inline.__wrapped__
        ce.load = ce.load.__wrapped__
        shutil.rmtree(cls.work, ignore_errors=True)

    def capture(self, **call):
        folder = tempfile.mkdtemp(dir=self.work)
        kli.capture(folder)
        try:
            try:
                ce.load_inline(**call)
            except RuntimeError:
                pass
        finally:
            modules, failed = kli.end_capture()
        return modules, failed

    def test_the_same_call_loads_the_library_built_ahead(self):
        call = dict(name="kb_ahead_twice", functions=["twice"])
        modules, failed = self.capture(cpp_sources=[TWICE_CPP], **call)
        self.assertEqual(failed, [])
        self.assertEqual(len(modules), 1)
        m = modules[0]
        self.assertEqual(m["key"], kli.call_key("load_inline", dict(cpp_sources=[TWICE_CPP], **call)))
        self.assertEqual(m["record"]["build"], "fast")
        kli.use_prebuilt([{"key": m["key"], "module": m["module"], "path": m["file"], "record": m["record"]}])
        sources = [TWICE_CPP]
        m0 = kli.mark()
        t0 = time.monotonic()
        mod = ce.load_inline(cpp_sources=sources, **call)
        secs = time.monotonic() - t0
        b = kli.builds_since(m0)[0]
        self.assertTrue(b.get("prebuilt"), b)
        self.assertEqual(b["built_ms"], m["record"]["ms"])
        self.assertLess(secs, 2.0)
        self.assertEqual(mod.twice(torch.tensor([1.5, -2.0])).tolist(), [3.0, -4.0])
        # torch's load_inline adds the include and the bindings to the
        # caller's list: so does a library loaded from a builder.
        self.assertEqual(sources[0], kli.EXTENSION_INCLUDE)
        self.assertGreater(len(sources), 2)
        # Another call (other sources) builds in the worker as before.
        self.assertNotEqual(kli.call_key("load_inline", dict(cpp_sources=[TWICE_CPP + " "], **call)), m["key"])

    def test_the_builders_compile_error_comes_back_without_a_build(self):
        call = dict(name="kb_ahead_broken", cpp_sources=[BROKEN_CPP], functions=["twice"])
        modules, failed = self.capture(**call)
        self.assertEqual(modules, [])
        self.assertEqual(len(failed), 1)
        self.assertIn("undeclared_factor", failed[0]["error"])
        kli.use_prebuilt(failed)
        m0 = kli.mark()
        t0 = time.monotonic()
        with self.assertRaises(RuntimeError) as cm:
            ce.load_inline(**dict(call, cpp_sources=[BROKEN_CPP]))
        self.assertLess(time.monotonic() - t0, 0.5)
        self.assertEqual(str(cm.exception), failed[0]["error"])
        self.assertTrue(kli.builds_since(m0)[0].get("prebuilt"))

    def test_a_call_torch_builds_stops_the_builder(self):
        modules, failed = self.capture(name="kb_ahead_own_dir", cpp_sources=[TWICE_CPP], functions=["twice"],
                                       build_directory=self.work)
        self.assertEqual((modules, failed), ([], []))


# A launch the runtime refuses (more threads than a block may have): the
# answer's own check reads cudaGetLastError, as after a <<<...>>> launch.
BAD_LAUNCH_CU = r"""
__global__ void fill_kernel(float* y) { y[threadIdx.x] = 1.f; }
torch::Tensor fill(torch::Tensor y) {
    fill_kernel<<<1, 4096>>>(y.data_ptr<float>());
    cudaError_t e = cudaGetLastError();
    TORCH_CHECK(e == cudaSuccess, "launch failed: ", cudaGetErrorString(e));
    return y;
}
"""

BENCH = ROOT / "bench" / "kernelbench" / "cuda_candidates"


@unittest.skipUnless(torch.cuda.is_available() and HAS_NVCC, "no GPU")
class SplitOnTheGpu(unittest.TestCase):
    """On a GPU: the split build's kernels compute what torch computes, for
    the benchmark's answers, a dispatch over template kernels, and a refused
    launch reads as after <<<...>>>. (tests/programs/load_inline_gpu.py
    checks that every CUDA candidate gets the same verdict through the split
    build as through torch's.)"""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="kbench-li-gpu-test-")
        cls.builder = kli.install(torch, cls.work, CACHE)
        cls.saved_root, cls.builder.work_root = cls.builder.work_root, cls.work  # installed once per process

    @classmethod
    def tearDownClass(cls):
        cls.builder.work_root = cls.saved_root
        shutil.rmtree(cls.work, ignore_errors=True)

    def split(self, load):
        m0 = kli.mark()
        t0 = time.monotonic()
        mod = load()
        b = kli.builds_since(m0)[0]
        self.assertTrue(b.get("split"), b)
        self.assertNotIn("split_retry", b)
        print("split build in %.1f s: %s" % (time.monotonic() - t0, b), file=sys.stderr)
        return mod

    def test_the_benchmarks_answers_compute_what_torch_does(self):
        g = torch.Generator(device="cuda").manual_seed(7)
        cases = {
            "19_ReLU.py": ("relu_ext", "relu_forward", lambda: (torch.randn(3000, 517, device="cuda", generator=g),),
                           lambda x: torch.relu(x)),
            "23_Softmax.py": ("softmax_ext", "softmax_dim1",
                              lambda: (torch.randn(64, 3001, device="cuda", generator=g),),
                              lambda x: torch.softmax(x, 1)),
            "47_Sum_reduction_over_a_dimension.py": ("sum_ext", "sum_over_dim",
                                                     lambda: (torch.randn(16, 257, 33, device="cuda", generator=g), 1),
                                                     lambda x, d: x.sum(d, keepdim=True)),
            "1_Square_matrix_multiplication_.py": ("matmul_ext", "tiled_matmul",
                                                   lambda: (torch.randn(300, 300, device="cuda", generator=g),
                                                            torch.randn(300, 300, device="cuda", generator=g)),
                                                   lambda a, b: a @ b),
        }
        for fname, (ext, fn, inputs, ref) in cases.items():
            with self.subTest(answer=fname):
                mod = self.split(lambda: import_answer(BENCH / fname))
                args = inputs()
                got = getattr(getattr(mod, ext), fn)(*args)
                torch.cuda.synchronize()
                torch.testing.assert_close(got, ref(*args), rtol=1e-3, atol=1e-3)

    def test_a_dispatch_runs_each_type(self):
        mod = self.split(lambda: build_inline("kb_gpu_dispatch", DISPATCH_CU, "torch::Tensor twice(torch::Tensor x);",
                                              ["twice"]))
        for dt in (torch.float32, torch.float64):
            x = torch.randn(1000, device="cuda", dtype=dt)
            self.assertTrue(torch.equal(mod.twice(x), x * 2), dt)

    def test_a_refused_launch_reads_as_after_triple_chevrons(self):
        mod = self.split(lambda: build_inline("kb_gpu_bad_launch", BAD_LAUNCH_CU,
                                              "torch::Tensor fill(torch::Tensor y);", ["fill"]))
        # cudaGetLastError reads the refusal, as after <<<...>>>; the runtime
        # words it "invalid argument" for a launch by kernel handle where
        # <<<...>>> gets "invalid configuration argument".
        with self.assertRaisesRegex(RuntimeError, "launch failed: invalid (configuration )?argument"):
            mod.fill(torch.zeros(8, device="cuda"))
        # Not sticky: the next launch works.
        self.assertTrue(torch.equal(torch.ones(3, device="cuda") * 2, torch.full((3,), 2.0, device="cuda")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
