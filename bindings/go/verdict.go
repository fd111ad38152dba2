package kbench

import "kbench/internal/capi"

// Verdict is what happened to a candidate (kb_verdict). Values match
// include/kbench.h; TestVerdictValues checks that they agree.
type Verdict int

const (
	VerdictNone             Verdict = -1 // results of RunReference and Time
	VerdictPass             Verdict = 0
	VerdictCompileError     Verdict = 1
	VerdictLaunchError      Verdict = 2
	VerdictRuntimeError     Verdict = 3
	VerdictTimeout          Verdict = 4
	VerdictWrongAnswer      Verdict = 5
	VerdictInputModified    Verdict = 6
	VerdictOutputNotWritten Verdict = 7
	VerdictOutOfBoundsWrite Verdict = 8
	VerdictNondeterministic Verdict = 9
	VerdictNoCode           Verdict = 10 // a model's answer held no code to score (or only ambiguous code)
)

// String is the verdict's name as the result JSON has it, e.g. "wrong_answer".
func (v Verdict) String() string { return capi.Kb_verdict_string(capi.Enum_SS_kb_verdict(v)) }
