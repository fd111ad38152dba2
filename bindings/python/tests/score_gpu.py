"""Scores vector_add_f32's candidates on a GPU through the Python binding.
Exits 77 (skipped, for CTest) when there is no CUDA device."""
import os
import pathlib
import sys

import kbench

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASK_DIR = SOURCE_DIR / "tasks" / "elementwise" / "vector_add_f32"


def main():
    if kbench.device_count() == 0:
        print("no CUDA device: skipped")
        return 77
    failures = 0
    with kbench.Context() as ctx, kbench.Task(TASK_DIR / "task.json") as task:
        for name, expected in [("correct.cu", "pass"), ("wrong.cu", "wrong_answer")]:
            with ctx.score(task, path=TASK_DIR / "candidates" / name) as result:
                doc = result.json()
                print(f"{name}: {result.verdict}: {result.message}")
                if result.verdict != expected or doc["verdict"] != expected:
                    print(f"  expected {expected}")
                    failures += 1
                if expected == "pass" and not result.number("/speedup") > 0:
                    print("  no positive /speedup in the result")
                    failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
