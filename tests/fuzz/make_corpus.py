#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/)
from the repository's own tasks, candidates, model answers and kernels, plus a
few hand-written inputs per target. Run it again after adding tasks; inputs
that found bugs are committed beside these (named crash-*, or by what they are)
and never deleted.

    python3 tests/fuzz/make_corpus.py
"""
import glob
import hashlib
import json
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
MAX_BYTES = 64 * 1024  # keep the committed corpora small


def put(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_BYTES:
        return
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = name or ("seed-" + hashlib.sha1(data).hexdigest()[:16])
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def inline_sources(task_path):
    """A task with every source_file read in, so the loader goes past it."""
    with open(task_path) as f:
        doc = json.load(f)
    base = os.path.dirname(task_path)
    for key in ("reference", "baseline"):
        prog = doc.get(key)
        if isinstance(prog, dict) and "source_file" in prog:
            with open(os.path.join(base, prog.pop("source_file"))) as src:
                prog["source"] = src.read()
    return doc


def expressions(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("grid", "block", "shared_mem", "shape", "value", "flops", "bytes"):
                for e in v if isinstance(v, list) else [v]:
                    if isinstance(e, str):
                        out.add(e)
            expressions(v, out)
    elif isinstance(value, list):
        for v in value:
            expressions(v, out)


def frame(msg_type, msg_id, doc, blobs=()):
    doc = dict(doc)
    doc["blobs"] = [len(b) for b in blobs]
    js = json.dumps(doc).encode()
    body = b"".join(blobs)
    return b"KBW1" + struct.pack("<HHQII", 1, msg_type, msg_id, len(js), len(body)) + js + body


def main():
    tasks = sorted(glob.glob(os.path.join(ROOT, "tasks", "*", "*", "task.json")))  # tasks/<family>/<task>/
    tasks += sorted(glob.glob(os.path.join(ROOT, "tests", "adversarial", "tasks", "*.json")))
    exprs = set()
    for t in tasks:
        doc = inline_sources(t)
        put("task_loader", json.dumps(doc, indent=1))
        expressions(doc, exprs)
        cand = doc.get("candidate", {})
        if "launch" in cand:
            put("candidate_document", json.dumps({"format": "kbench-candidate/1", "source": "__global__ void k() {}",
                                                  "launch": cand["launch"]}))
    put("task_loader", "{\"format\": \"kbench-task/1\"}")
    put("task_loader", "[" * 100 + "]" * 100)
    for e in sorted(exprs) + ["ceil_div(n, 256)", "min(n, m, 3) * max(1, k)", "-(n % 7) / -1", "((n))", "9223372036854775807 + n"]:
        put("expr", e)
    put("expr", struct.pack("<qq", 2**62, -1) + b"n * m")

    # Candidate documents of tasks and example solutions (most name another
    # task's arguments: refusals are inputs too).
    for path in sorted(glob.glob(os.path.join(ROOT, "tasks", "**", "candidates", "**", "*.json"), recursive=True) +
                       glob.glob(os.path.join(ROOT, "examples", "solutions", "**", "*.json"), recursive=True)):
        with open(path, "rb") as f:
            put("candidate_document", f.read())
    put("candidate_document", json.dumps({"format": "kbench-candidate/1", "source": "__global__ void vector_add() {}",
                                          "headers": [{"name": "common.cuh", "source": "#define X 1"}],
                                          "launch": [{"kernel": "vector_add", "grid": [1, 1], "block": 256,
                                                      "args": ["a", "b", "c", {"value": "n", "dtype": "i32"}]}],
                                          "scratch": [{"name": "tmp", "dtype": "f32", "shape": ["n"]}]}))

    put("frame_decoder", b"\x10" + frame(1, 1, {"protocol": 1, "kbench_version": 100}))
    put("frame_decoder", b"\x03" + frame(3 | 0x8000, 7, {"ok": True, "result": {"code_blob": 0}}, [b"\x7fELF", b"log"]))
    put("frame_decoder", b"\xff" + frame(2, 2, {}) + frame(0x4000, 0, {"doing": "compiling"}))

    answers = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "answers", "*.txt")))
    for i, path in enumerate(answers):
        with open(path, "rb") as f:
            put("extract", bytes([i % 16]) + f.read())

    sources = sorted(glob.glob(os.path.join(ROOT, "tasks", "**", "*.cu"), recursive=True))
    sources += sorted(glob.glob(os.path.join(ROOT, "tests", "adversarial", "kernels", "*.cu")))
    for path in sources:
        with open(path, "rb") as f:
            put("include_scan", f.read())
    for hostile in ["#include \"/etc/passwd\"\n", "%:include <../x>\n", "??=include \"y\"\n", "#inc\\\nlude MACRO\n",
                    "#line 1 \"/etc/passwd\"\n", "_Pragma(\"GCC dependency \\\"x\\\"\")\n",
                    "auto s = R\"d(\n#include \"/etc/passwd\"\n)d\";\n", "#if __has_include(<a>)\n#endif\n"]:
        put("include_scan", hostile)


if __name__ == "__main__":
    main()
