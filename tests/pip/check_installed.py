"""Run inside a virtual environment where the kbench wheel is installed, with
an empty environment (no PYTHONPATH, LD_LIBRARY_PATH or KBENCH_*): the
package imports, names its version, compiles a candidate without a GPU, and
its library starts the kbench-worker inside the installed package.

    python check_installed.py TASK CANDIDATE EXPECTED_VERSION
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

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
    check_helpers(package)
    check_import(package)
    return 0


def check_helpers(package):
    """The wheel's CLI finds the Python programs and their native libraries
    inside the package, not in the source tree it was built from."""
    info = json.loads(subprocess.run(["kbench", "info", "--no-device", "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    helpers = info["helpers"]
    print("helpers:", helpers)
    for key in ("worker", "programs_dir", "program_worker", "gpu_compare_library", "cupti_library"):
        path = helpers.get(key)
        if key == "cupti_library" and path is None:
            continue  # built only where the toolkit has CUPTI
        assert path and pathlib.Path(path).resolve().is_relative_to(package), \
            f"{key}: {path!r} is not inside the installed package {package}"


def check_import(package):
    """`kbench import kernelbench` runs the importer the wheel carries."""
    with tempfile.TemporaryDirectory() as d:
        problem = pathlib.Path(d) / "1_relu.py"
        problem.write_text("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
                           "    def forward(self, x):\n        return torch.relu(x)\n\n\nn = 4096\n\n\n"
                           "def get_inputs():\n    return [torch.randn(n)]\n\n\ndef get_init_inputs():\n"
                           "    return []\n")
        out = subprocess.run(["kbench", "import", "kernelbench", str(problem), "--stdout", "--no-validate"],
                             capture_output=True, text=True)
        assert out.returncode == 0, f"kbench import failed ({out.returncode}): {out.stderr}"
        task = json.loads(out.stdout)
        print("imported:", task["name"], [c["name"] for c in task["cases"]])
        assert task["format"] == "kbench-task/1"
        # The Python API finds the same importer inside the package, with no
        # environment variable (score_program starts from problem_task).
        from kbench import programs
        found = pathlib.Path(programs._programs_dir()).resolve()
        print("programs dir:", found)
        assert found.is_relative_to(package), f"score_program's files {found} are not inside {package}"
        with kbench.problem_task(str(problem)) as t:
            print("problem_task:", t.name, t.cases)
            assert t.json()["reference"]["language"] == "python", t.json()["reference"]


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
