"""Score a candidate on device 0: compile, check every case, time against
the baseline. Exits 77 (skipped) without a CUDA device.
usage: python3 score.py TASK.json CANDIDATE.cu"""
import sys

import kbench


def main(task_path, candidate_path):
    if kbench.device_count() == 0:
        print("no CUDA device: skipped")
        return 77
    with kbench.Context() as ctx, kbench.Task(task_path) as task:
        with ctx.score(task, path=candidate_path) as result:
            print(f"{result.verdict}: {result.message}")  # "pass", "wrong_answer", ...
            if result.passed:
                print(f"speedup {result.number('/speedup'):.2f}x")
            details = result.json()  # per-case reports, timing, compile log
            print(sorted(details))
            return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
