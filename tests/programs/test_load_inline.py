#!/usr/bin/env python3
"""The fast load_inline's source handling, without torch (CTest label unit):
the sources torch 2.11 would write, the bindings, the fallback decision, the
build file read back, the precompiled header's flags and the compile errors
pointed at the answer's lines. tests/torch/test_load_inline_torch.py builds
for real with torch."""
import os
import re
import shutil
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "kbench_programs"))

import kbench_load_inline as kli  # noqa: E402

# The build file torch 2.11 wrote for a load_inline answer on this kind of
# machine (paths shortened), and what ninja would run for it.
BUILD_NINJA = r"""ninja_required_version = 1.3
cxx = c++
nvcc = /usr/local/cuda/bin/nvcc

cflags = -DTORCH_EXTENSION_NAME=kb_answer_relu -DTORCH_API_INCLUDE_EXTENSION_H -isystem /t/include -isystem /usr/local/cuda/include -fPIC -std=c++17
post_cflags = 
cuda_cflags = -DTORCH_EXTENSION_NAME=kb_answer_relu -isystem /t/include -D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90 --compiler-options '-fPIC' -O3 -std=c++17
cuda_post_cflags = 
cuda_dlink_post_cflags = 
ldflags = -shared -L/t/lib -lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda -ltorch -ltorch_python -L/usr/local/cuda/lib64 -lcudart

rule compile
  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags
  depfile = $out.d
  deps = gcc

rule cuda_compile
  depfile = $out.d
  deps = gcc
  command = $nvcc -MD -MF $out.d $cuda_cflags -c $in -o $out $cuda_post_cflags



rule link
  command = $cxx $in $ldflags -o $out

build main.o: compile /b/main.cpp
build cuda.cuda.o: cuda_compile /b/cuda.cu

build kb_answer_relu.so: link main.o cuda.cuda.o

default kb_answer_relu.so
"""


class Sources(unittest.TestCase):
    def test_main_cpp_is_torchs(self):
        text = kli.main_cpp_text("torch::Tensor f(torch::Tensor x);", ["f"])
        self.assertEqual(text, "#include <torch/extension.h>\n"
                               "torch::Tensor f(torch::Tensor x);\n"
                               "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n"
                               'm.def("f", torch::wrap_pybind_function(f), "f");\n'
                               "}")

    def test_bindings_forms(self):
        self.assertEqual(kli.bindings(None), [])
        self.assertEqual(kli.bindings("g")[1], 'm.def("g", torch::wrap_pybind_function(g), "g");')
        self.assertEqual(kli.bindings({"g": "adds"}, False)[1], 'm.def("g", g, "adds");')
        self.assertEqual(kli.bindings(["a", "b"])[1:3], ['m.def("a", torch::wrap_pybind_function(a), "a");',
                                                         'm.def("b", torch::wrap_pybind_function(b), "b");'])
        with self.assertRaises(ValueError):
            kli.bindings(("a",))

    def test_own_module_without_functions(self):
        text = kli.main_cpp_text(["int a();", "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}"], None)
        self.assertEqual(text, "#include <torch/extension.h>\nint a();\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}")

    def test_cuda_cu_is_torchs(self):
        self.assertIsNone(kli.cuda_cu_text(None))
        self.assertIsNone(kli.cuda_cu_text([]))
        self.assertEqual(kli.cuda_cu_text("__global__ void k() {}"),
                         "#include <torch/types.h>\n#include <cuda.h>\n#include <cuda_runtime.h>\n"
                         "__global__ void k() {}")
        self.assertEqual(kli.cuda_cu_text(["a", "b"], no_implicit_headers=True), "a\nb")
        self.assertEqual(kli.cuda_prefix_lines(), 3)

    def test_no_implicit_headers(self):
        self.assertEqual(kli.main_cpp_text("int a();", None, no_implicit_headers=True), "int a();")

    def test_the_caller_list_is_not_changed(self):
        srcs = ["int a();"]
        kli.main_cpp_text(srcs, ["a"])
        self.assertEqual(srcs, ["int a();"])

    def test_the_lists_change_as_torch_changes_them(self):
        bound = {"cpp_sources": ["int a();"], "cuda_sources": ["int a() {return 1;}"], "functions": ["a"]}
        kli.mutate_like_torch(bound)
        self.assertEqual(bound["cpp_sources"], ["#include <torch/extension.h>", "int a();",
                                                "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {",
                                                'm.def("a", torch::wrap_pybind_function(a), "a");', "}"])
        self.assertEqual(bound["cuda_sources"][:3], ["#include <torch/types.h>", "#include <cuda.h>",
                                                     "#include <cuda_runtime.h>"])
        strings = {"cpp_sources": "int a();", "cuda_sources": "x"}
        kli.mutate_like_torch(strings)
        self.assertEqual(strings, {"cpp_sources": "int a();", "cuda_sources": "x"})

    def test_where_a_precompiled_header_applies(self):
        self.assertTrue(kli.begins_with_extension_include("\n#include <torch/extension.h>\nint a;"))
        self.assertTrue(kli.begins_with_extension_include("#  include <torch/extension.h>"))
        self.assertFalse(kli.begins_with_extension_include("#include <vector>\n#include <torch/extension.h>"))
        self.assertFalse(kli.begins_with_extension_include("#define X 1\n#include <torch/extension.h>"))
        self.assertFalse(kli.begins_with_extension_include(""))


class Fallback(unittest.TestCase):
    def test_a_plain_answer_takes_the_fast_build(self):
        self.assertIsNone(kli.fallback_reason("load_inline", (), dict(
            name="ext", cpp_sources="int f();", cuda_sources="int f() {return 1;}", functions=["f"],
            extra_cuda_cflags=["-O3"], verbose=True, use_pch=True)))
        self.assertIsNone(kli.fallback_reason("load_inline", ("ext", "int f();"), {}))
        self.assertIsNone(kli.fallback_reason("load", ("ext", ["a.cpp", "k.cu"]), {"extra_cflags": ["-O2"]}))

    def test_constructs_that_go_to_torch(self):
        cases = [
            ("load_inline", (), dict(name="ext", cpp_sources="", sycl_sources="x"), "SYCL"),
            ("load_inline", (), dict(name="ext", cpp_sources="", build_directory="/tmp/x"), "build_directory"),
            ("load_inline", (), dict(name="ext", cpp_sources="", is_python_module=False), "is_python_module"),
            ("load_inline", (), dict(name="ext", cpp_sources="", future_option=1), "future_option"),
            ("load_inline", (), dict(name="my-ext", cpp_sources=""), "identifier"),
            ("load_inline", (), dict(name="ext", cpp_sources="", extra_cflags="-O3"), "extra_cflags"),
            ("load_inline", (), dict(name="ext", cpp_sources=[1]), "cpp_sources"),
            ("load_inline", (), dict(name="ext", cpp_sources=("int a();",)), "cpp_sources"),
            ("load_inline", ("ext", ""), dict(name="ext"), "twice"),
            ("load", (), dict(name="ext", sources=["a.cpp"], is_standalone=True), "is_standalone"),
            ("load", (), dict(name="ext", sources=["a.sycl"]), "not a C++ or CUDA file"),
            ("load", (), dict(name="ext", sources=[]), "no sources"),
        ]
        for kind, args, kwargs, want in cases:
            reason = kli.fallback_reason(kind, args, kwargs)
            self.assertIsNotNone(reason, (kind, kwargs))
            self.assertIn(want, reason)
        self.assertIn("ROCm", kli.fallback_reason("load_inline", (), dict(name="e", cpp_sources=""), hip=True))


class BuildFile(unittest.TestCase):
    def test_commands_are_ninjas(self):
        steps = kli.ninja_commands(BUILD_NINJA)
        self.assertEqual([s[0] for s in steps], ["compile", "cuda_compile", "link"])
        rule, outs, ins, cmd = steps[0]
        self.assertEqual((outs, ins), (["main.o"], ["/b/main.cpp"]))
        self.assertTrue(cmd.startswith("c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=kb_answer_relu "))
        self.assertTrue(cmd.endswith("-c /b/main.cpp -o main.o "))
        nvcc = kli.shlex.split(steps[1][3])
        self.assertEqual(nvcc[0], "/usr/local/cuda/bin/nvcc")
        self.assertIn("--compiler-options", nvcc)
        self.assertEqual(nvcc[nvcc.index("--compiler-options") + 1], "-fPIC")
        self.assertIn("-gencode=arch=compute_90,code=sm_90", nvcc)
        self.assertEqual(steps[2][3].split()[:4], ["c++", "main.o", "cuda.cuda.o", "-shared"])

    def test_escapes(self):
        steps = kli.ninja_commands("a = x$ y\nrule r\n  command = echo $a $$HOME ${a}\nbuild o: r i\n")
        self.assertEqual(steps[0][3], "echo x y $HOME x y")

    def test_an_unknown_rule_is_an_error(self):
        with self.assertRaises(ValueError):
            kli.ninja_commands("build o: nothing i\n")

    def test_pch_flags_drop_what_is_per_answer(self):
        argv = kli.shlex.split(kli.ninja_commands(BUILD_NINJA)[0][3])
        flags = kli.pch_flags(argv)
        self.assertNotIn("-c", flags)
        self.assertFalse(any(f.startswith("-DTORCH_EXTENSION_NAME") or f.endswith((".cpp", ".o", ".d"))
                             for f in flags), flags)
        self.assertEqual(flags, ["-DTORCH_API_INCLUDE_EXTENSION_H", "-isystem", "/t/include", "-isystem",
                                 "/usr/local/cuda/include", "-fPIC", "-std=c++17"])


class BuildPriority(unittest.TestCase):
    """Build steps run under `nice` (build_priority_prefix), so that other
    lanes' GPU phases get the cores first; a real step runs through it."""

    def test_the_prefix(self):
        which = {"nice": "/usr/bin/nice"}.get
        self.assertEqual(kli.build_priority_prefix(which, {}), ["/usr/bin/nice", "-n", "10"])
        self.assertEqual(kli.build_priority_prefix(which, {"KBENCH_LOAD_INLINE_NICE": "5"}),
                         ["/usr/bin/nice", "-n", "5"])
        self.assertEqual(kli.build_priority_prefix(which, {"KBENCH_LOAD_INLINE_NICE": "0"}), [])
        self.assertEqual(kli.build_priority_prefix(lambda name: None, {}), [])

    def test_a_step_runs_at_the_lower_priority(self):
        prefix = kli.build_priority_prefix(env={})  # the default, whatever the test's environment says
        if not prefix:
            self.skipTest("no nice on this machine")
        procs = kli.Processes(os.getcwd(), 30)
        procs.prefix = prefix
        rc, out, _ = procs.run([sys.executable, "-c", "import os; print(os.nice(0))"])
        self.assertEqual(rc, 0, out)
        self.assertEqual(int(out.strip()), min(19, os.nice(0) + 10))


class HostCompiler(unittest.TestCase):
    """clang++ for the split build's host unit (host_clang, clang_host_argv):
    which clang, when none, and the command made from torch's."""
    HOST = ["c++", "-DTORCH_EXTENSION_NAME=ext", "-isystem", "/t/include", "-fPIC", "-std=c++17", "-c",
            "host.cpp", "-o", "host.o"]

    def which(self, have):
        return lambda name: {"clang++": "/usr/bin/clang++", "/opt/clang-17/bin/clang++": name}.get(name) \
            if have else None

    def test_the_version_is_clangs_major(self):
        self.assertEqual(kli.clang_major("Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"), 14)
        self.assertEqual(kli.clang_major("clang version 19.1.0 (https://github.com/llvm/llvm-project)"), 19)
        self.assertIsNone(kli.clang_major("g++ (Debian 12.2.0-14) 12.2.0"))

    def test_clang_on_the_path_from_version_11(self):
        self.assertEqual(kli.host_clang({}, self.which(True), lambda p: "clang version 14.0.6"),
                         ("/usr/bin/clang++", None))
        path, why = kli.host_clang({}, self.which(True), lambda p: "clang version 10.0.1")
        self.assertIsNone(path)
        self.assertIn("is not clang 11 or later", why)
        path, why = kli.host_clang({}, self.which(True), lambda p: "g++ (GCC) 12.2.0")
        self.assertIsNone(path)
        self.assertEqual(kli.host_clang({}, self.which(False), lambda p: "")[1], "no clang++ on the PATH")

    def test_the_environment_names_clang_or_turns_it_off(self):
        env = {"KBENCH_LOAD_INLINE_CLANG": "/opt/clang-17/bin/clang++"}
        self.assertEqual(kli.host_clang(env, self.which(True), lambda p: "clang version 17.0.0")[0],
                         "/opt/clang-17/bin/clang++")
        for off in ("0", ""):
            path, why = kli.host_clang({"KBENCH_LOAD_INLINE_CLANG": off}, self.which(True),
                                       lambda p: "clang version 14.0.6")
            self.assertIsNone(path)
            self.assertIn("turns it off", why)
        path, why = kli.host_clang({"KBENCH_LOAD_INLINE_CLANG": "/nowhere/clang++"}, lambda name: None,
                                   lambda p: "clang version 14.0.6")
        self.assertIsNone(path)
        self.assertIn("'/nowhere/clang++', which is not an executable", why)

    def test_the_host_command_is_torchs_with_clang_and_its_header(self):
        argv = kli.clang_host_argv(self.HOST, "/usr/bin/clang++", "/cache/k", kli.HOST_HEADER)
        self.assertEqual(argv, ["/usr/bin/clang++", "-include-pch", "/cache/k/kbench_li_host.h.pch",
                                "-Wno-unknown-warning-option"] + self.HOST[1:])
        # The header is built with the command's flags (less the files and
        # the extension's name) and clang's own.
        flags = kli.pch_flags(kli.clang_host_argv(self.HOST, "/usr/bin/clang++")) + kli.CLANG_PCH_FLAGS
        self.assertEqual(flags, ["-Wno-unknown-warning-option", "-isystem", "/t/include", "-fPIC", "-std=c++17",
                                 "-fpch-instantiate-templates"])


class Linking(unittest.TestCase):
    LINK = ["c++", "main.o", "host.o", "-shared", "-ltorch", "-o", "ext.so"]

    @staticmethod
    def which(*have):
        return lambda name: "/usr/bin/" + name if name in have else None

    def test_the_fastest_linker_the_machine_has_unless_the_command_names_one(self):
        self.assertEqual(kli.with_fast_linker(self.LINK, self.which("ld.lld", "ld.gold")),
                         (["c++", "-fuse-ld=lld"] + self.LINK[1:], "lld"))
        self.assertEqual(kli.with_fast_linker(self.LINK, self.which("ld.gold")),
                         (["c++", "-fuse-ld=gold"] + self.LINK[1:], "gold"))
        self.assertEqual(kli.with_fast_linker(self.LINK, self.which()), (self.LINK, None))
        own = self.LINK + ["-fuse-ld=bfd"]
        self.assertEqual(kli.with_fast_linker(own, self.which("ld.lld")), (own, None))

    def test_where_the_fast_linker_fails_torchs_command_decides(self):
        class Procs:
            def __init__(self, rcs):
                self.rcs, self.ran = list(rcs), []

            def run(self, argv):
                self.ran.append(argv)
                return self.rcs.pop(0), "out%d" % len(self.ran), 0.25

        record = {}
        procs = Procs([1, 0])
        rc, out, secs = kli.link_with(procs, self.LINK, record, self.which("ld.lld"), broken={})
        self.assertEqual((rc, out, secs), (0, "out2", 0.5))
        self.assertEqual(procs.ran, [["c++", "-fuse-ld=lld"] + self.LINK[1:], self.LINK])
        self.assertEqual(record, {"linker": "default (lld failed)", "linker_why": "out1", "link_ms": 500.0})
        # Its first error line says why.
        record = {}
        procs.rcs = [1, 0]
        procs.run = lambda argv, r=procs: (r.rcs.pop(0), "collect2: note\nld.lld: error: unknown argument\n", 0.1)
        kli.link_with(procs, self.LINK, record, self.which("ld.lld"), broken={})
        self.assertEqual(record["linker_why"], "ld.lld: error: unknown argument")
        record = {}
        self.assertEqual(kli.link_with(Procs([0]), self.LINK, record, self.which("ld.gold"), broken={})[0], 0)
        self.assertEqual(record["linker"], "gold")
        procs = Procs([2])
        self.assertEqual(kli.link_with(procs, self.LINK, record, self.which(), broken={})[0], 2)  # its own error
        self.assertEqual((procs.ran, record["linker"]), ([self.LINK], "default"))

    def test_a_fast_linker_that_failed_where_torchs_command_linked_is_not_tried_again(self):
        class Procs:
            def __init__(self, rcs):
                self.rcs, self.ran = list(rcs), []

            def run(self, argv):
                self.ran.append(argv)
                return self.rcs.pop(0), "ld.gold: error: cannot open libstdc++.so", 0.1
        broken = {}
        gold = self.which("ld.gold")
        # A link error both linkers give (the answer's own) says nothing of gold.
        kli.link_with(Procs([1, 1]), self.LINK, {}, gold, broken)
        self.assertEqual(broken, {})
        kli.link_with(Procs([1, 0]), self.LINK, {}, gold, broken)
        self.assertEqual(broken, {"gold": "ld.gold: error: cannot open libstdc++.so"})
        procs, record = Procs([0]), {}
        self.assertEqual(kli.link_with(procs, self.LINK, record, gold, broken)[0], 0)
        self.assertEqual(procs.ran, [self.LINK])
        self.assertEqual(record["linker"], "default (gold failed before)")
        self.assertEqual(record["linker_why"], "ld.gold: error: cannot open libstdc++.so")
        # lld, where the machine has it, is still tried.
        procs = Procs([0])
        kli.link_with(procs, self.LINK, {}, self.which("ld.lld", "ld.gold"), broken)
        self.assertEqual(procs.ran, [["c++", "-fuse-ld=lld"] + self.LINK[1:]])


class Errors(unittest.TestCase):
    NVCC = ("/tmp/b/cuda.cu(27): error: identifier \"undefined_thing\" is undefined\n"
            "      undefined_thing<<<1, 1>>>();\n\n1 error detected in the compilation of \"cuda.cu\".\n")
    GCC = ("In file included from x.h:1:\n/tmp/b/main.cpp:2:30: error: 'Tensr' in namespace 'torch' does not "
           "name a type\n")

    def test_first_error(self):
        self.assertEqual(kli.first_error(self.NVCC)[:2], ("cuda.cu", 27))
        self.assertEqual(kli.first_error(self.GCC)[:2], ("main.cpp", 2))
        self.assertEqual(kli.first_error(self.NVCC)[2], 'cuda.cu(27): error: identifier "undefined_thing" is undefined')
        self.assertIsNone(kli.first_error("warning: x\n"))

    def test_answer_line(self):
        cu = "__global__ void k() {\n  bad;\n}\n"
        answer = "import torch\nsrc = r'''\n" + cu + "'''\n"
        # Line 2 of the source string ("  bad;") is the answer's line 4.
        self.assertEqual(kli.answer_line(answer, cu, 2), 4)
        self.assertEqual(answer.splitlines()[3], "  bad;")
        self.assertIsNone(kli.answer_line(answer, "not in the file", 1))
        self.assertIsNone(kli.answer_line(answer + answer, cu, 2))  # twice: ambiguous
        self.assertIsNone(kli.answer_line(None, cu, 2))


class PchCacheKeys(unittest.TestCase):
    def test_keys_follow_flags_and_headers(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            inc = os.path.join(d, "include", "torch")
            os.makedirs(inc)
            with open(os.path.join(inc, "extension.h"), "w") as f:
                f.write("#pragma once\n")
            cache = kli.PchCache(os.path.join(d, "cache"), os.path.join(d, "include"))
            k1 = cache.key("true", ["-O3"])
            self.assertEqual(k1, cache.key("true", ["-O3"]))
            self.assertNotEqual(k1, cache.key("true", ["-O2"]))
            other = kli.PchCache(os.path.join(d, "cache"), os.path.join(d, "include"))
            with open(os.path.join(inc, "extension.h"), "a") as f:
                f.write("// changed\n")
            self.assertNotEqual(k1, other.key("true", ["-O3"]))

    def test_kbench_headers_are_keyed_by_their_path(self):
        # clang's .pch refuses to load where the header it was made from has
        # moved: two installs of kbench never share an entry.
        import tempfile
        from unittest import mock
        with tempfile.TemporaryDirectory() as d:
            cache = kli.PchCache(os.path.join(d, "cache"), d)
            here = cache.key("true", ["-O3"], kli.HOST_HEADER)
            other = os.path.join(d, "other-install")
            os.makedirs(other)
            shutil.copy(os.path.join(kli.NATIVE, kli.HOST_HEADER), other)
            with mock.patch.object(kli, "NATIVE", other):
                self.assertNotEqual(here, cache.key("true", ["-O3"], kli.HOST_HEADER))

    def test_a_changed_header_is_never_used(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            cache = kli.PchCache(d, d)
            entry = os.path.join(d, "k")
            os.makedirs(os.path.join(entry, "torch"))
            gch = os.path.join(entry, "torch", "extension.h.gch")
            with open(gch, "wb") as f:
                f.write(b"header")
            with open(os.path.join(entry, "digest"), "w") as f:
                f.write(kli._file_digest(gch))
            self.assertTrue(cache._valid("k", entry, gch))
            with open(gch, "wb") as f:
                f.write(b"HEADER, changed")
            self.assertFalse(cache._valid("k", entry, gch))


class SharedPchCache(unittest.TestCase):
    """The shared folder a builder process fills and confined candidate
    workers only read (worker_host/program_workers.cpp): a header there is
    used, one missing is built in the worker's own folder."""

    def setUp(self):
        import tempfile
        self.d = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, self.d, True)
        inc = os.path.join(self.d, "include", "torch")
        os.makedirs(inc)
        with open(os.path.join(inc, "extension.h"), "w") as f:
            f.write("#pragma once\n")
        # A stand-in for g++: its --version, and an output file per build.
        self.cc = os.path.join(self.d, "fake-g++")
        with open(self.cc, "w") as f:
            f.write('#!/bin/sh\nif [ "$1" = --version ]; then echo fake 1; exit 0; fi\n'
                    'while [ $# -gt 0 ]; do if [ "$1" = -o ]; then echo gch "$*" > "$2"; fi; shift; done\n')
        os.chmod(self.cc, 0o755)
        self.shared = os.path.join(self.d, "shared")
        self.private = os.path.join(self.d, "private")

    def read_only_shared(self):
        """A cache whose shared folder cannot be written, as under Landlock."""
        shared = self.shared

        class ReadOnly(kli.PchCache):
            def _build(self, root, key, filename, argv_of, deadline_s, what, run=None):
                if root == shared:
                    raise PermissionError(13, "Permission denied (the confined worker's rules)", root)
                return super()._build(root, key, filename, argv_of, deadline_s, what, run)
        return ReadOnly(self.shared, os.path.join(self.d, "include"), self.private)

    def test_the_builder_fills_the_shared_folder_and_workers_read_it(self):
        builder = kli.PchCache(self.shared, os.path.join(self.d, "include"))
        entry, built, _ = builder.get(self.cc, ["-O3"])
        self.assertTrue(built)
        self.assertTrue(entry.startswith(self.shared + os.sep))
        worker = self.read_only_shared()
        got, built, _ = worker.get(self.cc, ["-O3"])
        self.assertEqual((got, built), (entry, False))
        self.assertFalse(os.path.exists(self.private))

    def test_a_header_the_builder_has_not_made_is_built_in_the_workers_own_folder(self):
        worker = self.read_only_shared()
        entry, built, _ = worker.get(self.cc, ["-O2"])
        self.assertTrue(built)
        self.assertTrue(entry.startswith(self.private + os.sep))
        # Once built, it is used again, and the shared folder holds nothing.
        self.assertEqual(worker.get(self.cc, ["-O2"])[:2], (entry, False))
        self.assertFalse(os.path.exists(os.path.join(self.shared, os.path.basename(entry))))

    def test_without_a_folder_of_its_own_a_read_only_cache_is_an_error(self):
        worker = self.read_only_shared()
        worker.private_root = None
        with self.assertRaises(PermissionError):
            worker.get(self.cc, ["-O1"])


class BindingsApart(unittest.TestCase):
    """main.cpp with the bindings apart (native/kbench_li_bind.h): the
    answer's C++ keeps its lines, each function is bound through
    kbench_li_def<its type>, and the types an object can name."""

    def test_the_answers_lines_stay_and_each_function_is_bound(self):
        cpp = "#include <torch/extension.h>\ntorch::Tensor f(torch::Tensor x);\nint g(int a);"
        text, why = kli.apart_main(cpp, {"f": "doc of f", "g": "g"})
        self.assertIsNone(why)
        lines = text.splitlines()
        self.assertEqual(lines[0], "#include <kbench_li_bind.h>")
        self.assertEqual(lines[1:4], ["", "torch::Tensor f(torch::Tensor x);", "int g(int a);"])
        self.assertIn('kbench_li_def(m, "f", &f, "doc of f");', lines)
        self.assertIn('kbench_li_def(m, "g", &g, "g");', lines)
        self.assertEqual(lines[-1], "KBENCH_LI_MODULE(TORCH_EXTENSION_NAME)")
        raw, _ = kli.apart_main(["int g(int a);"], "g", with_pytorch_error_handling=False)
        self.assertIn('kbench_li_def_raw(m, "g", &g, "g");', raw.splitlines())

    def test_what_keeps_main_cpp_whole(self):
        self.assertIn("own bindings", kli.apart_main("PYBIND11_MODULE(x, m) {}", None)[1])
        self.assertIn("own bindings", kli.apart_main("int f();", [])[1])
        self.assertIn("headers of its own", kli.apart_main("#include <vector>\nint f();", ["f"])[1])
        self.assertIn("no_implicit_headers", kli.apart_main("int f();", ["f"], no_implicit_headers=True)[1])
        # An include in a comment or a string is not one.
        self.assertIsNone(kli.apart_main('// #include <vector>\nconst char* s = "#include";\nint f();', ["f"])[1])

    def test_signatures_are_read_from_nm(self):
        nm = ("                 U void kbench_li_def<at::Tensor (at::Tensor)>(void*, char const*, "
              "at::Tensor (*)(at::Tensor), char const*)\n"
              "                 U void kbench_li_def<std::vector<at::Tensor, std::allocator<at::Tensor> > "
              "(at::Tensor const&, long)>(void*, char const*, std::vector<at::Tensor, "
              "std::allocator<at::Tensor> > (*)(at::Tensor const&, long), char const*)\n"
              "                 U void kbench_li_def_raw<int (int)>(void*, char const*, int (*)(int), char const*)\n"
              "                 U kbench_li_pyinit\n")
        self.assertEqual(kli.bound_signatures(nm), [
            (False, "at::Tensor (at::Tensor)"),
            (False, "std::vector<at::Tensor, std::allocator<at::Tensor> > (at::Tensor const&, long)"),
            (True, "int (int)")])
        with self.assertRaises(ValueError):
            kli.bound_signatures("U void kbench_li_def<at::Tensor (at::Tensor)(void*)")

    def test_only_types_an_object_can_name(self):
        for sig in ("at::Tensor (at::Tensor)", "at::Tensor (at::Tensor const&, double, long)",
                    "std::tuple<at::Tensor, at::Tensor> (c10::ArrayRef<long>, bool)",
                    "void (unsigned long long) noexcept"):
            self.assertTrue(kli.nameable(sig), sig)
        for sig in ("Pair (at::Tensor)", "at::Tensor (my::Options)", "std::vector<Pair, std::allocator<Pair> > ()",
                    "at::Tensor ((anonymous namespace)::Options)", "{lambda(at::Tensor)#1}",
                    "at::Tensor (at::Tensor, ...)"):
            self.assertFalse(kli.nameable(sig), sig)

    def test_the_objects_sources(self):
        module = kli.module_source()
        self.assertIn("#undef PYBIND11_PLUGIN_IMPL", module)
        self.assertIn("PYBIND11_MODULE(kbench_li_module, m) { kbench_li_bind(&m); }", module)
        sig = kli.signature_source("at::Tensor (at::Tensor)")
        self.assertIn("using kbench_li_signature = at::Tensor (at::Tensor);", sig)
        self.assertIn("torch::wrap_pybind_function(*f)", sig)
        self.assertIn("template void kbench_li_def<kbench_li_signature>", sig)
        raw = kli.signature_source("int (int)", raw=True)
        self.assertIn("->def(name, *f, doc)", raw)
        self.assertIn("template void kbench_li_def_raw<kbench_li_signature>", raw)

    def test_an_object_is_built_once_and_kept_by_its_source(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "include"))
            cc = os.path.join(d, "fake-g++")
            with open(cc, "w") as f:
                f.write('#!/bin/sh\nif [ "$1" = --version ]; then echo fake 1; exit 0; fi\n'
                        'while [ $# -gt 0 ]; do if [ "$1" = -o ]; then echo obj "$*" > "$2"; fi; shift; done\n')
            os.chmod(cc, 0o755)
            cache = kli.PchCache(os.path.join(d, "cache"), os.path.join(d, "include"))
            asked = []

            def pch():
                asked.append(1)
                return os.path.join(d, "pch")
            path, built, _ = cache.get_object(cc, ["-O3"], "int a;", pch)
            self.assertTrue(built)
            self.assertEqual(len(asked), 1)
            with open(os.path.join(os.path.dirname(path), "command")) as f:
                self.assertIn("-I %s -Winvalid-pch" % os.path.join(d, "pch"), f.read())
            self.assertEqual(cache.get_object(cc, ["-O3"], "int a;", pch)[:2], (path, False))
            self.assertEqual(len(asked), 1)  # the header is asked for only to build
            other, built, _ = cache.get_object(cc, ["-O3"], "int b;", pch)
            self.assertTrue(built)
            self.assertNotEqual(other, path)
            self.assertNotEqual(cache.get_object(cc, ["-O2"], "int a;", None)[0], path)


class StoppedObjects(unittest.TestCase):
    def test_a_stop_ends_a_missing_objects_compile_and_keeps_nothing(self):
        # The bindings' objects compile in the build's processes: another
        # unit's error stops them rather than waiting on them.
        import tempfile
        import threading
        import time
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "include"))
            cc = os.path.join(d, "slow-g++")
            started = os.path.join(d, "started")
            with open(cc, "w") as f:
                f.write('#!/bin/sh\nif [ "$1" = --version ]; then echo slow 1; exit 0; fi\n'
                        'touch %s; sleep 30\n' % started)
            os.chmod(cc, 0o755)
            cache = kli.PchCache(os.path.join(d, "cache"), os.path.join(d, "include"))
            procs = kli.Processes(d, 60)
            got = []

            def build():
                try:
                    got.append(cache.get_object(cc, ["-O3"], "int a;", None, run=procs.run))
                except kli.BuildError as e:
                    got.append(e)
            t = threading.Thread(target=build)
            t0 = time.monotonic()
            t.start()
            while not os.path.exists(started):
                time.sleep(0.02)
            procs.stop()
            t.join(10)
            self.assertFalse(t.is_alive())
            self.assertLess(time.monotonic() - t0, 10)
            self.assertIsInstance(got[0], kli.BuildError)
            self.assertEqual([n for n in os.listdir(os.path.join(d, "cache")) if not n.endswith(".lock")], [])


import kbench_cuda_split as kcs  # noqa: E402

SPLIT_CU = kli.cuda_cu_text(r"""#include <torch/extension.h>
#include <cuda_runtime.h>
#define THREADS 256
struct Pair { float a, b; };
__constant__ float kScale[4];
__device__ __forceinline__ float relu(float v) { return v > 0.f ? v : 0.f; }
__host__ __device__ inline int cdiv(int a, int b) { return (a + b - 1) / b; }
// a comment naming relu_kernel<<<1, 1>>>(nothing) is no launch
static __global__ void __launch_bounds__(THREADS) relu_kernel(const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu(x[i]) * kScale[0];
}
namespace ops {
template <int BLOCK>
__global__ void rows_kernel(const float* x, float* y, int cols) { y[blockIdx.x] = x[blockIdx.x * cols]; }
}
torch::Tensor relu_launch(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const char* s = "relu_kernel<<<";
    int n = x.numel();
    relu_kernel<<<cdiv(n, THREADS), THREADS, 0,
                  at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    ops::rows_kernel<128><<<4, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), 8);
    return y;
}
""")


class CudaSplit(unittest.TestCase):
    """kbench_cuda_split: which code goes to which unit, the stubs and the
    launches, the line numbers kept, and the constructs it refuses."""

    def test_units_keep_each_line_where_it_was(self):
        sp = kcs.split(SPLIT_CU)
        host_lines = sp.host.split("\n")
        src_lines = SPLIT_CU.split("\n")
        self.assertEqual(len(host_lines), len(src_lines))
        dev = sp.device.split('#line 1 "cuda.cu"\n', 1)[1].split("\n")
        for i, line in enumerate(src_lines):
            if "int i = blockIdx.x" in line:
                self.assertEqual(dev[i], line)  # device code where it was
                self.assertEqual(host_lines[i].strip(), "")  # and not in the host unit
            if "auto y = torch::empty_like(x);" in line:
                self.assertEqual(host_lines[i], line)
                self.assertEqual(dev[i].strip(), "")

    def test_kernels_become_stubs_and_launches_calls(self):
        sp = kcs.split(SPLIT_CU)
        self.assertEqual(sorted(sp.kernels), ["ops::rows_kernel", "relu_kernel"])
        self.assertIn('__attribute__((visibility("default"), used)) void relu_kernel(const float* __restrict__ x, '
                      'float* y, int n) { ::kbench_li::called_directly("relu_kernel"); }', sp.host)
        self.assertIn("template <int BLOCK> __attribute__", sp.host)
        self.assertNotIn("__launch_bounds__", sp.host)
        self.assertIn("::kbench_li::launch(&relu_kernel, ::kbench_li::Launch(cdiv(n, THREADS), THREADS, 0, "
                      "                  at::cuda::getCurrentCUDAStream()), x.data_ptr<float>(), y.data_ptr<float>(), n)",
                      sp.host)
        self.assertIn("::kbench_li::launch(&ops::rows_kernel<128>, ::kbench_li::Launch(4, 128), x.data_ptr<float>()",
                      sp.host)
        # Comments and strings are left alone.
        self.assertIn('const char* s = "relu_kernel<<<";', sp.host)
        self.assertIn("// a comment naming relu_kernel<<<1, 1>>>(nothing) is no launch", sp.host)
        # The device unit: no torch header or host code, the kernel not static,
        # the template instantiated as launched.
        self.assertNotIn("torch/", sp.device)
        self.assertNotIn("relu_launch", sp.device)
        self.assertNotIn("static __global__", sp.device)
        self.assertIn("__constant__ float kScale[4];", sp.device)
        self.assertNotIn("kScale", sp.host)
        self.assertEqual(sp.uses, ["ops::rows_kernel<128>"])
        self.assertEqual(sp.dependent, [])
        self.assertIn("void* kbench_li_use_0 = (void*)&ops::rows_kernel<128>;", sp.device)
        # Both units keep what both may use.
        for unit in (sp.host, sp.device):
            self.assertIn("struct Pair { float a, b; };", unit)
            self.assertIn("__host__ __device__ inline int cdiv", unit)
            self.assertIn("#define THREADS 256", unit)

    def test_launches_with_a_dispatchs_types_wait_for_the_host_object(self):
        sp = kcs.split("template <typename T> __global__ void k(T* x) { x[0] = T(1); }\n"
                       "void f(float* p) { AT_DISPATCH_FLOATING_TYPES(t, \"f\", [&] { k<scalar_t><<<1, 1>>>(p); }); }\n")
        self.assertEqual((sp.uses, sp.dependent), ([], ["k"]))
        nm = ("0000000000000000 W void k<double>(double*)\n"
              "0000000000000000 W void k<float>(float*)\n"
              "0000000000000000 T f(float*)\n"
              "                 U cudaLaunchKernel\n")
        self.assertEqual(kcs.instantiations_from_symbols(nm, sp.kernels), ["k<double>", "k<float>"])
        with self.assertRaisesRegex(kcs.Unsupported, "torch's types"):
            kcs.instantiations_from_symbols("0 W void k<c10::Half>(c10::Half*)\n", sp.kernels)

    def test_prototypes_and_c_linkage(self):
        sp = kcs.split('extern "C" __global__ void k(float* x) { x[0] = 1; }\n'
                       "__global__ void g(int);\n__global__ void g(int a) {}\n"
                       "void h(float* p) { k<<<1, 1>>>(p); g<<<1, 1>>>(2); }\n")
        self.assertEqual(sorted(sp.kernels), ["g", "k"])
        self.assertIn('extern "C"  __attribute__((visibility("default"), used)) void k(float* x)', sp.host)
        self.assertIn('__attribute__((visibility("default"))) void g(int);', sp.host)
        self.assertIn("::kbench_li::launch(&g, ::kbench_li::Launch(1, 1), 2)", sp.host)

    def test_what_it_refuses(self):
        cases = {
            "__global__ void k(float* x) {}\nvoid f() { cudaFuncSetAttribute(k, a, 0); k<<<1,1>>>(0); }":
                "other than in a <<<...>>> launch",
            "__device__ float v;\n__global__ void k() { v = 1; }\nvoid f() { cudaMemcpyToSymbol(v, 0, 4); }":
                "device variable v",
            "__managed__ int m;": "__managed__",
            "namespace { __global__ void k() {} }": "anonymous namespace",
            "__global__ void k(int a) {}\n__global__ void k(float a) {}": "overloaded",
            "__global__ void k(int a = 3) {}": "default argument",
            "__global__ void k(torch::PackedTensorAccessor32<float, 2> a) {}": "torch's names",
            "struct F { __device__ float operator()(float v) const { return v; } };": "struct or class",
            "template <typename T> __global__ void k(T* x) {}\nvoid f(float* p) { k<<<1, 1>>>(p); }":
                "without its template arguments",
        }
        for src, want in cases.items():
            with self.subTest(src=src):
                with self.assertRaisesRegex(kcs.Unsupported, re.escape(want)):
                    kcs.split(src)

    def test_masking_keeps_lengths_and_lines(self):
        src = 'a /* b { */ "c } \\" d" \'}\' R"x(e { )x" // f {\nint g;'
        m = kcs.mask(src)
        self.assertEqual(len(m), len(src))
        self.assertEqual(m.count("\n"), src.count("\n"))
        self.assertNotIn("{", m)
        self.assertNotIn("}", m)
        self.assertTrue(m.endswith("int g;"))

    def test_the_host_unit_gets_the_nvcc_commands_macros(self):
        text = kli.host_unit("int x;", ["nvcc", "-DTORCH_EXTENSION_NAME=k", "-DBLOCK=64", "-DFAST", "-UOLD", "-c"],
                             False)
        self.assertTrue(text.startswith("#include <kbench_li_host.h>\n"))
        self.assertIn("#define BLOCK 64", text)
        self.assertIn("#define FAST 1", text)
        self.assertIn("#undef OLD", text)
        self.assertNotIn("TORCH_EXTENSION_NAME", text)
        self.assertTrue(text.endswith('#line 1 "cuda.cu"\nint x;'))
        self.assertTrue(kli.host_unit("", [], True).startswith("#include <torch/extension.h>\n"))

    def test_commands(self):
        nvcc = ["nvcc", "-MD", "-MF", "cuda.cuda.o.d", "-DX", "-gencode=arch=compute_90,code=sm_90", "-c",
                "/b/cuda.cu", "-o", "cuda.cuda.o"]
        self.assertEqual(kli.device_argv(nvcc, "/b/split/device.cu", "device.fatbin"),
                         ["nvcc", "-DX", "-gencode=arch=compute_90,code=sm_90", "-fatbin", "/b/split/device.cu",
                          "-o", "device.fatbin"])
        self.assertEqual(kli._relink(["c++", "main.o", "cuda.cuda.o", "-shared", "-o", "k.so"], ["host.o", "image.o"]),
                         ["c++", "main.o", "host.o", "image.o", "-shared", "-o", "k.so"])
        self.assertEqual(kli.light_main("#include <torch/extension.h>\n#include <torch/extension.h>\nint f();"),
                         "#include <kbench_li_main.h>\n\nint f();")
        self.assertTrue(kli.needs_full_headers({"cuda_sources": "auto m = torch::nn::Linear(2, 2);"}))
        self.assertFalse(kli.needs_full_headers({"cuda_sources": "// torch::nn::Linear\nauto y = x + 1;"}))

    def test_a_typo_is_the_answers_error_and_a_torch_name_is_retried(self):
        with tempfile.TemporaryDirectory() as inc:
            with open(os.path.join(inc, "mps.h"), "w") as f:
                f.write("namespace torch { namespace mps { bool is_available(); } }\n")
            typo = 'cuda.cu(8): error: identifier "undeclared_counter" is undefined'
            self.assertIsNone(kli.retry_reason(typo, False, inc))
            self.assertIsNone(kli.retry_reason(typo, True, inc))  # the whole header was there already
            known = "cuda.cu:3:26: error: \u2018torch::mps\u2019 has not been declared"
            self.assertIn("mps", kli.retry_reason(known, False, inc))
            self.assertIn("host.cpp", kli.retry_reason("host.cpp:2:1: error: expected ';'", False, inc))
            self.assertIsNone(kli.retry_reason("cuda.cu:9:5: error: expected ';' before '}' token", False, inc))


NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
SMALL_CU = r"""
#include <cuda_runtime.h>
namespace {
__device__ float twice(float v) { return 2.f * v; }
__global__ void anon_kernel(float* y, int n) { if ((int)threadIdx.x < n) y[threadIdx.x] = 1.f; }
}
static __global__ void scale_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = twice(x[i]);
}
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
int launch_both(const float* x, float* y, int n) {
    scale_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
    add_kernel<<<(n + 255) / 256, 256>>>(x, y, y, n);
    anon_kernel<<<1, 32>>>(y, n);
    return (int)cudaGetLastError();
}
"""


@unittest.skipUnless(os.path.exists(NVCC), "no nvcc")
class NvccSplit(unittest.TestCase):
    """nvcc's own steps, host and device sides at once: the same object as
    nvcc's (the same device code, the same symbols), and nvcc's message for
    an error."""

    def compile(self, d, text, split, arch="-gencode=arch=compute_90,code=sm_90"):
        src = os.path.join(d, "k.cu")
        with open(src, "w") as f:
            f.write(text)
        out = os.path.join(d, "k_%s.o" % ("split" if split else "whole"))
        argv = [NVCC, "-MD", "-MF", out + ".d", arch, "--compiler-options", "-fPIC", "-O3", "-std=c++17",
                "-c", src, "-o", out]
        procs = kli.Processes(d, 300)
        record = {}
        old = os.environ.get("KBENCH_LOAD_INLINE_NVCC_SPLIT")
        os.environ["KBENCH_LOAD_INLINE_NVCC_SPLIT"] = "1" if split else "0"
        try:
            r = kli.nvcc_compile(procs, argv, os.path.join(d, "keep-%d" % split), record)
        finally:
            if old is None:
                del os.environ["KBENCH_LOAD_INLINE_NVCC_SPLIT"]
            else:
                os.environ["KBENCH_LOAD_INLINE_NVCC_SPLIT"] = old
        return r, record, out

    def tool(self, *argv):
        import subprocess
        return subprocess.run(argv, capture_output=True, text=True).stdout

    def test_the_steps_are_read(self):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "k.cu"), "w") as f:
                f.write(SMALL_CU)
            dry = subprocess.run([NVCC, "-gencode=arch=compute_90,code=sm_90", "-c", "k.cu", "-o", "k.o",
                                  "--dryrun", "--keep", "--keep-dir", d], cwd=d, capture_output=True, text=True)
            plan = kli.nvcc_steps(dry.stdout + dry.stderr)
            self.assertIsNotNone(plan, dry.stderr)
            kinds = [k for k, _ in plan[1]]
            self.assertEqual(sorted(set(kinds)), ["cicc", "cudafe", "dev_pre", "fatbinary", "host_cc", "host_pre",
                                                  "ptxas"])
            self.assertEqual(kinds[-1], "host_cc")
            ids = []
            host, device, final = kli.split_nvcc(plan[0], plan[1], ids)
            self.assertIn("cudafe++", host)
            self.assertNotIn("--gen_module_id_file", host)
            self.assertIn("cicc", device)
            self.assertIn("--module_id_file_name", device)
            self.assertTrue(ids and ids[0].endswith(".module_id"), ids)
        # Relocatable device code links with nvlink: not split.
        self.assertIsNone(kli.nvcc_steps("#$ gcc -E -x c++ k.cu -o a.ii\n#$ nvlink --arch=sm_90 a.o\n"))

    def test_the_same_object_as_nvccs(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            (whole, rc_w, out_w, _), rec_w, obj_w = self.compile(d, SMALL_CU, False)
            (split, rc_s, out_s, _), rec_s, obj_s = self.compile(d, SMALL_CU, True)
            self.assertEqual((rc_w, rc_s), (0, 0), out_w + out_s)
            self.assertFalse(rec_w["nvcc_split"])
            self.assertTrue(rec_s["nvcc_split"], rec_s)
            self.assertEqual(sorted(rec_s["nvcc_ms"]), ["device", "host", "host_compile"])
            # The device code's kernels, named as the host side registers
            # them: an anonymous namespace's carry the module ID (the one
            # file both sides read), which differs from nvcc's own.
            import re
            mid = re.compile(r"_[0-9a-f]{8}_4_k_cu_[0-9a-f]{8}")

            def kernels(o):
                text = self.tool("strings", o).splitlines()
                names = {l[len(".text."):] for l in text if l.startswith(".text.")}
                self.assertTrue(names <= set(text), "a kernel the host side does not register: %s" % names)
                return sorted(mid.sub("_ID_", n) for n in names)

            self.assertEqual(len(kernels(obj_s)), 3, kernels(obj_s))
            self.assertTrue(any("anon_kernel" in k and "_ID_" in k for k in kernels(obj_s)), kernels(obj_s))
            self.assertEqual(kernels(obj_w), kernels(obj_s))
            defined = lambda o: sorted(mid.sub("_ID_", l.split()[-1]) for l in
                                       self.tool("nm", "--defined-only", o).splitlines())
            self.assertIn("_Z11launch_bothPKfPfi", defined(obj_s))
            self.assertEqual(defined(obj_w), defined(obj_s))

    def test_an_error_is_nvccs(self):
        import tempfile
        bad = SMALL_CU.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + undeclared_b[i];")
        with tempfile.TemporaryDirectory() as d:
            (_, rc_w, out_w, _), _, _ = self.compile(d, bad, False)
            (_, rc_s, out_s, _), _, _ = self.compile(d, bad, True)
            self.assertNotEqual(rc_w, 0)
            self.assertNotEqual(rc_s, 0)
            fw, fs = kli.first_error(out_w), kli.first_error(out_s)
            self.assertIsNotNone(fs, out_s)
            self.assertEqual(fw, fs)
            self.assertIn("undeclared_b", fs[2])


class Stopping(unittest.TestCase):
    def test_stop_ends_a_step_and_the_processes_below_it(self):
        import tempfile
        import threading
        import time
        with tempfile.TemporaryDirectory() as d:
            procs = kli.Processes(d, 60)
            got = []
            pidfile = os.path.join(d, "grandchild")
            t = threading.Thread(target=lambda: got.append(procs.run(
                ["/bin/sh", "-c", "sleep 30 & echo $! > %s; wait" % pidfile])))
            t0 = time.monotonic()
            t.start()
            while not (os.path.exists(pidfile) and open(pidfile).read().strip()):
                time.sleep(0.02)
            grandchild = int(open(pidfile).read())
            procs.stop()
            t.join(10)
            self.assertFalse(t.is_alive())
            self.assertLess(time.monotonic() - t0, 10)
            self.assertEqual(got[0][0], -9)
            for _ in range(100):  # reaped by init once killed
                if not os.path.exists("/proc/%d" % grandchild) or \
                        open("/proc/%d/stat" % grandchild).read().split(")")[-1].split()[0] in ("Z", "X"):
                    break
                time.sleep(0.05)
            else:
                self.fail("the step's child %d is still running" % grandchild)
            # A stopped build starts nothing more.
            self.assertEqual(procs.run(["/bin/true"])[0], -9)

    def test_the_deadline_stops_the_build(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            procs = kli.Processes(d, 0.3)
            rc, _, secs = procs.run(["/bin/sh", "-c", "sleep 20"])
            self.assertEqual(rc, -9)
            self.assertTrue(procs.timed_out)
            self.assertLess(secs, 10)


if __name__ == "__main__":
    unittest.main()
