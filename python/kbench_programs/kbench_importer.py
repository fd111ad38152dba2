#!/usr/bin/env python3
"""kbench import: KernelBench problems and TritonBench operators become tasks.

    kbench_importer.py kernelbench FILE|DIR [-o OUT] [--stdout] [--no-validate] [--apply-proposals]
    kbench_importer.py tritonbench DIR|FILE [-o OUT] [--stdout] [--no-validate] [--perf PERF_DIR]

(`kbench import ...` runs this script.) Each problem becomes a
`kbench-task/1` document whose reference is the problem's Python code
(docs/programs.md):

* the problem's own sizes are the perf case ("faithful"); where the sizes are
  module constants that get_inputs() reads, smaller cases with awkward sizes
  (primes, a batch of one) are added, as robust-kbench does, because many
  candidates bake the sizes in;
* integer inputs stay integers (KernelBench casts every tensor to the
  precision; its CrossEntropy problem breaks: KernelBench issue 151);
* with torch installed, every case is run through the reference on the CPU:
  a case the reference rejects is dropped with a note, and a problem that
  cannot tell right from wrong on its inputs (an output equal to an input,
  near-constant, within tolerance of zero: ReLU on all-positive inputs is the
  identity) is flagged, with input transforms that can and were checked to,
  as a finding the user sees (`--apply-proposals` writes them into the task).

Output: OUT/<family>/<task>/task.json beside a copy of the problem file
(OUT defaults to ./kbench-tasks), or one task per line on stdout.
"""

import argparse
import ast
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbench_problem as kp  # noqa: E402

# KernelBench's tolerances (get_tolerance_for_precision): fp32 1e-4, fp16/bf16 1e-2.
KERNELBENCH_TOLERANCE = {"f32": 1e-4, "f16": 1e-2, "bf16": 1e-2}
BATCH_NAMES = re.compile(r"^(batch(_size)?|bs|b|n_batch|num_batches)$", re.I)


class ImportFailure(Exception):
    pass


def task_name_for(prefix, stem):
    s = re.sub(r"[^A-Za-z0-9]+", "_", stem).strip("_").lower()
    return (prefix + "_" + s)[:128]


def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def prime_at_most(n):
    while n > 2 and not is_prime(n):
        n -= 1
    return max(n, 2)


# ---------------------------------------------------------------------------
# KernelBench

def forward_parameter_names(source):
    """Model.forward's parameter names (after self), for naming inputs."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return [a.arg for a in item.args.args[1:]]
    return []


def class_docstring(source, name):
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            doc = ast.get_docstring(node) or ""
            return " ".join(doc.split())
    return ""


def describe_inputs_static(source, consts, dims):
    """What get_inputs() returns, read from its return statement without
    running it: [{"name", "dtype", "shape", "init"}]; entries it cannot read
    are {"expr": text}."""
    tree = ast.parse(source)
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"), None)
    if fn is None:
        return []
    assigned = {}
    ret = None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
        if isinstance(node, ast.Return):
            ret = node.value
    if not isinstance(ret, (ast.List, ast.Tuple)):
        return []
    const_values = {k: v["value"] for k, v in consts.items()}

    def shape_of(args):
        shape = []
        for a in args:
            if isinstance(a, ast.Starred):
                inner = a.value
                if isinstance(inner, ast.Name) and isinstance(const_values.get(inner.id), tuple):
                    # input_shape = (num_classes,): find which dims make it up
                    src = next((n for n in tree.body if isinstance(n, ast.Assign) and
                                isinstance(n.targets[0], ast.Name) and n.targets[0].id == inner.id), None)
                    if src is not None and isinstance(src.value, ast.Tuple):
                        shape.extend(expr_text(e) for e in src.value.elts)
                        continue
                return None
            if isinstance(a, (ast.Tuple, ast.List)):
                inner = shape_of(a.elts)
                if inner is None:
                    return None
                shape.extend(inner)
                continue
            shape.append(expr_text(a))
        return shape

    def expr_text(e):
        if isinstance(e, ast.Constant) and isinstance(e.value, int):
            return e.value
        return ast.unparse(e)

    out = []
    for elt in ret.elts:
        node = assigned.get(elt.id, elt) if isinstance(elt, ast.Name) else elt
        desc = {"expr": ast.unparse(node)}
        call, cast = node, None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in (
                "bool", "float", "half", "long", "int", "bfloat16", "double"):
            cast, call = call.func.attr, call.func.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                and call.func.value.id == "torch":
            f = call.func.attr
            pos = [a for a in call.args]
            if f in ("rand", "randn", "ones", "zeros", "empty"):
                shape = shape_of(pos)
                if shape is not None:
                    desc.update({"dtype": "f32", "shape": shape,
                                 "init": {"rand": {"dist": "uniform", "low": 0.0, "high": 1.0},
                                          "randn": {"dist": "normal", "mean": 0.0, "std": 1.0},
                                          "ones": {"dist": "constant", "value": 1.0},
                                          "zeros": {"dist": "constant", "value": 0.0},
                                          "empty": {"dist": "uniform", "low": 0.0, "high": 1.0}}[f]})
            elif f == "randint" and len(pos) >= 2:
                lo, hi = (pos[0], pos[1]) if len(pos) >= 3 else (ast.Constant(0), pos[0])
                shape_node = pos[2] if len(pos) >= 3 else pos[1]
                shape = shape_of(shape_node.elts if isinstance(shape_node, (ast.Tuple, ast.List)) else [shape_node])
                if shape is not None:
                    desc.update({"dtype": "i64", "shape": shape,
                                 "init": {"dist": "randint", "low": expr_text(lo), "high": "(%s) - 1" % expr_text(hi)
                                          if not isinstance(expr_text(hi), int) else expr_text(hi) - 1}})
        if cast == "bool" and "dtype" in desc:
            desc["dtype"] = "bool"
            desc["init"] = {"dist": "bernoulli", "p": 0.5}
        elif cast in ("float", "double", "half", "bfloat16") and "dtype" in desc:
            desc["dtype"] = {"float": "f32", "double": "f64", "half": "f16", "bfloat16": "bf16"}[cast]
        elif cast in ("long", "int") and "dtype" in desc:
            desc["dtype"] = "i64" if cast == "long" else "i32"
        if "shape" in desc:
            desc["shape"] = [s if isinstance(s, int) or s in dims else s for s in desc["shape"]]
        out.append(desc)
    return out


def other_size_cases(consts, dims):
    """Correctness cases besides the problem's own sizes: every size dim
    shrunk to a prime (the fewer dims, the larger), and, where a dim is a
    batch, a batch of one."""
    if not dims:
        return []
    cap = {1: 4099, 2: 1031, 3: 127, 4: 37}.get(len(dims), 13)
    small = {}
    for d in dims:
        v = int(consts[d]["value"])
        small[d] = 1 if v <= 1 else (v if v <= 3 else prime_at_most(min(v - 1, cap)))
    cases = [{"name": "small_primes", "dims": small}]
    batch = [d for d in dims if BATCH_NAMES.match(d) and int(consts[d]["value"]) > 1]
    if batch:
        one = dict(small)
        for d in batch:
            one[d] = 1
        cases.append({"name": "batch_of_one", "dims": one})
    mid = {}
    for d in dims:
        v = int(consts[d]["value"])
        mid[d] = 1 if v <= 1 else (v if v <= 3 else prime_at_most(min(v - 1, cap * 2 + 7)))
    if mid != small:
        cases.append({"name": "primes", "dims": mid})
    return cases


def import_kernelbench_file(path, validate=True, apply_proposals=False):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    base = os.path.basename(path)
    try:
        consts = kp.module_constants(source, base)
    except kp.ProblemError as e:
        raise ImportFailure(str(e))
    tree = ast.parse(source)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for needed in ("Model", "get_inputs"):
        if needed not in defined:
            raise ImportFailure("%s: no top-level %s; a KernelBench problem defines class Model, get_inputs() and "
                                "get_init_inputs()" % (base, "class Model" if needed == "Model" else needed + "()"))
    stem = os.path.splitext(base)[0]
    level = None
    m = re.search(r"level(\d+)", os.path.abspath(path))
    if m:
        level = int(m.group(1))
    pid = None
    m = re.match(r"(\d+)_", stem)
    if m:
        pid = int(m.group(1))
    name = task_name_for("kernelbench_l%d" % level if level else "kernelbench", stem)

    used = kp.names_used_by(source, "get_inputs", consts)
    dims = [n for n in used if isinstance(consts[n]["value"], int) and not isinstance(consts[n]["value"], bool)
            and consts[n]["value"] >= 1]
    faithful = {d: int(consts[d]["value"]) for d in dims}
    cases = other_size_cases(consts, dims)
    inputs = describe_inputs_static(source, consts, dims)
    params = forward_parameter_names(source)
    for i, d in enumerate(inputs):
        d["name"] = params[i] if i < len(params) else "input%d" % i

    findings, notes = [], []
    int_inputs = [d["name"] for d in inputs if d.get("dtype") in ("i64", "i32", "bool")]
    if int_inputs:
        notes.append("integer inputs stay integers (%s); KernelBench casts every input to the precision, which "
                     "breaks problems such as CrossEntropyLoss (KernelBench issue 151)" % ", ".join(int_inputs))
    ref = {
        "language": "python",
        "style": "kernelbench",
        "source_file": base,
        "entry": "Model",
        "candidate_entry": "ModelNew",
        "get_inputs": "get_inputs",
        "get_init_inputs": "get_init_inputs",
        "precision": "f32",
        "inputs": inputs,
    }
    doc = {
        "format": "kbench-task/1",
        "name": name,
        "description": ("KernelBench level %d problem %s (%s): " % (level, pid, base) if level else
                        "KernelBench problem %s: " % base) + (class_docstring(source, "Model") or "see the reference"),
        "dims": {d: "module constant %s of %s" % (d, base) for d in dims},
        "cases": cases,
        "perf_case": {"name": "faithful", "dims": faithful},
        "tolerance": {k: {"atol": v, "rtol": v, "equal_nan": False} for k, v in KERNELBENCH_TOLERANCE.items()},
        "reference": ref,
        "policy": {"torch_compute": "report"},
        "origin": {"benchmark": "kernelbench", "file": base, "level": level, "problem_id": pid,
                   "notes": notes, "findings": findings, "validated": False},
    }
    if validate:
        validate_task(doc, source, apply_proposals)
    if not doc["cases"]:
        # The format asks for at least one correctness case besides the perf case.
        doc["cases"] = [{"name": "faithful_copy", "dims": dict(faithful)}]
        doc["origin"]["notes"].append("no smaller case: the problem's sizes are not module constants that "
                                      "get_inputs() reads, so correctness runs at its own sizes only")
    return doc, source


# ---------------------------------------------------------------------------
# TritonBench

def attach_perf_script(doc, perf_dir, stem):
    """Times the operator on TritonBench's own performance script
    (performance_metrics/perf_{G,T}/golden_metrics/<op>_perf.py), when
    `perf_dir` has one: its inputs become the perf case (docs/programs.md,
    "TritonBench timing")."""
    path = os.path.join(perf_dir, stem + "_perf.py")
    if not os.path.isfile(path):
        doc["origin"]["notes"].append("no performance script %s_perf.py in %s: correctness only" % (stem, perf_dir))
        return
    with open(path, encoding="utf-8") as f:
        perf = f.read()
    try:
        ast.parse(perf, filename=os.path.basename(path))
    except SyntaxError as e:
        raise ImportFailure("%s: the performance script does not parse: %s" % (path, e))
    if not re.search(r"^class\s+performance_metrics\b", perf, re.M):
        raise ImportFailure("%s: defines no class performance_metrics (TritonBench's performance scripts subclass "
                            "Performance_Metrics under that name)" % path)
    doc["reference"]["perf_source"] = perf
    doc["perf_case"] = {"name": "perf_script", "dims": {}}
    doc["program"] = {"timing": True}
    doc["origin"]["perf_file"] = os.path.basename(path)
    doc["origin"]["notes"] = [n for n in doc["origin"]["notes"] if "does not time" not in n]
    doc["origin"]["notes"].append("timed on TritonBench's performance script %s: its call_op on each of its inputs in "
                                  "turn, compared with the reference at every input (TritonBench's own performance "
                                  "phase checks nothing)" % os.path.basename(path))


def import_tritonbench_file(path, channel, validate=True):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    base = os.path.basename(path)
    try:
        code, test, test_line = kp.split_tritonbench(text, base)
        test_clean, test_fn = kp.clean_test_section(test, base)
        ast.parse(code, filename=base)
    except (kp.ProblemError, SyntaxError) as e:
        raise ImportFailure(str(e))
    called = kp.called_functions(test_clean)
    funcs = kp.top_level_functions(code)
    wrappers = [n for n, jit in funcs if not jit and n in called]
    if not wrappers:
        raise ImportFailure("%s: the test function %s() calls none of the operator's functions" % (base, test_fn))
    stem = os.path.splitext(base)[0]
    name = task_name_for("tritonbench_%s" % channel.lower(), stem)
    doc = {
        "format": "kbench-task/1",
        "name": name,
        "description": "TritonBench-%s operator %s: a candidate defines %s; %s() runs it on its test inputs and "
                       "every result is compared" % (channel, base, ", ".join(wrappers), test_fn),
        "dims": {},
        "cases": [{"name": "test", "dims": {}}],
        "perf_case": {"name": "test_once_more", "dims": {}},
        "tolerance": {k: {"atol": v, "rtol": v, "equal_nan": False} for k, v in KERNELBENCH_TOLERANCE.items()},
        "reference": {
            "language": "python",
            "style": "tritonbench",
            "source_file": base,
            "entry": test_fn,
            "candidate_functions": wrappers,
            "test_source": test_clean,
            "precision": "f32",
        },
        "policy": {"torch_compute": "forbid"},
        "origin": {"benchmark": "tritonbench", "channel": channel, "file": base, "test_line": test_line,
                   "notes": ["TritonBench times operators with separate scripts and inputs; kbench checks the test "
                             "function's results and does not time (timing: false)"],
                   "findings": [], "validated": False},
        "program": {"timing": False},
    }
    if validate:
        validate_tritonbench(doc, code)
    return doc, code


# ---------------------------------------------------------------------------
# Validation (needs torch): run the reference at every case on the CPU

def have_torch():
    try:
        import torch  # noqa: F401
        return True
    except Exception:
        return False


def _tolerance(doc, dtype):
    t = doc["tolerance"].get(dtype)
    return (t["atol"], t["rtol"]) if t else (0.0, 0.0)


def _reference_outputs(doc, source, case_index, work_dir, transforms=None, state=None, seed=42, twice=False):
    """(inputs, outputs as [(label, tensor)]) of the reference at a case, on the CPU;
    the names of the model's parameters and buffers are appended to `state`
    when it is a list. `twice`: the model is called a second time on a copy
    of the same inputs, and (inputs, outputs, second outputs) returned."""
    import torch
    task = dict(doc)
    task["reference"] = dict(doc["reference"], source=source)
    # The controls' own transforms are chosen here, not applied twice.
    task["origin"] = {k: v for k, v in (doc.get("origin") or {}).items() if k != "controls"}
    if transforms is not None:
        task["reference"]["input_transforms"] = transforms
    ref = kp.Reference(task)
    module = kp.load_module(ref.problem_source_at(case_index), ref.source_name, work_dir, "kbench_import")
    try:
        inputs = kp.make_inputs(module, ref, seed, "cpu", "strict")
        # The model's seed as strict draws it, apart from every input seed.
        model = kp.build_model(getattr(module, ref.entry), module, ref, 42 ^ kp.STRICT_MODEL_MIX, "cpu")
        if state is not None and isinstance(model, torch.nn.Module):
            state.extend(n for n, _ in list(model.named_parameters()) + list(model.named_buffers()))
        with torch.no_grad():
            out = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
        flat = [(label, kp.as_tensor(v)) for label, v in kp.flatten_outputs(out)]
        if twice:
            # As the workers call it: again, without the seed set anew.
            with torch.no_grad():
                out2 = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
            return inputs, flat, [(label, kp.as_tensor(v)) for label, v in kp.flatten_outputs(out2)]
        return inputs, flat
    finally:
        kp.unload_module(module)


def cannot_tell(doc, inputs, outputs):
    """Why these outputs cannot tell right from wrong, per output; [] when they can."""
    import torch
    why = []
    for label, out in outputs:
        if out is None or not out.is_floating_point():
            continue
        atol, rtol = _tolerance(doc, kp.kb_dtype(out))
        o = out.double()
        if torch.isnan(o).any():
            why.append({"output": label, "kind": "nan", "message": "%s has NaN in the reference" % label})
            continue
        for i, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and x.shape == out.shape and x.is_floating_point() and \
                    torch.allclose(o, x.double(), atol=atol, rtol=rtol):
                why.append({"output": label, "kind": "equals_input", "input": i,
                            "message": "%s equals input %d within the tolerance: a candidate that returns its input "
                                       "passes" % (label, i)})
                break
        else:
            if o.numel() > 1 and torch.allclose(o, torch.zeros_like(o), atol=atol, rtol=rtol):
                why.append({"output": label, "kind": "near_zero",
                            "message": "%s is within tolerance of zero everywhere: a candidate that returns zeros "
                                       "passes" % label})
            elif o.numel() > 1 and torch.allclose(o, o.mean().expand_as(o), atol=atol, rtol=rtol):
                why.append({"output": label, "kind": "near_constant",
                            "message": "%s is within tolerance of one value everywhere (%.6g): a candidate that "
                                       "returns that constant passes" % (label, o.mean().item())})
    return why


def propose_transforms(doc, source, case_index, work_dir, problems, float_inputs):
    """Input transforms that make the reference discriminating at the case,
    checked by running it: centre [0, 1) inputs on zero, then scale them up."""
    tries = []
    if any(p["kind"] in ("equals_input", "near_constant") for p in problems):
        tries.append([{"input": i, "scale": 2.0, "shift": -1.0} for i in float_inputs])
    if any(p["kind"] == "near_zero" for p in problems):
        for s in (10.0, 100.0, 1000.0):
            tries.append([{"input": i, "scale": s, "shift": 0.0} for i in float_inputs])
    for t in tries:
        try:
            inputs, outputs = _reference_outputs(doc, source, case_index, work_dir, t)
        except Exception:
            continue
        if not cannot_tell(doc, inputs, outputs):
            return t
    return None


def _size_expr(size_at, dims, candidates):
    """The first expression of `candidates` (texts over the dims) whose value is
    size_at[i] at every validated case i; None when none is."""
    for text in candidates:
        try:
            if all(int(eval(text, {"__builtins__": {}}, dict(d))) == size for d, size in zip(dims, size_at)):
                return text
        except Exception:
            continue
    return None


def propose_kernel_signature(doc, checked, state):
    """`args` (and candidate.triton_args): the kernel signature with which a
    plain CUDA or Triton kernel can be scored against the reference
    (docs/programs.md, "Kernel candidates against a Python reference"): the
    tensors get_inputs() returns, in order, then the reference's outputs,
    with shapes over the dims. Written only where every size is read from
    get_inputs() or found equal to a dim or an input's size at every validated
    case, and the model holds no parameters (a kernel gets the inputs only);
    otherwise a note says why not."""
    import torch
    notes = doc["origin"]["notes"]
    if state:
        notes.append("no kernel signature: the model holds parameters or buffers (%s), which a kernel candidate "
                     "never receives" % ", ".join(state[:4]))
        return
    dims = [dict(doc["perf_case"]["dims"], **case["dims"]) for case, _, _ in checked]
    described = doc["reference"].get("inputs", [])
    args, size_exprs = [], []
    first_inputs = checked[0][1]
    tensors = [j for j, x in enumerate(first_inputs) if isinstance(x, torch.Tensor)]
    for k, j in enumerate(tensors):
        d = described[j] if j < len(described) else {}
        shape = d.get("shape")
        at = [list(inputs[j].shape) for _, inputs, _ in checked]
        if not shape or len(shape) != len(at[0]):
            notes.append("no kernel signature: the shape of input %d is not read from get_inputs()" % j)
            return
        for axis, text in enumerate(shape):
            if _size_expr([a[axis] for a in at], dims, [str(text)]) is None:
                notes.append("no kernel signature: input %d's size %s does not match the validated cases" % (j, text))
                return
        size_exprs.extend(str(t) for t in shape)
        args.append({"name": d.get("name") or "input%d" % j, "role": "in", "dtype": kp.kb_dtype(first_inputs[j]),
                     "shape": [str(t) for t in shape]})
    names = {a["name"] for a in args}
    outputs = checked[0][2]
    for k, (label, t) in enumerate(outputs):
        if t is None or len(outputs) != len(checked[-1][2]):
            notes.append("no kernel signature: output %s is not a tensor at every case" % label)
            return
        shape = []
        for axis in range(t.dim()):
            size_at = [outs[k][1].shape[axis] for _, _, outs in checked]
            text = _size_expr(size_at, dims, list(doc["dims"]) + size_exprs)
            if text is None and len(set(size_at)) == 1:
                text = str(size_at[0])  # the same at every case: a constant of the problem
            if text is None:
                notes.append("no kernel signature: output %s's size along axis %d is no dim or input size" % (label, axis))
                return
            shape.append(text)
        name = "out" if len(outputs) == 1 else "out%d" % k
        while name in names:
            name = "_" + name
        names.add(name)
        args.append({"name": name, "role": "out", "dtype": kp.kb_dtype(t), "shape": shape})
    if not any(a["role"] == "out" for a in args):
        notes.append("no kernel signature: the reference returns no tensor")
        return
    doc["args"] = args
    doc.setdefault("candidate", {})["triton_args"] = [a["name"] for a in args]
    notes.append("args: the kernel signature a plain CUDA or Triton kernel gets (the inputs in get_inputs() order, "
                 "then the outputs; sizes checked at the validated cases); a kernel candidate brings its launch plan")


def validate_task(doc, source, apply_proposals):
    origin = doc["origin"]
    if not have_torch():
        origin["notes"].append("not validated: torch is not installed where it was imported (the cases were not "
                               "run and nothing was checked for outputs that cannot tell right from wrong)")
        print("kbench import: %s: validation did not run (no torch for %s): the cases the reference rejects, the "
              "negative controls (outputs that cannot tell right from wrong) and the reference's determinism are "
              "unchecked" % (origin.get("file", doc["name"]), sys.executable), file=sys.stderr)
        return
    import torch
    work_dir = tempfile.mkdtemp(prefix="kbench-import-")
    try:
        kept, dropped = [], []
        checked = []
        state = []
        # Every correctness case is run; the faithful case is not (its sizes
        # can be gigabytes on a CPU): the smaller cases draw from the same
        # distributions, which is what decides whether outputs can tell.
        for i, case in enumerate(doc["cases"]):
            tmp = dict(doc, cases=doc["cases"][:i + 1], perf_case=doc["perf_case"])
            try:
                inputs, outputs = _reference_outputs(tmp, source, i, work_dir, state=state if not checked else None)
            except Exception as e:
                dropped.append("%s (%s)" % (case["name"], _first_line(e)))
                continue
            kept.append(case)
            checked.append((case, inputs, outputs))
        doc["cases"] = kept
        if dropped:
            origin["notes"].append("cases the reference rejects were dropped: " + "; ".join(dropped))
        if checked:
            case, inputs, outputs = checked[0]
            ci = doc["cases"].index(case)
            doc["reference"]["outputs"] = [{"name": label, "dtype": kp.kb_dtype(t), "shape_at_%s" % case["name"]:
                                            list(t.shape)} for label, t in outputs if t is not None]
            problems = cannot_tell(doc, inputs, outputs)
            if problems:
                floats = [j for j, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.is_floating_point()]
                tmp = dict(doc)
                proposal = propose_transforms(tmp, source, ci, work_dir, problems, floats)
                for p in problems:
                    finding = {"kind": "cannot_tell_right_from_wrong", "reason": p["kind"], "output": p["output"],
                               "case": case["name"],
                               "message": p["message"] + " (at case '%s'; the problem's own sizes draw from the same "
                                                         "distributions)" % case["name"]}
                    if proposal:
                        finding["proposal"] = {"input_transforms": proposal,
                                               "message": "transform the inputs (x -> scale*x + shift) as listed: "
                                                          "checked to make every output discriminating"}
                    else:
                        finding["proposal"] = None
                    origin["findings"].append(finding)
                if proposal and apply_proposals:
                    doc["reference"]["input_transforms"] = proposal
                    origin["notes"].append("the proposed input transforms were applied (--apply-proposals)")
        if checked:
            propose_kernel_signature(doc, checked, state)
            audit_controls(doc, source, work_dir)
        origin["validated"] = True
        origin["torch_version"] = torch.__version__
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


# The perf case's controls are checked on the CPU when its inputs hold at
# most this many elements (the problem's own sizes are often gigabytes).
PERF_CASE_CPU_ELEMENTS = 1 << 24


def _perf_case_elements(doc):
    """Elements of the perf case's inputs, from the inputs the import read
    (None when a shape is not known)."""
    dims = dict(doc["perf_case"]["dims"])
    total = 0
    for d in doc["reference"].get("inputs", []):
        if "shape" not in d:
            return None
        n = 1
        for s in d["shape"]:
            try:
                n *= int(eval(str(s), {"__builtins__": {}}, dict(dims)))
            except Exception:
                return None
        total += n
    return total


def audit_controls(doc, source, work_dir):
    """Negative controls at every validated case (kbench_controls.audit),
    written into the task as origin.controls: what `strict` applies (input
    transforms, a magnitude-aware tolerance, cases left out, or a refusal)
    and what `kernelbench` only reports."""
    import kbench_controls as kc
    names = [c["name"] for c in doc["cases"]]
    n_perf = _perf_case_elements(doc)
    with_perf = n_perf is not None and n_perf <= PERF_CASE_CPU_ELEMENTS
    if with_perf:
        names.append(doc["perf_case"]["name"])

    def run(ci, transforms, seed, twice=False):
        return _reference_outputs(doc, source, ci, work_dir, transforms, seed=seed, twice=twice)

    rec = kc.audit(names, run, lambda dt: _tolerance(doc, dt), kp.kb_dtype)
    if not with_perf:
        rec["perf_case"] = {"case": doc["perf_case"]["name"], "checked": False,
                            "why": "its inputs are too large for the CPU (%s elements); the smaller cases draw from "
                                   "the same distributions" % (n_perf if n_perf is not None else "an unknown number of")}
    doc["origin"]["controls"] = rec
    for f in rec["findings"]:
        # origin.findings reach every score's warnings.
        doc["origin"]["findings"].append({"kind": f["kind"], "reason": "negative_controls", "case": f["case"],
                                          "message": "negative controls: " + f["message"], "proposal": None})
    st = rec["strict"]
    if st["input_transforms"]:
        doc["origin"]["notes"].append("negative controls: strict transforms the inputs %s (checked to make the "
                                      "outputs discriminating); kernelbench does not" % json.dumps(st["input_transforms"]))
    if st["tolerance"]:
        doc["origin"]["notes"].append("negative controls: strict judges with the magnitude-aware tolerance %s"
                                      % json.dumps(st["tolerance"]))


def validate_tritonbench(doc, code):
    # The test functions build their inputs on 'cuda': they run on a GPU only.
    doc["origin"]["notes"].append("the test function makes its inputs on the GPU; its results are checked when the "
                                  "task is scored (kbench validate on a GPU runs it)")


def _first_line(e):
    s = "%s: %s" % (type(e).__name__, e)
    return s.splitlines()[0][:300] if s else type(e).__name__


# ---------------------------------------------------------------------------
# Writing

def write_task(doc, source, out_dir, family, inline):
    if inline:
        doc["reference"].pop("source_file", None)
        doc["reference"]["source"] = source
        doc["reference"]["source_name"] = doc["origin"]["file"]
        return None
    folder = os.path.join(out_dir, family, doc["name"])
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, doc["reference"]["source_file"]), "w", encoding="utf-8") as f:
        f.write(source)
    path = os.path.join(folder, "task.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    return path


def files_of(path, pattern=r".*\.py$"):
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise ImportFailure("%s: no such file or folder" % path)
    out = []
    for root, _, names in os.walk(path):
        for n in sorted(names):
            if re.match(pattern, n) and not n.startswith("__"):
                out.append(os.path.join(root, n))
    return sorted(out)


def audit_main(paths):
    """`kbench audit` of problems and tasks whose reference is Python: one
    JSON document on stdout ({"checked", "ok", "controls", ...}) per path
    given (one path: the document alone)."""
    out = []
    for path in paths:
        r = {"task": path}
        try:
            if path.endswith(".py"):
                if not have_torch():
                    r.update({"checked": False, "ok": True, "why": "no torch for %s: the reference cannot run, so its "
                                                                   "controls are unchecked" % sys.executable})
                else:
                    doc, _ = import_kernelbench_file(path, True)
                    r["name"] = doc["name"]
                    controls = doc["origin"].get("controls")
                    r.update({"checked": controls is not None, "controls": controls,
                              "ok": not (controls or {}).get("strict", {}).get("refused")})
                    if controls is None:
                        r["why"] = "; ".join(doc["origin"]["notes"])[:400]
            else:
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f)
                r["name"] = doc.get("name")
                controls = (doc.get("origin") or {}).get("controls")
                ref = doc.get("reference") or {}
                if controls is not None:
                    r.update({"checked": True, "controls": controls, "note": "recorded in the task at import (what "
                              "strict applies)", "ok": not controls.get("strict", {}).get("refused")})
                elif ref.get("style", "kernelbench") != "kernelbench":
                    r.update({"checked": False, "ok": True, "why": "a TritonBench test function makes its inputs on "
                                                                   "the GPU: not run on the CPU"})
                elif not have_torch():
                    r.update({"checked": False, "ok": True, "why": "no torch for %s, and no controls recorded in the "
                                                                   "task" % sys.executable})
                else:
                    source = ref.get("source")
                    if source is None:
                        with open(os.path.join(os.path.dirname(path), ref["source_file"]), encoding="utf-8") as f:
                            source = f.read()
                    work_dir = tempfile.mkdtemp(prefix="kbench-audit-")
                    try:
                        doc.setdefault("origin", {}).setdefault("notes", [])
                        doc["origin"].setdefault("findings", [])
                        audit_controls(doc, source, work_dir)
                    finally:
                        shutil.rmtree(work_dir, ignore_errors=True)
                    controls = doc["origin"]["controls"]
                    r.update({"checked": True, "controls": controls, "ok": not controls["strict"].get("refused"),
                              "note": "not recorded in the task: strict applies none of it until the problem is "
                                      "imported again"})
        except Exception as e:
            r.update({"checked": False, "ok": False, "why": _first_line(e)})
        out.append(r)
    print(json.dumps(out[0] if len(out) == 1 else out))
    return 0


def main(argv):
    if argv and argv[0] == "audit":
        return audit_main(argv[1:])
    ap = argparse.ArgumentParser(prog="kbench import", description=__doc__.split("\n\n")[0])
    ap.add_argument("benchmark", choices=["kernelbench", "tritonbench"])
    ap.add_argument("path", help="a problem file, or a folder of them (searched recursively)")
    ap.add_argument("-o", "--out", default="kbench-tasks", help="folder the tasks go into (default: kbench-tasks)")
    ap.add_argument("--stdout", action="store_true", help="print each task (sources inline) on one line instead")
    ap.add_argument("--no-validate", action="store_true", help="do not run the references (no torch needed)")
    ap.add_argument("--channel", choices=["G", "T"], help="tritonbench: the channel (default: from the folder name, "
                                                         "TritonBench_T_v1 or *_T is T, anything else G)")
    ap.add_argument("--perf", metavar="DIR", help="tritonbench: TritonBench's performance scripts "
                                                  "(performance_metrics/perf_G/golden_metrics or perf_T/...): an "
                                                  "operator with a <op>_perf.py there is timed on its inputs")
    ap.add_argument("--apply-proposals", action="store_true",
                    help="write proposed input transforms into the tasks whose outputs cannot tell right from wrong")
    ap.add_argument("--json", action="store_true", help="print one JSON document (kbench's error document on errors)")
    if "--json" in argv:  # a wrong command line is the error document too (exit 2)
        def usage_error(message):
            print(json.dumps({"error": {"kind": "usage", "status": "usage", "message": message}}))
            sys.exit(2)
        ap.error = usage_error
    args = ap.parse_args(argv)

    def error(status, message):
        # An error of the command itself (exit 1, README's table): a missing
        # path or a folder without problems is invalid input, not usage.
        if args.json:
            print(json.dumps({"error": {"kind": "failure", "status": status, "message": message}}))
        else:
            print("kbench import: %s" % message, file=sys.stderr)
        return 1

    try:
        files = files_of(args.path)
    except ImportFailure as e:
        return error("not found", str(e))
    if not files:
        return error("not found", "no .py files under %s" % args.path)
    notices = []
    validate = not args.no_validate
    if validate and not have_torch():
        # Said once, where it is seen: without torch the references are not
        # run, so no output is checked for telling right from wrong and no
        # kernel signature ("args") is written, which a kernel candidate needs.
        validate = False
        notices.append(
            "torch is not installed for %s: the references were not run, so outputs that cannot tell right from "
            "wrong were not looked for and no kernel signature (\"args\", which a CUDA or Triton kernel candidate "
            "needs) was written. Install torch for it (pip install torch; docs/programs.md: \"Torch for program "
            "candidates\"), or set $KBENCH_PYTHON to an interpreter that has it; --no-validate says this is meant"
            % sys.executable)
        if not args.json:
            print("kbench import: notice: " + notices[-1], file=sys.stderr)
    failures = 0
    imported, failed = [], []
    for f in files:
        try:
            if args.benchmark == "kernelbench":
                doc, source = import_kernelbench_file(f, not args.no_validate, args.apply_proposals)
                level = doc["origin"].get("level")
                family = "kernelbench_level%d" % level if level else "kernelbench"
            else:
                channel = args.channel or ("T" if re.search(r"(?:^|[/_])T(?:_v\d+)?(?:/|$)", os.path.dirname(
                    os.path.abspath(f))) else "G")
                doc, source = import_tritonbench_file(f, channel, not args.no_validate)
                if args.perf:
                    attach_perf_script(doc, args.perf, os.path.splitext(os.path.basename(f))[0])
                family = "tritonbench_%s" % channel
        except ImportFailure as e:
            failures += 1
            failed.append({"file": f, "message": str(e)})
            if not args.json:
                print("kbench import: %s" % e, file=sys.stderr)
            continue
        except Exception as e:  # a problem file that breaks the importer: say which, go on
            failures += 1
            failed.append({"file": f, "message": _first_line(e)})
            if not args.json:
                print("kbench import: %s: %s" % (f, _first_line(e)), file=sys.stderr)
            continue
        path = write_task(doc, source, args.out, family, args.stdout)
        if args.json:
            entry = {"path": path, "name": doc["name"], "cases": len(doc["cases"]) + 1,
                     "validated": doc["origin"].get("validated", False), "findings": doc["origin"]["findings"]}
            if args.stdout:
                entry["task"] = doc
            imported.append(entry)
        elif args.stdout:
            print(json.dumps(doc))
        else:
            summary = "%d cases" % (len(doc["cases"]) + 1)
            if not doc["origin"].get("validated"):
                summary += ", not validated" + (" (no torch)" if notices else "")
            n = len(doc["origin"]["findings"])
            if n:
                summary += ", %d finding%s (cannot tell right from wrong)" % (n, "s" if n > 1 else "")
            print("%s: %s" % (path, summary))
            for finding in doc["origin"]["findings"]:
                print("  finding: " + finding["message"])
                if finding.get("proposal"):
                    print("    proposal: %s" % json.dumps(finding["proposal"]["input_transforms"]))
    if args.json:
        print(json.dumps({"tasks": imported, "failed": failed, "notices": notices}))
    elif failures:
        print("kbench import: %d of %d files could not be imported" % (failures, len(files)), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
