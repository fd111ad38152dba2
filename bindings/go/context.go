package kbench

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"kbench/internal/capi"
)

// Context is a device (or none), its worker, caches and options: where
// kernels are compiled and run.
//
// Compile may run on several goroutines at once, and beside the other verbs;
// those take turns, as the C API requires (one thread at a time, except
// kb_compile). Close waits for calls in flight.
type Context struct {
	life sync.RWMutex // calls hold it shared, Close exclusively
	run  sync.Mutex   // one non-compile verb at a time
	ptr  capi.Struct_SS_kb_context
}

// NewContext creates a context. A device that is not there gives an *Error
// with StatusNoDevice; ContextOptions{Device: DeviceNone} needs no GPU.
func NewContext(opts ContextOptions) (*Context, error) {
	o := opts.toC()
	defer capi.DeleteKb_context_options(o)
	var p capi.Struct_SS_kb_context
	if err := capi.Kb_context_create(o, &p); err != nil {
		return nil, fromC(err)
	}
	c := &Context{ptr: p}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// Close frees the context and stops its worker. It is safe to call more than once.
func (c *Context) Close() error {
	c.life.Lock()
	defer c.life.Unlock()
	if c.ptr != nil {
		capi.Kb_context_destroy(c.ptr)
		c.ptr = nil
		runtime.SetFinalizer(c, nil)
	}
	return nil
}

// enter marks a call in flight and returns the handle and the function that
// ends the call; exclusive calls also take their turn.
func (c *Context) enter(exclusive bool) (capi.Struct_SS_kb_context, func(), error) {
	c.life.RLock()
	if c.ptr == nil {
		c.life.RUnlock()
		return nil, nil, ErrClosed
	}
	if !exclusive {
		return c.ptr, c.life.RUnlock, nil
	}
	c.run.Lock()
	return c.ptr, func() { c.run.Unlock(); c.life.RUnlock() }, nil
}

// JSON describes the context: device, architecture, memory, L2 size,
// clocks, isolation, compiler versions.
func (c *Context) JSON() string {
	p, leave, err := c.enter(false)
	if err != nil {
		return "null"
	}
	defer leave()
	return capi.Kb_context_json(p)
}

// Compile compiles a candidate under the task's compile policy. Code that
// does not compile gives an *Error with StatusCompile and the log as Detail.
func (c *Context) Compile(task *Task, cand Candidate) (*Kernel, error) {
	cc := cand.toC()
	defer capi.DeleteKb_candidate(cc)
	p, leave, err := c.enter(false)
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	var k capi.Struct_SS_kb_kernel
	if err := capi.Kb_compile(p, task.ptr, cc, &k); err != nil {
		return nil, fromC(err)
	}
	return newKernel(k), nil
}

// Role picks a task's own program (kb_program_role).
type Role int

const (
	RoleReference Role = 0 // the correctness oracle
	RoleBaseline  Role = 1 // the speed yardstick
)

// CompileTaskProgram compiles the task's reference or baseline.
func (c *Context) CompileTaskProgram(task *Task, role Role) (*Kernel, error) {
	p, leave, err := c.enter(true) // only kb_compile may overlap other calls
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	var k capi.Struct_SS_kb_kernel
	if err := capi.Kb_compile_task_program(p, task.ptr, capi.Enum_SS_kb_program_role(role), &k); err != nil {
		return nil, fromC(err)
	}
	return newKernel(k), nil
}

// RunReference runs the task's reference on case caseIndex with inputs drawn
// from seed (0: the default) and reports statistics of every output.
func (c *Context) RunReference(task *Task, caseIndex int, seed uint64) (*Result, error) {
	p, leave, err := c.enter(true)
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	var r capi.Struct_SS_kb_result
	if err := capi.Kb_run_reference(p, task.ptr, caseIndex, seed, &r); err != nil {
		return nil, fromC(err)
	}
	return newResult(r), nil
}

// Compare runs kernel on case caseIndex with the inputs the reference saw and
// compares every output; the Result's Verdict says what happened.
func (c *Context) Compare(task *Task, kernel *Kernel, caseIndex int, seed uint64) (*Result, error) {
	p, leave, err := c.enter(true)
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	defer runtime.KeepAlive(kernel)
	var r capi.Struct_SS_kb_result
	if err := capi.Kb_compare(p, task.ptr, kernel.ptr, caseIndex, seed, &r); err != nil {
		return nil, fromC(err)
	}
	return newResult(r), nil
}

// Time times kernel (nil: the task's baseline alone) with the measurement
// protocol of docs/measurement.md.
func (c *Context) Time(task *Task, kernel *Kernel, opts TimeOptions) (*Result, error) {
	o := capi.NewKb_time_options()
	defer capi.DeleteKb_time_options(o)
	if err := opts.fill(o, task); err != nil {
		return nil, err
	}
	var kp capi.Struct_SS_kb_kernel
	if kernel != nil {
		kp = kernel.ptr
	}
	p, leave, err := c.enter(true)
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	defer runtime.KeepAlive(kernel)
	var r capi.Struct_SS_kb_result
	if err := capi.Kb_time(p, task.ptr, kp, o, &r); err != nil {
		return nil, fromC(err)
	}
	return newResult(r), nil
}

// Score compiles the candidate, checks every case, times it against the
// baseline and rechecks it on fresh inputs. A candidate that fails is not an
// error: the Result's Verdict and Message say why.
func (c *Context) Score(task *Task, cand Candidate, opts ScoreOptions) (*Result, error) {
	cc := cand.toC()
	defer capi.DeleteKb_candidate(cc)
	o, err := opts.toC(task)
	if err != nil {
		return nil, err
	}
	defer capi.DeleteKb_score_options(o)
	p, leave, err := c.enter(true)
	if err != nil {
		return nil, err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	var r capi.Struct_SS_kb_result
	if err := capi.Kb_score(p, task.ptr, cc, o, &r); err != nil {
		return nil, fromC(err)
	}
	return newResult(r), nil
}

// Buffer is device memory the caller owns (a CUdeviceptr of this process and
// its size in bytes), for Launch. Dtype ("f32", "bf16", ...) is checked
// against the task's argument when not empty.
type Buffer struct {
	Ptr   uint64
	Bytes uint64
	Dtype string
}

// Launch enqueues kernel's launch plan on the caller's device memory
// (kb_launch): every dim of the task and a Buffer for each buffer argument,
// ordered on stream (a CUstream as an integer; 0: the legacy default stream),
// without waiting. The memory must stay allocated until the kernels finish.
// Needs a context created with IsolationInProcess.
func (c *Context) Launch(task *Task, kernel *Kernel, dims map[string]int64, buffers map[string]Buffer, stream uint64) error {
	var args capi.Struct_SS_kb_launch_args
	if err := capi.Kb_launch_args_create(&args); err != nil {
		return fromC(err)
	}
	defer capi.Kb_launch_args_destroy(args)
	for name, v := range dims {
		if err := capi.Kb_launch_args_set_dim(args, name, v); err != nil {
			return fromC(err)
		}
	}
	for name, b := range buffers {
		if b.Bytes > math.MaxInt64 {
			return fmt.Errorf("kbench: buffer '%s': %d bytes is more than any device holds", name, b.Bytes)
		}
		if err := capi.Kb_launch_args_set_buffer(args, name, b.Ptr, int64(b.Bytes), b.Dtype); err != nil {
			return fromC(err)
		}
	}
	p, leave, err := c.enter(true)
	if err != nil {
		return err
	}
	defer leave()
	defer runtime.KeepAlive(task)
	defer runtime.KeepAlive(kernel)
	if err := capi.Kb_launch(p, task.ptr, kernel.ptr, args, stream); err != nil {
		return fromC(err)
	}
	return nil
}
