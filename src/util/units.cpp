#include "util/units.h"

namespace kb {

std::string format_bytes(uint64_t bytes) {
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    uint64_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++u;
    }
    return std::to_string(v) + " " + units[u];
}

}  // namespace kb
