"""Writes a candidates JSONL of model-style answers for the built-in tasks:
the input of the batch-run benchmark (issue 11: 500 mixed candidates on one
H100, at least 20 per second end to end with isolation on).

Every answer wraps a real kernel from tasks/*/candidates (its header comment,
which states the expected verdict, removed) or a variant of a correct one, in
the text shapes models produce: chatty prose, R1 <think> sections, Qwen and
Llama chat tokens, usage-example blocks, a naive-then-optimized pair, bare
code, Windows line endings; plus answers that crash, hang, do not compile,
are cut off, hold no code, or are ambiguous. Each line's "meta" says what it
is and what kbench should make of it:

    {"shape": "...", "kernel": "correct.cu", "variant": "crash_null",
     "expect_extraction": "ok|no_code|ambiguous", "expect_verdict": "pass|..."}

Deterministic: the same --seed and --count give the same file.

The answers share their kernels (a task's correct.cu is in many of them), so
a run's compile cache, and a kept Ray pool's from an earlier file, answers
most compiles. --distinct gives every answer's code an empty kernel of a
name of its own (seed and line), so that no two answers, in one file or
across seeds, compile to the same PTX.

usage: python3 bench/make_answers.py [--count 500] [--seed 1] [--distinct] [--tasks tasks] [-o answers.jsonl]
"""
import argparse
import json
import os
import random
import re
import sys

# How often each kind of answer appears (weights, not percentages).
KINDS = [
    ("good", 44),         # a correct kernel, in one of the wrappings
    ("wrong", 16),        # a kernel with a known wrong verdict (tasks/*/candidates)
    ("crash", 7),         # a correct kernel that writes through a null pointer or traps
    ("hang", 3),          # a correct kernel whose first thread spins forever
    ("compile_error", 6), # a correct kernel calling an undeclared function
    ("truncated", 6),     # an answer cut off inside its code block
    ("no_code", 6),       # prose only, a refusal, or only a shell block
    ("ambiguous", 4),     # two different versions, neither marked final
    ("reasoning_cut", 3), # an R1 answer cut off inside <think>
]

MODELS = ["synthetic-chatty", "synthetic-r1", "synthetic-qwen", "synthetic-terse"]


def strip_header(code):
    """The kernel without the leading comment block (which names the expected verdict)."""
    lines = code.splitlines()
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    return "\n".join(lines[i:]).rstrip() + "\n"


def declared_verdict(code):
    m = re.search(r"expect(?:ed)?(?:\s+verdict)?\s*[:=]\s*([a-z_]+)", code, re.I)
    return m.group(1) if m else "pass"


def task_folders(root):
    """Every folder under root holding a task.json (tasks/<family>/<task>/), sorted;
    a task's own sub-folders (candidates/) are not searched."""
    if os.path.isfile(os.path.join(root, "task.json")):
        return [root]
    found = []
    for name in sorted(os.listdir(root)):
        sub = os.path.join(root, name)
        if os.path.isdir(sub) and not name.startswith((".", "_")):
            found += task_folders(sub)
    return found


def load_tasks(root):
    tasks = []
    for folder in task_folders(root):
        task_file = os.path.join(folder, "task.json")
        with open(task_file) as f:
            task = json.load(f)
        plan = task.get("candidate", {}).get("launch", [])
        kernels = [s["kernel"] for s in plan if "kernel" in s]
        if len(kernels) != 1:
            continue  # one-kernel plans only: every answer here is one kernel
        cands = {}
        cdir = os.path.join(folder, "candidates")
        if not os.path.isdir(cdir):
            continue
        for fname in sorted(os.listdir(cdir)):
            path = os.path.join(cdir, fname)
            if fname.endswith(".cu") and os.path.isfile(path):
                with open(path) as f:
                    text = f.read()
                cands[fname] = (strip_header(text), declared_verdict(text))
        if "correct.cu" not in cands:
            continue
        tasks.append({"name": task["name"], "entry": kernels[0], "candidates": cands})
    return tasks


def body_start(code, entry):
    """Index just after the opening brace of the entry kernel's body."""
    m = re.search(r"__global__[^{;]*?\b" + re.escape(entry) + r"\s*\(", code)
    if not m:
        raise ValueError("no __global__ " + entry)
    depth, i = 0, m.end() - 1
    while i < len(code):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return code.index("{", i) + 1


def inject(code, entry, stmt):
    at = body_start(code, entry)
    return code[:at] + "\n    " + stmt + "\n" + code[at:]


VARIANTS = {
    "crash_null": ("if (blockIdx.x == 0 && threadIdx.x == 0) { volatile float* bad = nullptr; *bad = 1.0f; }",
                   "runtime_error"),
    "crash_trap": ("if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) __trap();", "runtime_error"),
    # Spins on the clock: the compiler cannot prove the loop ends. (A loop on a
    # volatile local was compiled away on the H100: the kernel passed.)
    "hang_spin": ("if (blockIdx.x == 0 && threadIdx.x == 0) { while (clock64() >= 0) { } }", "timeout"),
    "undeclared": ("kbench_undeclared_helper(threadIdx.x);", "compile_error"),
}


def usage_block(entry):
    return ("```cpp\n#include <cstdio>\n\nint main() {\n"
            "    // Allocate the inputs with cudaMalloc, copy them over, launch " + entry + "<<<blocks, 256>>>(...),\n"
            "    // copy the result back and compare it with a CPU loop.\n"
            "    printf(\"ok\\n\");\n    return 0;\n}\n```\n")


def wrap(rng, code, entry, task):
    """A well-formed answer around `code`, in one of the shapes models produce.
    Returns (text, shape)."""
    shape = rng.choice(["fenced", "chatty", "usage_example", "r1_think", "qwen_im_end", "llama_eot",
                        "untagged", "bare", "kernel_then_file", "naive_then_optimized", "crlf", "cpp_tag"])
    k = "```cuda\n" + code + "```\n"
    if shape == "fenced":
        text = k
    elif shape == "chatty":
        text = (rng.choice(["Sure! Here's", "Here is", "Below is", "Okay, here's"]) + " a CUDA kernel for `" + task +
                "`.\n\n" + k + "\n### How it works\n\n- Each thread handles part of the data with coalesced accesses.\n"
                "- Bounds are checked so any size works.\n\nLet me know if you want further optimizations!\n")
    elif shape == "usage_example":
        text = "Here is the kernel:\n\n" + k + "\nAnd an example of calling it:\n\n" + usage_block(entry)
    elif shape == "r1_think":
        text = ("<think>\nThe user wants `" + entry + "`. Let me think about the indexing and the bounds.\n\n"
                "A first draft:\n\n```cuda\n__global__ void " + entry + "() {}\n```\n\n"
                "That has no arguments; the signature must match the task. Let me write it properly.\n</think>\n\n"
                "Here is the final kernel:\n\n" + k)
    elif shape == "qwen_im_end":
        text = k + "\nThis kernel follows the requested signature.<|im_end|>\n<|im_start|>user\nThanks!<|im_end|>"
    elif shape == "llama_eot":
        text = "<|start_header_id|>assistant<|end_header_id|>\n\nHere is an implementation:\n\n" + k + "<|eot_id|>"
    elif shape == "untagged":
        text = "```\n" + code + "```\n"
    elif shape == "bare":
        text = code
    elif shape == "kernel_then_file":
        text = ("The kernel:\n\n" + k + "\nThe complete file with a test:\n\n```cuda\n" + code +
                "\nint main() {\n    // launch " + entry + " and check the result\n    return 0;\n}\n```\n")
    elif shape == "naive_then_optimized":
        naive = "__global__ void " + entry + "(void) {\n    // a first, naive attempt, left unfinished\n}\n"
        text = ("A naive starting point:\n\n```cuda\n" + naive + "```\n\nHere's the optimized version, which is the one "
                "to use:\n\n" + k)
    elif shape == "crlf":
        text = ("Here is the kernel:\n\n" + k + "\nDone.\n").replace("\n", "\r\n")
    else:  # cpp_tag
        text = "```cpp\n" + code + "```\n"
    return text, shape


def truncate(rng, code):
    """The code cut inside the kernel's body (braces left open)."""
    lines = code.splitlines()
    for _ in range(20):
        cut = rng.randint(max(2, len(lines) // 3), max(2, len(lines) - 2))
        part = "\n".join(lines[:cut]) + "\n"
        if part.count("{") > part.count("}"):
            return part
    return "\n".join(lines[: max(1, len(lines) // 2)]) + "\n    for (int i = 0; i < n; ++i) {\n"


NO_CODE = [
    "I'm sorry, but I can't help with writing that kernel without more information about the target GPU and the "
    "data layout. Could you share those details?",
    "To implement `{entry}` efficiently you would assign one thread per element, use coalesced loads, and check the "
    "bounds so that sizes that are not a multiple of the block size work. Shared memory is not needed here.",
    "Compile and run it with:\n\n```bash\nnvcc -O3 -arch=sm_90 {entry}.cu -o {entry} && ./{entry}\n```\n",
    "",
]


def make_line(rng, tasks, kind, index, samples, tag=None):
    task = rng.choice(tasks)
    entry, cands = task["entry"], task["candidates"]
    if tag is not None:
        # An empty kernel of the answer's own name: new PTX, same verdict.
        own = "\n__global__ void kb_distinct_%s() {}\n" % tag
        cands = {f: (code.rstrip("\n") + "\n" + own, verdict) for f, (code, verdict) in cands.items()}
    correct = cands["correct.cu"][0]
    meta = {"shape": None, "kernel": "correct.cu", "variant": None, "expect_extraction": "ok", "expect_verdict": "pass"}
    if kind == "good":
        text, meta["shape"] = wrap(rng, correct, entry, task["name"])
    elif kind == "wrong":
        wrong = sorted(f for f, (_, v) in cands.items() if v != "pass")
        if not wrong:
            return make_line(rng, tasks, "good", index, samples)
        fname = rng.choice(wrong)
        meta["kernel"], meta["expect_verdict"] = fname, cands[fname][1]
        text, meta["shape"] = wrap(rng, cands[fname][0], entry, task["name"])
    elif kind in ("crash", "hang", "compile_error"):
        variant = {"crash": rng.choice(["crash_null", "crash_trap"]), "hang": "hang_spin",
                   "compile_error": "undeclared"}[kind]
        stmt, verdict = VARIANTS[variant]
        meta["variant"], meta["expect_verdict"] = variant, verdict
        text, meta["shape"] = wrap(rng, inject(correct, entry, stmt), entry, task["name"])
    elif kind == "truncated":
        meta["shape"], meta["expect_verdict"] = "truncated", "compile_error"
        text = "Here's an implementation:\n\n```cuda\n" + truncate(rng, correct)
    elif kind == "no_code":
        meta["shape"], meta["kernel"] = "no_code", None
        meta["expect_extraction"] = meta["expect_verdict"] = "no_code"
        text = rng.choice(NO_CODE).replace("{entry}", entry)
    elif kind == "ambiguous":
        other = sorted(f for f in cands if f != "correct.cu")
        # A second, different definition: another candidate, else the correct one with an extra statement.
        second = cands[rng.choice(other)][0] if other else inject(correct, entry, "int variant = 1; (void)variant;")
        meta["shape"], meta["expect_extraction"], meta["expect_verdict"] = "two_versions", "ambiguous", "no_code"
        text = ("One way to write it:\n\n```cuda\n" + correct + "```\n\nAnother way:\n\n```cuda\n" + second + "```\n")
    else:  # reasoning_cut
        meta["shape"], meta["expect_extraction"], meta["expect_verdict"] = "reasoning_cut", "no_code", "no_code"
        text = ("<think>\nLet me plan `" + entry + "` carefully. A draft:\n\n```cuda\n" + correct +
                "```\n\nHmm, but I should double-check the bounds for sizes that are not a multiple of")
    model = rng.choice(MODELS)
    key = (task["name"], model)
    samples[key] = samples.get(key, -1) + 1
    return {"task": task["name"], "id": "a%04d" % index, "sample": samples[key], "model": model, "answer": text,
            "meta": meta}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tasks", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
    ap.add_argument("--distinct", action="store_true",
                    help="no two answers compile to the same PTX (an empty kernel named after the seed and line)")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tasks = load_tasks(args.tasks)
    if not tasks:
        sys.exit("make_answers.py: no task with a one-kernel default plan and a correct.cu under " + args.tasks)
    names, weights = zip(*KINDS)
    samples = {}
    out = sys.stdout if args.output == "-" else open(args.output, "w")
    for i in range(args.count):
        kind = rng.choices(names, weights)[0]
        line = make_line(rng, tasks, kind, i, samples, "s%d_%d" % (args.seed, i) if args.distinct else None)
        line["meta"]["kind"] = kind
        out.write(json.dumps(line) + "\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
