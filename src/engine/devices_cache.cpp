#include "engine/devices_cache.h"

#include <cstdlib>
#include <stdexcept>

#include "util/files.h"

namespace kb {

std::string devices_cache_path() {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    std::string base;
    if (xdg && *xdg) base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home) base = join_path(home, ".cache");
    else base = "/tmp";
    return join_path(join_path(base, "kbench"), "devices.json");
}

std::string device_cache_key(const std::string& name, long long driver_version) {
    return name + "|driver " + std::to_string(driver_version);
}

DevicesCache read_devices_cache(const std::string& path) {
    DevicesCache c;
    if (!file_exists(path)) return c;
    const std::string fix = "; delete it, or run `kbench devices --refresh` to measure again and rewrite it";
    Json j;
    try {
        j = Json::parse(read_file(path));
    } catch (const Json::parse_error& e) {
        throw std::runtime_error("devices cache " + path + ": not valid JSON (" + e.what() + ")" + fix);
    }
    if (!j.is_object() || j.value("format", "") != kDevicesCacheFormat)
        throw std::runtime_error("devices cache " + path + ": \"format\" is not \"" + kDevicesCacheFormat + "\"" + fix);
    auto d = j.find("devices");
    if (d == j.end() || !d->is_object())
        throw std::runtime_error("devices cache " + path + ": \"devices\" is missing or not an object" + fix);
    for (const auto& kv : d->items()) {
        const Json& e = kv.value();
        if (!e.is_object() || !e.contains("ceilings") || !e["ceilings"].is_object())
            throw std::runtime_error("devices cache " + path + ": devices[\"" + kv.key() +
                                     "\"] has no \"ceilings\" object" + fix);
        c.devices[kv.key()] = e;
    }
    return c;
}

void write_devices_cache(const std::string& path, const DevicesCache& cache) {
    Json devices = Json::object();
    for (const auto& [k, v] : cache.devices) devices[k] = v;
    Json j = {{"format", kDevicesCacheFormat}, {"devices", devices}};
    make_dirs(dirname_of(path));
    write_file_atomic(path, j.dump(2) + "\n");
}

}  // namespace kb
