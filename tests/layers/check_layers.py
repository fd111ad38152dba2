#!/usr/bin/env python3
"""Checks that src/ depends one way, down the pipeline (docs/architecture.md).

Every folder of src/ has a rank; a file may include headers of its own folder
and of folders of a lower rank, never of a higher one or of a peer of the same
rank. A folder that is not listed is an error too, so a new folder has to be
placed in the order on purpose.

The Python processes under python/ (the program workers, the importer, the
Triton compile worker) stand above every folder of src/: their native helpers
include the public header or a few documented interfaces of src/
(NATIVE_INTERFACES), and nothing in src/ includes from python/.
They speak to kbench through frames only, so none imports the bindings'
`kbench` package, which loads the library they are run by.

Prints every violation as FILE:LINE and exits 1.

    python3 tests/layers/check_layers.py SRC_DIR [PYTHON_DIR]
"""
import os
import re
import sys

# Lowest first. Folders on one line are peers: neither may include the other.
LAYERS = [
    ["util"],            # errors, JSON, hashing, files
    ["ipc"],             # frames and processes: what any kbench process pair speaks
    ["hostdev"],         # code compiled for host and device alike (RNG, bit casts, compare rule)
    ["task"],            # the task model, loader, candidate documents
    ["evaluate"],        # raw answers, results files, metrics: pure, above the task model only
    ["compiler"],        # code -> image, the compile service and its backends
    ["device", "emulate"],  # the CUDA driver and device; the CPU emulator of references
    ["exec"],            # launch plans on buffers, running safely
    ["compare", "measure"],  # the judge; the timing protocol
    ["engine"],          # results, backends, contexts, score
    ["protocol"],        # core types on the wire between host and worker
    ["worker_host"],     # the host side of worker isolation
    ["capi"],            # the C boundary
    ["cli", "worker_server"],  # programs: the kbench tool; the kbench-worker server
]

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# The internal interfaces python/'s native helpers may include beside the
# public header (docs/architecture.md, "The Python processes"): the device's
# driver wrapper, dtype names and sizes, and kbench's error type.
NATIVE_INTERFACES = {"device/device.h", "task/dtype.h", "util/error.h"}
IMPORT_BINDINGS = re.compile(r'^\s*(?:import\s+kbench(?:\.|\s|$|,)|from\s+kbench(?:\.\S+)?\s+import\b)')
NATIVE = (".h", ".hpp", ".cpp", ".cu", ".cuh")


def source_files(top, suffixes):
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(suffixes):
                yield os.path.join(root, name)


def python_errors(src, python, rank):
    """python/ above src/: includes of known src folders only, no import of the bindings."""
    errors = []
    here = os.path.dirname(os.path.abspath(python))
    for file in source_files(python, NATIVE + (".py",)):
        rel = os.path.relpath(file, here)
        with open(file, encoding="utf-8", errors="replace") as f:
            for line_no, line in enumerate(f, 1):
                if file.endswith(".py"):
                    if IMPORT_BINDINGS.match(line):
                        errors.append(f"{rel}:{line_no}: python/ imports the bindings' kbench package; a "
                                      f"worker process speaks to kbench through frames (ipc/frame.h) only")
                    continue
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue
                target = m.group(1).split("/")[0]
                if os.path.isdir(os.path.join(src, target)) and m.group(1) not in NATIVE_INTERFACES:
                    errors.append(f"{rel}:{line_no}: includes \"{m.group(1)}\" from src/; python/'s native "
                                  f"helpers include the public header (kbench.h) or one of the documented "
                                  f"interfaces ({', '.join(sorted(NATIVE_INTERFACES))}; NATIVE_INTERFACES in "
                                  f"tests/layers/check_layers.py and docs/architecture.md)")
    for file in source_files(src, NATIVE):
        rel = os.path.relpath(file, os.path.dirname(os.path.abspath(src)))
        with open(file, encoding="utf-8", errors="replace") as f:
            for line_no, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if m and (m.group(1).startswith("python/") or m.group(1).split("/")[0] in
                          {d for d in os.listdir(python) if os.path.isdir(os.path.join(python, d))}):
                    errors.append(f"{rel}:{line_no}: src/ includes \"{m.group(1)}\" from python/, which stands "
                                  f"above every folder of src/")
    return errors


def main(src, python=None):
    rank = {}
    for r, peers in enumerate(LAYERS):
        for folder in peers:
            rank[folder] = r
    errors = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in rank:
            errors.append(f"src/{folder}/: a folder the layer order does not know; add it to LAYERS in "
                          f"tests/layers/check_layers.py at its place in the pipeline")
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith((".h", ".hpp", ".cpp", ".cu", ".cuh")):
                    continue
                file = os.path.join(root, name)
                rel = os.path.relpath(file, os.path.dirname(src))
                with open(file, encoding="utf-8", errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or "/" not in m.group(1):
                            continue
                        target = m.group(1).split("/")[0]
                        if target == folder or target not in rank:
                            continue
                        if rank[target] > rank[folder]:
                            errors.append(f"{rel}:{line_no}: src/{folder}/ includes \"{m.group(1)}\" from "
                                          f"src/{target}/, a layer above it; move the shared piece down or "
                                          f"invert the dependency (an interface in the lower layer)")
                        elif rank[target] == rank[folder]:
                            errors.append(f"{rel}:{line_no}: src/{folder}/ includes \"{m.group(1)}\" from its "
                                          f"peer src/{target}/; peers must not depend on each other")
    if python:
        errors += python_errors(src, python, rank)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} include(s) run against the layer order")
        return 1
    print("every include points down the layer order")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: check_layers.py SRC_DIR [PYTHON_DIR]")
    sys.exit(main(*sys.argv[1:]))
