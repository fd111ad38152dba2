"""kbench on Ray: score many candidates over every GPU of a Ray cluster.

    import kbench.ray
    for line in kbench.ray.score_many(["tasks"], "answers.jsonl", address="auto"):
        print(line["task"], line["id"], line["verdict"])

or, from the shell (what `kbench run --ray ADDRESS` executes):

    python3 -m kbench.ray run --address auto --tasks tasks --candidates answers.jsonl --out results.jsonl

A pool of Ray actors, one kbench Context each: an actor asks Ray for one GPU
(num_gpus=1; Ray sets CUDA_VISIBLE_DEVICES, so its context is device 0), or,
in compile-only mode, for one CPU. Ray does all the scheduling; kbench only
keeps a bounded number of candidates in flight per actor and collects them
with ray.wait as they complete. An actor that dies (its process killed, its
node lost) takes the candidates it held with it: each goes to another actor,
up to `max_retries` times, and then comes back with verdict "error" and a
message saying so; a candidate is never lost.

Candidate lines are prepared by kbench's own code (`kbench extract
--candidates FILE --prepared`: the task resolved, the code extracted from a
raw answer by the same extractor as `kbench run`), on the driver; actors get
the code and the self-contained task, so the nodes need kbench's Python
package but not the task files. Result lines are those of `kbench run`
(docs/batch.md, "The results file").
"""
import argparse
import collections
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from . import _results

try:
    import ray as _ray
except ImportError:  # reported when the pool is used, not on import of kbench
    _ray = None

DEFAULT_MAX_RETRIES = 2
# Candidates an actor holds at once: what `kbench run` lets one GPU's batch
# hold (src/cli/cmd_run.cpp): room for every compile thread to work ahead of
# the device, max(4, 2 x 8 + 2, 4 + 8) = 18 with 8 compile threads and 4
# lanes, plus the passed candidates those lanes keep waiting to time (4 lanes
# x a backlog of 4). At 4 in flight a GPU actor scored 5.9 answers/s where
# `kbench run` scored 7.4 on the same H200 (`bench/run_bench.py --ray`);
# 16 leaves no room for the timing backlog, which crowds out the compiles
# ahead in `kbench run` too (16 of 18 places on two H200s,
# src/cli/cmd_run.cpp). On two H200s, 34 and 16
# gave the same rate (40.6 and 40.9 answers/s, scoring phases 9.8 and 10.0 s;
# `bench/run_bench.py --ray`): Ray's pool is not short of candidates.
DEFAULT_IN_FLIGHT_PER_ACTOR = 34


class RayUnavailable(RuntimeError):
    pass


def _need_ray():
    if _ray is None:
        raise RayUnavailable("kbench.ray needs Ray: pip install 'ray[default]' (or: pip install ray)")
    return _ray


# --- preparing candidates: kbench's extractor, through the CLI ------------------


def find_cli():
    """The kbench command-line tool: $KBENCH_CLI, the one installed in this
    package (the wheel), or `kbench` on PATH."""
    env = os.environ.get("KBENCH_CLI")
    if env:
        return env
    packaged = pathlib.Path(__file__).resolve().parent / "bin" / "kbench"
    if os.access(packaged, os.X_OK):
        return str(packaged)
    found = shutil.which("kbench")
    if found:
        return found
    raise FileNotFoundError("the kbench command-line tool was not found: set KBENCH_CLI to its path, "
                            "or put kbench on PATH (kbench.ray prepares candidates with `kbench extract`)")


class PrepareError(RuntimeError):
    """The candidates file has bad lines or cannot be read; the message lists them."""


class Preparation:
    """`kbench extract --candidates FILE --prepared`, started at once and
    read with result(), so that a run can connect to Ray meanwhile.

    candidates: a JSONL path, or an iterable of candidate dicts (written to a
    temporary file first)."""

    def __init__(self, tasks, candidates, *, language=None, include_reasoning=False, cli=None):
        self.started = time.monotonic()
        self.seconds = None  # the extraction's own duration, once it has ended
        self._tmp = None
        if isinstance(candidates, (str, os.PathLike)):
            path = os.fspath(candidates)
        else:
            self._tmp = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
            with self._tmp:
                for c in candidates:
                    self._tmp.write(json.dumps(c) + "\n")
            path = self._tmp.name
        cmd = [cli or find_cli(), "extract", "--candidates", path, "--prepared", "--json"]
        for t in tasks:
            cmd += ["--tasks", os.fspath(t)]
        if language:
            cmd += ["--language", language]
        if include_reasoning:
            cmd.append("--include-reasoning")
        try:
            self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except BaseException:
            self._unlink()
            raise
        self._out = self._err = ""
        # A thread drains the pipes (the output of a large file would fill
        # them) and notes when the extraction ended.
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        self._out, self._err = self._proc.communicate()
        self.seconds = time.monotonic() - self.started

    def _unlink(self):
        if self._tmp is not None:
            try:
                os.unlink(self._tmp.name)
            except OSError:
                pass
            self._tmp = None

    def failed_already(self):
        """True when the extraction has ended with an error (result() raises it)."""
        return self._proc.poll() not in (None, 0)

    def result(self):
        """Its items: one dict per candidate line, {"ready": bool, "result":
        {...}} plus, when ready, "task_path", "code", "language" and maybe
        "launch_json". Raises PrepareError for a bad candidates file."""
        self._reader.join()
        self._unlink()
        lines = [json.loads(line) for line in self._out.splitlines() if line.strip()]
        if self._proc.returncode != 0:
            # kbench's error document: {"error": {"kind", "status", "message", "errors"?}}.
            err = lines[0]["error"] if lines and isinstance(lines[0].get("error"), dict) else {
                "message": self._err.strip() or f"exit {self._proc.returncode}"}
            detail = "\n".join(e["message"] for e in err.get("errors", []))
            raise PrepareError(err["message"] + ("\n" + detail if detail else ""))
        return lines

    def cancel(self):
        if self._proc.poll() is None:
            self._proc.kill()
        self._reader.join()
        self._unlink()


def prepare(tasks, candidates_path, *, language=None, include_reasoning=False, cli=None):
    """Runs `kbench extract --candidates FILE --prepared` and returns its
    items (Preparation.result())."""
    return Preparation(tasks, candidates_path, language=language, include_reasoning=include_reasoning,
                       cli=cli).result()


# --- the actor -------------------------------------------------------------------


def compile_threads_per_gpu(cores, gpus):
    """`kbench run`'s compile threads for each GPU of a host: min(8, cores / GPUs), at least 1."""
    return max(1, min(8, int(cores) // max(1, int(gpus))))


def _node_gpus():
    """How many GPUs the Ray node running this actor has (1 when Ray cannot say)."""
    try:
        node = _ray.get_runtime_context().get_node_id()
        for n in _ray.nodes():
            if n.get("NodeID") == node:
                return max(1, int(n.get("Resources", {}).get("GPU", 1)))
    except Exception:  # noqa: BLE001 - outside Ray, or an older Ray: the share of one GPU
        pass
    return 1


class Worker:
    """One kbench Context; Ray runs it as an actor (ray.remote(Worker)).

    Plain Python, so tests and other runners may subclass it."""

    def __init__(self, compile_only=False, context_options=None, compile_threads=None):
        try:
            import kbench
        except ImportError as e:
            # A cluster started without kbench: say so once, in words, rather
            # than as the traceback of every replacement actor.
            raise ImportError(f"kbench's Python package is not importable on this Ray node ({e}): install "
                              "kbench's wheel on every node, or start the node (`ray start`) with PYTHONPATH "
                              "holding it") from e
        self._kbench = kbench
        self.compile_only = compile_only
        device = kbench.DEVICE_NONE if compile_only else 0
        # Traps contained in the candidates' PTX, as `kbench run` does
        # (docs/isolation.md, "Traps"), unless the options say otherwise.
        self.ctx = kbench.Context(device=device, **{"contain_traps": True, **(context_options or {})})
        # Calls arrive on several threads (a threaded actor): the batch
        # compiles the next candidates on CPU threads while others run on the
        # GPU. A GPU actor gets what `kbench run` gives a GPU: min(8, the
        # node's cores / its GPUs); the compile-only actors, one per
        # CPU, 2 each.
        if compile_threads is None:
            compile_threads = 2 if compile_only else compile_threads_per_gpu(os.cpu_count() or 1, _node_gpus())
        self.batch = self.ctx.batch(compile_threads=compile_threads)
        self._config = {"compile_only": bool(compile_only), "context_options": dict(context_options or {}),
                        "worker": type(self).__qualname__,
                        "kbench": getattr(kbench, "__version__", None)}
        self._tasks_lock = threading.Lock()
        # task key -> (kbench.Task, output dtype), the most recently used
        # last. A kept pool's actor serves run after run, each Task holding
        # its reference outputs: the oldest go past MAX_TASKS (an evicted
        # Task is freed once no score in flight holds it).
        self.tasks = collections.OrderedDict()
        info = self.ctx.info
        dev = info.get("device") or {}
        self.device = dev.get("name", "")
        self.gpu = None
        if not compile_only:
            ids = _ray.get_gpu_ids() if _ray is not None and _ray.is_initialized() else []
            self.gpu = int(ids[0]) if ids else 0

    MAX_TASKS = 256

    def where(self):
        """(node, pid): which process this actor is, for tests and logs."""
        return (os.uname().nodename, os.getpid())

    def config(self):
        """What this actor was made with: a kept pool's actors are checked
        against what a run asks for (Pool(keep=...))."""
        return dict(self._config)

    def _task(self, key, doc):
        with self._tasks_lock:
            if key in self.tasks:
                self.tasks.move_to_end(key)
            else:
                task = self._kbench.Task(doc)
                self.tasks[key] = task
                while len(self.tasks) > self.MAX_TASKS:
                    self.tasks.popitem(last=False)
            return self.tasks[key]

    def score(self, item, task_doc, task_key=None):
        """Scores one prepared item; returns its finished result line.
        task_key names task_doc's content (task_key_of): a kept actor meets
        the same path again after the file changed."""
        result = dict(item["result"])
        task = self._task(task_key or item["task_path"], task_doc)
        try:
            r = self.batch.submit_future(task, item["code"], language=item.get("language") or "auto",
                                         launch=item.get("launch_json"), compile_only=self.compile_only).result()
        except self._kbench.KbenchError as e:
            result["verdict"] = "error"
            result["message"] = f"kbench could not score it: {e}"
            return result
        j = r.json()
        verdict = r.verdict
        if self.compile_only and verdict == "none":
            verdict = "compiled"
        result["verdict"] = verdict
        result["message"] = r.message
        stages = j.get("stages") or {}
        if "compile_ms" in stages:
            result["compile_ms"] = stages["compile_ms"]
        if not self.compile_only:
            result["run_ms"] = sum(stages.get(k, 0.0) for k in ("correctness_ms", "timing_ms", "recheck_ms"))
            timing = j.get("timing") or {}
            cand, base = timing.get("candidate") or {}, timing.get("baseline") or {}
            if "median_us" in cand:
                result["candidate_median_us"] = cand["median_us"]
            if "median_us" in base:
                result["baseline_median_us"] = base["median_us"]
            if "speedup" in timing:
                result["speedup"] = timing["speedup"]
            for k in ("gbps", "tflops"):
                if k in cand:
                    result[k] = cand[k]
            # Both as kbench computes them (engine/efficiency.h,
            # engine/result_json.cpp), the figures of `kbench run`'s lines.
            if "efficiency" in j:
                result["efficiency"] = j["efficiency"]
            result["gpu"] = self.gpu
            if j.get("retried_stages"):
                result["retried"] = j["retried_stages"]
            # The precision audit without its per-mode detail, as `kbench
            # run` writes it (compare/precision.h).
            if "precision" in j:
                result["precision"] = {k: v for k, v in j["precision"].items() if k != "modes"}
        if self.device:
            result["device"] = self.device
        return result

    def close(self):
        self.batch.close()
        for task in self.tasks.values():
            task.close()
        self.ctx.close()


# --- the pool --------------------------------------------------------------------


def _actor_died_errors():
    ex = _ray.exceptions
    return tuple(getattr(ex, n) for n in ("RayActorError", "ActorDiedError", "ActorUnavailableError",
                                          "WorkerCrashedError", "NodeDiedError", "OwnerDiedError")
                 if hasattr(ex, n))


# Kept pools' actors are named "<pool>/<i>" in this Ray namespace.
POOL_NAMESPACE = "kbench"


class PoolMismatch(RuntimeError):
    """A kept pool of that name runs with other settings than the run asks for."""


def _check_pool_name(name):
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError(f"a kept pool's name is letters, digits, '-', '_' and '.', not {name!r}")
    return name


def _actor_name(pool, i):
    return f"{pool}/{i}"


class Pool:
    """Ray actors scoring prepared candidates.

    actors: how many (default: every GPU of the cluster; compile-only: every CPU,
    at most 8). Each actor holds `in_flight_per_actor` candidates at most and
    works on them at once (a threaded actor over a kbench.Batch): they
    compile on CPU threads while one runs on the GPU. An actor that dies is replaced (at
    most `actors + max_retries` times in all) and its candidates are
    retried elsewhere, each at most `max_retries` times.

    keep: a name. The actors are then detached actors named "<keep>/<i>" in
    the Ray namespace "kbench": close() leaves them running, with their
    contexts, compile workers and tasks' reference outputs, and the next
    Pool(keep=<the same name>) on the cluster uses them instead of starting
    new ones (stop_pool() ends them). They must have been made with the same
    settings (compile_only, context_options, worker_cls, kbench's version):
    otherwise PoolMismatch. A replacement for a kept actor that died is an
    ordinary one; the next run starts the named one again.
    """

    def __init__(self, *, actors=None, compile_only=False, max_retries=DEFAULT_MAX_RETRIES,
                 in_flight_per_actor=DEFAULT_IN_FLIGHT_PER_ACTOR, context_options=None, worker_cls=Worker,
                 keep=None):
        ray = _need_ray()
        if not ray.is_initialized():
            raise RayUnavailable("Ray is not initialised: call ray.init(...) first (or use kbench.ray.score_many "
                                 "with address=...)")
        self.compile_only = compile_only
        self.max_retries = int(max_retries)
        self.in_flight_per_actor = max(1, int(in_flight_per_actor))
        resources = ray.cluster_resources()
        if actors is None:
            if compile_only:
                actors = max(1, min(8, int(resources.get("CPU", 1))))
            else:
                actors = int(resources.get("GPU", 0))
        if not compile_only and resources.get("GPU", 0) < 1:
            raise RayUnavailable("the Ray cluster has no GPUs (ray.cluster_resources() lists none); "
                                 "score with compile_only=True, or connect to a cluster with GPUs")
        if int(actors) < 1:
            raise ValueError(f"actors must be at least 1, not {actors}")
        # A threaded actor: its in-flight calls run at once, so its batch
        # compiles ahead of the one on the GPU.
        gpus = 0 if compile_only else 1
        self._remote = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=0,
                                  max_concurrency=self.in_flight_per_actor)(worker_cls)
        self._context_options = context_options or {}
        self.keep = _check_pool_name(keep) if keep is not None else None
        self._refuse_if_kept_pools_hold_the_room(ray, int(actors))
        self._kept = set()  # id() of the kept actors: close() leaves them
        if self.keep is None:
            self.actors = [self._new_actor() for _ in range(int(actors))]
        else:
            self.actors = [self._remote.options(name=_actor_name(self.keep, i), namespace=POOL_NAMESPACE,
                                                lifetime="detached", get_if_exists=True)
                           .remote(self.compile_only, self._context_options) for i in range(int(actors))]
            self._kept = {id(a) for a in self.actors}
            self._check_kept(ray, worker_cls)
        self.replacements_left = int(actors) + self.max_retries
        self.deaths = []  # one line per actor death: what was lost and what happened to it

    def _refuse_if_kept_pools_hold_the_room(self, ray, actors):
        # Ray would keep new actors waiting for as long as another kept pool
        # holds the GPUs (compile-only: the CPUs) they need, and the run
        # would wait with them, silently: say so instead. Room held by
        # anything else (another job) is waited for, as Ray does.
        resource = "CPU" if self.compile_only else "GPU"
        new = actors
        if self.keep is not None:
            for i in range(actors):
                try:
                    ray.get_actor(_actor_name(self.keep, i), namespace=POOL_NAMESPACE)
                    new -= 1
                except ValueError:  # not there: this run starts it
                    pass
        others = {name: n for name, n in kept_pools().items() if name != self.keep}
        # ray.available_resources() is the cluster's resource view, which the
        # nodes report a moment after an actor starts: right after a kept
        # pool starts it may still count that pool's room as free. The named
        # actors are registered at once, and each holds one CPU (Worker's
        # num_cpus=1, in either mode), so the CPUs the kept pools hold are
        # counted from their names; the view can only lower that.
        free = ray.available_resources().get(resource, 0)
        if resource == "CPU":
            held = sum(len(n) for n in others.values()) + (actors - new)  # others', and this pool's running ones
            free = min(free, ray.cluster_resources().get(resource, 0) - held)
        if new <= free:
            return
        if others:
            held = ", ".join(f"{name!r} ({len(n)} actor(s))" for name, n in sorted(others.items()))
            raise RayUnavailable(
                f"{new} new actor(s) need a {resource} each and the cluster has {free:g} free: the kept pool(s) "
                f"{held} hold the others. Score on one with --keep-pool NAME (keep_pool=NAME), or stop it: "
                f"python3 -m kbench.ray stop --address ADDRESS --pool NAME")

    def _check_kept(self, ray, worker_cls):
        # Waits for new actors to start (their contexts): the time a first
        # result would otherwise wait for.
        import kbench
        want = {"compile_only": self.compile_only, "context_options": dict(self._context_options),
                # The class's name alone: run as `python3 -m kbench.ray` its
                # module is __main__ here and another name in the actor.
                "worker": worker_cls.__qualname__,
                "kbench": getattr(kbench, "__version__", None)}
        try:
            got = ray.get([a.config.remote() for a in self.actors])
        except _actor_died_errors() as e:
            raise RayUnavailable(f"the kept pool {self.keep!r} did not start: {_first_line(e)}") from e
        for i, cfg in enumerate(got):
            diff = [f"{k} {cfg.get(k)!r} (this run: {v!r})" for k, v in want.items() if cfg.get(k) != v]
            if diff:
                raise PoolMismatch(f"the kept pool {self.keep!r} (actor {_actor_name(self.keep, i)}) was started "
                                   f"with other settings: {'; '.join(diff)}. Stop it first (python3 -m kbench.ray "
                                   f"stop --address ADDRESS --pool {self.keep}), or keep another pool")

    def _new_actor(self):
        return self._remote.remote(self.compile_only, self._context_options)

    def score_many(self, items, task_docs):
        """Yields a finished result line for every item, in completion order.

        items: prepared dicts (see prepare()); those not ready are yielded as
        they are. task_docs: task_path -> the task's self-contained JSON
        (kbench.Task.json()). Each result line of a retried candidate carries
        "ray_retries": how many times an actor died holding it."""
        ray = _need_ray()
        died = _actor_died_errors()
        doc_refs = {path: ray.put(doc) for path, doc in task_docs.items()}
        doc_keys = {path: task_key_of(path, doc) for path, doc in task_docs.items()}
        pending = collections.deque()
        for item in items:
            if item.get("ready"):
                pending.append(item)
            else:
                yield item["result"]
        attempts = collections.Counter()  # id(item) -> actor deaths suffered
        in_flight = {}  # ObjectRef -> (item, actor)
        load = collections.Counter()  # actor index in self.actors -> refs in flight

        def dispatch():
            while pending:
                free = [i for i, _ in enumerate(self.actors) if load[i] < self.in_flight_per_actor]
                if not free:
                    return
                i = min(free, key=lambda k: load[k])
                item = pending.popleft()
                actor = self.actors[i]
                ref = actor.score.remote(item, doc_refs[item["task_path"]], doc_keys[item["task_path"]])
                in_flight[ref] = (item, actor)
                load[i] += 1

        try:
            yield from self._collect(ray, died, pending, attempts, in_flight, load, dispatch)
        finally:
            # The caller stopped early (Ctrl-C, an error): what is still in
            # flight is cancelled where it has not started, so a kept pool
            # does not spend the next run's time on it.
            for ref in in_flight:
                try:
                    ray.cancel(ref)
                except Exception:  # noqa: BLE001 - finished or its actor gone: nothing to cancel
                    pass

    def _collect(self, ray, died, pending, attempts, in_flight, load, dispatch):
        dispatch()
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            ref = ready[0]
            item, actor = in_flight.pop(ref)
            index = self._index_of(actor)
            if index is not None:
                load[index] -= 1
            try:
                line = ray.get(ref)
            except died as e:
                attempts[id(item)] += 1
                n = attempts[id(item)]
                self._replace(actor, e)
                if n <= self.max_retries:
                    self.deaths.append(f"{_describe(item)}: the actor died ({_first_line(e)}); retry {n} of "
                                       f"{self.max_retries}")
                    pending.appendleft(item)
                else:
                    line = dict(item["result"])
                    line["verdict"] = "error"
                    line["message"] = (f"kbench could not score it: the Ray actor scoring it died {n} times "
                                       f"(last: {_first_line(e)})")
                    line["ray_retries"] = n - 1
                    self.deaths.append(f"{_describe(item)}: the actor died {n} times; given verdict error")
                    yield line
                dispatch()
                continue
            except _ray.exceptions.RayTaskError as e:
                # An exception inside score(), not a dead actor: retrying would repeat it.
                line = dict(item["result"])
                line["verdict"] = "error"
                line["message"] = f"kbench could not score it: {_first_line(e)}"
            if attempts[id(item)]:
                line["ray_retries"] = attempts[id(item)]
            dispatch()
            yield line

    def _index_of(self, actor):
        for i, a in enumerate(self.actors):
            if a is actor:
                return i
        return None

    def _replace(self, actor, error):
        i = self._index_of(actor)
        if i is None:
            return  # already replaced when another of its candidates came back
        if self.replacements_left <= 0:
            del self.actors[i]
            if not self.actors:
                raise RuntimeError(f"every kbench Ray actor died, and no replacements are left "
                                   f"(last: {_first_line(error)})")
            return
        self.replacements_left -= 1
        self.actors[i] = self._new_actor()

    def close(self):
        """Ends the actors, except a kept pool's (keep=...)."""
        ray = _need_ray()
        for a in self.actors:
            if id(a) in self._kept:
                continue
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - already dead
                pass
        self.actors = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _first_line(e):
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _describe(item):
    r = item["result"]
    s = f"task {r['task']!r}, id {r['id']!r}"
    return s + (f", sample {r['sample']}" if "sample" in r else "")


def task_key_of(path, doc):
    """A task's key in an actor: its path and a digest of its self-contained
    JSON, so that a kept actor never scores against an older version of a
    task file at the same path."""
    import hashlib
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]
    return f"{path}#{digest}"


def kept_pools(address=None):
    """{pool name: [its actors' names]} of the kept pools on the cluster
    (Pool(keep=...)); Ray must be initialised, or address given."""
    ray = _need_ray()
    if not ray.is_initialized():
        _connect(address or "auto")
    pools = collections.defaultdict(list)
    for entry in ray.util.list_named_actors(all_namespaces=True):
        if entry.get("namespace") == POOL_NAMESPACE and "/" in entry.get("name", ""):
            pools[entry["name"].rsplit("/", 1)[0]].append(entry["name"])
    return {k: sorted(v) for k, v in pools.items()}


def stop_pool(name, address=None, wait_s=30.0):
    """Ends the actors of the kept pool `name` and waits (up to wait_s) until
    the cluster no longer lists them, so that what runs next finds their
    room free; returns how many there were."""
    ray = _need_ray()
    names = kept_pools(address).get(_check_pool_name(name), [])
    for n in names:
        try:
            ray.kill(ray.get_actor(n, namespace=POOL_NAMESPACE))
        except ValueError:  # gone meanwhile
            pass
    deadline = time.monotonic() + wait_s
    while names and name in kept_pools() and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(names)


def task_documents(items):
    """task_path -> the task's self-contained JSON, for the items to score."""
    import kbench
    docs = {}
    for item in items:
        path = item.get("task_path")
        if item.get("ready") and path not in docs:
            with kbench.Task(path) as t:
                docs[path] = t.json()
    return docs


class _Phases:
    """Seconds per part of a Ray run, into the caller's dict: prepare_s
    (`kbench extract` and the task documents), connect_s (ray.init: a local
    cluster's start, or the connection), pool_s (the actors asked for; a
    kept pool's, until they answer), prepare_wait_s (with a running cluster
    the candidates are prepared beside connect_s and pool_s: what was left
    of prepare_s after them), first_result_s (from then to the first scored
    result: the actors' start, their contexts and a first score), scoring_s
    (from the same point to the last result; first_result_s is part of it),
    shutdown_s (the driver's disconnection, and a local cluster's stop). A
    part is there once it has ended."""

    def __init__(self, phases):
        self.phases = phases if phases is not None else {}
        self.last = self.scoring = time.monotonic()

    def end(self, name):
        """A part that ran since the previous one ended."""
        now = time.monotonic()
        # scoring_s counts from where scoring started, as first_result_s does.
        self.phases[name] = now - (self.scoring if name == "scoring_s" else self.last)
        self.last = now

    def scoring_starts(self):
        self.scoring = self.last = time.monotonic()

    def mark(self, name):
        self.phases[name] = time.monotonic() - self.scoring

    def set(self, name, seconds):
        self.phases[name] = seconds


def _connect(address, num_cpus=None):
    ray = _need_ray()
    if ray.is_initialized():
        return False
    kwargs = {"log_to_driver": False}
    try:
        if address in (None, "local"):
            if num_cpus is not None:
                kwargs["num_cpus"] = num_cpus
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except Exception as e:  # noqa: BLE001 - Ray raises a bare Exception when its node does not start in time
        where = "a local Ray cluster" if address in (None, "local") else f"the Ray cluster at {address!r}"
        hint = ("start one with `ray start --head`, or use --address local" if address not in (None, "local") else
                "a busy machine can make Ray's node miss its start-up deadline: try again, or start a cluster with "
                "`ray start --head` and use --address auto")
        raise RayUnavailable(f"cannot start or reach {where}: {_first_line(e)} ({hint})") from e
    return True


def score_many(tasks, candidates, *, address=None, compile_only=False, actors=None, language=None,
               include_reasoning=False, skip=(), max_retries=DEFAULT_MAX_RETRIES, context_options=None,
               num_cpus=None, worker_cls=Worker, phases=None, keep_pool=None, disconnect=True):
    """Scores every candidate on a Ray cluster and yields its result line as it completes.

    tasks: task folders or files (like `kbench run --tasks`). candidates: a
    candidates JSONL path, or an iterable of candidate dicts (docs/batch.md,
    "The candidates file"). address: a Ray address, "auto" (a running
    cluster), or None / "local" (start one here, with `num_cpus` CPUs); when
    Ray is initialised already it is used as it is. skip: resume keys
    (kbench.ray._results.key_of) not to score again. phases: a dict that
    gets the seconds each part of the run took, as they end (_Phases).
    keep_pool: a name: score on the kept pool of that name, started on the
    first such run and left running after it (Pool's keep). disconnect:
    False leaves a connection this call made to a running cluster open at
    the end (a local cluster it started is always stopped)."""
    if keep_pool is not None:
        _check_pool_name(keep_pool)
        if address in (None, "local") and not (_ray is not None and _ray.is_initialized()):
            raise ValueError("a kept pool outlives the run only on a running cluster: keep_pool needs an "
                             "address (or 'auto'), not a local cluster that stops with the run")
    clock = _Phases(phases)
    skip = set(skip)
    # With a running cluster the candidates are prepared while Ray connects
    # and the pool starts (a quarter of a second of a two-GPU run). A local
    # cluster's start takes seconds, and a bad candidates file should fail
    # before it: there they are prepared first.
    overlap = address not in (None, "local") or (_ray is not None and _ray.is_initialized())
    preparation = Preparation(tasks, candidates, language=language, include_reasoning=include_reasoning)

    def prepared():
        t = time.monotonic()
        items = [it for it in preparation.result()
                 if _results.key_of(it["result"]["task"], it["result"]["id"], it["result"].get("sample")) not in skip]
        docs = task_documents(items)
        return items, docs, preparation.seconds + (time.monotonic() - t)

    started = False
    pool = None
    try:
        if not overlap:
            items, docs, _ = prepared()
            clock.end("prepare_s")
        started = _connect(address, num_cpus)
        clock.end("connect_s")
        if overlap and preparation.failed_already():
            prepared()  # raises its PrepareError before any actor starts
        pool = Pool(actors=actors, compile_only=compile_only, max_retries=max_retries,
                    context_options=context_options, worker_cls=worker_cls, keep=keep_pool)
        clock.end("pool_s")
        if overlap:
            items, docs, seconds = prepared()
            clock.set("prepare_s", seconds)
            clock.end("prepare_wait_s")
        clock.scoring_starts()
        # Pool.score_many yields the items with nothing to score first.
        unready = sum(1 for it in items if not it.get("ready"))
        for n, line in enumerate(pool.score_many(items, docs)):
            if n == unready:
                clock.mark("first_result_s")
            yield line
        clock.end("scoring_s")
    finally:
        preparation.cancel()
        if pool is not None:
            pool.close()
        if started and (disconnect or address in (None, "local")):
            _ray.shutdown()
            clock.end("shutdown_s")


# --- the command line: python3 -m kbench.ray run ... -------------------------------

USAGE_EXAMPLES = """examples:
  python3 -m kbench.ray run --address auto --tasks tasks --candidates answers.jsonl --out results.jsonl
  python3 -m kbench.ray run --address local --compile-only --tasks tasks --candidates a.jsonl --out r.jsonl
  kbench run --ray auto --tasks tasks --candidates answers.jsonl --out results.jsonl   # the same, via kbench
  python3 -m kbench.ray run --address auto --keep-pool eval ...   # actors left running for the next run
  python3 -m kbench.ray pools --address auto                     # the kept pools on the cluster
  python3 -m kbench.ray stop --address auto --pool eval          # end one

exit status: 0 every candidate has a result line; 1 invalid input, or Ray or kbench failed; 2 usage error"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"kbench.ray: {message}", file=sys.stderr)
        sys.exit(2)


def _parser():
    p = _Parser(prog="python3 -m kbench.ray", description="Score candidates over a Ray cluster (docs/batch.md, Ray).",
                epilog=USAGE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    r = sub.add_parser("run", help="score a candidates file into a results file (resumable)",
                       epilog=USAGE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--address", required=True,
                   help="a Ray cluster address, 'auto' (the running cluster) or 'local' (start one here)")
    r.add_argument("--tasks", action="extend", nargs="+", required=True, metavar="DIR|FILE",
                   help="where the candidates' task names are found; repeatable")
    r.add_argument("--candidates", required=True, metavar="FILE.jsonl")
    r.add_argument("--out", required=True, metavar="RESULTS.jsonl",
                   help="results file; candidates already in it are skipped")
    r.add_argument("--compile-only", action="store_true", help="compile, do not run (CPU actors; no GPU needed)")
    r.add_argument("--gpus", metavar="LIST",
                   help="use as many GPUs as the list names (e.g. 0,1: two); Ray picks which")
    r.add_argument("--actors", type=int, help="how many actors (default: every GPU; compile-only: CPUs, at most 8)")
    r.add_argument("--num-cpus", type=int, help="with --address local: the CPUs of the local cluster")
    r.add_argument("--language", choices=["cuda", "triton", "detect"])
    r.add_argument("--include-reasoning", action="store_true")
    r.add_argument("--max-retries", type=int, default=DEFAULT_MAX_RETRIES,
                   help=f"times a candidate is retried after its actor died (default {DEFAULT_MAX_RETRIES})")
    r.add_argument("--keep-pool", metavar="NAME",
                   help="score on the kept pool NAME (started by the first such run, left running after it: "
                        "its contexts stay warm for the next run); needs a running cluster, not --address local")
    r.add_argument("--json", action="store_true", help="print the summary (and errors) as JSON")
    for name, helptext in (("pools", "list the kept pools on the cluster"), ("stop", "end a kept pool's actors")):
        q = sub.add_parser(name, help=helptext, epilog=USAGE_EXAMPLES,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        q.add_argument("--address", required=True, help="the Ray cluster's address, or 'auto'")
        if name == "stop":
            q.add_argument("--pool", required=True, metavar="NAME", help="the pool's name (as given to --keep-pool)")
        q.add_argument("--json", action="store_true", help="print the outcome (and errors) as JSON")
    return p


def _fail(args, status, message):
    if getattr(args, "json", False):
        # kbench's error document, as the kbench tool prints it.
        print(json.dumps({"error": {"kind": "usage" if status == 2 else "failure",
                                    "status": "usage" if status == 2 else "failed", "message": message}}))
    else:
        print(f"kbench.ray: {message}", file=sys.stderr)
    return status


def _pools_command(args):
    if _ray is None:
        return _fail(args, 1, "Ray is not installed: pip install ray")
    if args.address == "local":
        print(f"kbench.ray: {args.command} needs a running cluster's address (or auto), not local", file=sys.stderr)
        return 2
    try:
        _connect(args.address)
        if args.command == "pools":
            pools = kept_pools()
            if args.json:
                print(json.dumps({"pools": pools}))
            else:
                for name, actors in sorted(pools.items()):
                    print(f"{name}: {len(actors)} actor(s)")
                if not pools:
                    print("kbench.ray: no kept pools on this cluster")
            return 0
        _check_pool_name(args.pool)
        n = stop_pool(args.pool)
    except (RayUnavailable, ValueError) as e:
        return _fail(args, 1, str(e))
    finally:
        if _ray.is_initialized():
            _ray.shutdown()
    if n == 0:
        return _fail(args, 1, f"no kept pool named {args.pool!r} on this cluster (python3 -m kbench.ray pools "
                              f"--address {args.address} lists them)")
    print(json.dumps({"pool": args.pool, "stopped": n}) if args.json else
          f"kbench.ray: stopped the {n} actor(s) of the kept pool {args.pool!r}")
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command in ("pools", "stop"):
        return _pools_command(args)
    actors = args.actors
    if args.gpus is not None:
        names = [g for g in args.gpus.split(",") if g.strip()]
        if not names or not all(g.strip().isdigit() for g in names):
            print(f"kbench.ray: --gpus expects a list of GPU numbers such as 0,1, got {args.gpus!r}", file=sys.stderr)
            return 2
        if actors is None:
            actors = len(names)
    if args.num_cpus is not None and args.address != "local":
        print("kbench.ray: --num-cpus applies to --address local only", file=sys.stderr)
        return 2
    if args.keep_pool is not None:
        if args.address == "local":
            print("kbench.ray: --keep-pool needs a running cluster (--address auto or ADDRESS): a local one stops "
                  "with the run, and its pool with it", file=sys.stderr)
            return 2
        try:
            _check_pool_name(args.keep_pool)
        except ValueError as e:
            print(f"kbench.ray: --keep-pool: {e}", file=sys.stderr)
            return 2
    if _ray is None:
        return _fail(args, 1, "Ray is not installed: pip install ray")
    try:
        done = _results.read_done_keys(args.out)
        out = _results.ResultAppender(args.out)
    except (_results.ResultsFileError, OSError) as e:
        return _fail(args, 1, str(e))
    counts = collections.Counter()
    phases = {}
    start = time.monotonic()
    tty = sys.stderr.isatty()
    try:
        with out:
            if out.repaired_bytes:
                print(f"kbench.ray: removed a cut-off last line ({out.repaired_bytes} bytes) from {args.out}",
                      file=sys.stderr)
            # closing(): on Ctrl-C the generator's own clean-up (the pool's
            # actors ended or, kept, their waiting candidates cancelled)
            # runs here, not whenever it is collected (the process may end
            # with os._exit before that).
            with contextlib.closing(score_many(
                    args.tasks, args.candidates, address=args.address, compile_only=args.compile_only,
                    actors=actors, language=args.language, include_reasoning=args.include_reasoning, skip=done,
                    max_retries=args.max_retries, num_cpus=args.num_cpus, phases=phases,
                    keep_pool=args.keep_pool, disconnect=args.address == "local")) as lines:
                for line in lines:
                    out.append(line)
                    counts[line["verdict"]] += 1
                    n = sum(counts.values())
                    rate = n / max(time.monotonic() - start, 1e-9)
                    msg = (f"[{n}] {line['task']} {line['id']} {line['verdict']}  "
                           f"({rate:.1f}/s, {counts['pass']} pass)")
                    print(("\r" + msg + "\033[K") if tty else msg, file=sys.stderr, end="" if tty else "\n")
    except (PrepareError, RayUnavailable, PoolMismatch, FileNotFoundError) as e:
        return _fail(args, 1, str(e))
    except KeyboardInterrupt:
        print(f"\nkbench.ray: interrupted; {sum(counts.values())} result(s) written to {args.out} "
              "(run again to resume)", file=sys.stderr)
        return 130
    summary = {"out": args.out, "scored": sum(counts.values()), "skipped": len(done), "verdicts": dict(counts),
               "elapsed_s": round(time.monotonic() - start, 3),
               "phases_s": {k: round(v, 3) for k, v in phases.items()}}
    if args.keep_pool is not None:
        summary["kept_pool"] = args.keep_pool
    if args.json:
        print(json.dumps(summary))
    else:
        if tty:
            print(file=sys.stderr)
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "nothing to do"
        print(f"kbench.ray: {summary['scored']} scored ({verdicts}), {len(done)} already in {args.out}, "
              f"in {summary['elapsed_s']:.1f} s")
    return 0


if __name__ == "__main__":
    status = main()
    if _ray is not None and _ray.is_initialized():
        # Connected to a running cluster (a local one was stopped already):
        # ray.shutdown(), here or at exit, took 0.35-0.5 s only to
        # disconnect. Every result is written and the file closed; the
        # cluster sees the driver go and ends its actors, as after Ctrl-C
        # (a kept pool's stay).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)
