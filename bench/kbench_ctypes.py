"""A minimal ctypes view of libkbench for the benchmark scripts.

The benchmarks need kbench and PyTorch/Triton/CuPy in one process (to time
the very same cubin both ways), on a machine without SWIG, so they talk to
the C API directly. This is a benchmark helper, not the Python binding.
"""
import ctypes
import json
import os

KB_OK = 0


class ContextOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("device", ctypes.c_int), ("isolation", ctypes.c_int),
                ("arch", ctypes.c_char_p), ("cache_dir", ctypes.c_char_p), ("cuda_home", ctypes.c_char_p),
                ("worker_path", ctypes.c_char_p), ("timeout_s", ctypes.c_double), ("flags", ctypes.c_uint)]


class Candidate(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("language", ctypes.c_int), ("code", ctypes.c_char_p),
                ("code_size", ctypes.c_size_t), ("path", ctypes.c_char_p), ("launch_json", ctypes.c_char_p),
                ("metadata_json", ctypes.c_char_p), ("label", ctypes.c_char_p)]


class TimeOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("mode", ctypes.c_int), ("case_index", ctypes.c_int),
                ("against_baseline", ctypes.c_int), ("budget_ms", ctypes.c_double), ("warmup_ms", ctypes.c_double),
                ("min_samples", ctypes.c_uint), ("max_samples", ctypes.c_uint),
                ("target_rel_noise", ctypes.c_double)]


class KBench:
    def __init__(self, lib_path, isolation=1):
        self.lib = ctypes.CDLL(lib_path)
        L = self.lib
        L.kb_last_error.restype = ctypes.c_char_p
        L.kb_context_json.restype = ctypes.c_char_p
        L.kb_kernel_json.restype = ctypes.c_char_p
        L.kb_result_json.restype = ctypes.c_char_p
        L.kb_task_name.restype = ctypes.c_char_p
        opts = ContextOptions(1, 0, isolation, None, None, None, None, 0.0, 0)
        self.ctx = ctypes.c_void_p()
        self._check(L.kb_context_create(ctypes.byref(opts), ctypes.byref(self.ctx)), "kb_context_create")

    def _check(self, status, what):
        if status != KB_OK:
            raise RuntimeError(f"{what}: status {status}: {self.lib.kb_last_error().decode()}")

    def context_info(self):
        return json.loads(self.lib.kb_context_json(self.ctx))

    def load_task(self, path):
        t = ctypes.c_void_p()
        self._check(self.lib.kb_load_task(path.encode(), ctypes.byref(t)), "kb_load_task")
        return t

    def compile_file(self, task, path):
        c = Candidate(1, 0, None, 0, path.encode(), None, None, None)
        k = ctypes.c_void_p()
        self._check(self.lib.kb_compile(self.ctx, task, ctypes.byref(c), ctypes.byref(k)), "kb_compile")
        return k

    def compile_task_program(self, task, role):
        k = ctypes.c_void_p()
        self._check(self.lib.kb_compile_task_program(self.ctx, task, role, ctypes.byref(k)), "kb_compile_task_program")
        return k

    def kernel_info(self, k):
        return json.loads(self.lib.kb_kernel_json(k))

    def kernel_image(self, k):
        data = ctypes.c_void_p()
        size = ctypes.c_size_t()
        self._check(self.lib.kb_kernel_image(k, ctypes.byref(data), ctypes.byref(size)), "kb_kernel_image")
        return ctypes.string_at(data, size.value)

    def time(self, task, kernel, budget_ms=1000.0, noise=0.002, min_samples=50, against_baseline=False, hot=False):
        o = TimeOptions(1, 1 if hot else 0, -1, 1 if against_baseline else 0, budget_ms, 0.0, min_samples, 0, noise)
        r = ctypes.c_void_p()
        self._check(self.lib.kb_time(self.ctx, task, kernel, ctypes.byref(o), ctypes.byref(r)), "kb_time")
        out = json.loads(self.lib.kb_result_json(r))
        self.lib.kb_result_destroy(r)
        return out


def find_library(build_dir):
    for name in ("libkbench.so", "libkbench.so.0"):
        p = os.path.join(build_dir, name)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(f"libkbench.so not found in {build_dir}")
