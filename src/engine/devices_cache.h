// The cache of `kbench devices` (docs/devices.md): the ceilings measured on
// each device model, so efficiency figures divide by a measurement taken once,
// not on every run. One JSON file, $XDG_CACHE_HOME/kbench/devices.json
// (default ~/.cache/kbench/devices.json):
//
//   {"format": "kbench-devices/1",
//    "devices": {"NVIDIA H100 80GB HBM3|driver 13000": {"name": ..., "driver_version": ...,
//                "ceilings": {"copy_gbps": 3000.1, "gemm_tflops": {"f16": ..., "bf16": ..., "f32": ...}},
//                "measured_at": "2026-11-23T20:00:00Z", "kbench_version": "...", "method": {...}}}}
//
// Keyed by device name and driver version: the C API does not expose a
// device's UUID, and a new driver may move the ceilings. kbench.devices (the
// Python package) reads the same file.
#pragma once

#include <map>
#include <string>

#include "util/json.h"

namespace kb {

constexpr const char* kDevicesCacheFormat = "kbench-devices/1";

// $XDG_CACHE_HOME/kbench/devices.json, else $HOME/.cache/kbench/devices.json.
std::string devices_cache_path();
// "NAME|driver VERSION".
std::string device_cache_key(const std::string& name, long long driver_version);

struct DevicesCache {
    std::map<std::string, Json> devices;  // key -> entry
};

// Reads the cache. A missing file is an empty cache; a file that is not
// valid JSON, or not of kDevicesCacheFormat, throws std::runtime_error whose
// message names the file and says to delete it or run with --refresh.
DevicesCache read_devices_cache(const std::string& path);
// Writes the whole cache atomically (temporary file and rename), making its
// folder; throws kb::Error(KB_ERR_IO) naming the path.
void write_devices_cache(const std::string& path, const DevicesCache& cache);

}  // namespace kb
