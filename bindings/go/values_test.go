package kbench

// The Go constants restate include/kbench.h's values (so they can be Go
// constants); these tests catch any drift from the header.

import (
	"testing"

	"kbench/internal/capi"
)

func TestStatusValues(t *testing.T) {
	want := map[Status]capi.Enum_SS_kb_status{
		StatusOK: capi.KB_OK, StatusInvalidArgument: capi.KB_ERR_INVALID_ARGUMENT,
		StatusUnsupportedVersion: capi.KB_ERR_UNSUPPORTED_VERSION, StatusIO: capi.KB_ERR_IO,
		StatusTaskInvalid: capi.KB_ERR_TASK_INVALID, StatusCompile: capi.KB_ERR_COMPILE,
		StatusNoDevice: capi.KB_ERR_NO_DEVICE, StatusCUDA: capi.KB_ERR_CUDA,
		StatusOutOfMemory: capi.KB_ERR_OUT_OF_MEMORY, StatusReferenceFailed: capi.KB_ERR_REFERENCE_FAILED,
		StatusContextLost: capi.KB_ERR_CONTEXT_LOST, StatusWorker: capi.KB_ERR_WORKER,
		StatusNotFound: capi.KB_ERR_NOT_FOUND, StatusInternal: capi.KB_ERR_INTERNAL,
		StatusTimeout: capi.KB_ERR_TIMEOUT, StatusCancelled: capi.KB_ERR_CANCELLED,
	}
	for got, c := range want {
		if int(got) != int(c) {
			t.Errorf("%v = %d, header says %d", got, int(got), int(c))
		}
	}
}

func TestVerdictValues(t *testing.T) {
	want := map[Verdict]capi.Enum_SS_kb_verdict{
		VerdictNone: capi.KB_VERDICT_NONE, VerdictPass: capi.KB_VERDICT_PASS,
		VerdictCompileError: capi.KB_VERDICT_COMPILE_ERROR, VerdictLaunchError: capi.KB_VERDICT_LAUNCH_ERROR,
		VerdictRuntimeError: capi.KB_VERDICT_RUNTIME_ERROR, VerdictTimeout: capi.KB_VERDICT_TIMEOUT,
		VerdictWrongAnswer: capi.KB_VERDICT_WRONG_ANSWER, VerdictInputModified: capi.KB_VERDICT_INPUT_MODIFIED,
		VerdictOutputNotWritten: capi.KB_VERDICT_OUTPUT_NOT_WRITTEN,
		VerdictOutOfBoundsWrite: capi.KB_VERDICT_OUT_OF_BOUNDS_WRITE,
		VerdictNondeterministic: capi.KB_VERDICT_NONDETERMINISTIC,
		VerdictNoCode:           capi.KB_VERDICT_NO_CODE,
	}
	for got, c := range want {
		if int(got) != int(c) {
			t.Errorf("%v = %d, header says %d", got, int(got), int(c))
		}
	}
	if VerdictWrongAnswer.String() != "wrong_answer" {
		t.Errorf("VerdictWrongAnswer.String() = %q", VerdictWrongAnswer.String())
	}
	if VerdictNoCode.String() != "no_code" {
		t.Errorf("VerdictNoCode.String() = %q", VerdictNoCode.String())
	}
}

func TestOptionValues(t *testing.T) {
	pairs := [][2]int{
		{int(IsolationDefault), int(capi.KB_ISOLATION_DEFAULT)}, {int(IsolationInProcess), int(capi.KB_ISOLATION_IN_PROCESS)},
		{int(IsolationWorker), int(capi.KB_ISOLATION_WORKER)},
		{int(LanguageAuto), int(capi.KB_LANG_AUTO)}, {int(LanguageCUDA), int(capi.KB_LANG_CUDA)},
		{int(LanguagePTX), int(capi.KB_LANG_PTX)}, {int(LanguageCubin), int(capi.KB_LANG_CUBIN)},
		{int(LanguageTriton), int(capi.KB_LANG_TRITON)}, {int(LanguageTritonBinary), int(capi.KB_LANG_TRITON_BINARY)},
		{int(TimeCold), int(capi.KB_TIME_COLD)}, {int(TimeHot), int(capi.KB_TIME_HOT)},
		{int(RoleReference), int(capi.KB_ROLE_REFERENCE)}, {int(RoleBaseline), int(capi.KB_ROLE_BASELINE)},
		{DeviceNone, capi.KB_DEVICE_NONE},
	}
	for i, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("option constant #%d = %d, header says %d", i, p[0], p[1])
		}
	}
}
