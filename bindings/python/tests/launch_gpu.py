"""Context.launch on a GPU: kernels compiled by kbench run on torch tensors
(and on the same memory seen through __cuda_array_interface__ and DLPack),
ordered on torch's streams, with no copies; the checks before a launch refuse
what would write where it must not. Exits 77 (skipped, for CTest) without a
CUDA device or without torch."""
import os
import pathlib
import sys

import kbench

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASKS = SOURCE_DIR / "tasks"
FAILURES = []


def check(cond, what):
    print(("ok: " if cond else "FAILED: ") + what)
    if not cond:
        FAILURES.append(what)


def expect_error(what, pattern, fn):
    try:
        fn()
    except (kbench.KbenchError, ValueError, TypeError) as e:
        check(pattern in str(e), "%s: %s" % (what, str(e).splitlines()[0][:200]))
        return
    check(False, what + ": no error")


class CaiOnly:
    """Only __cuda_array_interface__, as CuPy or Numba arrays expose it."""

    def __init__(self, t):
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DlpackOnly:
    """Only DLPack, as JAX arrays expose it."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def main():
    if kbench.device_count() == 0:
        print("no CUDA device: skipped")
        return 77
    try:
        import torch
    except ImportError:
        print("no torch: skipped")
        return 77
    dev = torch.device("cuda", 0)
    with kbench.Context(isolation="in_process") as ctx, \
            kbench.Task(TASKS / "elementwise" / "vector_add_f32" / "task.json") as task:
        k = ctx.compile(task, path=TASKS / "elementwise" / "vector_add_f32" / "candidates" / "correct.cu")
        for n in (1, 1009, 1 << 20):
            a, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
            c = torch.full((n,), float("nan"), device=dev)
            ctx.launch(task, k, a=a, b=b, c=c)  # n read from the shapes, torch's current stream
            check(torch.equal(c, a + b), "vector_add on torch tensors, n = %d" % n)

        # A side stream: the launch waits for the fill enqueued there before it.
        s = torch.cuda.Stream(device=dev)
        n = 1 << 22
        with torch.cuda.stream(s):
            a = torch.empty(n, device=dev).uniform_()
            b = torch.ones(n, device=dev)
            c = torch.zeros(n, device=dev)
            ctx.launch(task, k, {"a": a, "b": b, "c": c})
            d = c * 2  # enqueued on s after the launch: must see its output
        s.synchronize()
        check(torch.equal(d, (a + b) * 2), "ordered on a torch side stream")

        # The same memory through __cuda_array_interface__ and DLPack.
        a, b = torch.randn(4096, device=dev), torch.randn(4096, device=dev)
        c = torch.zeros(4096, device=dev)
        ctx.launch(task, k, a=CaiOnly(a), b=DlpackOnly(b), c=c, stream=torch.cuda.current_stream())
        torch.cuda.synchronize()
        check(torch.equal(c, a + b), "__cuda_array_interface__ and DLPack buffers")

        # The task's reference, compiled by kbench, is a kernel like any other.
        ref = ctx.compile_task_program(task, "reference")
        c.zero_()
        ctx.launch(task, ref, a=a, b=b, c=c)
        torch.cuda.synchronize()
        check(torch.equal(c, a + b), "the task's reference on torch tensors")

        # What would write where it must not is refused before any launch.
        small = torch.zeros(1000, device=dev)
        expect_error("an output too small for the dims", "the task's shape needs 4036",
                     lambda: ctx.launch(task, k, a=a[:1009].clone(), b=b[:1009].clone(), c=small, dims={"n": 1009}))
        expect_error("a CPU tensor", "CPU tensor", lambda: ctx.launch(task, k, a=a.cpu(), b=b, c=c))
        expect_error("a double tensor", "holds f64", lambda: ctx.launch(task, k, a=a.double(), b=b, c=c))
        expect_error("a misaligned view", "not a multiple of 16",
                     lambda: ctx.launch(task, k, a=a[1:], b=b[1:], c=c[1:]))
        expect_error("a strided view", "not contiguous", lambda: ctx.launch(task, k, a=a[::2], b=b[::2], c=c[::2]))
        expect_error("a missing buffer", "buffer 'c' (f32, out)", lambda: ctx.launch(task, k, a=a, b=b, dims={"n": 4096}))
        expect_error("a scalar passed as a buffer", "is a scalar argument",
                     lambda: ctx.launch(task, k, a=a, b=b, c=c, n=c))
        # a CuPy-style array whose claimed size runs past its allocation
        class Liar:
            __cuda_array_interface__ = {"data": (c.data_ptr(), False), "shape": (1 << 30,), "typestr": "<f4",
                                        "strides": None, "version": 3}
        expect_error("a size past the allocation", "run past the end of its allocation",
                     lambda: ctx.launch(task, k, a=Liar(), b=Liar(), c=Liar()))

    # A worker's device pointers are another process's.
    with kbench.Context(isolation="worker") as ctx, \
            kbench.Task(TASKS / "elementwise" / "vector_add_f32" / "task.json") as task:
        k = ctx.compile(task, path=TASKS / "elementwise" / "vector_add_f32" / "candidates" / "correct.cu")
        x = torch.zeros(16, device=dev)
        expect_error("a worker-isolated context", "KB_ISOLATION_IN_PROCESS", lambda: ctx.launch(task, k, a=x, b=x, c=x))

    # bf16 tensors on a bf16 task's reference.
    with kbench.Context(isolation="in_process") as ctx, \
            kbench.Task(TASKS / "elementwise" / "leaky_relu_bf16" / "task.json") as task:
        doc = task.json()
        ins = [a["name"] for a in doc["args"] if a.get("role") == "in"]
        outs = [a["name"] for a in doc["args"] if a.get("role") == "out"]
        ref = ctx.compile_task_program(task, "reference")
        x = torch.randn(1 << 16, device=dev, dtype=torch.bfloat16)
        y = torch.zeros_like(x)
        ctx.launch(task, ref, {ins[0]: x, outs[0]: y})
        torch.cuda.synchronize()
        want = torch.nn.functional.leaky_relu(x.float(), 0.01).bfloat16()
        check(torch.equal(y, want) or torch.allclose(y.float(), want.float(), atol=1e-2, rtol=1e-2),
              "bf16 reference on bf16 tensors")

    # A Triton kernel: launched at dims that specialise like a task case.
    triton_example = SOURCE_DIR / "examples" / "triton" / "vector_add" / "candidate.json"
    try:
        import triton  # noqa: F401
        have_triton = triton_example.exists()
    except ImportError:
        have_triton = False
    if have_triton:
        with kbench.Context(isolation="in_process") as ctx, \
                kbench.Task(TASKS / "elementwise" / "vector_add_f32" / "task.json") as task:
            k = ctx.compile(task, path=triton_example)
            for n in (1009, 1 << 20):
                a, b = torch.randn(n, device=dev), torch.randn(n, device=dev)
                c = torch.zeros(n, device=dev)
                try:
                    ctx.launch(task, k, a=a, b=b, c=c)
                    torch.cuda.synchronize()
                    check(torch.equal(c, a + b), "Triton vector_add on torch tensors, n = %d" % n)
                except kbench.KbenchError as e:
                    check("specialise like one of the task's cases" in str(e),
                          "Triton at n = %d refused for its specialisation: %s" % (n, str(e).splitlines()[0][:160]))
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
