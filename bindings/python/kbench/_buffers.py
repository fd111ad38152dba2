"""Device memory from the frameworks' tensors, without copies (Context.launch).

Three ways in, tried in this order:
  - a torch.Tensor, read through its own attributes (torch is never imported
    here: a tensor is recognised by its type's module);
  - anything with __cuda_array_interface__ (CuPy, Numba, PyCUDA, ...);
  - anything with __dlpack__ (JAX, TensorFlow, ... and the above), read from
    the DLPack capsule with ctypes, without consuming it.
Each gives a device pointer, a size in bytes, kbench's dtype name (None where
the format cannot say, e.g. bfloat16 over __cuda_array_interface__), a shape
and a device ordinal. Only C-contiguous memory is taken: kbench's kernels
index buffers densely, and a copy would break "no copies".
"""
import ctypes
from collections import namedtuple

Buffer = namedtuple("Buffer", "ptr nbytes dtype shape device keep")

_TORCH_DTYPES = {
    "torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16", "torch.float64": "f64",
    "torch.int8": "i8", "torch.uint8": "u8", "torch.int16": "i16", "torch.uint16": "u16",
    "torch.int32": "i32", "torch.uint32": "u32", "torch.int64": "i64", "torch.uint64": "u64",
    "torch.bool": "bool",
}
_TYPESTR_KINDS = {"f": "f", "i": "i", "u": "u", "b": "bool"}
_DL_CODES = {0: "i", 1: "u", 2: "f", 4: "bf", 6: "bool"}  # kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool
_DL_CUDA = 2


def _is_torch_tensor(obj):
    return type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr") and hasattr(obj, "is_cuda")


def _contiguous_bytes_strides(shape, itemsize):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def _from_torch(name, t):
    if not t.is_cuda:
        raise ValueError("buffer '%s' is a CPU tensor; kernels need GPU memory: pass %s.cuda()" % (name, name))
    if not t.is_contiguous():
        raise ValueError("buffer '%s' is not contiguous; kbench launches on the memory as it is, without "
                         "copies: pass %s.contiguous()" % (name, name))
    return Buffer(int(t.data_ptr()), int(t.numel()) * int(t.element_size()), _TORCH_DTYPES.get(str(t.dtype)),
                  tuple(int(n) for n in t.shape), t.device.index, t)


def _from_cai(name, obj):
    cai = obj.__cuda_array_interface__
    shape = tuple(int(n) for n in cai["shape"])
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    kind = _TYPESTR_KINDS.get(typestr[1])
    dtype = None
    if kind == "bool":
        dtype = "bool" if itemsize == 1 else None
    elif kind:
        dtype = "%s%d" % (kind, 8 * itemsize)
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != _contiguous_bytes_strides(shape, itemsize):
        raise ValueError("buffer '%s' is not C-contiguous (strides %s); kbench launches on the memory as it "
                         "is, without copies: pass a contiguous copy" % (name, tuple(strides)))
    count = 1
    for n in shape:
        count *= n
    ptr = int(cai["data"][0])
    return Buffer(ptr, count * itemsize, dtype, shape, None, obj)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def _capsule_pointer(capsule, name):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, name)


def _from_dlpack(name, obj, stream):
    try:
        capsule = obj.__dlpack__(stream=stream if stream else 1)  # 1: the legacy default stream (DLPack)
    except TypeError:
        capsule = obj.__dlpack__()
    # A DLManagedTensor starts with its DLTensor; the capsule stays unconsumed
    # and alive in `keep`, so the producer's memory stays ours to use.
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.device.device_type != _DL_CUDA:
        raise ValueError("buffer '%s' is not CUDA device memory (DLPack device type %d); kernels need GPU "
                         "memory" % (name, t.device.device_type))
    shape = tuple(int(t.shape[i]) for i in range(t.ndim))
    itemsize = (t.dtype.bits * t.dtype.lanes + 7) // 8
    if t.strides:
        strides = tuple(int(t.strides[i]) * itemsize for i in range(t.ndim))
        if any(n > 1 for n in shape) and strides != _contiguous_bytes_strides(shape, itemsize):
            raise ValueError("buffer '%s' is not C-contiguous; kbench launches on the memory as it is, "
                             "without copies: pass a contiguous copy" % name)
    code = _DL_CODES.get(t.dtype.code)
    dtype = None
    if t.dtype.lanes == 1 and code == "bool":
        dtype = "bool"
    elif t.dtype.lanes == 1 and code == "bf":
        dtype = "bf16" if t.dtype.bits == 16 else None
    elif t.dtype.lanes == 1 and code:
        dtype = "%s%d" % (code, t.dtype.bits)
    count = 1
    for n in shape:
        count *= n
    return Buffer(int(t.data or 0) + int(t.byte_offset), count * itemsize, dtype, shape, int(t.device.device_id),
                  (obj, capsule))


def device_buffer(name, obj, stream=None):
    """The Buffer of one argument, or TypeError/ValueError naming it."""
    if _is_torch_tensor(obj):
        return _from_torch(name, obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cai(name, obj)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(name, obj, stream)
    raise TypeError("buffer '%s' is a %s: pass a torch tensor, or anything with __cuda_array_interface__ "
                    "or __dlpack__ (CuPy, Numba, JAX, ...)" % (name, type(obj).__name__))


def stream_handle(stream):
    """A CUstream as an integer from an int, a torch.cuda.Stream (.cuda_stream),
    a CuPy stream (.ptr) or None (0: the legacy default stream)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError("stream must be an int CUstream, a torch.cuda.Stream or a CuPy stream, not %s"
                    % type(stream).__name__)


def infer_dims(task_doc, buffers, given):
    """The task's dims from the buffers' shapes where an argument's declared
    shape names a dim outright (a of shape ["n", 4] and a tensor of shape
    (1009, 4): n = 1009), merged with `given`, which wins. Two buffers that
    disagree on a dim not given are a ValueError naming both."""
    declared = set(task_doc.get("dims", {}))
    dims, source = dict(given), {}
    for arg in task_doc.get("args", []):
        name = arg.get("name")
        if name not in buffers or "shape" not in arg:
            continue
        shape, have = arg["shape"], buffers[name].shape
        if len(shape) != len(have):
            continue  # a flattened buffer: its size is still checked, its dims must be given
        for entry, n in zip(shape, have):
            if not isinstance(entry, str) or entry not in declared or entry in given:
                continue
            if entry in dims and dims[entry] != n:
                raise ValueError("dim '%s' is %d by buffer '%s' but %d by buffer '%s'; pass dims={'%s': ...} "
                                 "or buffers of matching shapes" % (entry, dims[entry], source[entry], n, name,
                                                                    entry))
            dims[entry], source[entry] = n, name
    missing = [d for d in sorted(declared) if d not in dims]
    if missing:
        raise ValueError("dims %s of the task cannot be read from the buffers' shapes; pass them: "
                         "dims={%s}" % (missing, ", ".join("'%s': ..." % d for d in missing)))
    return dims
