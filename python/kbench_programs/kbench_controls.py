"""Negative controls for Python references (the C core's src/compare/controls.h,
on torch tensors): answers that must fail at a case, judged by the task's own
rule (|got - expected| <= atol + rtol * |expected|, NaN never matching). A
control that passes means the case cannot tell right from wrong.

audit() runs them at every case the import validates, searches for what makes
each case discriminating under `strict` (an input transform, else a
magnitude-aware tolerance, else dropping the case), checks the reference
gives the same outputs twice at one seed, and returns the record the importer
writes into the task as origin.controls (docs/tasks.md, "Negative controls").
The `kernelbench` protocol only reports it.
"""

CONTROLS = ("zeros", "ones", "mean", "input", "other_seed", "negated", "last_wrong")
# The transforms tried, in order (x -> scale * x + shift on every floating input).
TRANSFORMS = ((2.0, -1.0), (10.0, 0.0), (100.0, 0.0), (20.0, -10.0), (1000.0, 0.0))
EPSILON = {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -23, "f64": 2.0 ** -52}


def within(got, expected, atol, rtol):
    """Whether every element of `got` is within the rule of `expected`."""
    import torch
    g, e = got.double(), expected.double()
    if g.shape != e.shape:
        return False
    same = g == e  # infinities of one sign match
    ok = same | ((g - e).abs() <= atol + rtol * e.abs())
    ok &= ~(torch.isnan(g) | torch.isnan(e))
    return bool(ok.all())


def magnitude(t):
    import torch
    x = t.double()
    x = x[torch.isfinite(x)]
    if x.numel() == 0:
        return {"max_abs": 0.0, "rms": 0.0, "mean": 0.0}
    return {"max_abs": float(x.abs().max()), "rms": float(x.pow(2).mean().sqrt()), "mean": float(x.mean())}


def controls(out, inputs, other, atol, rtol):
    """The controls that pass for output `out` (its reference values), with
    the case's `inputs` and the output `other` at another seed (or None)."""
    import torch
    if out.numel() == 0:
        return []
    passing = []
    if not out.is_floating_point() and out.dtype != torch.bool:
        atol = rtol = 0.0
    if within(torch.zeros_like(out), out, atol, rtol):
        passing.append("zeros")
    if within(torch.ones_like(out), out, atol, rtol):
        passing.append("ones")
    # The mean of a one-element output is the output: that control is the
    # other seed's there (a constant that ignores the inputs).
    if out.numel() > 1 and out.is_floating_point():
        if within(torch.full_like(out, float(out.double().mean())), out, atol, rtol):
            passing.append("mean")
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.shape == out.shape and within(x, out, atol, rtol):
            passing.append("input:%d" % i)
    if other is not None and other.shape == out.shape and within(other, out, atol, rtol):
        passing.append("other_seed")
    if out.dtype != torch.bool and within(-out, out, atol, rtol):
        passing.append("negated")
    wrong = out.clone().reshape(-1) if out.dim() < 2 else out.clone()
    last = wrong[-1] if wrong.dim() >= 1 else wrong
    if out.dtype == torch.bool:
        last.logical_not_()
    elif out.is_floating_point():
        last.copy_(torch.where(torch.isfinite(last), last + 1.0 + 2.0 * last.abs(), torch.zeros_like(last)))
    else:
        last.add_(1)
    if within(wrong.reshape(out.shape), out, atol, rtol):
        passing.append("last_wrong")
    return passing


def magnitude_tolerance(out, dtype, atol, rtol):
    """(atol, rtol) relative to the output's scale (its RMS) where that is
    below 1, floored at a few units in the last place of the dtype; None where
    there is nothing to tighten (src/compare/controls.h, magnitude_tolerance)."""
    if not out.is_floating_point():
        return None
    rms = magnitude(out)["rms"]
    if not rms > 0 or rms >= 1.0:
        return None
    return max(atol * rms, 16.0 * EPSILON.get(dtype, 2.0 ** -23) * rms), rtol


def _max_difference(a, b):
    import torch
    if a.shape != b.shape:
        return float("inf")
    if not a.is_floating_point():
        return float((a != b).sum())
    d = (a.double() - b.double()).abs()
    d = torch.where(torch.isnan(a) & torch.isnan(b), torch.zeros_like(d), d)
    return float(torch.nan_to_num(d, nan=float("inf")).max()) if d.numel() else 0.0


def audit(case_names, run, tolerance_of, dtype_of):
    """The controls record of a task.

    run(case_index, transforms, seed, twice=False) -> (inputs, [(label,
    tensor)]) runs the reference (twice: the model called a second time on
    the same inputs, its outputs a third element); tolerance_of(dtype name) ->
    (atol, rtol) is the task's rule; dtype_of(tensor) -> the kbench dtype
    name. Every case is run at seeds 42 (twice: determinism) and 43."""
    import torch

    def floats(inputs):
        return [j for j, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.is_floating_point()]

    def case_record(ci, transforms, tol_override=None, again=None):
        if again is not None:
            inputs, outs, second = run(ci, transforms, 42, True)
            again.extend(second)
        else:
            inputs, outs = run(ci, transforms, 42)
        _, others = run(ci, transforms, 43)
        rec = []
        for k, (label, t) in enumerate(outs):
            if t is None:
                continue
            dt = dtype_of(t)
            atol, rtol = tol_override.get(dt, tolerance_of(dt)) if tol_override else tolerance_of(dt)
            other = others[k][1] if k < len(others) else None
            nonfinite = int((~torch.isfinite(t)).sum()) if t.is_floating_point() else 0
            rec.append({"output": label, "dtype": dt, "elements": int(t.numel()), "shape": list(t.shape),
                        "nonfinite": nonfinite,
                        "magnitude": magnitude(t), "tolerance": {"atol": atol, "rtol": rtol},
                        "passing": controls(t, inputs, other, atol, rtol), "_tensor": t})
        return inputs, rec

    cases = []
    for ci, name in enumerate(case_names):
        again = []
        inputs, rec = case_record(ci, None, again=again)
        det = True
        for r, (_, t2) in zip(rec, again):
            diff = _max_difference(r["_tensor"], t2) if t2 is not None else 0.0
            if diff != 0.0:
                det = False
                r["self_difference"] = diff
                r["self_within_tolerance"] = within(t2, r["_tensor"], r["tolerance"]["atol"], r["tolerance"]["rtol"])
        cases.append({"case": name, "index": ci, "outputs": rec, "deterministic": det,
                      "float_inputs": floats(inputs)})

    def discriminating(rec):
        return all(not o["passing"] for o in rec)

    strict = {"input_transforms": [], "tolerance": {}, "dropped_cases": []}
    findings = []
    nondet = [c for c in cases if not c["deterministic"]]
    unjudgeable = {c["case"] for c in nondet if not all(o.get("self_within_tolerance", True) for o in c["outputs"])}
    blind = [c for c in cases if not discriminating(c["outputs"])]
    after = {c["case"]: c["outputs"] for c in cases}
    action = {c["case"]: "none" for c in cases}
    if blind:
        # An input transform, checked at every case by running the controls again.
        best, best_rec, best_count = None, None, sum(discriminating(c["outputs"]) for c in cases)
        fl = cases[0]["float_inputs"]
        for scale, shift in TRANSFORMS if fl else ():
            tr = [{"input": j, "scale": scale, "shift": shift} for j in fl]
            try:
                recs = {c["case"]: case_record(c["index"], tr)[1] for c in cases}
            except Exception:
                continue
            # A transform that leaves the problem's domain (a log of a
            # negative number) makes NaN, which no control matches: not a fix.
            if any(o["nonfinite"] > base["nonfinite"] for c in cases
                   for o, base in zip(recs[c["case"]], c["outputs"])):
                continue
            n = sum(discriminating(r) for r in recs.values())
            if n > best_count:
                best, best_rec, best_count = tr, recs, n
            if n == len(cases):
                break
        if best is not None:
            strict["input_transforms"] = best
            for c in cases:
                if not discriminating(c["outputs"]):
                    action[c["case"]] = "transform"
            after = best_rec
        # Then a magnitude-aware tolerance where the outputs are small.
        still = [name for name, rec in after.items() if not discriminating(rec)]
        if still:
            tight = {}
            for name in still:
                for o in after[name]:
                    t = magnitude_tolerance(o["_tensor"], o["dtype"], *tolerance_of(o["dtype"]))
                    if t is not None and o["passing"]:
                        prev = tight.get(o["dtype"])
                        tight[o["dtype"]] = t if prev is None or t[0] < prev[0] else prev
            if tight:
                recs = {c["case"]: case_record(c["index"], strict["input_transforms"] or None, tight)[1]
                        for c in cases}
                if sum(discriminating(r) for r in recs.values()) > sum(discriminating(r) for r in after.values()):
                    strict["tolerance"] = {k: {"atol": v[0], "rtol": v[1]} for k, v in tight.items()}
                    for name in still:
                        if discriminating(recs[name]):
                            action[name] = "tolerance"
                    after = recs
    for c in cases:
        name = c["case"]
        if not discriminating(after[name]):
            action[name] = "dropped"
            strict["dropped_cases"].append(name)
            findings.append({"kind": "cannot_tell_right_from_wrong", "case": name,
                             "message": "case '%s' cannot tell right from wrong (controls that pass: %s) with every "
                                        "input transform and the magnitude-aware tolerance tried; strict leaves it "
                                        "out of correctness"
                                        % (name, "; ".join("%s: %s" % (o["output"], ", ".join(o["passing"]))
                                                           for o in after[name] if o["passing"]))})
        elif name in unjudgeable:
            action[name] = "dropped"
            strict["dropped_cases"].append(name)
            findings.append({"kind": "nondeterministic", "case": name,
                             "message": "case '%s': the reference gives different outputs twice at one seed, beyond "
                                        "the tolerance (dropout in training mode, random numbers in forward); "
                                        "strict leaves it out of correctness" % name})
    if cases and len(strict["dropped_cases"]) == len(cases):
        passing = sorted({p for rec in after.values() for o in rec for p in o["passing"]})
        why = ("the controls that pass: %s, with every input transform and the magnitude-aware tolerance tried"
               % ", ".join(passing)) if passing else "the reference disagrees with itself at one seed"
        strict["refused"] = ("no case of this task can tell right from wrong (%s): a candidate that writes zeros, a "
                             "constant or its input would pass; fix the problem's inputs or outputs (`kbench audit` "
                             "shows each case)" % why)
    for c in cases:
        c["strict"] = {"action": action[c["case"]],
                       "passing": sorted({p for o in after[c["case"]] for p in o["passing"]})}
        c.pop("float_inputs", None)
        for o in c["outputs"]:
            o.pop("_tensor", None)
    for rec in after.values():
        for o in rec:
            o.pop("_tensor", None)
    return {"format": 1, "deterministic": not nondet, "cases": cases, "strict": strict, "findings": findings}
