#!/usr/bin/env python3
"""Checks that src/ depends one way, down the pipeline (docs/architecture.md).

Every folder of src/ has a rank; a file may include headers of its own folder
and of folders of a lower rank, never of a higher one or of a peer of the same
rank. A folder that is not listed is an error too, so a new folder has to be
placed in the order on purpose. Prints every violation as FILE:LINE and exits 1.

    python3 tests/layers/check_layers.py SRC_DIR
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


def main(src):
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
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} include(s) run against the layer order")
        return 1
    print("every include points down the layer order")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_layers.py SRC_DIR")
    sys.exit(main(sys.argv[1]))
