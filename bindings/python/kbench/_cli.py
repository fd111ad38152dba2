"""The `kbench` console script of the wheel: runs the command-line tool
installed inside the package (kbench/bin/kbench), which finds its worker in
kbench/libexec/ as an installed kbench does."""
import os
import pathlib
import sys


def main():
    exe = pathlib.Path(__file__).resolve().parent / "bin" / "kbench"
    if not os.access(exe, os.X_OK):
        print(f"kbench: the command-line tool is not part of this installation ({exe} is missing); "
              "install kbench with pip, or use the one from a CMake build", file=sys.stderr)
        return 1
    os.execv(exe, [str(exe), *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
