#include "util/env_number.h"

#include <cerrno>
#include <cstdlib>

#include "util/error.h"

namespace kb {

std::optional<unsigned long> env_number(const char* name, unsigned long lo, unsigned long hi,
                                        const std::string& unset_gives) {
    const char* env = std::getenv(name);
    if (!env || !*env) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const unsigned long n = std::strtoul(env, &end, 10);
    if (errno != 0 || *end != 0 || env[0] == '-' || n < lo || n > hi)
        fail(KB_ERR_INVALID_ARGUMENT, std::string("$") + name + " is '" + env + "', not a number from " +
                                          std::to_string(lo) + " to " + std::to_string(hi) + ": unset it for " +
                                          unset_gives);
    return n;
}

}  // namespace kb
