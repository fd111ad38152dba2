// A passing timed score's efficiency (docs/batch.md, section 2): the
// fraction of the device's measured ceiling, from the ceilings `kbench
// devices` caches (engine/devices_cache.h, docs/devices.md). A context reads
// its device's ceilings once; every result, `kbench run`'s lines and
// kbench.ray's take the figure from the score.
#pragma once

#include <optional>
#include <string>

#include "task/task.h"
#include "util/json.h"

namespace kb {

// The cached ceilings of a device (`dev`: a context's info()["device"], with
// "name" and "driver_version"), or null when the device was never measured.
// A cache that cannot be read gives null and sets *warning.
Json cached_ceilings(const Json& dev, std::string* warning);

// The larger of gbps / the copy bandwidth and tflops / the cuBLAS GEMM
// TFLOP/s of the task's first output's type (f16, bf16; any other against
// f32); nullopt when neither figure can be formed.
std::optional<double> efficiency_of(std::optional<double> gbps, std::optional<double> tflops, const Json& ceilings,
                                    const Task& task);

}  // namespace kb
