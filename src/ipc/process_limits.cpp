#include "ipc/process_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KB_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KB_SANITIZED_BUILD 1
#endif
#endif

namespace kb {

bool address_space_limit_usable() {
#ifdef KB_SANITIZED_BUILD
    // ASan and TSan map terabytes of writable shadow memory, which
    // RLIMIT_DATA counts: a memory cap on a sanitized process would fail its
    // next mmap.
    return false;
#else
    return true;
#endif
}

uint64_t own_address_space_limit() {
    struct rlimit r;
    if (::getrlimit(kMemoryLimit, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
    return uint64_t(r.rlim_cur);
}

std::string apply_process_limits(const ProcessLimits& l) {
    auto set = [](int resource, uint64_t cur, uint64_t max, const char* what) -> std::string {
        struct rlimit r;
        if (::getrlimit(resource, &r) == 0 && r.rlim_max != RLIM_INFINITY) {
            // Never ask for more than the hard limit already is.
            cur = std::min<uint64_t>(cur, r.rlim_max);
            max = std::min<uint64_t>(max, r.rlim_max);
        }
        r.rlim_cur = rlim_t(cur);
        r.rlim_max = rlim_t(max);
        if (::setrlimit(resource, &r) != 0) return std::string("setrlimit(") + what + "): " + std::strerror(errno);
        return "";
    };
    std::string err;
    if (l.memory_bytes && address_space_limit_usable())
        err += set(kMemoryLimit, l.memory_bytes, l.memory_bytes, "RLIMIT_DATA");
    if (l.cpu_s > 0) {
        uint64_t s = uint64_t(std::ceil(l.cpu_s));
        err += set(RLIMIT_CPU, s, s + 5, "RLIMIT_CPU");
    }
    if (l.file_bytes) err += set(RLIMIT_FSIZE, l.file_bytes, l.file_bytes, "RLIMIT_FSIZE");
    if (l.any()) err += set(RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
    return err;
}

}  // namespace kb
