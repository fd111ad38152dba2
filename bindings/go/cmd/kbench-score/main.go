// Command kbench-score scores a candidate on device 0 through the Go binding:
// compile, check every case, time against the baseline, verdict. It is the
// score example as a program, built by bench/build_binding_binaries.sh and run
// on a GPU machine by bench/run_device.sh.
//
//	kbench-score TASK.json CANDIDATE.cu
//
// Exit status: 0 pass, 1 another verdict or an error, 2 usage, 77 no device.
package main

import (
	"fmt"
	"os"

	"kbench"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintf(os.Stderr, "usage: %s TASK.json CANDIDATE.cu\n", os.Args[0])
		os.Exit(2)
	}
	if n, err := kbench.DeviceCount(); err != nil || n == 0 {
		fmt.Println("no CUDA device: skipped")
		os.Exit(77)
	}
	ctx, err := kbench.NewContext(kbench.ContextOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ctx.Close()
	task, err := kbench.LoadTask(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer task.Close()
	result, err := ctx.Score(task, kbench.Candidate{Path: os.Args[2]}, kbench.ScoreOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer result.Close()
	speedup, _ := result.Number("/speedup")
	fmt.Printf("%v: %s (%.2fx)\n", result.Verdict(), result.Message(), speedup)
	if result.Verdict() != kbench.VerdictPass {
		os.Exit(1)
	}
}
