# A hostile program candidate (docs/isolation.md, "Confinement"): reads /proc/<host pid>/environ and /proc/<host pid>/mem.
# In forward it does one harmful thing, then computes softmax correctly, so
# its verdict is a pass only if the harm was blocked; tests/unit/test_confine.cpp
# runs act() alone in a confined process without torch (`python3 proc_of_host.py --work-dir DIR`).
# Parameters come from $KBENCH_HOSTILE_* (the test sets them).
import json
import os
import sys


_NAME = "proc_of_host"


def _env(name, default=""):
    return os.environ.get("KBENCH_HOSTILE_" + name, default)


def act():
    host = int(_env("HOST_PID", "0")) or os.getppid()
    out = {}
    for what in ("environ", "mem", "maps"):
        try:
            with open("/proc/%d/%s" % (host, what), "rb") as f:
                if what == "mem":
                    f.seek(0x400000)
                out[what] = f.read(4096).decode("latin-1")
        except OSError as e:
            out[what + "_refused"] = e.errno
    return out


try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    class ModelNew(torch.nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            try:
                report = act()
            except Exception as e:  # the harm was refused: carry on
                report = {"error": repr(e)}
            try:
                with open("hostile-report-%s.json" % _NAME, "w") as f:
                    json.dump(report, f)
            except OSError:
                pass
            e = torch.exp(x - x.max(dim=1, keepdim=True).values)
            return e / e.sum(dim=1, keepdim=True)


if __name__ == "__main__":
    os.chdir(sys.argv[sys.argv.index("--work-dir") + 1])
    try:
        out = act()
    except BaseException as e:
        out = {"error": repr(e)}
    with open("report.json", "w") as f:
        json.dump(out, f)
