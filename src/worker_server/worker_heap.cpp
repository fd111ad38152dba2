#include "worker_server/worker_heap.h"

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kb {

bool keep_worker_heap() {
#if defined(__GLIBC__)
    const char* setting = std::getenv("KBENCH_WORKER_HEAP");
    if (setting && std::strcmp(setting, "release") == 0) return false;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables && std::strstr(tunables, "glibc.malloc.")) return false;
    constexpr int kMiB = 1 << 20;
    // Setting any of these turns off glibc's sliding mmap threshold, so the
    // threshold is set too: blocks under it come from the (kept) heap.
    bool ok = mallopt(M_MMAP_THRESHOLD, 32 * kMiB) == 1;
    ok = mallopt(M_TRIM_THRESHOLD, 128 * kMiB) == 1 && ok;
    ok = mallopt(M_TOP_PAD, 16 * kMiB) == 1 && ok;
    return ok;
#else
    return false;
#endif
}

}  // namespace kb
