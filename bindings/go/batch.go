package kbench

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"kbench/internal/capi"
)

// BatchOptions configure a Batch; 0 means the library's default.
type BatchOptions struct {
	Capacity       uint // jobs submitted and not yet collected (0: 64)
	CompileThreads uint // CPU threads compiling ahead of the GPU (0: the cores, at most 8)
	DeviceLanes    uint // jobs on the GPU at once, each in its own worker; timing has the GPU alone (0: 4)
}

// Batch is a bounded queue of scores on one context: candidates compile on
// CPU threads ahead of the GPU, which runs a few at a time (DeviceLanes), and jobs are
// collected as they complete, with Next or from the Results channel. Every
// method may be called from any goroutine. Close the batch before its context.
type Batch struct {
	ctx     *Context
	life    sync.RWMutex // calls hold it shared, Close exclusively
	ptr     capi.Struct_SS_kb_batch
	release func() // ends the batch's hold on its context
}

// Job is one completed score: its id, the caller's tag, and the Result, or
// the error that stopped it (StatusCancelled, StatusIO for an unreadable
// candidate file, ...).
type Job struct {
	ID, Tag uint64
	Result  *Result
	Err     error
}

// NewBatch makes a batch on c. The context stays in use until the batch is closed.
func (c *Context) NewBatch(opts BatchOptions) (*Batch, error) {
	p, leave, err := c.enter(false)
	if err != nil {
		return nil, err
	}
	o := capi.NewKb_batch_options()
	defer capi.DeleteKb_batch_options(o)
	o.SetCapacity(opts.Capacity)
	o.SetCompile_threads(opts.CompileThreads)
	o.SetDevice_lanes(opts.DeviceLanes)
	var bp capi.Struct_SS_kb_batch
	if err := capi.Kb_batch_create(p, o, &bp); err != nil {
		leave()
		return nil, fromC(err)
	}
	// The batch holds the context's shared lock until it closes: the
	// context cannot be freed under its threads.
	b := &Batch{ctx: c, ptr: bp, release: leave}
	runtime.SetFinalizer(b, (*Batch).Close)
	return b, nil
}

// seconds is the C API's timeout: negative waits without limit.
func seconds(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return d.Seconds()
}

// Submit queues one score and returns its job id. While the batch is full it
// waits up to timeout (negative: without limit), then fails with StatusTimeout.
func (b *Batch) Submit(task *Task, cand Candidate, opts ScoreOptions, tag uint64, timeout time.Duration) (uint64, error) {
	cc := cand.toC()
	defer capi.DeleteKb_candidate(cc)
	o, err := opts.toC(task)
	if err != nil {
		return 0, err
	}
	defer capi.DeleteKb_score_options(o)
	b.life.RLock()
	defer b.life.RUnlock()
	if b.ptr == nil {
		return 0, ErrClosed
	}
	defer runtime.KeepAlive(task)
	var id uint64
	if err := capi.Kb_batch_submit(b.ptr, task.ptr, cc, o, tag, seconds(timeout), &id); err != nil {
		return 0, fromC(err)
	}
	return id, nil
}

// Next returns the next completed job, waiting up to timeout (negative:
// until one completes; then StatusTimeout). It returns nil, nil when nothing
// is in flight.
func (b *Batch) Next(timeout time.Duration) (*Job, error) {
	b.life.RLock()
	defer b.life.RUnlock()
	if b.ptr == nil {
		return nil, ErrClosed
	}
	var jp capi.Struct_SS_kb_batch_job
	if err := capi.Kb_batch_next(b.ptr, seconds(timeout), &jp); err != nil {
		err = fromC(err)
		if errors.Is(err, StatusNotFound) {
			return nil, nil
		}
		return nil, err
	}
	defer capi.Kb_batch_job_destroy(jp)
	j := &Job{ID: capi.Kb_batch_job_id(jp), Tag: capi.Kb_batch_job_tag(jp)}
	var r capi.Struct_SS_kb_result
	if err := capi.Kb_batch_job_take_result(jp, &r); err != nil {
		j.Err = fromC(err)
	} else {
		j.Result = newResult(r)
	}
	return j, nil
}

// Results delivers completed jobs on a channel, closed when nothing is left
// in flight (or the batch is closed). Submit everything first, or keep
// submitting from another goroutine while at least one job is in flight.
func (b *Batch) Results() <-chan *Job {
	ch := make(chan *Job)
	go func() {
		defer close(ch)
		for {
			j, err := b.Next(-1)
			if err != nil || j == nil {
				return
			}
			ch <- j
		}
	}()
	return ch
}

// Cancel cancels a job not yet on the device; true if it completes with StatusCancelled.
func (b *Batch) Cancel(id uint64) bool {
	b.life.RLock()
	defer b.life.RUnlock()
	return b.ptr != nil && capi.Kb_batch_cancel(b.ptr, id) == nil
}

// CancelAll cancels every job not yet on the device and says how many.
func (b *Batch) CancelAll() (int, error) {
	b.life.RLock()
	defer b.life.RUnlock()
	if b.ptr == nil {
		return 0, ErrClosed
	}
	var n uint64
	if err := capi.Kb_batch_cancel_all(b.ptr, &n); err != nil {
		return 0, fromC(err)
	}
	return int(n), nil
}

// InFlight is the number of jobs submitted and not yet completed.
func (b *Batch) InFlight() int {
	b.life.RLock()
	defer b.life.RUnlock()
	if b.ptr == nil {
		return 0
	}
	return int(capi.Kb_batch_in_flight(b.ptr))
}

// Close cancels the jobs not yet on the device, waits for the running ones
// and frees the batch with its uncollected results. Safe to call more than once.
func (b *Batch) Close() error {
	b.life.Lock()
	defer b.life.Unlock()
	if b.ptr != nil {
		capi.Kb_batch_destroy(b.ptr)
		b.ptr = nil
		runtime.SetFinalizer(b, nil)
		if b.release != nil {
			b.release()
			b.release = nil
		}
	}
	return nil
}
