"""Draws the plot of `kbench sweep` (docs/sweep.md) in the style of Triton's
perf_report: x the swept size, one line per provider (the candidate, the
baseline), y the metric (TFLOP/s, GB/s or median microseconds).

    python3 kbench_sweep_plot.py POINTS.json PREFIX    # writes PREFIX.png and PREFIX.svg

POINTS.json is what `kbench sweep` writes. Exit status: 0 written; 2 the
points file is not usable (the message names the field); 3 matplotlib is
not installed."""
import json
import math
import sys


def fail(status, message):
    print(f"kbench_sweep_plot: {message}", file=sys.stderr)
    sys.exit(status)


def read_points(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(2, f"{path}: {e}")
    for key in ("task", "dims", "metric", "unit", "points"):
        if key not in doc:
            fail(2, f'{path}: "{key}" is missing; expected the JSON that kbench sweep writes')
    if not isinstance(doc["points"], list) or not doc["points"]:
        fail(2, f'{path}: "points" is empty or not a list')
    for i, p in enumerate(doc["points"]):
        if not isinstance(p, dict) or not isinstance(p.get("size"), (int, float)):
            fail(2, f'{path}: points[{i}].size is missing or not a number')
    return doc


def series(doc, provider):
    """(sizes, values) of a provider; sizes whose point has no value are left out."""
    xs, ys = [], []
    for p in doc["points"]:
        v = (p.get(provider) or {}).get("value")
        if isinstance(v, (int, float)) and math.isfinite(v):
            xs.append(p["size"])
            ys.append(v)
    return xs, ys


def main(argv):
    if len(argv) != 3:
        fail(2, "usage: kbench_sweep_plot.py POINTS.json PREFIX")
    doc = read_points(argv[1])
    prefix = argv[2]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail(3, "matplotlib is not installed (pip install matplotlib)")

    providers = [("candidate", doc.get("candidate") or "candidate", "tab:blue"),
                 ("baseline", doc.get("baseline") or "baseline", "tab:green")]
    plt.figure()
    ax = plt.subplot()
    drawn = 0
    for key, label, color in providers:
        xs, ys = series(doc, key)
        if xs:
            ax.plot(xs, ys, label=label, color=color, ls="-", marker="o", markersize=4)
            drawn += 1
    if not drawn:
        fail(2, f"{argv[1]}: no point has a value to plot (every size failed?)")
    sizes = [p["size"] for p in doc["points"]]
    # Sizes that multiply (powers of two) read best on a log axis, as perf_report's x_log.
    if len(sizes) > 2 and sizes[0] > 0 and sizes[-1] / sizes[0] >= 16 and sizes[1] / sizes[0] >= 1.9:
        ax.set_xscale("log", base=2)
    if len(sizes) <= 12:  # the sizes themselves as ticks, written out (1024, not 2^10)
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(v) for v in sizes])
        ax.minorticks_off()
    ax.set_xlabel(",".join(doc["dims"]))
    ax.set_ylabel(doc["unit"])
    ax.grid(True, alpha=0.3)
    ax.legend()
    title = doc["task"] + (f" on {doc['device']}" if doc.get("device") else "")
    plt.title(title)
    for ext in ("png", "svg"):
        plt.savefig(f"{prefix}.{ext}")
    plt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
