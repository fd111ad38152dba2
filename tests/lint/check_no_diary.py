#!/usr/bin/env python3
"""Fails when a tracked file narrates the project's development.

Comments, docs, scripts, tests and bench/ say what the code does and why, in
the present tense; a figure cites the benchmark and command that measure it,
and the history of figures stays in git. This check looks for the words such
a diary uses: numbered work sessions, numbered runs and calls of a device
command, machines named by letter, and the words of the tool that provides
the GPU machines. It prints every hit as FILE:LINE: TEXT and exits 1.

    python3 tests/lint/check_no_diary.py REPO_ROOT

The files are those `git ls-files` lists in REPO_ROOT; without git (a source
tarball), a walk of the tree that skips hidden and build folders.
"""
import os
import re
import subprocess
import sys

# Each pattern names one kind of diary entry. They are written to miss the
# ordinary uses of the same words: "on run 2 of 2" (a verdict's message),
# `--runs 4`, "runs 10,000 cycles", "the call", "a session" of a protocol.
PATTERNS = [
    ("a numbered session", re.compile(r"\bsessions? (?:[0-9]+|[ivxl]+\b)", re.IGNORECASE)),
    ("a numbered call", re.compile(r"\bcalls? [0-9]+(?:-[0-9]+)?\b(?! of\b)(?![,.][0-9])", re.IGNORECASE)),
    ("a numbered run", re.compile(r"(?<![-\w])runs? (?:#)?[0-9]+(?:-[0-9]+)?\b(?! of\b)(?![,.][0-9])(?! (?:times|cycles|iterations|trials|samples|rounds|cases|candidates|answers|kernels|seeds|threads))", re.IGNORECASE)),
    ("a machine by letter", re.compile(r"\bmachines? [A-Z](?:-[A-Z])?\b")),
    ("the GPU-lending tool", re.compile(r"\bdevice" r" tool\b|\blent\b|\blends? (?:a |the )?(?:GPUs?|machines?)\b|\bnvidia-h[12]00(?:-x[0-9])?\b", re.IGNORECASE)),
]

# Files still being cleaned; each entry is to be removed once its file is
# clean, and the list is to end empty. Nothing else may be added here: a
# file that must mention these words legitimately should rephrase them.
ALLOWED = set()

# Lines each pattern must catch and lines none may catch, so that a pattern
# broken by an edit cannot pass unnoticed. Built from pieces so that this
# file itself holds no diary line.
def _j(*parts):
    return " ".join(parts)

MUST_CATCH = [
    _j("measured in", "session", "22"),
    _j("(bench/RESULTS.md,", "Session", "16's traced run)"),
    _j("as in", "call", "3"),
    _j("see", "run", "7", "for the figures"),
    _j("on", "machine", "B's", "CPU"),
    _j("the", "device", "tool", "carries 64 MiB"),
    _j("the GPU", "le" + "nt", "to us"),
    _j("five calls on", "nvidia-" + "h200"),
]
MUST_PASS = [
    "on run 2 of 2 on the same inputs (the first run passed)",
    "kbench score --skip-timing --runs 4 my_task.json",
    "LeakCycles runs 10,000 load/compile/destroy cycles",
    "a new session (start_new_session)",
    "the next call gets a fresh worker",
    "a machine without a GPU",
]

SKIP_DIRS = {"build", "node_modules", "__pycache__"}


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout
        files = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        if files:
            return files, "git ls-files"
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in SKIP_DIRS
                         and not x.startswith("build"))
        for n in sorted(names):
            files.append(os.path.relpath(os.path.join(d, n), root))
    return files, "a walk of the tree"


def hits_in(text):
    for no, line in enumerate(text.splitlines(), 1):
        for what, rx in PATTERNS:
            if rx.search(line):
                yield no, what, line.strip()
                break


def self_test():
    bad = []
    for line in MUST_CATCH:
        if not any(rx.search(line) for _, rx in PATTERNS):
            bad.append("the patterns miss a diary line: " + line)
    for line in MUST_PASS:
        for what, rx in PATTERNS:
            if rx.search(line):
                bad.append("the pattern for %s catches an ordinary line: %s" % (what, line))
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_no_diary.py REPO_ROOT")
    root = sys.argv[1]
    problems = self_test()
    files, how = tracked_files(root)
    scanned = 0
    hits = []
    allowed_hits = 0
    for rel in files:
        path = os.path.join(root, rel)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue  # listed by git but deleted in the work tree
        if b"\0" in data[:8192]:
            continue  # binary
        scanned += 1
        text = data.decode("utf-8", "replace")
        for no, what, line in hits_in(text):
            if rel in ALLOWED:
                allowed_hits += 1
                continue
            hits.append("%s:%d: %s: %s" % (rel, no, what, line[:160]))
    # A check that read nothing proves nothing.
    if scanned < 50 or not any(f.startswith("src/") for f in files):
        problems.append("only %d files scanned (by %s) in %s: not a kbench tree?" % (scanned, how, root))
    for p in problems:
        print("error: " + p)
    for h in hits:
        print(h)
    if problems or hits:
        print("%d diary line(s) in %d files scanned; say what the code does and why instead, "
              "and cite the benchmark that measures a figure" % (len(hits), scanned))
        return 1
    print("no diary lines in %d files (%s); %d in the %d allow-listed files still being cleaned"
          % (scanned, how, allowed_hits, len(ALLOWED)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
