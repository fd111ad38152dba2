# A hostile program candidate (docs/isolation.md, "Confinement"): leaves daemons behind: a new session (start_new_session)
# and a double fork.
# In forward it does one harmful thing, then computes softmax correctly, so
# its verdict is a pass only if the harm was blocked; tests/unit/test_confine.cpp
# runs act() alone in a confined process without torch (`python3 orphan_daemon.py --work-dir DIR`).
# Parameters come from $KBENCH_HOSTILE_* (the test sets them).
import json
import os
import sys


_NAME = "orphan_daemon"


def _env(name, default=""):
    return os.environ.get("KBENCH_HOSTILE_" + name, default)


def act():
    import subprocess
    import time
    out = {"pids": []}
    try:
        p = subprocess.Popen(["sleep", "600"], start_new_session=True)
        out["pids"].append(p.pid)
    except Exception as e:
        out["session_refused"] = repr(e)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
        except OSError:
            pass
        grandchild = os.fork()
        if grandchild == 0:
            time.sleep(600)
            os._exit(0)
        os.write(w, str(grandchild).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    out["pids"].append(int(os.read(r, 64)))
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
