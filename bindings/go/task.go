package kbench

import (
	"runtime"

	"kbench/internal/capi"
)

// Task is a parsed, validated task: the contract a kernel must meet.
// It is immutable and may be shared between goroutines until Close.
type Task struct {
	ptr capi.Struct_SS_kb_task // nil once closed
}

// LoadTask parses and validates a task. source is a file path, or JSON text
// (its first non-space character is '{'). A malformed task gives an *Error
// with StatusTaskInvalid whose Detail names the JSON path of the bad field.
func LoadTask(source string) (*Task, error) {
	var p capi.Struct_SS_kb_task
	if err := capi.Kb_load_task(source, &p); err != nil {
		return nil, fromC(err)
	}
	t := &Task{ptr: p}
	runtime.SetFinalizer(t, (*Task).Close)
	return t, nil
}

// Close frees the task. It is safe to call more than once.
func (t *Task) Close() error {
	if t.ptr != nil {
		capi.Kb_task_destroy(t.ptr)
		t.ptr = nil
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

// The accessors below pass t.ptr to C; runtime.KeepAlive stops the finalizer
// from freeing the task while C still reads it. After Close they return
// zero values (the C API accepts NULL handles).

// Name is the task's name.
func (t *Task) Name() string {
	defer runtime.KeepAlive(t)
	return capi.Kb_task_name(t.ptr)
}

// Cases are the names of the task's cases, in index order.
func (t *Task) Cases() []string {
	defer runtime.KeepAlive(t)
	names := make([]string, capi.Kb_task_case_count(t.ptr))
	for i := range names {
		names[i] = capi.Kb_task_case_name(t.ptr, i)
	}
	return names
}

// PerfCase is the index of the case that is timed.
func (t *Task) PerfCase() int {
	defer runtime.KeepAlive(t)
	return capi.Kb_task_perf_case(t.ptr)
}

// FindCase is the index of the case with that name.
func (t *Task) FindCase(name string) (int, bool) {
	defer runtime.KeepAlive(t)
	i := capi.Kb_task_find_case(t.ptr, name)
	return i, i >= 0
}

// JSON is the normalised, self-contained task (sources inlined).
func (t *Task) JSON() string {
	defer runtime.KeepAlive(t)
	return capi.Kb_task_json(t.ptr)
}
