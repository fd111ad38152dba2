// Counter-based random numbers for task inputs, shared by the device fill
// kernel (builtin_kernels.cu) and the host (tests, CPU checks), so both sides
// draw the same values. Philox4x32-10 (Salmon et al., SC'11): element i of
// argument k under seed s is a pure function of (s, k, i) — no state, any
// order, any number of threads, the same on every machine.
#pragma once

#include <stdint.h>

#include "hostdev/hd.h"

namespace kb {

struct Philox4 {
    uint32_t v[4];
};

KB_HD uint32_t kb_mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
    uint64_t p = uint64_t(a) * uint64_t(b);
    *hi = uint32_t(p >> 32);
    return uint32_t(p);
}

KB_HD Philox4 philox4x32_10(uint64_t seed, uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3) {
    uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
    uint32_t x0 = c0, x1 = c1, x2 = c2, x3 = c3;
    for (int r = 0; r < 10; ++r) {
        uint32_t hi0, hi1;
        uint32_t lo0 = kb_mulhilo(0xD2511F53u, x0, &hi0);
        uint32_t lo1 = kb_mulhilo(0xCD9E8D57u, x2, &hi1);
        uint32_t n0 = hi1 ^ x1 ^ k0;
        uint32_t n2 = hi0 ^ x3 ^ k1;
        x0 = n0; x1 = lo1; x2 = n2; x3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    Philox4 out = {{x0, x1, x2, x3}};
    return out;
}

// Distribution codes, as InitSpec::Dist numbers them (src/task/task.h).
enum : int { KB_DIST_UNIFORM = 0, KB_DIST_NORMAL = 1, KB_DIST_RANDINT = 2, KB_DIST_BERNOULLI = 3,
             KB_DIST_CONSTANT = 4, KB_DIST_ARANGE = 5 };

// The random words for element i of argument `arg` under `seed`.
KB_HD Philox4 kb_input_words(uint64_t seed, uint32_t arg, uint64_t i) {
    return philox4x32_10(seed, uint32_t(i), uint32_t(i >> 32), arg, 0x6b62u /* "kb" */);
}

// A uniform double in [0, 1) with 53 random bits: exact on host and device.
KB_HD double kb_unit_double(Philox4 w) {
    uint64_t bits = (uint64_t(w.v[0]) << 21) ^ uint64_t(w.v[1] >> 11);
    return double(bits & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

}  // namespace kb
