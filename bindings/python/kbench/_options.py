"""Builds the C options structs (kb_candidate, kb_time_options,
kb_score_options) from keyword arguments. The structs come from capi's
constructors, which fill in the ..._INIT values, so `version` is always the
one this binding was built against and unset numbers mean "the default"."""
import json
import os

from . import capi

LANGUAGES = {
    "auto": capi.KB_LANG_AUTO,
    "cuda": capi.KB_LANG_CUDA,
    "ptx": capi.KB_LANG_PTX,
    "cubin": capi.KB_LANG_CUBIN,
    "triton": capi.KB_LANG_TRITON,
    "triton_binary": capi.KB_LANG_TRITON_BINARY,
    "python": capi.KB_LANG_PYTHON,
}
TIME_MODES = {"cold": capi.KB_TIME_COLD, "hot": capi.KB_TIME_HOT}
ISOLATIONS = {
    "default": capi.KB_ISOLATION_DEFAULT,
    "in_process": capi.KB_ISOLATION_IN_PROCESS,
    "worker": capi.KB_ISOLATION_WORKER,
}
ROLES = {"reference": capi.KB_ROLE_REFERENCE, "baseline": capi.KB_ROLE_BASELINE}


def choice(table, value, what):
    try:
        return table[value]
    except KeyError:
        raise ValueError(f"{what} must be one of {sorted(table)}, not {value!r}") from None


def _json_text(value):
    """Launch plans and Triton metadata may be given as dicts or as JSON text."""
    return value if value is None or isinstance(value, str) else json.dumps(value)


def candidate(code=None, path=None, language="auto", launch=None, metadata=None, label=None):
    """A kb_candidate: `code` (str source or bytes image) or `path`."""
    c = capi.kb_candidate()
    c.language = choice(LANGUAGES, language, "language")
    if code is not None:
        c.set_code(code)
    if path is not None:
        c.path = os.fspath(path)
    c.launch_json = _json_text(launch)
    c.metadata_json = _json_text(metadata)
    c.label = label
    return c


def fill_time_options(o, task, case=None, mode="cold", against_baseline=False, budget_ms=0.0,
                      warmup_ms=0.0, min_samples=0, max_samples=0, target_rel_noise=0.0):
    """Fills a kb_time_options (a fresh one, or kb_score_options.timing)."""
    o.mode = choice(TIME_MODES, mode, "mode")
    o.case_index = -1 if case is None else task.case_index(case)
    o.against_baseline = int(bool(against_baseline))
    o.budget_ms = float(budget_ms)
    o.warmup_ms = float(warmup_ms)
    o.min_samples = int(min_samples)
    o.max_samples = int(max_samples)
    o.target_rel_noise = float(target_rel_noise)
    return o


def score_options(task, seed=0, correctness_runs=0, skip_timing=False, recheck=True, compile_only=False,
                  protocol=None, torch_compute=None, **timing):
    """A kb_score_options; `timing` takes fill_time_options' keywords;
    `protocol` and `torch_compute` apply to program candidates."""
    o = capi.kb_score_options()
    o.protocol = protocol
    o.torch_compute = torch_compute
    o.seed = int(seed)
    o.correctness_runs = int(correctness_runs)
    o.flags = ((capi.KB_SCORE_SKIP_TIMING if skip_timing else 0) | (0 if recheck else capi.KB_SCORE_NO_RECHECK) |
               (capi.KB_SCORE_COMPILE_ONLY if compile_only else 0))
    fill_time_options(o.timing, task, **timing)
    return o
