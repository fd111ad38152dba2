"""kbench.Batch: many scores in flight on one context (kb_batch_*).

    with kbench.Context() as ctx, kbench.Task("task.json") as task, ctx.batch() as batch:
        futures = [batch.submit_future(task, code) for code in candidates]
        for fut in concurrent.futures.as_completed(futures):
            print(fut.result().verdict)

or, without futures, in completion order:

        for tag in range(len(candidates)):
            batch.submit(task, candidates[tag], tag=tag)
        for job in batch.results():
            print(job.tag, job.result().verdict)

Candidates compile on CPU threads ahead of the GPU; the GPU runs one job at a
time. Every submitted job completes exactly once: with a Result, or with the
KbenchError that stopped it (CANCELLED for a cancelled job).
"""
import concurrent.futures
import threading

from . import _options, capi
from ._handle import Handle
from .capi import KbenchError
from .result import Result


class Job:
    """One completed job: its id, the caller's tag, and its outcome."""

    def __init__(self, job_ptr):
        try:
            self.id = capi.kb_batch_job_id(job_ptr)
            self.tag = capi.kb_batch_job_tag(job_ptr)
            try:
                self._result, self._error = Result(capi.kb_batch_job_take_result(job_ptr)), None
            except KbenchError as e:
                self._result, self._error = None, e
        finally:
            capi.kb_batch_job_destroy(job_ptr)

    def result(self):
        """The Result, or raises the KbenchError that stopped the job."""
        if self._error is not None:
            raise self._error
        return self._result

    @property
    def error(self):
        return self._error

    def __repr__(self):
        what = self._error if self._error is not None else self._result
        return f"<kbench.Job {self.id} tag={self.tag}: {what!r}>"


class Batch(Handle):
    """A bounded queue of scores. Make one with Context.batch().

    Use either futures (submit() returns a concurrent.futures.Future; a
    collector thread completes them) or results() (an iterator over Jobs in
    completion order), not both on one batch: each job is delivered once.
    Thread-safe: several threads may submit at once."""

    _destroy = staticmethod(capi.kb_batch_destroy)

    def __init__(self, context, *, capacity=0, compile_threads=0, device_lanes=0):
        o = capi.kb_batch_options()
        o.capacity = int(capacity)
        o.compile_threads = int(compile_threads)
        o.device_lanes = int(device_lanes)
        self._context = context  # kept alive while the batch is
        super().__init__(capi.kb_batch_create(context._handle, o))
        self._lock = threading.Lock()
        self._futures = {}       # job id -> Future, for jobs submitted as futures
        self._collector = None
        self._mode = None        # "futures" or "results": one delivery path per batch

    def _use_mode(self, mode):
        with self._lock:
            if self._mode is None:
                self._mode = mode
            elif self._mode != mode:
                raise RuntimeError("this batch already delivers its jobs through "
                                   f"{self._mode}(); use one of submit_future/results per batch")

    def submit(self, task, code=None, *, path=None, language="auto", launch=None, metadata=None, label=None,
               tag=0, timeout=None, seed=0, correctness_runs=0, skip_timing=False, recheck=True,
               compile_only=False, **timing):
        """Queues one score with Context.score()'s arguments and returns its job
        id. Blocks while the batch is full, or up to `timeout` seconds (then
        KbenchError with status TIMEOUT). Collect the outcome with results()."""
        cand = _options.candidate(code, path, language, launch, metadata, label)
        opts = _options.score_options(task, seed, correctness_runs, skip_timing, recheck, compile_only, **timing)
        wait = -1.0 if timeout is None else float(timeout)
        return capi.kb_batch_submit(self._handle, task._handle, cand, opts, int(tag), wait)

    def submit_future(self, task, code=None, **kwargs):
        """Like submit(), but returns a concurrent.futures.Future whose result()
        is the Result (or raises the job's KbenchError)."""
        self._use_mode("futures")
        fut = concurrent.futures.Future()
        with self._lock:
            job_id = self.submit(task, code, **kwargs)
            self._futures[job_id] = fut
            if self._collector is None:
                self._collector = threading.Thread(target=self._collect, name="kbench-batch-collector", daemon=True)
                self._collector.start()
        return fut

    def _collect(self):
        while True:
            with self._lock:
                if self._ptr is None or not self._futures:
                    self._collector = None
                    return
                ptr = self._ptr
            try:
                job = Job(capi.kb_batch_next(ptr, 0.1))
            except KbenchError as e:
                if e.status in (capi.KB_ERR_TIMEOUT, capi.KB_ERR_NOT_FOUND):
                    continue
                raise
            with self._lock:
                fut = self._futures.pop(job.id, None)
            if fut is not None:
                if job.error is not None:
                    fut.set_exception(job.error)
                else:
                    fut.set_result(job.result())

    def next(self, timeout=None):
        """The next completed Job, or None when nothing is in flight. Waits up
        to `timeout` seconds (None: until one completes), then TimeoutError."""
        self._use_mode("results")
        wait = -1.0 if timeout is None else float(timeout)
        try:
            return Job(capi.kb_batch_next(self._handle, wait))
        except KbenchError as e:
            if e.status == capi.KB_ERR_NOT_FOUND:
                return None
            if e.status == capi.KB_ERR_TIMEOUT:
                raise TimeoutError(f"no job completed within {timeout} s") from e
            raise

    def results(self):
        """Iterates over completed Jobs until nothing is in flight."""
        while True:
            job = self.next()
            if job is None:
                return
            yield job

    def cancel(self, job_id):
        """Cancels a job not yet on the device; True if it will complete as CANCELLED."""
        try:
            capi.kb_batch_cancel(self._handle, int(job_id))
            return True
        except KbenchError as e:
            if e.status == capi.KB_ERR_NOT_FOUND:
                return False
            raise

    def cancel_all(self):
        """Cancels every job not yet on the device; returns how many."""
        return capi.kb_batch_cancel_all(self._handle)

    @property
    def in_flight(self):
        return capi.kb_batch_in_flight(self._handle)

    def close(self):
        """Cancels what has not started, waits for the jobs running, frees the
        batch. Futures not yet done are cancelled."""
        with self._lock:
            ptr, self._ptr = self._ptr, None
            pending, self._futures = self._futures, {}
            collector = self._collector
        if collector is not None and collector is not threading.current_thread():
            collector.join()
        if ptr is not None:
            capi.kb_batch_destroy(ptr)
        for fut in pending.values():
            fut.cancel()

    def __repr__(self):
        return "<kbench.Batch closed>" if self.closed else f"<kbench.Batch {self.in_flight} in flight>"
