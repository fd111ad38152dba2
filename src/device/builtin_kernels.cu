// kbench's own device kernels: input generation, poisoning, checksums,
// guard-zone checks, comparison and the SM clock probe. Built ahead of time
// by nvcc into a fatbin (see CMakeLists.txt) with -fmad=false, so their
// floating-point results equal the host's (src/hostdev/compare_math.h and
// src/hostdev/input_gen.h are compiled on both sides).
//
// Every kernel is extern "C" (looked up by name) and uses a grid-stride loop:
// the host picks a grid that fills the device, whatever the element count.
#include <stdint.h>

#include "hostdev/compare_math.h"
#include "hostdev/input_gen.h"

using namespace kb;

namespace {

__device__ __forceinline__ void store_bits(void* base, uint64_t i, int size, uint64_t bits) {
    switch (size) {
        case 1: static_cast<uint8_t*>(base)[i] = uint8_t(bits); break;
        case 2: static_cast<uint16_t*>(base)[i] = uint16_t(bits); break;
        case 4: static_cast<uint32_t*>(base)[i] = uint32_t(bits); break;
        default: static_cast<uint64_t*>(base)[i] = bits; break;
    }
}

__device__ __forceinline__ uint64_t load_bits(const void* base, uint64_t i, int size) {
    switch (size) {
        case 1: return static_cast<const uint8_t*>(base)[i];
        case 2: return static_cast<const uint16_t*>(base)[i];
        case 4: return static_cast<const uint32_t*>(base)[i];
        default: return static_cast<const uint64_t*>(base)[i];
    }
}

__device__ __forceinline__ int dtype_size(int dt) {
    switch (dt) {
        case KB_F16: case KB_BF16: case KB_I16: case KB_U16: return 2;
        case KB_F32: case KB_I32: case KB_U32: return 4;
        case KB_F64: case KB_I64: case KB_U64: return 8;
        default: return 1;
    }
}

// An element's value as a double, for error statistics (exact for every
// dtype but 64-bit integers beyond 2^53, which compare by bits anyway).
__device__ __forceinline__ double bits_to_double(uint64_t bits, int dt) {
    switch (dt) {
        case KB_F16: return kb_half_to_float(uint16_t(bits));
        case KB_BF16: return kb_bf16_to_float(uint16_t(bits));
        case KB_F32: return kb_bits_float(uint32_t(bits));
        case KB_F64: return kb_bits_double(bits);
        case KB_I8: return double(int8_t(bits));
        case KB_I16: return double(int16_t(bits));
        case KB_I32: return double(int32_t(bits));
        case KB_I64: return double(int64_t(bits));
        default: return double(bits);
    }
}

__device__ __forceinline__ uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__device__ __forceinline__ uint64_t warp_sum(uint64_t v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// Lane 0 gets the warp's maximum or minimum. One atomic per warp instead of
// one per thread: with every thread of a large grid agreeing on a value (no
// error anywhere, say), per-thread atomics on one address serialise.
__device__ __forceinline__ uint64_t warp_max(uint64_t v) {
    for (int o = 16; o > 0; o >>= 1) v = max(v, (uint64_t)__shfl_down_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ uint64_t warp_min(uint64_t v) {
    for (int o = 16; o > 0; o >>= 1) v = min(v, (uint64_t)__shfl_down_sync(0xffffffffu, v, o));
    return v;
}

}  // namespace

// Inputs: element i of argument `arg` under `seed` (see hostdev/input_gen.h).
extern "C" __global__ void kb_fill_random(void* out, uint64_t count, int dtype, int dist, double a, double b,
                                          uint64_t seed, uint32_t arg) {
    int size = dtype_size(dtype);
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
        store_bits(out, i, size, kb_input_bits(dtype, dist, a, b, seed, arg, i));
}

// Fills `count` 8-byte words with a pattern (the f64 poison; narrower
// patterns use the driver's memsets).
extern "C" __global__ void kb_fill_u64(uint64_t* out, uint64_t count, uint64_t pattern) {
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x)
        out[i] = pattern;
}

// An order-independent 64-bit checksum of `bytes` bytes: the sum of a strong
// mix of (offset, byte). Any change of any byte changes it with probability
// 1 - 2^-64, whatever the order threads add in.
extern "C" __global__ void kb_checksum(const uint8_t* p, uint64_t bytes, unsigned long long* out) {
    uint64_t acc = 0;
    uint64_t words = bytes / 8;
    const uint64_t* w = reinterpret_cast<const uint64_t*>(p);  // buffers are 256-byte aligned
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < words; i += uint64_t(gridDim.x) * blockDim.x)
        acc += mix64(w[i] ^ mix64(i + 0x9e3779b97f4a7c15ull));
    if (blockIdx.x == 0 && threadIdx.x == 0)  // the last bytes % 8 bytes
        for (uint64_t t = words * 8; t < bytes; ++t) acc += mix64((uint64_t(p[t]) << 56) ^ mix64(~t));
    acc = warp_sum(acc);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, (unsigned long long)acc);
}

// Guard zones: counts bytes that differ from `pattern` and records the
// lowest such offset, so a report can say where a kernel wrote out of bounds.
extern "C" __global__ void kb_guard_check(const uint8_t* p, uint64_t bytes, uint8_t pattern,
                                          unsigned long long* bad_count, unsigned long long* first_bad) {
    uint64_t bad = 0, first = ~0ull;
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < bytes; i += uint64_t(gridDim.x) * blockDim.x) {
        if (p[i] != pattern) {
            ++bad;
            first = min(first, i);
        }
    }
    // Every thread reaches the shuffles: the loop above has no early exit.
    bad = warp_sum(bad);
    first = warp_min(first);
    if ((threadIdx.x & 31) == 0 && bad) {
        atomicAdd(bad_count, (unsigned long long)bad);
        atomicMin(first_bad, (unsigned long long)first);
    }
}

// Comparison statistics, laid out as CompareStats in src/compare/gpu_compare.cpp.
struct KbCompareStats {
    unsigned long long mismatches;
    unsigned long long unwritten;       // mismatching elements that still hold the poison bits
    unsigned long long max_abs_bits;    // double bits; non-negative doubles order like their bits
    unsigned long long max_rel_bits;
    unsigned long long max_violation_bits;
    unsigned long long worst_index;     // filled by kb_compare_find
    unsigned long long worst_bits;      // the candidate's bits at worst_index, filled by kb_compare_worst
    unsigned long long expected_bits;   // the reference's bits there, filled by kb_compare_worst
};

extern "C" __global__ void kb_compare(const void* cand, const void* ref, uint64_t count, int dtype, double atol,
                                      double rtol, int equal_nan, uint64_t poison_bits, KbCompareStats* stats) {
    int size = dtype_size(dtype);
    bool is_float = kb_dtype_is_float(dtype);
    unsigned long long mism = 0, unwr = 0;
    // Floats fold without most of the rule's divisions (compare_math.h's
    // kb_fold_float): the same maxima.
    FloatFold f;
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t cb = load_bits(cand, i, size), rb = load_bits(ref, i, size);
        double c = bits_to_double(cb, dtype), r = bits_to_double(rb, dtype);
        bool match;
        if (is_float) {
            match = kb_fold_float(c, r, atol, rtol, equal_nan != 0, f);
        } else {
            ElementCheck e = kb_check_bits(cb, rb, c, r);
            match = e.match;
            f.max_abs = fmax(f.max_abs, e.abs_err);
            f.max_rel = fmax(f.max_rel, e.rel_err);
            f.max_violation = fmax(f.max_violation, e.violation);
        }
        if (!match) {
            ++mism;
            if (cb == poison_bits) ++unwr;
        }
    }
    const double max_abs = f.max_abs, max_rel = f.max_rel, max_vio = f.max_violation;
    // Non-negative doubles order like their bits (NaN errors are +inf by
    // compare_math.h's rule), so the maxima reduce as integers.
    uint64_t m = warp_sum(mism), u = warp_sum(unwr);
    uint64_t a = warp_max(kb_double_bits(max_abs)), r = warp_max(kb_double_bits(max_rel));
    uint64_t v = warp_max(kb_double_bits(max_vio));
    if ((threadIdx.x & 31) != 0) return;
    if (m) atomicAdd(&stats->mismatches, (unsigned long long)m);
    if (u) atomicAdd(&stats->unwritten, (unsigned long long)u);
    atomicMax(&stats->max_abs_bits, (unsigned long long)a);
    atomicMax(&stats->max_rel_bits, (unsigned long long)r);
    atomicMax(&stats->max_violation_bits, (unsigned long long)v);
}

// Second pass: the lowest index whose violation equals the maximum, so the
// host and GPU comparators name the same worst element.
extern "C" __global__ void kb_compare_find(const void* cand, const void* ref, uint64_t count, int dtype, double atol,
                                           double rtol, int equal_nan, KbCompareStats* stats) {
    int size = dtype_size(dtype);
    bool is_float = kb_dtype_is_float(dtype);
    uint64_t target = stats->max_violation_bits;
    // A thread's indices rise, so its first hit is its lowest: it stops there.
    // Where nothing is wrong every element's violation is the maximum (0),
    // and the warp minimum keeps that from becoming one atomic per element.
    uint64_t first = ~0ull;
    const double target_value = kb_bits_double(target);
    for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < count; i += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t cb = load_bits(cand, i, size), rb = load_bits(ref, i, size);
        double c = bits_to_double(cb, dtype), r = bits_to_double(rb, dtype);
        // A finite element whose violation is surely under the maximum is
        // not it: no division (in a passing output, every element but the
        // worst few).
        if (is_float && kb_finite(c) && kb_finite(r) &&
            kb_quotient_under(kb_abs(c - r), atol + rtol * kb_abs(r), target_value))
            continue;
        ElementCheck e = is_float ? kb_check_float(c, r, atol, rtol, equal_nan != 0) : kb_check_bits(cb, rb, c, r);
        if (kb_double_bits(e.violation) == target) {
            first = i;
            break;
        }
    }
    first = warp_min(first);
    if ((threadIdx.x & 31) == 0 && first != ~0ull) atomicMin(&stats->worst_index, (unsigned long long)first);
}

// Third step of a comparison: the candidate's and the reference's bits at the
// worst index, so the report names both values without another copy from the
// device, and without the reference's host copy (one held from a digest has
// none of its large outputs).
extern "C" __global__ void kb_compare_worst(const void* cand, const void* ref, int dtype, KbCompareStats* stats) {
    uint64_t i = stats->worst_index;
    stats->worst_bits = i == ~0ull ? 0 : load_bits(cand, i, dtype_size(dtype));
    stats->expected_bits = i == ~0ull ? 0 : load_bits(ref, i, dtype_size(dtype));
}

// The SM clock, measured in-kernel: cycles counted by clock64 over a span of
// the global nanosecond timer. out[0] = cycles, out[1] = nanoseconds.
extern "C" __global__ void kb_clock_probe(unsigned long long* out, unsigned long long span_ns) {
    if (threadIdx.x != 0) return;
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    long long c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while (t1 - t0 < span_ns);
    long long c1 = clock64();
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = t1 - t0;
}
