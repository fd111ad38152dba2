// kbench's CPU emulator of CUDA kernels: the scheduler. Compiled by the host
// compiler (not into kbench) and linked into every emulated module, in a
// translation unit of its own: the kernel's code sees __syncthreads() as an
// opaque call, so it reloads shared memory and the thread's coordinates after
// every barrier, as it must.
//
// Blocks run one after another. A block's threads are fibers, run in thread
// order; each runs until it reaches a barrier or returns. When
// every thread still running waits at the barrier, all are released (threads
// that returned no longer count, as on current GPUs). One OS thread runs it
// all, so atomics are plain read-modify-writes and nothing races.
#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include "kbemu_cuda.h"

uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;

namespace {

// 256 KiB per thread, allocated lazily by the kernel (mmap), with an
// inaccessible page below each stack: an overflow faults instead of
// corrupting the neighbouring thread's stack.
constexpr size_t kStackBytes = 256 * 1024;

// Dynamic shared memory: one buffer at a fixed address (a rewritten
// `extern __shared__` declaration may keep its pointer), as large as any
// GPU's per-block limit.
constexpr size_t kDynamicSharedBytes = 256 * 1024;
alignas(256) unsigned char g_dynamic_shared[kDynamicSharedBytes];

enum class State { runnable, at_barrier, at_warp_sync, done };

// Fiber i runs thread i of every block, on stack i, for the life of the
// process: it is entered once through makecontext/setcontext (the only
// switch that costs a system call), then parks at the top of its loop and
// is switched to and from with _setjmp/_longjmp, which costs a few
// nanoseconds. (The runtime is compiled without _FORTIFY_SOURCE, whose
// longjmp check rejects jumps between stacks.)
struct Fiber {
    jmp_buf jb;      // where it resumes: its park point or its barrier
    bool created = false;
    uint3 tid;
    State state = State::done;
    int predicate = 0;
    unsigned warp_mask = 0;  // at_warp_sync: the lanes it waits for
    unsigned warp_slot = 0;  // the exchange buffer it deposited into
};

// A warp's exchange buffers: lanes deposit a value into the buffer of the
// warp's current generation and read the others' after the release. Two
// buffers, because a lane released early may deposit for the next exchange
// before a slower lane has read this one; it cannot get two ahead (the next
// release waits for every lane).
struct Warp {
    unsigned long long values[2][32];
    unsigned participants[2];
    unsigned generation;
};

struct Scheduler {
    jmp_buf main_jb;           // the scheduler's resume point
    std::vector<Fiber> fibers;  // grows to the largest block seen (<= 1024)
    std::vector<char*> stacks;
    ucontext_t start_ctx;
    unsigned starting = 0;      // the fiber being created
    Fiber* current = nullptr;
    void (*body)(void*) = nullptr;
    void* body_ctx = nullptr;
    int barrier_result = 0;  // threads whose predicate was true at the last barrier
    int barrier_live = 0;    // threads that took part in it
    std::vector<Warp> warps;  // of the running block
    unsigned block_threads = 0;
    kbemu_progress* progress = nullptr;
    size_t page = 4096;
};

Scheduler& sched() {
    static Scheduler s;
    return s;
}

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "kbench emulator: %s\n", what);
    std::abort();
}

void fiber_main() {
    Scheduler& s = sched();
    const unsigned me = s.starting;  // an index: `fibers` may grow (and move)
    for (;;) {
        // Park; the scheduler jumps back here to start the next block's thread.
        if (_setjmp(s.fibers[me].jb) == 0) _longjmp(s.main_jb, 1);
        s.body(s.body_ctx);
        s.fibers[me].state = State::done;
    }
}

void create_fiber(unsigned i) {
    Scheduler& s = sched();
    while (s.stacks.size() <= i) {
        void* p = mmap(nullptr, kStackBytes + s.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("cannot allocate a thread stack");
        if (mprotect(p, s.page, PROT_NONE) != 0) die("cannot protect a thread stack's guard page");
        s.stacks.push_back(static_cast<char*>(p) + s.page);
    }
    if (getcontext(&s.start_ctx) != 0) die("getcontext failed");
    s.start_ctx.uc_stack.ss_sp = s.stacks[i];
    s.start_ctx.uc_stack.ss_size = kStackBytes;
    s.start_ctx.uc_link = nullptr;  // fiber_main never returns
    makecontext(&s.start_ctx, fiber_main, 0);
    s.starting = i;
    if (_setjmp(s.main_jb) == 0) setcontext(&s.start_ctx);
    s.fibers[i].created = true;  // parked at the top of its loop
}

// Switches from the running fiber back to the scheduler at a barrier.
void wait_at_barrier(int predicate) {
    Scheduler& s = sched();
    Fiber* f = s.current;
    if (!f) die("__syncthreads() called outside a kernel");
    f->state = State::at_barrier;
    f->predicate = predicate;
    if (_setjmp(f->jb) == 0) _longjmp(s.main_jb, 1);
    // Resumed by the scheduler: the barrier is complete.
}

// Releases the lanes of every warp whose waiting lanes have all been joined
// by the rest of their masks (lanes that returned no longer count); with
// `force`, releases every warp's waiting lanes whatever is missing (code
// that diverges around a warp-level operation, undefined on a GPU too).
bool release_warps(unsigned nthreads, bool force) {
    Scheduler& s = sched();
    bool released = false;
    for (unsigned w = 0; w * 32 < nthreads; ++w) {
        const unsigned first = w * 32, lanes = std::min(32u, nthreads - first);
        unsigned waiting = 0;
        bool complete = true;
        for (unsigned l = 0; l < lanes; ++l) {
            const Fiber& f = s.fibers[first + l];
            if (f.state != State::at_warp_sync) continue;
            waiting |= 1u << l;
            for (unsigned j = 0; j < lanes; ++j) {
                const State sj = s.fibers[first + j].state;
                if ((f.warp_mask >> j & 1u) && sj != State::done && sj != State::at_warp_sync) complete = false;
            }
        }
        if (!waiting || !(complete || force)) continue;
        Warp& warp = s.warps[w];
        warp.participants[warp.generation & 1u] = waiting;
        ++warp.generation;
        for (unsigned l = 0; l < lanes; ++l)
            if (waiting >> l & 1u) s.fibers[first + l].state = State::runnable;
        released = true;
    }
    return released;
}

// Runs one block to completion.
void run_block(unsigned nthreads) {
    Scheduler& s = sched();
    if (s.fibers.size() < nthreads) s.fibers.resize(nthreads);
    s.warps.assign((nthreads + 31) / 32, Warp{});
    s.block_threads = nthreads;
    const unsigned bx = blockDim.x, by = blockDim.y;
    for (unsigned t = 0; t < nthreads; ++t) {
        Fiber& f = s.fibers[t];
        if (!f.created) create_fiber(t);
        f.tid = make_uint3(t % bx, (t / bx) % by, t / (bx * by));
        f.state = State::runnable;
        f.predicate = 0;
    }
    for (;;) {
        for (unsigned t = 0; t < nthreads; ++t) {
            Fiber& f = s.fibers[t];
            if (f.state != State::runnable) continue;
            s.current = &f;
            threadIdx = f.tid;
            if (s.progress) {
                s.progress->thread[0] = f.tid.x;
                s.progress->thread[1] = f.tid.y;
                s.progress->thread[2] = f.tid.z;
                s.progress->threads_started++;
            }
            if (_setjmp(s.main_jb) == 0) _longjmp(f.jb, 1);
        }
        // Warp-level operations first: their lanes may be on the way to the
        // block barrier.
        if (release_warps(nthreads, false)) continue;
        unsigned waiting = 0, count = 0, at_warp = 0;
        for (unsigned t = 0; t < nthreads; ++t) {
            at_warp += s.fibers[t].state == State::at_warp_sync;
            if (s.fibers[t].state != State::at_barrier) continue;
            ++waiting;
            count += s.fibers[t].predicate != 0;
        }
        if (at_warp) {
            release_warps(nthreads, true);
            continue;
        }
        if (waiting == 0) break;
        s.barrier_result = int(count);
        s.barrier_live = int(waiting);
        // Everyone still running has arrived: release them all.
        for (unsigned t = 0; t < nthreads; ++t)
            if (s.fibers[t].state == State::at_barrier) s.fibers[t].state = State::runnable;
    }
    s.current = nullptr;
}

}  // namespace

void __syncthreads() { wait_at_barrier(0); }

namespace kbemu {

unsigned lane_id() {
    const Fiber* f = sched().current;
    if (!f) die("a warp-level operation outside a kernel");
    return unsigned(f - sched().fibers.data()) % 32;
}

const unsigned long long* warp_exchange(unsigned mask, unsigned long long value, unsigned* participants) {
    Scheduler& s = sched();
    Fiber* f = s.current;
    if (!f) die("a warp-level operation outside a kernel");
    const unsigned t = unsigned(f - s.fibers.data());
    Warp& warp = s.warps[t / 32];
    f->warp_slot = warp.generation & 1u;
    f->warp_mask = mask | (1u << (t % 32));
    warp.values[f->warp_slot][t % 32] = value;
    f->state = State::at_warp_sync;
    if (_setjmp(f->jb) == 0) _longjmp(s.main_jb, 1);
    // Released: every lane of the mask has deposited.
    *participants = warp.participants[f->warp_slot];
    return warp.values[f->warp_slot];
}

}  // namespace kbemu

int __syncthreads_count(int predicate) {
    wait_at_barrier(predicate != 0);
    return sched().barrier_result;
}

// The result of the barrier is read by each thread as it resumes; every
// thread resumes before any reaches the next barrier, so it is still valid.
int __syncthreads_and(int predicate) {
    wait_at_barrier(predicate != 0);
    return sched().barrier_result == sched().barrier_live;
}

int __syncthreads_or(int predicate) {
    wait_at_barrier(predicate != 0);
    return sched().barrier_result != 0;
}

namespace kbemu {

void* dynamic_shared() { return g_dynamic_shared; }

void refuse(const LaunchParams& lp, const char* message) {
    if (lp.error && lp.error_capacity) {
        std::strncpy(lp.error, message, size_t(lp.error_capacity) - 1);
        lp.error[lp.error_capacity - 1] = '\0';
    }
}

int run_grid(const LaunchParams& lp, void (*body)(void*), void* ctx) {
    Scheduler& s = sched();
    if (s.current) {
        refuse(lp, "a kernel launched another kernel (dynamic parallelism is not emulated)");
        return -1;
    }
    unsigned long long nthreads = 1ull * lp.block[0] * lp.block[1] * lp.block[2];
    if (nthreads == 0 || nthreads > 1024) {
        refuse(lp, "a block must have 1 to 1024 threads");
        return -1;
    }
    s.page = size_t(sysconf(_SC_PAGESIZE));
    s.body = body;
    s.body_ctx = ctx;
    gridDim = dim3(lp.grid[0], lp.grid[1], lp.grid[2]);
    blockDim = dim3(lp.block[0], lp.block[1], lp.block[2]);
    if (lp.shared_bytes > kDynamicSharedBytes) {
        refuse(lp, "the launch asks for more dynamic shared memory than any GPU has per block (256 KiB)");
        return -1;
    }
    for (unsigned z = 0; z < lp.grid[2]; ++z)
        for (unsigned y = 0; y < lp.grid[1]; ++y)
            for (unsigned x = 0; x < lp.grid[0]; ++x) {
                blockIdx = make_uint3(x, y, z);
                // Dynamic shared memory starts as garbage on a GPU: a NaN
                // pattern in every block shows a reference that reads it
                // before writing (or relies on the previous block's).
                std::memset(g_dynamic_shared, 0xff, size_t(lp.shared_bytes));
                if (s.progress) {
                    s.progress->block[0] = x;
                    s.progress->block[1] = y;
                    s.progress->block[2] = z;
                }
                run_block(unsigned(nthreads));
            }
    return 0;
}

}  // namespace kbemu

extern "C" {

__attribute__((visibility("default"))) int kbemu_abi_version(void) { return KBEMU_ABI_VERSION; }

__attribute__((visibility("default"))) void kbemu_attach_progress(kbemu_progress* p) { sched().progress = p; }

}  // extern "C"
