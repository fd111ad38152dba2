"""Outputs compared on the GPU, across processes (docs/programs.md).

The candidate worker exports each output tensor as a CUDA IPC handle (the
driver's cuIpcGetMemHandle on the allocation that holds it, plus the
offset into it) and keeps the tensor alive until its next request. The
reference worker, which holds the expected outputs, opens the handle and runs
the C core's comparator on the two (libkbench_gpu_compare.so, the same kernels
kernel candidates are judged by). The outputs never cross the host, and the
expected ones never enter the candidate's process.
"""
import ctypes

IPC_HANDLE_BYTES = 64

# src/task/dtype.h's numbering.
KB_DTYPE_CODES = {"f16": 0, "bf16": 1, "f32": 2, "f64": 3, "i8": 4, "u8": 5, "i16": 6, "u16": 7, "i32": 8,
                  "u32": 9, "i64": 10, "u64": 11, "bool": 12}


class IpcExportError(Exception):
    pass


def export_ipc(libcuda, tensor):
    """{"handle": hex, "offset": bytes into the allocation, "bytes": n} for a
    contiguous CUDA tensor, or IpcExportError (memory the driver cannot share:
    torch's expandable segments, a CPU tensor, no driver)."""
    if libcuda is None:
        raise IpcExportError("no CUDA driver library")
    if not tensor.is_cuda:
        raise IpcExportError("the tensor is on %s" % tensor.device)
    nbytes = tensor.numel() * tensor.element_size()
    ptr = tensor.data_ptr()
    if nbytes == 0 or ptr == 0:
        raise IpcExportError("an empty tensor")
    base = ctypes.c_uint64(0)
    size = ctypes.c_size_t(0)
    rc = libcuda.cuMemGetAddressRange_v2(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(ptr))
    if rc != 0:
        raise IpcExportError("cuMemGetAddressRange failed (CUDA error %d)" % rc)
    handle = (ctypes.c_ubyte * IPC_HANDLE_BYTES)()
    rc = libcuda.cuIpcGetMemHandle(handle, ctypes.c_uint64(base.value))
    if rc != 0:
        raise IpcExportError("cuIpcGetMemHandle failed (CUDA error %d)" % rc)
    return {"handle": bytes(handle).hex(), "offset": ptr - base.value, "bytes": nbytes}


class _Stats(ctypes.Structure):
    _fields_ = [("mismatches", ctypes.c_uint64), ("unwritten", ctypes.c_uint64), ("max_abs_err", ctypes.c_double),
                ("max_rel_err", ctypes.c_double), ("max_violation", ctypes.c_double),
                ("worst_index", ctypes.c_uint64), ("worst_bits", ctypes.c_uint64), ("expected_bits", ctypes.c_uint64)]


class GpuComparer:
    """libkbench_gpu_compare.so through ctypes; `available` says whether it
    loaded, `why` why not."""

    def __init__(self, path):
        self.available = False
        self.why = ""
        if not path:
            self.why = "libkbench_gpu_compare.so was not found"
            return
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            self.why = "cannot load %s (%s)" % (path, e)
            return
        lib.kbg_compare_ipc.restype = ctypes.c_int
        lib.kbg_compare_ipc.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64,
                                        ctypes.c_uint64, ctypes.c_int, ctypes.c_double, ctypes.c_double,
                                        ctypes.c_int, ctypes.POINTER(_Stats)]
        lib.kbg_error.restype = ctypes.c_char_p
        lib.kbg_checksum.restype = ctypes.c_int
        lib.kbg_checksum.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64)]
        self.lib = lib
        self.available = True

    def checksum(self, device, ptr, nbytes):
        """The C core's one-pass checksum of `nbytes` at device pointer `ptr`
        (8-byte aligned, this process's), after the device's queued work."""
        out = ctypes.c_uint64(0)
        if self.lib.kbg_checksum(int(device), int(ptr), int(nbytes), ctypes.byref(out)) != 0:
            raise RuntimeError(self.lib.kbg_error().decode("utf-8", "replace"))
        return out.value

    def compare(self, device, handle_hex, offset, expected, dtype, atol, rtol, equal_nan):
        """The statistics of the candidate's output (another process's, by its
        handle) against `expected` (a contiguous tensor of this process)."""
        handle = bytes.fromhex(handle_hex)
        if len(handle) != IPC_HANDLE_BYTES:
            raise ValueError("an IPC handle of %d bytes" % len(handle))
        code = KB_DTYPE_CODES.get(dtype)
        if code is None:
            raise ValueError("dtype %r cannot be compared" % dtype)
        s = _Stats()
        rc = self.lib.kbg_compare_ipc(int(device), handle, int(offset), int(expected.data_ptr()), int(expected.numel()),
                                      code, float(atol), float(rtol), 1 if equal_nan else 0, ctypes.byref(s))
        if rc != 0:
            raise RuntimeError(self.lib.kbg_error().decode("utf-8", "replace"))
        return {"mismatches": s.mismatches, "unwritten": s.unwritten, "max_abs_err": _number(s.max_abs_err),
                "max_rel_err": _number(s.max_rel_err), "max_violation": _number(s.max_violation),
                "worst_index": s.worst_index, "worst_bits": s.worst_bits, "expected_bits": s.expected_bits}


def _number(x):
    """JSON has no inf or NaN (an error against an expected 0 is inf): those
    travel as the strings "inf", "-inf" and "nan", which the host reads back."""
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def default_gpu_compare_library():
    """$KBENCH_GPU_COMPARE_LIB, else the copy beside this file (native/)."""
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.environ.get("KBENCH_GPU_COMPARE_LIB", ""), os.path.join(here, "native", "libkbench_gpu_compare.so")):
        if p and os.path.exists(p):
            return p
    return ""
