"""A kernel candidate (CUDA or Triton) against a KernelBench problem.

kbench scores a plain kernel against a PyTorch reference by running it as a
program candidate (docs/programs.md, "Kernel candidates against a Python
reference"): the candidate worker builds the ModelNew below from the table
kbench made of the candidate's launch plan (src/engine/kernel_program.cpp).
forward() takes the problem's input tensors, allocates the outputs and the
plan's scratch buffers, launches the candidate's kernels exactly as the
table says for the case, and returns the outputs. Every grid, block, shared
memory size and scalar was evaluated by kbench; this file does no arithmetic
of its own, so the task's expressions have one meaning.

CUDA images (cubin or PTX, compiled by kbench) are loaded with the driver
API and launched with cuLaunchKernel on torch's current stream; Triton
kernels are launched through Triton's own JIT (kernel[grid](...)), which
compiles them in this worker like any Triton program candidate's.
"""

import ctypes

import kbench_problem as kp

CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
STATIC_SHARED_LIMIT = 48 * 1024  # above it a kernel must opt in to dynamic shared memory

_INT_CTYPES = {
    "i8": ctypes.c_int8, "u8": ctypes.c_uint8, "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
    "bool": ctypes.c_bool,
}
_FLOAT_CTYPES = {"f32": ctypes.c_float, "f64": ctypes.c_double}


class KernelError(RuntimeError):
    """The candidate's kernel could not be launched as the table says."""


def _cuda_error(lib, rc):
    name = ctypes.c_char_p()
    try:
        lib.cuGetErrorName(ctypes.c_int(rc), ctypes.byref(name))
    except Exception:
        pass
    return "%s (%d)" % (name.value.decode() if name.value else "CUDA error", rc)


def scalar_ctype(dtype, value, torch=None):
    """A scalar kernel argument as the C type the kernel's parameter has;
    f16 and bf16 travel as their 16 bits."""
    if dtype in _INT_CTYPES:
        return _INT_CTYPES[dtype](int(value))
    if dtype in _FLOAT_CTYPES:
        return _FLOAT_CTYPES[dtype](float(value))
    if dtype in ("f16", "bf16"):
        tdt = torch.float16 if dtype == "f16" else torch.bfloat16
        bits = torch.tensor([float(value)], dtype=tdt).view(torch.int16).item() & 0xFFFF
        return ctypes.c_uint16(bits)
    raise KernelError("a scalar of dtype %s cannot be passed to a kernel" % dtype)


def scalar_python(dtype, value):
    """A scalar for Triton's launcher, which infers the type from the value."""
    if dtype == "bool":
        return bool(value)
    if dtype in ("f16", "bf16", "f32", "f64"):
        return float(value)
    return int(value)


class CudaImage:
    """A compiled image loaded into the current context, functions resolved
    on first use."""

    def __init__(self, libcuda, image, kind):
        self.lib = libcuda
        self.module = ctypes.c_void_p()
        self.functions = {}
        self.opted_in = set()
        data = ctypes.create_string_buffer(image)  # NUL-terminated: PTX text needs it
        rc = self.lib.cuModuleLoadData(ctypes.byref(self.module), data)
        if rc != 0:
            raise KernelError("the driver refused the candidate's %s image: %s" % (kind, _cuda_error(self.lib, rc)))

    def function(self, name):
        f = self.functions.get(name)
        if f is None:
            f = ctypes.c_void_p()
            rc = self.lib.cuModuleGetFunction(ctypes.byref(f), self.module, name.encode())
            if rc != 0:
                raise KernelError("the candidate's image has no kernel '%s': %s" % (name, _cuda_error(self.lib, rc)))
            self.functions[name] = f
        return f

    def launch(self, step, params, stream):
        f = self.function(step["function"])
        shared = int(step.get("shared_mem", 0))
        if shared > STATIC_SHARED_LIMIT and step["function"] not in self.opted_in:
            rc = self.lib.cuFuncSetAttribute(f, ctypes.c_int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
                                             ctypes.c_int(shared))
            if rc != 0:
                raise KernelError("kernel '%s' cannot have %d bytes of dynamic shared memory: %s"
                                  % (step["kernel"], shared, _cuda_error(self.lib, rc)))
            self.opted_in.add(step["function"])
        g, b = step["grid"], step["block"]
        arr = (ctypes.c_void_p * max(len(params), 1))(*[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p)
                                                         for p in params])
        rc = self.lib.cuLaunchKernel(f, ctypes.c_uint(g[0]), ctypes.c_uint(g[1]), ctypes.c_uint(g[2]),
                                     ctypes.c_uint(b[0]), ctypes.c_uint(b[1]), ctypes.c_uint(b[2]),
                                     ctypes.c_uint(shared), ctypes.c_void_p(stream), arr, None)
        if rc != 0:
            raise KernelError("launching kernel '%s' (grid %s, block %s, %d bytes shared) failed: %s"
                              % (step["kernel"], g, b, shared, _cuda_error(self.lib, rc)))

    def unload(self):
        if self.module:
            try:
                self.lib.cuModuleUnload(self.module)
            except Exception:
                pass
            self.module = ctypes.c_void_p()


class KernelModel:
    """ModelNew of a kernel candidate at one case of the task."""

    def __init__(self, table, case, module, image_loader, torch, device):
        cases = table["cases"]
        if not 0 <= case < len(cases):
            raise KernelError("kbench's launch table has no case %d" % case)
        self.table = table
        self.case = cases[case]
        self.module = module          # the Triton candidate's module
        self.image_loader = image_loader  # -> CudaImage, loaded once per candidate
        self.torch = torch
        self.device = device

    def __call__(self, *inputs):
        return self.forward(*inputs)

    def _tensor(self, name):
        b = self.case["buffers"][name]
        return b["shape"], kp.torch_dtype(b["dtype"])

    def forward(self, *inputs):
        torch = self.torch
        tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
        declared = self.table["inputs"]
        if len(tensors) != len(declared):
            raise KernelError("the problem gave %d input tensors; the task's args declare %d in/inout buffers (%s)"
                              % (len(tensors), len(declared), ", ".join(d["name"] for d in declared)))
        buffers = {}
        for d, x in zip(declared, tensors):
            shape, dtype = self._tensor(d["name"])
            count = 1
            for s in shape:
                count *= int(s)
            if x.dtype != dtype or x.numel() != count:
                raise KernelError("input '%s': the task declares %s of %d elements at case '%s', the problem gave "
                                  "%s of %d" % (d["name"], d["dtype"], count, self.case["name"], x.dtype, x.numel()))
            x = x.contiguous()
            # An inout buffer is written: the kernel gets a copy, so the
            # problem's input stays as it was (its checksum is checked).
            buffers[d["name"]] = x.clone() if d.get("role") == "inout" else x
        for o in self.table["outputs"]:
            if o["name"] not in buffers:
                shape, dtype = self._tensor(o["name"])
                buffers[o["name"]] = torch.empty(shape, dtype=dtype, device=self.device)
        for s in self.case.get("scratch", []):
            make = torch.zeros if s.get("zero") else torch.empty
            buffers[s["name"]] = make(s["shape"], dtype=kp.torch_dtype(s["dtype"]), device=self.device)
        for step in self.case["steps"]:
            if "zero" in step:
                buffers[step["zero"]].zero_()
            elif self.table["language"] == "triton":
                self._launch_triton(step, buffers)
            else:
                self._launch_cuda(step, buffers)
        outs = [buffers[o["name"]] for o in self.table["outputs"]]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _launch_cuda(self, step, buffers):
        torch = self.torch
        params = []
        for a in step["args"]:
            if "buffer" in a:
                params.append(ctypes.c_uint64(buffers[a["buffer"]].data_ptr()))
            else:
                params.append(scalar_ctype(a["dtype"], a["scalar"], torch))
        stream = torch.cuda.current_stream(self.device).cuda_stream
        self.image_loader().launch(step, params, stream)

    def _launch_triton(self, step, buffers):
        fn = getattr(self.module, step["kernel"], None)
        if fn is None or not hasattr(fn, "__getitem__"):
            raise KernelError("the candidate defines no Triton kernel '%s' (a @triton.jit function)" % step["kernel"])
        args = [buffers[a["buffer"]] if "buffer" in a else scalar_python(a["dtype"], a["scalar"])
                for a in step["args"]]
        options = {"num_warps": int(step.get("num_warps", 4)), "num_stages": int(step.get("num_stages", 3))}
        if int(step.get("num_ctas", 1)) != 1:
            options["num_ctas"] = int(step["num_ctas"])
        kwargs = dict(step.get("constexprs", {}))
        kwargs.update(options)
        fn[tuple(int(g) for g in step["grid"])](*args, **kwargs)


def declared_functions(table):
    """The kernel names the table launches (CUDA: the image's symbols, as
    CUPTI records them; Triton: the @triton.jit functions)."""
    names = []
    for c in table.get("cases", []):
        for s in c.get("steps", []):
            n = s.get("function") or s.get("kernel")
            if n and n not in names:
                names.append(n)
    return names
