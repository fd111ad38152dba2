package kbench

import (
	"errors"

	"kbench/internal/capi"
)

// Status is what a kbench call did (kb_status). Values match include/kbench.h,
// which never renumbers them; TestStatusValues checks that they agree.
type Status int

const (
	StatusOK                 Status = 0
	StatusInvalidArgument    Status = 1
	StatusUnsupportedVersion Status = 2
	StatusIO                 Status = 3
	StatusTaskInvalid        Status = 4 // the detail names the JSON path
	StatusCompile            Status = 5 // the detail holds the compiler log
	StatusNoDevice           Status = 6
	StatusCUDA               Status = 7
	StatusOutOfMemory        Status = 8
	StatusReferenceFailed    Status = 9
	StatusContextLost        Status = 10
	StatusWorker             Status = 11
	StatusNotFound           Status = 12
	StatusInternal           Status = 13
	StatusTimeout            Status = 14 // a batch call waited its timeout
	StatusCancelled          Status = 15 // a batch job was cancelled before it ran
)

// String is the status's English name, e.g. "task invalid".
func (s Status) String() string { return capi.Kb_status_string(capi.Enum_SS_kb_status(s)) }

// Error makes a Status usable as the target of errors.Is:
// errors.Is(err, kbench.StatusNoDevice).
func (s Status) Error() string { return "kbench: " + s.String() }

// Error is a kbench call that failed.
type Error struct {
	Status Status
	// Detail is the library's explanation: the JSON path of a bad task field,
	// the compiler log, a CUDA error name.
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "kbench: " + e.Status.String()
	}
	return "kbench: " + e.Status.String() + ": " + e.Detail
}

// Is reports whether target is e's Status.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// fromC turns the raw binding's error (status and detail, captured in the
// failing C call itself) into an *Error.
func fromC(err error) error {
	var c *capi.Error
	if errors.As(err, &c) {
		return &Error{Status: Status(c.Status), Detail: c.Detail}
	}
	return err
}

// ErrClosed is returned by the verbs of a Context, Task, Kernel or Result
// that was closed.
var ErrClosed = errors.New("kbench: use of a closed handle")
