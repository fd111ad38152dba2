"""Context.launch's CPU half: reading device memory from framework objects
(__cuda_array_interface__, DLPack, torch tensors), dims from shapes, streams,
and kb_launch's errors without a device. launch_gpu.py runs kernels."""
import ctypes
import os
import pathlib
import unittest

import kbench
from kbench import _buffers

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
VECTOR_ADD = SOURCE_DIR / "tasks" / "elementwise" / "vector_add_f32"


class FakeCai:
    """What CuPy or Numba expose: __cuda_array_interface__ version 3."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": strides, "version": 3}


class BuffersFromObjects(unittest.TestCase):
    def test_cuda_array_interface(self):
        b = _buffers.device_buffer("a", FakeCai(0x7000, (1009,)))
        self.assertEqual((b.ptr, b.nbytes, b.dtype, b.shape), (0x7000, 4036, "f32", (1009,)))
        b = _buffers.device_buffer("x", FakeCai(0x8000, (3, 5), "<f2"))
        self.assertEqual((b.nbytes, b.dtype), (30, "f16"))
        self.assertEqual(_buffers.device_buffer("i", FakeCai(1, (2,), "<i8")).dtype, "i64")
        self.assertEqual(_buffers.device_buffer("m", FakeCai(1, (2,), "|b1")).dtype, "bool")
        # bfloat16 has no typestr: unknown dtype, left to the size check
        self.assertIsNone(_buffers.device_buffer("v", FakeCai(1, (2,), "<V2")).dtype)

    def test_contiguous_strides_pass_others_are_refused(self):
        _buffers.device_buffer("x", FakeCai(1, (3, 5), "<f4", strides=(20, 4)))
        with self.assertRaisesRegex(ValueError, "buffer 'x' is not C-contiguous"):
            _buffers.device_buffer("x", FakeCai(1, (3, 5), "<f4", strides=(4, 12)))

    def test_dlpack_capsule_is_read_without_being_consumed(self):
        shape = (ctypes.c_int64 * 2)(7, 4)
        tensor = _buffers._DLTensor(data=0x10000, device=_buffers._DLDevice(2, 0), ndim=2,
                                    dtype=_buffers._DLDataType(4, 16, 1), shape=shape, strides=None, byte_offset=32)
        new_capsule = ctypes.pythonapi.PyCapsule_New
        new_capsule.restype = ctypes.py_object
        new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        capsule = new_capsule(ctypes.addressof(tensor), b"dltensor", None)

        class Producer:
            def __dlpack__(self, stream=None):
                self.stream = stream
                return capsule

        p = Producer()
        b = _buffers.device_buffer("x", p, stream=0x1234)
        self.assertEqual((b.ptr, b.nbytes, b.dtype, b.shape, b.device), (0x10020, 56, "bf16", (7, 4), 0))
        self.assertEqual(p.stream, 0x1234)
        tensor.device = _buffers._DLDevice(1, 0)  # kDLCPU
        with self.assertRaisesRegex(ValueError, "buffer 'x' is not CUDA device memory"):
            _buffers.device_buffer("x", p)

    def test_anything_else_is_a_type_error_naming_the_buffer(self):
        with self.assertRaisesRegex(TypeError, "buffer 'a' is a list: pass a torch tensor"):
            _buffers.device_buffer("a", [1.0, 2.0])

    def test_streams(self):
        self.assertEqual(_buffers.stream_handle(None), 0)
        self.assertEqual(_buffers.stream_handle(77), 77)

        class TorchStream:
            cuda_stream = 0xabc

        self.assertEqual(_buffers.stream_handle(TorchStream()), 0xabc)
        with self.assertRaisesRegex(TypeError, "stream must be"):
            _buffers.stream_handle("default")


class DimsFromShapes(unittest.TestCase):
    DOC = {"dims": {"n": "", "k": ""},
           "args": [{"name": "pred", "shape": ["n", 4]}, {"name": "w", "shape": ["k"]},
                    {"name": "flat", "shape": ["n", "k"]}, {"name": "s", "role": "scalar"}]}

    def buf(self, *shape):
        return _buffers.Buffer(16, 4, "f32", shape, 0, None)

    def test_named_dims_are_read_and_given_ones_win(self):
        self.assertEqual(_buffers.infer_dims(self.DOC, {"pred": self.buf(1009, 4), "w": self.buf(3)}, {}),
                         {"n": 1009, "k": 3})
        self.assertEqual(_buffers.infer_dims(self.DOC, {"pred": self.buf(1009, 4)}, {"n": 5, "k": 2}),
                         {"n": 5, "k": 2})

    def test_disagreeing_buffers_are_named(self):
        with self.assertRaisesRegex(ValueError, "dim 'n' is 10 by buffer 'pred' but 11 by buffer 'flat'"):
            _buffers.infer_dims(self.DOC, {"pred": self.buf(10, 4), "flat": self.buf(11, 3)}, {})

    def test_a_dim_no_shape_names_must_be_given(self):
        with self.assertRaisesRegex(ValueError, r"dims \['k'\] of the task cannot be read"):
            _buffers.infer_dims(self.DOC, {"pred": self.buf(10, 4)}, {})
        # a flattened buffer says nothing about its dims
        with self.assertRaisesRegex(ValueError, "cannot be read"):
            _buffers.infer_dims(self.DOC, {"flat": self.buf(40)}, {})


class LaunchWithoutADevice(unittest.TestCase):
    def test_launch_args_reject_unknown_dtypes(self):
        args = kbench.capi.kb_launch_args_create()
        try:
            with self.assertRaisesRegex(kbench.KbenchError, "buffer 'a': unknown dtype 'float'"):
                kbench.capi.kb_launch_args_set_buffer(args, "a", 16, 4, "float")
            kbench.capi.kb_launch_args_set_buffer(args, "a", 16, 4, None)
        finally:
            kbench.capi.kb_launch_args_destroy(args)
        kbench.capi.kb_launch_args_destroy(None)

    def test_a_compile_only_context_cannot_launch(self):
        with kbench.Context(device=kbench.DEVICE_NONE) as ctx, kbench.Task(VECTOR_ADD / "task.json") as task:
            kernel = ctx.compile(task, path=VECTOR_ADD / "candidates" / "correct.cu")
            a = FakeCai(0x10000, (1009,))
            with self.assertRaises(kbench.KbenchError) as e:
                ctx.launch(task, kernel, a=a, b=a, c=a)
            self.assertEqual(e.exception.status, kbench.Status.NO_DEVICE)


if __name__ == "__main__":
    unittest.main()
