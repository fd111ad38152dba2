"""Repacks a Ray wheel without what kbench's use of Ray never loads, so it
fits the 64 MiB of ignored files copied to the GPU machine (bench/ray/fetch_wheels.sh): the Java
jars, the dashboard's web client, and the libraries built on Ray Core.
RECORD is rewritten to list what stays, so pip installs it as any wheel.

usage: python3 bench/ray/strip_wheel.py RAY.whl OUT_DIR
"""
import os
import sys
import zipfile

DROP = ("ray/jars/", "ray/dashboard/client/", "ray/rllib/", "ray/tune/", "ray/train/", "ray/serve/",
        "ray/data/", "ray/llm/")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out_dir = sys.argv[1], sys.argv[2]
    dst = os.path.join(out_dir, os.path.basename(src))
    dropped = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        record = None
        for info in zin.infolist():
            name = info.filename
            if name.startswith(DROP):
                dropped += info.file_size
                continue
            if name.endswith(".dist-info/RECORD"):
                record = info
                continue
            zout.writestr(info, zin.read(name))
        if record is None:
            print(f"strip_wheel: {src} has no RECORD; is it a wheel?", file=sys.stderr)
            return 1
        kept = [line for line in zin.read(record.filename).decode().splitlines()
                if line and not line.split(",", 1)[0].startswith(DROP)]
        zout.writestr(record, "\n".join(kept) + "\n")
    print(f"strip_wheel: {dst}: {os.path.getsize(dst) / 2**20:.1f} MiB "
          f"({os.path.getsize(src) / 2**20:.1f} before; {dropped / 2**20:.1f} MiB unpacked dropped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
