package kbench

import (
	"runtime"

	"kbench/internal/capi"
)

// Result is what Score, Compare, Time or RunReference learnt: a JSON
// document with typed accessors. Read it from one goroutine at a time.
type Result struct {
	ptr capi.Struct_SS_kb_result // nil once closed
}

func newResult(p capi.Struct_SS_kb_result) *Result {
	r := &Result{ptr: p}
	runtime.SetFinalizer(r, (*Result).Close)
	return r
}

// Close frees the result. It is safe to call more than once.
func (r *Result) Close() error {
	if r.ptr != nil {
		capi.Kb_result_destroy(r.ptr)
		r.ptr = nil
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

// Verdict says what happened; VerdictNone for RunReference and Time results.
func (r *Result) Verdict() Verdict {
	defer runtime.KeepAlive(r)
	return Verdict(capi.Kb_result_verdict(r.ptr))
}

// Message is one line a model or a person can act on.
func (r *Result) Message() string {
	defer runtime.KeepAlive(r)
	return capi.Kb_result_message(r.ptr)
}

// JSON is the whole result: per-case reports, timing, compile log.
func (r *Result) JSON() string {
	defer runtime.KeepAlive(r)
	return capi.Kb_result_json(r.ptr)
}

// Number reads a number by JSON pointer, e.g. "/speedup". Booleans read as
// 0 or 1, "nan"/"inf" as floats; StatusNotFound if absent.
func (r *Result) Number(pointer string) (float64, error) {
	defer runtime.KeepAlive(r)
	if r.ptr == nil {
		return 0, ErrClosed
	}
	var v float64
	if err := capi.Kb_result_get_number(r.ptr, pointer, &v); err != nil {
		return 0, fromC(err)
	}
	return v, nil
}

// Text reads a string by JSON pointer; StatusNotFound if absent.
func (r *Result) Text(pointer string) (string, error) {
	defer runtime.KeepAlive(r)
	if r.ptr == nil {
		return "", ErrClosed
	}
	var v string
	if err := capi.Kb_result_get_string(r.ptr, pointer, &v); err != nil {
		return "", fromC(err)
	}
	return v, nil
}
