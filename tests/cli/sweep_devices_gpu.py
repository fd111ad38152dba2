"""`kbench devices` and `kbench sweep` on a GPU (CTest label gpu; exits 77
without a device): the ceilings are measured, plausible and cached (a second
run reads the cache), and a small sweep of the f16 matmul against cuBLAS
gives a point per size for both providers and writes the PNG and SVG."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

CLI = os.environ.get("KBENCH_CLI", "kbench")
SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def kbench(*args, env):
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=900, env=env)
    print(f"$ kbench {' '.join(map(str, args))}  -> {p.returncode}\n{p.stdout}{p.stderr}", flush=True)
    return p


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}")
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, XDG_CACHE_HOME=d)
        if json.loads(kbench("info", "--json", env=env).stdout).get("no_device_reason"):
            print("skipped: no CUDA device")
            return 77
        p = kbench("devices", "--json", "--device", "0", env=env)
        check(p.returncode == 0, "kbench devices exits 0")
        dev = json.loads(p.stdout)["devices"][0]
        c = dev["ceilings"]
        check(dev["cached"] is False, "the first run measures")
        check(50 < c["copy_gbps"] < 20000, f"copy bandwidth {c['copy_gbps']} GB/s is plausible")
        g = c["gemm_tflops"]
        check(g["f16"] > g["f32"] > 1 and g["bf16"] > g["f32"], f"GEMM TFLOP/s {g} are plausible (f16, bf16 > f32)")
        check(c["copy_gbps"] <= dev["peak_dram_gbps"] * 1.05, "copy bandwidth is below the DRAM peak")
        cache = pathlib.Path(d) / "kbench" / "devices.json"
        check(cache.exists(), "the cache file is written")
        again = json.loads(kbench("devices", "--json", "--device", "0", env=env).stdout)["devices"][0]
        check(again["cached"] is True and again["ceilings"] == c, "the second run reads the cache")

        task = SOURCE_DIR / "tasks" / "gemm" / "gemm_f16"
        out = pathlib.Path(d) / "sweep"
        try:
            import matplotlib  # noqa: F401 - the device machine may lack it: the points are checked anyway
            have_plot = True
        except ImportError:
            have_plot = False
        p = kbench("sweep", task, task / "candidates" / "correct.cu", "--dim", "M,N,K=256..1024", "--out-dir", out,
                   "--json", env=env)
        doc = json.loads(p.stdout)
        if have_plot:
            check(p.returncode == 0, "the sweep exits 0")
        else:
            check(p.returncode == 1 and "matplotlib is not installed" in doc.get("plot_error", ""),
                  "without matplotlib: exit 1 and plot_error says so")
            check((out / "gemm_f16_sweep.json").exists(), "without matplotlib the points file is still written")
        check(doc["sizes"] == [256, 512, 1024] and doc["baseline"] == "cuBLAS", "sizes and baseline")
        for pt in doc["points"]:
            check(pt.get("verdict") == "pass", f"size {pt['size']} is correct")
            check(pt["candidate"]["tflops"] > 0 and pt["baseline"]["tflops"] > 0, f"size {pt['size']} has TFLOP/s")
        if have_plot:
            check((out / "gemm_f16_sweep.png").read_bytes()[:4] == b"\x89PNG", "the PNG is written")
            check("<svg" in (out / "gemm_f16_sweep.svg").read_text(), "the SVG is written")
        text = kbench("sweep", task, task / "candidates" / "correct.cu", "--dim", "M,N,K=512", "--out-dir", out,
                      "--no-plot", env=env)
        check(text.returncode == 0 and "cuBLAS" in text.stdout, "the text table names cuBLAS")
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
