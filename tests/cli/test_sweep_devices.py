"""`kbench sweep` and `kbench devices` on a machine without a GPU: help,
usage errors, the --dim range forms (through --dry-run, which loads every
size's task and compiles the candidate without a device), the one-line
no-GPU errors, the plot script on made-up points, and the devices cache.

Run by CTest with KBENCH_CLI (the built tool) and KBENCH_SOURCE_DIR."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

CLI = os.environ.get("KBENCH_CLI", "kbench")
SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
GEMM = SOURCE_DIR / "tasks" / "gemm" / "gemm_f16"
GEMM_CAND = GEMM / "candidates" / "correct.cu"
PLOT = SOURCE_DIR / "python" / "kbench_programs" / "kbench_sweep_plot.py"


def kbench(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=600, env=e)


def _count():
    # `kbench info --json` says whether there is a device without measuring anything.
    j = json.loads(kbench("info", "--json").stdout)
    return 0 if j.get("no_device_reason") else 1


class SweepUsage(unittest.TestCase):
    def test_help_has_examples(self):
        p = kbench("sweep", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: kbench sweep TASK CANDIDATE --dim", p.stdout)
        self.assertIn("examples:", p.stdout)
        self.assertIn("sweep", kbench("--help").stdout)

    def test_usage_errors_exit_2(self):
        cases = [
            ([], "sweep needs TASK CANDIDATE"),
            ([GEMM, GEMM_CAND], "--dim NAMES=RANGE is required"),
            ([GEMM, GEMM_CAND, "--dim", "M=1..4", "--dim", "N=1..4"], "--dim is given twice"),
            ([GEMM, GEMM_CAND, "--dim", "M=1..4", "--metric", "flops"], "--metric expects"),
            ([GEMM, GEMM_CAND, "--dim", "M=1..4", "--frobnicate"], "unknown option '--frobnicate'"),
            ([GEMM, GEMM_CAND, "--dim"], "--dim needs a value"),
            ([GEMM, GEMM_CAND, "--dim", "M"], "no '='"),
            ([GEMM, GEMM_CAND, "--dim", "M=8..2"], "below the start"),
            ([GEMM, GEMM_CAND, "--dim", "M=0..8"], "at least 1"),
            ([GEMM, GEMM_CAND, "--dim", "M=a..8"], "not a positive integer"),
            ([GEMM, GEMM_CAND, "--dim", "M=1..8:x1"], "factor must be at least 2"),
            ([GEMM, GEMM_CAND, "--dim", "M=1..100000:1"], "more than 64 sizes"),
            ([GEMM, GEMM_CAND, "--dim", "M=4,2"], "sizes must increase"),
            ([GEMM, GEMM_CAND, "--dim", "M,M=1..4"], "named twice"),
            ([GEMM, GEMM_CAND, "--dim", "3x=1..4"], "not a dim name"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                p = kbench("sweep", *args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(message, p.stderr)
                j = kbench("sweep", "--json", *args)
                self.assertEqual(j.returncode, 2)
                doc = json.loads(j.stdout)
                self.assertEqual(doc["error"]["kind"], "usage")
                self.assertIn(message, doc["error"]["message"])


class SweepRange(unittest.TestCase):
    """The range forms, seen through --dry-run --json (no GPU needed)."""

    def sizes(self, spec, dims="M,N,K"):
        p = kbench("sweep", GEMM, GEMM_CAND, "--dim", f"{dims}={spec}", "--dry-run", "--json")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["dims"], dims.split(","))
        self.assertTrue(all(pt.get("compiled") for pt in doc["points"]), doc)
        return doc["sizes"]

    def test_linear_steps(self):
        self.assertEqual(self.sizes("1024..16384:1024"), list(range(1024, 16385, 1024)))
        self.assertEqual(self.sizes("1000..2500:1000"), [1000, 2000])  # the end is a bound, not a point

    def test_powers_of_two_by_default(self):
        self.assertEqual(self.sizes("1024..16384"), [1024, 2048, 4096, 8192, 16384])
        self.assertEqual(self.sizes("3..20"), [3, 6, 12])

    def test_factor_and_list(self):
        self.assertEqual(self.sizes("256..16384:x4"), [256, 1024, 4096, 16384])
        self.assertEqual(self.sizes("100,300,1000"), [100, 300, 1000])
        self.assertEqual(self.sizes("64", dims="K"), [64])

    def test_dry_run_text_and_metric(self):
        p = kbench("sweep", GEMM, GEMM_CAND, "--dim", "M,N,K=256..1024", "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("M,N,K = 256 512 1024", p.stdout)
        doc = json.loads(kbench("sweep", GEMM, GEMM_CAND, "--dim", "M=64", "--dry-run", "--json").stdout)
        self.assertEqual((doc["metric"], doc["unit"], doc["baseline"]), ("tflops", "TFLOP/s", "cuBLAS"))
        copy = SOURCE_DIR / "tasks" / "elementwise" / "copy_f32"
        doc = json.loads(kbench("sweep", copy, copy / "candidates" / "correct.cu", "--dim", "n=1024..4096",
                                "--dry-run", "--json").stdout)
        self.assertEqual(doc["metric"], "gbps")  # the task counts bytes, no flops

    def test_unknown_dim_and_missing_files(self):
        p = kbench("sweep", GEMM, GEMM_CAND, "--dim", "Q=1..4", "--dry-run")
        self.assertEqual(p.returncode, 1)
        self.assertIn("has no dim 'Q'; its dims are M, N, K", p.stderr)
        p = kbench("sweep", GEMM, "/nonexistent.cu", "--dim", "M=1..4", "--dry-run", "--json")
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent.cu", json.loads(p.stdout)["error"]["message"])
        p = kbench("sweep", "/nonexistent", GEMM_CAND, "--dim", "M=1..4", "--dry-run")
        self.assertEqual(p.returncode, 1)
        self.assertIn("/nonexistent", p.stderr)

    def test_compile_error_fails_the_dry_run(self):
        with tempfile.TemporaryDirectory() as d:
            bad = pathlib.Path(d) / "bad.cu"
            bad.write_text("__global__ void gemm_f16() { oops }\n")
            p = kbench("sweep", GEMM, bad, "--dim", "M=16,32", "--dry-run", "--json")
            self.assertEqual(p.returncode, 1)
            doc = json.loads(p.stdout)
            self.assertTrue(all(pt["error"].startswith("compile_error") for pt in doc["points"]), doc)


@unittest.skipIf(_count() > 0, "a CUDA device is present")
class SweepNoDevice(unittest.TestCase):
    def test_one_line_error(self):
        p = kbench("sweep", GEMM, GEMM_CAND, "--dim", "M,N,K=256..1024")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("no CUDA device", p.stderr)
        self.assertIn("--dry-run", p.stderr)
        j = kbench("sweep", GEMM, GEMM_CAND, "--dim", "M,N,K=256..1024", "--json")
        self.assertEqual(j.returncode, 1)
        self.assertIn("no CUDA device", json.loads(j.stdout)["error"]["message"])


def made_up_points(dims=("M", "N", "K")):
    sizes = [256, 512, 1024, 2048, 4096]
    return {"task": "gemm_f16", "candidate": "matmul.py", "baseline": "cuBLAS", "dims": list(dims),
            "sizes": sizes, "metric": "tflops", "unit": "TFLOP/s", "device": "Made-up GPU",
            "points": [{"size": s, "candidate": {"median_us": 10.0, "tflops": 100.0 + i, "value": 100.0 + i},
                        "baseline": {"median_us": 9.0, "tflops": 120.0 + i, "value": 120.0 + i}, "speedup": 0.9}
                       for i, s in enumerate(sizes)] + [{"size": 8192, "error": "wrong_answer: made up"}]}


class PlotScript(unittest.TestCase):
    def plot(self, doc, env=None, raw=None):
        d = tempfile.mkdtemp()
        data = pathlib.Path(d) / "points.json"
        data.write_text(raw if raw is not None else json.dumps(doc))
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.run([sys.executable, "-B", PLOT, data, pathlib.Path(d) / "plot"], capture_output=True,
                           text=True, env=e, timeout=300)
        return p, pathlib.Path(d)

    def test_writes_valid_png_and_svg(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.fail("matplotlib is not installed (scripts/setup.sh installs it with pip)")
        p, d = self.plot(made_up_points())
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        png = (d / "plot.png").read_bytes()
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(len(png), 5000)
        svg = ET.parse(d / "plot.svg").getroot()
        self.assertTrue(svg.tag.endswith("svg"), svg.tag)
        text = (d / "plot.svg").read_text()
        for label in ("matmul.py", "cuBLAS", "TFLOP/s", "M,N,K", "gemm_f16 on Made-up GPU"):
            self.assertIn(label, text)

    def test_matplotlib_missing_exits_3(self):
        with tempfile.TemporaryDirectory() as shadow:
            pathlib.Path(shadow, "matplotlib.py").write_text("raise ImportError('no matplotlib here')\n")
            p, d = self.plot(made_up_points(), env={"PYTHONPATH": shadow})
        self.assertEqual(p.returncode, 3)
        self.assertIn("pip install matplotlib", p.stderr)
        self.assertFalse((d / "plot.png").exists())

    def test_bad_points_exit_2_naming_the_field(self):
        doc = made_up_points()
        del doc["unit"]
        p, _ = self.plot(doc)
        self.assertEqual(p.returncode, 2)
        self.assertIn('"unit" is missing', p.stderr)
        p, _ = self.plot(None, raw="{not json")
        self.assertEqual(p.returncode, 2)
        doc = made_up_points()
        doc["points"] = [{"size": 1, "error": "x"}]
        p, _ = self.plot(doc)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no point has a value", p.stderr)


class DevicesCli(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.TemporaryDirectory()
        self.env = {"XDG_CACHE_HOME": self.cache.name}
        self.path = pathlib.Path(self.cache.name) / "kbench" / "devices.json"

    def tearDown(self):
        self.cache.cleanup()

    def test_help_and_usage(self):
        p = kbench("devices", "--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("examples:", p.stdout)
        for args, message in [(["--device"], "--device needs a value"), (["--device", "x"], "expects a device number"),
                              (["extra"], "takes no arguments"), (["--cached", "--refresh"], "exclude each other"),
                              (["--nope"], "unknown option")]:
            p = kbench("devices", *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(message, p.stderr)
            j = kbench("devices", "--json", *args)
            self.assertEqual(json.loads(j.stdout)["error"]["kind"], "usage")

    @unittest.skipIf(_count() > 0, "a CUDA device is present")
    def test_no_device(self):
        p = kbench("devices", env=self.env)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("no CUDA device", p.stderr)
        j = kbench("devices", "--json", env=self.env)
        self.assertEqual(j.returncode, 0)
        doc = json.loads(j.stdout)
        self.assertEqual((doc["devices"], doc["count"]), ([], 0))
        self.assertTrue(doc["no_device_reason"])
        self.assertFalse(self.path.exists())  # nothing measured, nothing cached

    def test_dry_run_loads_and_compiles(self):
        p = kbench("devices", "--dry-run", "--json", env=self.env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["tasks"], ["ceiling_copy_f32", "ceiling_gemm_f16", "ceiling_gemm_bf16", "ceiling_gemm_f32"])
        self.assertEqual(doc["copy_kernel"], "compiled")

    def test_cached_lists_the_cache(self):
        p = kbench("devices", "--cached", "--json", env=self.env)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(json.loads(p.stdout)["devices"], {})
        self.path.parent.mkdir(parents=True)
        entry = {"name": "GPU A", "driver_version": 13000,
                 "ceilings": {"copy_gbps": 3000.0, "gemm_tflops": {"f16": 700.0, "bf16": 690.0, "f32": 50.0}},
                 "measured_at": "2026-11-23T20:00:00Z"}
        self.path.write_text(json.dumps({"format": "kbench-devices/1", "devices": {"GPU A|driver 13000": entry}}))
        doc = json.loads(kbench("devices", "--cached", "--json", env=self.env).stdout)
        self.assertEqual(doc["devices"]["GPU A|driver 13000"]["ceilings"]["gemm_tflops"]["f16"], 700.0)
        self.assertEqual(doc["cache"], str(self.path))
        p = kbench("devices", "--cached", env=self.env)
        self.assertIn("GPU A|driver 13000: copy 3000.0 GB/s", p.stdout)

    def test_broken_cache_is_an_error_naming_it(self):
        self.path.parent.mkdir(parents=True)
        self.path.write_text("{broken")
        p = kbench("devices", "--cached", env=self.env)
        self.assertEqual(p.returncode, 1)
        self.assertIn(str(self.path), p.stderr)
        self.assertIn("--refresh", p.stderr)
        j = kbench("devices", "--cached", "--json", env=self.env)
        self.assertEqual(j.returncode, 1)
        self.assertIn("not valid JSON", json.loads(j.stdout)["error"]["message"])


if __name__ == "__main__":
    unittest.main()
