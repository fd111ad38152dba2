#include "engine/efficiency.h"

#include <exception>

#include "engine/devices_cache.h"
#include "task/dtype.h"

namespace kb {

Json cached_ceilings(const Json& dev, std::string* warning) {
    try {
        DevicesCache c = read_devices_cache(devices_cache_path());
        auto it = c.devices.find(device_cache_key(dev.value("name", ""), dev.value("driver_version", 0ll)));
        if (it != c.devices.end()) return it->second["ceilings"];
    } catch (const std::exception& e) {
        *warning = std::string("no efficiency figures: ") + e.what();
    }
    return nullptr;
}

namespace {

// A positive number under `key` of `j`, else 0.
double positive(const Json& j, const std::string& key) {
    if (!j.is_object()) return 0;
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return 0;
    double v = it->get<double>();
    return v > 0 ? v : 0;
}

}  // namespace

std::optional<double> efficiency_of(std::optional<double> gbps, std::optional<double> tflops, const Json& ceilings,
                                    const Task& task) {
    if (!ceilings.is_object()) return std::nullopt;
    std::optional<double> best;
    auto take = [&](double f) {
        if (f > 0 && (!best || f > *best)) best = f;
    };
    if (double copy = positive(ceilings, "copy_gbps"); gbps && copy > 0) take(*gbps / copy);
    std::string dtype = "f32";
    for (const Arg& a : task.args)
        if (a.role == Role::out || a.role == Role::inout) {
            std::string d = dtype_name(a.dtype);
            if (d == "f16" || d == "bf16") dtype = d;
            break;
        }
    auto gemm = ceilings.find("gemm_tflops");
    if (double peak = gemm == ceilings.end() ? 0 : positive(*gemm, dtype); tflops && peak > 0) take(*tflops / peak);
    return best;
}

}  // namespace kb
