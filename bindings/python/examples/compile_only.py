"""Compile a candidate without a GPU.
usage: python3 compile_only.py TASK.json CANDIDATE.cu"""
import sys

import kbench


def main(task_path, candidate_path):
    with kbench.Context(device=kbench.DEVICE_NONE) as ctx, kbench.Task(task_path) as task:
        try:
            kernel = ctx.compile(task, path=candidate_path)
        except kbench.KbenchError as e:  # e.status == kbench.Status.COMPILE: e.detail is the log
            print(e, file=sys.stderr)
            return 1
        with kernel:
            info = kernel.json()
            print(task.name, info["image"], info["entries"])
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
