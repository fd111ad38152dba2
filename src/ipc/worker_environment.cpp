#include "ipc/worker_environment.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "util/error.h"

namespace kb {
namespace {

constexpr const char* kQueues = "CUDA_DEVICE_MAX_CONNECTIONS";
constexpr const char* kSetting = "KBENCH_WORKER_CUDA_CONNECTIONS";
constexpr const char* kVisible = "CUDA_VISIBLE_DEVICES";
constexpr const char* kDevicesSetting = "KBENCH_WORKER_DEVICES";

// The value of NAME in `env`, or nullptr.
const char* lookup(const char* const* env, const char* name) {
    const size_t n = std::strlen(name);
    for (const char* const* e = env; e && *e; ++e)
        if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return nullptr;
}

// The host's CUDA_VISIBLE_DEVICES entry that its device ORDINAL is, or "" when
// the list does not reach it (CUDA then reports the ordinal as it would).
// Without the variable, device N is entry N of the machine's own order.
std::string visible_entry(const char* visible, int ordinal) {
    if (!visible) return std::to_string(ordinal);
    std::vector<std::string> entries(1);
    for (const char* c = visible; *c; ++c) {
        if (*c == ',') entries.emplace_back();
        else if (*c != ' ' && *c != '\t') entries.back().push_back(*c);
    }
    if (ordinal < 0 || size_t(ordinal) >= entries.size() || entries[size_t(ordinal)].empty()) return "";
    return entries[size_t(ordinal)];
}

}  // namespace

DeviceWorkerEnvironment device_worker_environment(const char* const* env, int ordinal) {
    // How many hardware queues.
    const char* setting = lookup(env, kSetting);
    std::string queues = "1";
    if (setting && *setting) {
        if (std::strcmp(setting, "inherit") == 0) {
            queues.clear();
        } else {
            char* end = nullptr;
            long n = std::strtol(setting, &end, 10);
            if (end == setting || *end != 0 || n < 1 || n > 32)
                fail(KB_ERR_INVALID_ARGUMENT, std::string("$") + kSetting + " is '" + setting +
                                                  "': give a number of CUDA hardware queues from 1 to 32 for each "
                                                  "device worker, or 'inherit' to leave $" + kQueues +
                                                  " as it is; unset it for 1, the fastest start");
            queues = std::to_string(n);
        }
    }
    // Which devices it sees.
    const char* devices = lookup(env, kDevicesSetting);
    bool own_only = true;
    if (devices && *devices) {
        if (std::strcmp(devices, "all") == 0) own_only = false;
        else if (std::strcmp(devices, "own") != 0)
            fail(KB_ERR_INVALID_ARGUMENT, std::string("$") + kDevicesSetting + " is '" + devices +
                                              "': give 'own' (the default: each device worker sees only its own "
                                              "GPU) or 'all' (it sees every GPU the host sees)");
    }
    std::string entry = own_only ? visible_entry(lookup(env, kVisible), ordinal) : "";

    DeviceWorkerEnvironment out;
    out.ordinal = entry.empty() ? ordinal : 0;
    const size_t qlen = std::strlen(kQueues), vlen = std::strlen(kVisible);
    bool visible_set = false;
    for (const char* const* e = env; e && *e; ++e) {
        if (!queues.empty() && std::strncmp(*e, kQueues, qlen) == 0 && (*e)[qlen] == '=') continue;
        if (!entry.empty() && std::strncmp(*e, kVisible, vlen) == 0 && (*e)[vlen] == '=') {
            out.env.push_back(std::string(kVisible) + "=" + entry);
            visible_set = true;
            continue;
        }
        out.env.emplace_back(*e);
    }
    if (!entry.empty() && !visible_set) out.env.push_back(std::string(kVisible) + "=" + entry);
    if (!queues.empty()) out.env.push_back(std::string(kQueues) + "=" + queues);
    return out;
}

void check_worker_heap_setting(const char* const* env) {
    const char* v = lookup(env, "KBENCH_WORKER_HEAP");
    if (!v || !*v || std::strcmp(v, "keep") == 0 || std::strcmp(v, "release") == 0) return;
    fail(KB_ERR_INVALID_ARGUMENT, std::string("$KBENCH_WORKER_HEAP is '") + v +
                                      "': give 'keep' (the default: a worker keeps freed memory for its next "
                                      "request) or 'release' (freed memory goes back to the system at once)");
}

}  // namespace kb
