package kbench_test

// The batch API on a machine without a GPU: compile-only jobs go through the
// same queue, threads and bookkeeping as scored ones.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"kbench"
)

// salt makes every run's sources new: no disk-cache hits.
var salt = time.Now().UnixNano()

func variant(i int) string {
	return fmt.Sprintf("// variant %d.%d\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"+
		"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n", salt, i)
}

func TestBatchReportsEveryJobOnce(t *testing.T) {
	ctx, task := compileOnly(t)
	b, err := ctx.NewBatch(kbench.BatchOptions{Capacity: 16, CompileThreads: 1})
	if err != nil {
		t.Fatalf("NewBatch: %v", err)
	}
	defer b.Close()
	opts := kbench.ScoreOptions{CompileOnly: true}
	var ids []uint64
	for i := 0; i < 6; i++ {
		id, err := b.Submit(task, kbench.Candidate{Code: []byte(variant(i)), Language: kbench.LanguageCUDA}, opts, uint64(i), -1)
		if err != nil {
			t.Fatalf("Submit: %v", err)
		}
		ids = append(ids, id)
	}
	if _, err := b.Submit(task, kbench.Candidate{Code: []byte("__global__ void vector_add() { x = ; }")}, opts, 99, -1); err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if !b.Cancel(ids[5]) {
		t.Errorf("Cancel of a queued job: false")
	}
	seen := map[uint64]bool{}
	for j := range b.Results() {
		if seen[j.ID] {
			t.Fatalf("job %d reported twice", j.ID)
		}
		seen[j.ID] = true
		switch {
		case j.Tag == 5:
			if !errors.Is(j.Err, kbench.StatusCancelled) {
				t.Errorf("cancelled job: %v", j.Err)
			}
		case j.Err != nil:
			t.Errorf("job %d: %v", j.Tag, j.Err)
		case j.Tag == 99:
			if j.Result.Verdict() != kbench.VerdictCompileError {
				t.Errorf("broken job: %v", j.Result.Verdict())
			}
		default:
			if j.Result.Verdict() != kbench.VerdictNone {
				t.Errorf("job %d: %v %s", j.Tag, j.Result.Verdict(), j.Result.Message())
			}
		}
		if j.Result != nil {
			j.Result.Close()
		}
	}
	if len(seen) != 7 {
		t.Errorf("%d jobs reported, want 7", len(seen))
	}
	if j, err := b.Next(10 * time.Millisecond); j != nil || err != nil {
		t.Errorf("idle batch: %v %v", j, err)
	}
	b.Close()
	if _, err := b.Submit(task, kbench.Candidate{Code: []byte(variant(9))}, opts, 0, 0); !errors.Is(err, kbench.ErrClosed) {
		t.Errorf("Submit on a closed batch: %v", err)
	}
}
