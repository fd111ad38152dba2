# A hostile program candidate (docs/isolation.md, "Confinement"): connects to a listener on 127.0.0.1.
# In forward it does one harmful thing, then computes softmax correctly, so
# its verdict is a pass only if the harm was blocked; tests/unit/test_confine.cpp
# runs act() alone in a confined process without torch (`python3 connect_local.py --work-dir DIR`).
# Parameters come from $KBENCH_HOSTILE_* (the test sets them).
import json
import os
import sys


_NAME = "connect_local"


def _env(name, default=""):
    return os.environ.get("KBENCH_HOSTILE_" + name, default)


def act():
    import socket
    port = int(_env("PORT", "0"))
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"hostile")
        s.close()
        return {"connected": True}
    except OSError as e:
        return {"refused": e.errno, "port": port}


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
