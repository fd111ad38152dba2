// kbench's CPU emulator of CUDA kernels: the header force-included (g++
// -include) before a task's reference .cu when it is compiled for the host.
// It makes CUDA C++ kernel code ordinary C++ that runs on the CPU:
//
//   - __global__ / __device__ / __host__ vanish; a kernel is a function each
//     emulated thread calls;
//   - threadIdx, blockIdx, blockDim, gridDim are globals the scheduler
//     (kbemu_cuda.cc) sets before it resumes a thread;
//   - a block's threads are fibers that switch only at __syncthreads(), so
//     code between two barriers runs without interruption, as on a GPU
//     where it is not raced;
//   - __shared__ variables are function-local statics (blocks run one after
//     another, so one copy serves every block); extern __shared__ arrays are
//     rewritten by the emulator into the block's dynamic shared memory;
//   - atomics are plain read-modify-writes (one OS thread runs everything);
//   - __half and __nv_bfloat16 come from the toolkit's cuda_fp16.h and
//     cuda_bf16.h, which work in host code; math functions from libm, plus
//     the CUDA-only ones below;
//   - warp-level intrinsics (__shfl*_sync, __ballot_sync, __syncwarp, the
//     __reduce_*_sync and __match_*_sync families) exchange values among
//     the 32 lanes of a warp, which switch at them as at a barrier;
//     intrinsics without a mask (removed in CUDA 9) are compile errors.
//
// Nothing here is for speed: the emulator checks references against their
// float64 oracles on tiny cases (kbench validate --oracle).
#ifndef KBEMU_CUDA_H
#define KBEMU_CUDA_H

#define __KBEMU__ 1

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <type_traits>

// ---- qualifiers --------------------------------------------------------------
// host_defines.h (through the headers above) defined __global__, __device__,
// __host__, __constant__ and __managed__ as nothing, outside nvcc.
#undef __shared__
#define __shared__ static
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef __noinline__
#define __noinline__ __attribute__((noinline))
#endif

// ---- the thread's coordinates ---------------------------------------------------
// Defined in kbemu_cuda.cc; not const, so that a read after a barrier
// (an opaque call) is a fresh load.
extern uint3 threadIdx;
extern uint3 blockIdx;
extern dim3 blockDim;
extern dim3 gridDim;
constexpr int warpSize = 32;

// ---- barriers and fences -------------------------------------------------------------
void __syncthreads();
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
inline void __threadfence() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence_block() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence_system() { __asm__ __volatile__("" ::: "memory"); }
[[noreturn]] inline void __trap() { std::abort(); }
inline void __brkpt() {}
inline long long clock64() {
    static long long t = 0;
    return t += 1000;
}
inline long long __kbemu_clock() { return clock64(); }

namespace kbemu {
// The block's dynamic shared memory (the launch's shared_mem bytes), where
// the emulator's rewrite of `extern __shared__ T name[];` points `name`.
void* dynamic_shared();
}  // namespace kbemu

// ---- warp-level intrinsics ---------------------------------------------------------
// A warp is 32 consecutive threads of the block (by linear thread index). A
// warp-level operation waits until every lane of its mask that is still
// running has reached a warp-level operation too (kbemu_cuda.cc), then
// each lane reads what the others deposited. Values up to 8 bytes.
namespace kbemu {
unsigned lane_id();
const unsigned long long* warp_exchange(unsigned mask, unsigned long long value, unsigned* participants);

template <class T>
unsigned long long to_bits(const T& v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "kbench emulator: warp shuffles move values of at most 8 bytes");
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}
template <class T>
T from_bits(unsigned long long b) {
    T v;
    std::memcpy(static_cast<void*>(&v), &b, sizeof v);
    return v;
}
// The value lane `src` deposited, or `own` when `src` is outside the
// segment of `width` lanes or did not take part.
template <class T>
T shuffle(unsigned mask, const T& own, long src, int width) {
    unsigned p = 0;
    const unsigned long long* v = warp_exchange(mask, to_bits(own), &p);
    const long lane = long(lane_id()), base = lane & ~long(width - 1);
    if (src < base || src >= base + width || !(p >> src & 1u)) return own;
    return from_bits<T>(v[src]);
}
inline unsigned ballot(unsigned mask, bool pred, unsigned* participants) {
    const unsigned long long* v = warp_exchange(mask, pred ? 1u : 0u, participants);
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l)
        if ((*participants >> l & 1u) && v[l]) bits |= 1u << l;
    return bits & mask;
}
template <class T, class Op>
T warp_reduce(unsigned mask, T value, Op op) {
    unsigned p = 0;
    const unsigned long long* v = warp_exchange(mask, to_bits(value), &p);
    bool first = true;
    T acc = value;
    for (unsigned l = 0; l < 32; ++l)
        if ((p & mask) >> l & 1u) {
            T x = from_bits<T>(v[l]);
            acc = first ? x : op(acc, x);
            first = false;
        }
    return acc;
}
}  // namespace kbemu

template <class T>
inline T __shfl_sync(unsigned mask, T var, int src, int width = warpSize) {
    const long lane = long(kbemu::lane_id()), base = lane & ~long(width - 1);
    return kbemu::shuffle(mask, var, base + (long(src) & (width - 1)), width);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return kbemu::shuffle(mask, var, long(kbemu::lane_id()) - long(delta), width);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return kbemu::shuffle(mask, var, long(kbemu::lane_id()) + long(delta), width);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
    return kbemu::shuffle(mask, var, long(kbemu::lane_id() ^ unsigned(lane_mask)), width);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
    unsigned p = 0;
    return kbemu::ballot(mask, pred != 0, &p);
}
inline int __any_sync(unsigned mask, int pred) {
    unsigned p = 0;
    return kbemu::ballot(mask, pred != 0, &p) != 0;
}
inline int __all_sync(unsigned mask, int pred) {
    unsigned p = 0;
    unsigned bits = kbemu::ballot(mask, pred != 0, &p);
    return bits == (p & mask);
}
inline int __uni_sync(unsigned mask, int pred) {
    unsigned p = 0;
    unsigned bits = kbemu::ballot(mask, pred != 0, &p);
    return bits == 0 || bits == (p & mask);
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
    unsigned p = 0;
    kbemu::warp_exchange(mask, 0, &p);
}
// The lanes that reach this point together: a warp-level synchronisation
// of every lane still running, as converged lanes would be.
inline unsigned __activemask() {
    unsigned p = 0;
    kbemu::warp_exchange(0xffffffffu, 0, &p);
    return p;
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value) {
    unsigned p = 0;
    const unsigned long long* v = kbemu::warp_exchange(mask, kbemu::to_bits(value), &p);
    unsigned bits = 0;
    const unsigned long long own = kbemu::to_bits(value);
    for (unsigned l = 0; l < 32; ++l)
        if (((p & mask) >> l & 1u) && v[l] == own) bits |= 1u << l;
    return bits;
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred) {
    unsigned p = 0;
    const unsigned long long* v = kbemu::warp_exchange(mask, kbemu::to_bits(value), &p);
    const unsigned long long own = kbemu::to_bits(value);
    for (unsigned l = 0; l < 32; ++l)
        if (((p & mask) >> l & 1u) && v[l] != own) {
            *pred = 0;
            return 0;
        }
    *pred = 1;
    return p & mask;
}
#define KBEMU_WARP_REDUCE(name, T, expr) \
    inline T name(unsigned mask, T value) { return kbemu::warp_reduce(mask, value, [](T a, T b) { return expr; }); }
KBEMU_WARP_REDUCE(__reduce_add_sync, unsigned, a + b)
KBEMU_WARP_REDUCE(__reduce_add_sync, int, a + b)
KBEMU_WARP_REDUCE(__reduce_min_sync, unsigned, a < b ? a : b)
KBEMU_WARP_REDUCE(__reduce_min_sync, int, a < b ? a : b)
KBEMU_WARP_REDUCE(__reduce_max_sync, unsigned, a > b ? a : b)
KBEMU_WARP_REDUCE(__reduce_max_sync, int, a > b ? a : b)
KBEMU_WARP_REDUCE(__reduce_and_sync, unsigned, a & b)
KBEMU_WARP_REDUCE(__reduce_or_sync, unsigned, a | b)
KBEMU_WARP_REDUCE(__reduce_xor_sync, unsigned, a ^ b)
#undef KBEMU_WARP_REDUCE

// The shuffles without a mask were removed in CUDA 9 (for sm_70 and later).
template <class... A>
struct kbemu_always_false {
    static constexpr bool value = false;
};
#define KBEMU_REMOVED_INTRINSIC(name, instead)                                                           \
    template <class... A>                                                                                \
    inline unsigned name(A...) {                                                                         \
        static_assert(kbemu_always_false<A...>::value,                                                   \
                      "kbench emulator: " #name " has no mask and is not available on current GPUs; use " \
                      instead);                                                                           \
        return 0;                                                                                        \
    }
KBEMU_REMOVED_INTRINSIC(__shfl, "__shfl_sync")
KBEMU_REMOVED_INTRINSIC(__shfl_up, "__shfl_up_sync")
KBEMU_REMOVED_INTRINSIC(__shfl_down, "__shfl_down_sync")
KBEMU_REMOVED_INTRINSIC(__shfl_xor, "__shfl_xor_sync")
KBEMU_REMOVED_INTRINSIC(__ballot, "__ballot_sync")
KBEMU_REMOVED_INTRINSIC(__any, "__any_sync")
KBEMU_REMOVED_INTRINSIC(__all, "__all_sync")
#undef KBEMU_REMOVED_INTRINSIC

// ---- atomics: one OS thread runs every emulated thread, and threads switch
// only at barriers, so a plain read-modify-write is atomic here. ----
#define KBEMU_ATOMIC_RMW(name, T, expr) \
    inline T name(T* p, T v) {          \
        T old = *p;                     \
        *p = (expr);                    \
        return old;                     \
    }
#define KBEMU_ATOMIC_ALL_SCOPES(name, T, expr) \
    KBEMU_ATOMIC_RMW(name, T, expr)            \
    KBEMU_ATOMIC_RMW(name##_block, T, expr)    \
    KBEMU_ATOMIC_RMW(name##_system, T, expr)
#define KBEMU_ATOMIC_INTS(name, expr)                       \
    KBEMU_ATOMIC_ALL_SCOPES(name, int, expr)                \
    KBEMU_ATOMIC_ALL_SCOPES(name, unsigned int, expr)       \
    KBEMU_ATOMIC_ALL_SCOPES(name, long long, expr)          \
    KBEMU_ATOMIC_ALL_SCOPES(name, unsigned long long, expr)
KBEMU_ATOMIC_INTS(atomicAdd, old + v)
KBEMU_ATOMIC_ALL_SCOPES(atomicAdd, float, old + v)
KBEMU_ATOMIC_ALL_SCOPES(atomicAdd, double, old + v)
KBEMU_ATOMIC_ALL_SCOPES(atomicAdd, __half, __float2half_rn(__half2float(old) + __half2float(v)))
KBEMU_ATOMIC_ALL_SCOPES(atomicAdd, __nv_bfloat16, __float2bfloat16_rn(__bfloat162float(old) + __bfloat162float(v)))
KBEMU_ATOMIC_INTS(atomicSub, old - v)
KBEMU_ATOMIC_INTS(atomicMax, old > v ? old : v)
KBEMU_ATOMIC_INTS(atomicMin, old < v ? old : v)
KBEMU_ATOMIC_ALL_SCOPES(atomicMax, float, fmaxf(old, v))
KBEMU_ATOMIC_ALL_SCOPES(atomicMin, float, fminf(old, v))
KBEMU_ATOMIC_ALL_SCOPES(atomicMax, double, fmax(old, v))
KBEMU_ATOMIC_ALL_SCOPES(atomicMin, double, fmin(old, v))
KBEMU_ATOMIC_INTS(atomicAnd, old & v)
KBEMU_ATOMIC_INTS(atomicOr, old | v)
KBEMU_ATOMIC_INTS(atomicXor, old ^ v)
KBEMU_ATOMIC_INTS(atomicExch, v)
KBEMU_ATOMIC_ALL_SCOPES(atomicExch, float, v)
KBEMU_ATOMIC_ALL_SCOPES(atomicInc, unsigned int, old >= v ? 0u : old + 1u)
KBEMU_ATOMIC_ALL_SCOPES(atomicDec, unsigned int, (old == 0u || old > v) ? v : old - 1u)
#undef KBEMU_ATOMIC_INTS
#undef KBEMU_ATOMIC_ALL_SCOPES
#undef KBEMU_ATOMIC_RMW
#define KBEMU_ATOMIC_CAS(T)                            \
    inline T atomicCAS(T* p, T compare, T v) {         \
        T old = *p;                                    \
        if (old == compare) *p = v;                    \
        return old;                                    \
    }                                                  \
    inline T atomicCAS_block(T* p, T compare, T v) { return atomicCAS(p, compare, v); } \
    inline T atomicCAS_system(T* p, T compare, T v) { return atomicCAS(p, compare, v); }
KBEMU_ATOMIC_CAS(int)
KBEMU_ATOMIC_CAS(unsigned int)
KBEMU_ATOMIC_CAS(unsigned long long)
KBEMU_ATOMIC_CAS(unsigned short)
#undef KBEMU_ATOMIC_CAS

// ---- loads and stores with cache hints: plain accesses -----------------------------
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

// ---- min / max as CUDA overloads them (mixed types promote) ---------------------
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
template <class A, class B, class = std::enable_if_t<!std::is_same<A, B>::value && std::is_arithmetic<A>::value &&
                                                     std::is_arithmetic<B>::value>>
inline auto min(A a, B b) -> std::common_type_t<A, B> {
    using C = std::common_type_t<A, B>;
    return min(C(a), C(b));
}
template <class A, class B, class = std::enable_if_t<!std::is_same<A, B>::value && std::is_arithmetic<A>::value &&
                                                     std::is_arithmetic<B>::value>>
inline auto max(A a, B b) -> std::common_type_t<A, B> {
    using C = std::common_type_t<A, B>;
    return max(C(a), C(b));
}

// ---- math that CUDA has and libm has not (the fast intrinsics are
// computed accurately here: a reference should not depend on their error) ----
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __tanhf(float x) { return tanhf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float sinpif(float x) { return sinf(3.14159265358979323846f * x); }
inline float cospif(float x) { return cosf(3.14159265358979323846f * x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752440f); }
inline double normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }

// ---- bit reinterpretation and conversions --------------------------------------------
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
inline float __uint_as_float(unsigned int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline unsigned int __float_as_uint(float f) { unsigned int x; std::memcpy(&x, &f, 4); return x; }
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double d) { long long x; std::memcpy(&x, &d, 8); return x; }
inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(truncf(x)); }
inline int __float2int_rd(float x) { return int(floorf(x)); }
inline int __float2int_ru(float x) { return int(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) { return (unsigned int)(nearbyintf(x)); }
inline unsigned int __float2uint_rz(float x) { return (unsigned int)(truncf(x)); }
inline long long __float2ll_rn(float x) { return (long long)(nearbyintf(x)); }
inline long long __float2ll_rz(float x) { return (long long)(truncf(x)); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned int x) { return float(x); }
inline float __ll2float_rn(long long x) { return float(x); }
inline int __double2int_rn(double x) { return int(nearbyint(x)); }
inline int __double2int_rz(double x) { return int(trunc(x)); }
inline float __double2float_rn(double x) { return float(x); }

// ---- integer intrinsics ----------------------------------------------------------------
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
    unsigned int r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline int __mul24(int a, int b) { return int((long long)((a << 8) >> 8) * (long long)((b << 8) >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return int(((long long)a * (long long)b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return (unsigned int)(((unsigned long long)a * (unsigned long long)b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * (__int128)b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * (unsigned __int128)b) >> 64);
}
inline int __sad(int a, int b, unsigned int c) { return int((a > b ? a - b : b - a) + c); }
inline unsigned int __usad(unsigned int a, unsigned int b, unsigned int c) { return (a > b ? a - b : b - a) + c; }

// ---- the launch interface the emulator's generated trampolines use ----------------------
#include <tuple>
#include <utility>

#include "kbemu_abi.h"

namespace kbemu {

using LaunchParams = kbemu_launch;

// Runs body(ctx) once per thread of every block (kbemu_cuda.cc).
// Returns 0, or -1 with lp.error set.
int run_grid(const LaunchParams& lp, void (*body)(void*), void* ctx);
void refuse(const LaunchParams& lp, const char* message);

template <class T>
T load_param(void* slot) {
    typename std::remove_cv<T>::type v;
    std::memcpy(static_cast<void*>(&v), slot, sizeof v);
    return v;
}

template <class... P, std::size_t... I>
int launch_unpacked(void (*kernel)(P...), const LaunchParams& lp, std::index_sequence<I...>) {
    using Args = std::tuple<typename std::remove_cv<P>::type...>;
    Args values{load_param<P>(lp.params[I])...};
    struct Ctx {
        void (*kernel)(P...);
        Args* args;
    } ctx{kernel, &values};
    // Each thread calls the kernel with its own copies of the parameters.
    return run_grid(lp,
                    [](void* c) {
                        Ctx* x = static_cast<Ctx*>(c);
                        std::apply(x->kernel, *x->args);
                    },
                    &ctx);
}

template <class... P>
int launch(void (*kernel)(P...), const LaunchParams& lp) {
    constexpr std::size_t n = sizeof...(P);
    if (lp.count != n) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "the kernel takes %zu parameter(s) but the launch plan passes %llu", n,
                      lp.count);
        refuse(lp, msg);
        return -1;
    }
    const unsigned long long sizes[n + 1] = {sizeof(P)..., 0};
    for (std::size_t i = 0; i < n; ++i) {
        if (sizes[i] != lp.sizes[i]) {
            char msg[200];
            std::snprintf(msg, sizeof msg,
                          "parameter %zu of the kernel is %llu bytes but the plan passes %llu bytes; check the "
                          "parameter's type (a buffer is a pointer, 8 bytes; an i32 scalar is 4)",
                          i, sizes[i], lp.sizes[i]);
            refuse(lp, msg);
            return -1;
        }
    }
    return launch_unpacked(kernel, lp, std::index_sequence_for<P...>{});
}

}  // namespace kbemu

#endif  // KBEMU_CUDA_H
