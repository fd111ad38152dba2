#include "ipc/worker_environment.h"

#include <cstdlib>
#include <cstring>

#include "util/error.h"

namespace kb {
namespace {

constexpr const char* kQueues = "CUDA_DEVICE_MAX_CONNECTIONS";
constexpr const char* kSetting = "KBENCH_WORKER_CUDA_CONNECTIONS";

// The value of NAME in `env`, or nullptr.
const char* lookup(const char* const* env, const char* name) {
    const size_t n = std::strlen(name);
    for (const char* const* e = env; e && *e; ++e)
        if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return nullptr;
}

}  // namespace

std::vector<std::string> device_worker_environment(const char* const* env) {
    std::vector<std::string> out;
    const char* setting = lookup(env, kSetting);
    std::string queues = "1";
    if (setting && *setting) {
        if (std::strcmp(setting, "inherit") == 0) {
            for (const char* const* e = env; e && *e; ++e) out.emplace_back(*e);
            return out;
        }
        char* end = nullptr;
        long n = std::strtol(setting, &end, 10);
        if (end == setting || *end != 0 || n < 1 || n > 32)
            fail(KB_ERR_INVALID_ARGUMENT, std::string("$") + kSetting + " is '" + setting +
                                              "': give a number of CUDA hardware queues from 1 to 32 for each "
                                              "device worker, or 'inherit' to leave $" + kQueues +
                                              " as it is; unset it for 1, the fastest start");
        queues = std::to_string(n);
    }
    const size_t len = std::strlen(kQueues);
    for (const char* const* e = env; e && *e; ++e)
        if (!(std::strncmp(*e, kQueues, len) == 0 && (*e)[len] == '=')) out.emplace_back(*e);
    out.push_back(std::string(kQueues) + "=" + queues);
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
