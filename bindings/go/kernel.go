package kbench

import (
	"runtime"

	"kbench/internal/capi"
)

// Kernel is a compiled kernel plus its launch plan, made by Context.Compile
// or Context.CompileTaskProgram. It is immutable and may be shared between
// goroutines until Close.
type Kernel struct {
	ptr capi.Struct_SS_kb_kernel // nil once closed
}

func newKernel(p capi.Struct_SS_kb_kernel) *Kernel {
	k := &Kernel{ptr: p}
	runtime.SetFinalizer(k, (*Kernel).Close)
	return k
}

// Close frees the kernel. It is safe to call more than once.
func (k *Kernel) Close() error {
	if k.ptr != nil {
		capi.Kb_kernel_destroy(k.ptr)
		k.ptr = nil
		runtime.SetFinalizer(k, nil)
	}
	return nil
}

// Log is the compiler's full log (may be empty).
func (k *Kernel) Log() string {
	defer runtime.KeepAlive(k)
	return capi.Kb_kernel_log(k.ptr)
}

// Image is a copy of the compiled image: cubin bytes, or PTX text.
func (k *Kernel) Image() ([]byte, error) {
	defer runtime.KeepAlive(k)
	if k.ptr == nil {
		return nil, ErrClosed
	}
	var image []byte
	if err := capi.Kb_kernel_image(k.ptr, &image); err != nil {
		return nil, fromC(err)
	}
	return image, nil
}

// JSON holds the compile facts: path (nvrtc/nvcc/given), compile_ms,
// cache_hit, image kind, architecture, entry points, launch plan.
func (k *Kernel) JSON() string {
	defer runtime.KeepAlive(k)
	return capi.Kb_kernel_json(k.ptr)
}
