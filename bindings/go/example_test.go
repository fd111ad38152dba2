package kbench_test

// The examples in bindings/README.md. Example runs in every `go test` and
// checks its output; ExampleContext_Score needs a GPU, so it is compiled
// but not run (TestScoreOnGPU runs the same calls where a device exists).

import (
	"encoding/json"
	"fmt"
	"log"

	"kbench"
)

// Compile a candidate without a GPU.
func Example() {
	ctx, err := kbench.NewContext(kbench.ContextOptions{Device: kbench.DeviceNone})
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	task, err := kbench.LoadTask(taskPath) // tasks/elementwise/vector_add_f32/task.json
	if err != nil {
		log.Fatal(err)
	}
	defer task.Close()
	kernel, err := ctx.Compile(task, kbench.Candidate{Path: candidatePath})
	if err != nil {
		log.Fatal(err) // an *kbench.Error; StatusCompile carries the log
	}
	defer kernel.Close()
	var facts struct {
		Image   string
		Entries []string
	}
	if err := json.Unmarshal([]byte(kernel.JSON()), &facts); err != nil {
		log.Fatal(err)
	}
	fmt.Println(task.Name(), facts.Image, facts.Entries)
	// Output: vector_add_f32 ptx [_Z10vector_addPKfS0_Pfi]
}

// Score a candidate on device 0: compile, check every case, time against
// the baseline.
func ExampleContext_Score() {
	ctx, err := kbench.NewContext(kbench.ContextOptions{})
	if err != nil {
		log.Fatal(err) // StatusNoDevice without a GPU
	}
	defer ctx.Close()
	task, err := kbench.LoadTask(taskPath)
	if err != nil {
		log.Fatal(err)
	}
	defer task.Close()
	result, err := ctx.Score(task, kbench.Candidate{Path: candidatePath}, kbench.ScoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer result.Close()
	speedup, _ := result.Number("/speedup")
	fmt.Printf("%v: %s (%.2fx)\n", result.Verdict(), result.Message(), speedup)
}
