// Package kbench is the Go binding of kbench, the trustworthy evaluator for
// GPU kernels: it compiles a candidate kernel, runs it against a task's
// reference, compares every output, times it against a baseline and returns
// a verdict.
//
//	ctx, err := kbench.NewContext(kbench.ContextOptions{Device: kbench.DeviceNone})
//	task, err := kbench.LoadTask("tasks/elementwise/vector_add_f32/task.json")
//	kernel, err := ctx.Compile(task, kbench.Candidate{Path: "candidate.cu"})
//
// Every type that holds a C handle has a Close method; call it (usually with
// defer). A finalizer frees handles that were never closed, as a safety net.
// Failing calls return an *Error with the Status and the library's detail.
//
// Threads: a Task, Kernel or Result may be read from any goroutine until it
// is closed. A Context's Compile may run on several goroutines at once; its
// other verbs take turns (the Context serialises them).
//
// The package is SWIG-generated underneath (internal/capi); building it needs
// swig, a C compiler and libkbench (see bindings/README.md).
package kbench

import "kbench/internal/capi"

// DeviceNone is the device ordinal of a compile-only context: it validates
// tasks and compiles (to PTX) on a machine without a GPU.
const DeviceNone = -1

// Version is the loaded library's version, "MAJOR.MINOR.PATCH".
func Version() string { return capi.Kb_version_string() }

// DeviceCount is the number of CUDA devices; 0 when there is no driver or device.
func DeviceCount() (int, error) {
	var n int32
	if err := capi.Kb_device_count(&n); err != nil {
		return 0, fromC(err)
	}
	return int(n), nil
}
