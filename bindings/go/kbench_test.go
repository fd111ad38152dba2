package kbench_test

// The Go binding on a machine without a GPU: a compile-only context loads a
// task, compiles a candidate, and reports failures as *kbench.Error.
// CTest sets KBENCH_SOURCE_DIR to the repository (for tasks/).

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"kbench"
)

func sourceDir() string {
	if d := os.Getenv("KBENCH_SOURCE_DIR"); d != "" {
		return d
	}
	return "../.."
}

var (
	taskPath      = filepath.Join(sourceDir(), "tasks", "elementwise", "vector_add_f32", "task.json")
	candidatePath = filepath.Join(sourceDir(), "tasks", "elementwise", "vector_add_f32", "candidates", "correct.cu")
)

func compileOnly(t *testing.T) (*kbench.Context, *kbench.Task) {
	t.Helper()
	ctx, err := kbench.NewContext(kbench.ContextOptions{Device: kbench.DeviceNone})
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { ctx.Close() })
	task, err := kbench.LoadTask(taskPath)
	if err != nil {
		t.Fatalf("LoadTask: %v", err)
	}
	t.Cleanup(func() { task.Close() })
	return ctx, task
}

func TestTaskFacts(t *testing.T) {
	_, task := compileOnly(t)
	if got := task.Name(); got != "vector_add_f32" {
		t.Errorf("Name() = %q", got)
	}
	want := []string{"one", "prime", "not_a_block_multiple", "perf"}
	if got := task.Cases(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Cases() = %v, want %v", got, want)
	}
	if i, ok := task.FindCase("perf"); !ok || i != task.PerfCase() {
		t.Errorf("FindCase(perf) = %d, %v; PerfCase() = %d", i, ok, task.PerfCase())
	}
	if _, ok := task.FindCase("no_such_case"); ok {
		t.Error("FindCase found a case that does not exist")
	}
	var doc struct{ Name string }
	if err := json.Unmarshal([]byte(task.JSON()), &doc); err != nil || doc.Name != "vector_add_f32" {
		t.Errorf("JSON() name = %q, err %v", doc.Name, err)
	}
}

// kernelFacts is the part of kb_kernel_json the tests check.
type kernelFacts struct {
	Image   string            `json:"image"`
	Symbols map[string]string `json:"symbols"`
	Entries []string          `json:"entries"`
}

func checkKernel(t *testing.T, k *kbench.Kernel) {
	t.Helper()
	var facts kernelFacts
	if err := json.Unmarshal([]byte(k.JSON()), &facts); err != nil {
		t.Fatalf("kernel JSON: %v\n%s", err, k.JSON())
	}
	if facts.Image != "ptx" {
		t.Errorf("image = %q, want ptx (compile-only context)", facts.Image)
	}
	entry := facts.Symbols["vector_add"]
	if entry == "" || len(facts.Entries) != 1 || facts.Entries[0] != entry {
		t.Errorf("symbols %v, entries %v: want vector_add's entry point", facts.Symbols, facts.Entries)
	}
	image, err := k.Image()
	if err != nil || !strings.Contains(string(image), ".entry "+entry) {
		t.Errorf("Image() (err %v) does not hold the PTX of %s", err, entry)
	}
}

func TestCompileFile(t *testing.T) {
	ctx, task := compileOnly(t)
	k, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Close()
	checkKernel(t, k)
}

func TestCompileCode(t *testing.T) {
	ctx, task := compileOnly(t)
	code, err := os.ReadFile(candidatePath)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ctx.Compile(task, kbench.Candidate{Code: code, Language: kbench.LanguageCUDA, Label: "inline"})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	defer k.Close()
	checkKernel(t, k)
}

func TestCompileErrorCarriesTheLog(t *testing.T) {
	ctx, task := compileOnly(t)
	_, err := ctx.Compile(task, kbench.Candidate{Code: []byte("__global__ void vector_add(float* c) { oops }")})
	var e *kbench.Error
	if !errors.As(err, &e) || e.Status != kbench.StatusCompile {
		t.Fatalf("err = %v, want an *Error with StatusCompile", err)
	}
	if !errors.Is(err, kbench.StatusCompile) || !strings.Contains(e.Detail, "oops") {
		t.Errorf("errors.Is(StatusCompile) = %v; detail lacks the log: %q", errors.Is(err, kbench.StatusCompile), e.Detail)
	}
}

func TestBadTaskNamesTheJSONPath(t *testing.T) {
	text, err := os.ReadFile(taskPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	doc["args"].([]any)[0].(map[string]any)["dtype"] = "f33"
	doc["reference"].(map[string]any)["source_file"] = filepath.Join(filepath.Dir(taskPath), "reference.cu")
	bad, _ := json.Marshal(doc)
	task, err := kbench.LoadTask(string(bad))
	if task != nil {
		task.Close()
	}
	if !errors.Is(err, kbench.StatusTaskInvalid) {
		t.Fatalf("err = %v, want StatusTaskInvalid", err)
	}
	if !strings.Contains(err.Error(), "args[0].dtype") {
		t.Errorf("error does not name the JSON path args[0].dtype: %v", err)
	}
}

func TestRunningNeedsADevice(t *testing.T) {
	ctx, task := compileOnly(t)
	r, err := ctx.RunReference(task, 0, 0)
	if r != nil {
		r.Close()
	}
	if !errors.Is(err, kbench.StatusNoDevice) {
		t.Errorf("RunReference in a compile-only context: err = %v, want StatusNoDevice", err)
	}
}

func TestDeviceContextWithoutDevice(t *testing.T) {
	if n, _ := kbench.DeviceCount(); n > 0 {
		t.Skip("a CUDA device is present")
	}
	_, err := kbench.NewContext(kbench.ContextOptions{Device: 0})
	if !errors.Is(err, kbench.StatusNoDevice) {
		t.Errorf("NewContext(device 0) without a device: err = %v, want StatusNoDevice", err)
	}
}

// Errors are captured in the failing C call, so they stay right when many
// goroutines fail at once on different OS threads.
func TestConcurrentCompilesAndErrors(t *testing.T) {
	ctx, task := compileOnly(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%2 == 0 {
				k, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath})
				if err != nil {
					t.Errorf("Compile: %v", err)
					return
				}
				k.Close()
				return
			}
			_, err := ctx.Compile(task, kbench.Candidate{Path: "/no/such/file.cu"})
			if !errors.Is(err, kbench.StatusIO) || !strings.Contains(err.Error(), "/no/such/file.cu") {
				t.Errorf("Compile of a missing file: err = %v, want StatusIO naming the file", err)
			}
		}(i)
	}
	wg.Wait()
}

func TestClosedHandles(t *testing.T) {
	ctx, task := compileOnly(t)
	k, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath})
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	k.Close() // idempotent
	if _, err := k.Image(); !errors.Is(err, kbench.ErrClosed) {
		t.Errorf("Image() of a closed kernel: err = %v", err)
	}
	ctx.Close()
	if _, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath}); !errors.Is(err, kbench.ErrClosed) {
		t.Errorf("Compile on a closed context: err = %v", err)
	}
}

// Handles left to the garbage collector are freed by finalizers; a double
// free here would crash the test binary.
func TestFinalizers(t *testing.T) {
	ctx, task := compileOnly(t)
	for i := 0; i < 4; i++ {
		if _, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
}

func TestScoreOnGPU(t *testing.T) {
	if n, _ := kbench.DeviceCount(); n == 0 {
		t.Skip("no CUDA device")
	}
	ctx, err := kbench.NewContext(kbench.ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	task, err := kbench.LoadTask(taskPath)
	if err != nil {
		t.Fatal(err)
	}
	defer task.Close()
	for name, want := range map[string]kbench.Verdict{"correct.cu": kbench.VerdictPass, "wrong.cu": kbench.VerdictWrongAnswer} {
		r, err := ctx.Score(task, kbench.Candidate{Path: filepath.Join(filepath.Dir(candidatePath), name)}, kbench.ScoreOptions{})
		if err != nil {
			t.Fatalf("Score(%s): %v", name, err)
		}
		if r.Verdict() != want {
			t.Errorf("Score(%s) = %v: %s; want %v", name, r.Verdict(), r.Message(), want)
		}
		if speedup, err := r.Number("/speedup"); want == kbench.VerdictPass && (err != nil || !(speedup > 0)) {
			t.Errorf("Score(%s): /speedup = %v, %v", name, speedup, err)
		}
		r.Close()
	}
}

func TestVersion(t *testing.T) {
	if v := kbench.Version(); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("Version() = %q", v)
	}
}
