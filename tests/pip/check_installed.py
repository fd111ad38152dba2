"""Run inside a virtual environment where the kbench wheel is installed, with
an empty environment (no PYTHONPATH, LD_LIBRARY_PATH or KBENCH_*): the
package imports, names its version, compiles a candidate without a GPU, and
its library starts the kbench-worker inside the installed package.

    python check_installed.py TASK CANDIDATE EXPECTED_VERSION
"""
import os
import pathlib
import sys

import kbench


def child_executables():
    """The executables of this process's children (the compile worker)."""
    me = os.getpid()
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            if ppid == me:
                out.append(os.readlink(f"/proc/{pid}/exe"))
        except (OSError, ValueError):
            continue
    return out


def main(task_path, candidate_path, expected_version):
    package = pathlib.Path(kbench.__file__).resolve().parent
    print("kbench", kbench.version(), "from", package)
    assert kbench.version() == expected_version, (kbench.version(), expected_version)
    assert "site-packages" in str(package), f"imported from {package}, not the installed wheel"
    capi = [p.name for p in package.iterdir() if p.name.startswith("_capi")]
    assert capi == ["_capi.abi3.so"], f"the module is not built for the limited API: {capi}"
    with kbench.Context(device=kbench.DEVICE_NONE, isolation="worker") as ctx, kbench.Task(task_path) as task:
        with ctx.compile(task, path=candidate_path) as kernel:
            info = kernel.json()
            print("compiled", info["image"], info["entries"])
            assert info["image"] == "ptx"
        workers = child_executables()
        print("workers:", workers)
        want = str(package / "libexec" / "kbench-worker")
        assert want in workers, f"the library did not start the wheel's worker {want}: {workers}"
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
