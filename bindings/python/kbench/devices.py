"""The ceilings `kbench devices` measured, read from its cache (docs/devices.md):
$XDG_CACHE_HOME/kbench/devices.json (default ~/.cache/kbench/devices.json),
one entry per device model and driver version."""
import json
import os
import pathlib

FORMAT = "kbench-devices/1"


def cache_path():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "kbench" / "devices.json"


def cache_key(name, driver_version):
    """The key of a device's entry: its name and the driver's version."""
    return f"{name}|driver {driver_version}"


def load():
    """The cache's entries (a dict; empty when there is no cache or it is not kbench's)."""
    try:
        doc = json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("devices"), dict):
        return {}
    return doc["devices"]


def lookup(name, driver_version):
    """The entry for a device ({"name", "driver_version", "ceilings": {"copy_gbps",
    "gemm_tflops": {"f16", "bf16", "f32"}}, ...}), or None when not measured."""
    return load().get(cache_key(name, driver_version))
