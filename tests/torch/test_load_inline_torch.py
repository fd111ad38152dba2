#!/usr/bin/env python3
"""The fast load_inline with torch, on the CPU (CTest label torch; exits 77
where neither this interpreter nor $KBENCH_PYTHON has torch): the sources
match the files torch's own load_inline writes, a CUDA answer builds the fast
way (g++ with the precompiled torch header and nvcc at once) and imports, a
compile error comes back as torch's would, naming the answer's line, and a
construct the fast build does not take goes to torch's own function.

No kernel runs here: the built module's function is called on a CPU tensor,
which the answer's own TORCH_CHECK rejects through torch's error handling.
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

    @unittest.skipUnless(HAS_NVCC, "no nvcc")
    def test_a_cuda_answer_builds_fast_and_imports(self):
        m0 = kli.mark()
        FastBuild.answer_text = RELU.read_text()
        before = {t.ident for t in threading.enumerate()}
        mod = import_answer(RELU)
        # No thread of the build outlives it (it would read as the answer's).
        self.assertEqual([t.name for t in threading.enumerate() if t.ident not in before], [])
        builds = kli.builds_since(m0)
        self.assertEqual(len(builds), 1, builds)
        b = builds[0]
        self.assertEqual((b["build"], b["function"], b["name"], b["pch"]), ("fast", "load_inline", "kb_answer_relu",
                                                                            True), b)
        self.assertEqual(sorted(s["tool"] for s in b["steps"]), ["c++", "nvcc"], b)
        self.assertNotIn("pch_rejected", b)  # GCC used the precompiled header
        self.assertTrue(b["nvcc_split"], b)
        self.assertEqual(sorted(b["nvcc_ms"]), ["device", "host", "host_compile"], b)
        self.assertTrue(hasattr(mod.relu_ext, "relu_forward"))
        self.assertEqual(mod.relu_ext.relu_forward.__doc__.strip().splitlines()[-1], "relu_forward")
        # The wrapper runs the answer's own check, through torch's error handling.
        with self.assertRaisesRegex(RuntimeError, "x must be a CUDA tensor"):
            mod.relu_ext.relu_forward(torch.ones(4))
        # The private build folder is gone.
        self.assertEqual([n for n in os.listdir(self.work) if n.startswith("load-inline-")], [])
        print("fast build of %s: %s" % (RELU.name, b), file=sys.stderr)

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
