// A seed the candidate cannot know or have seen: drawn from the OS, never 0,
// never kbench's default seed, never one of `avoid` (the caller's seed, a
// benchmark's fixed seed). Used by the post-timing rechecks.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>

#include "engine/options.h"

namespace kb {

inline uint64_t secret_seed(std::initializer_list<uint64_t> avoid) {
    std::random_device rd;
    for (;;) {
        uint64_t s = (uint64_t(rd()) << 32) ^ rd();
        bool taken = s == 0 || s == kDefaultSeed;
        for (uint64_t a : avoid) taken = taken || s == a;
        if (!taken) return s;
    }
}

}  // namespace kb
