// Traps contained in the candidate's own PTX (ContextOptions::contain_traps:
// on in `kbench run` and kbench.ray, KB_CONTEXT_CONTAIN_TRAPS in the C API;
// $KBENCH_CONTAIN_TRAPS=1 or 0 overrides; docs/isolation.md, "Traps").
//
// Why: a `trap` instruction (`__trap()`, `asm("trap;")`, a failed device-side
// `assert()`) is an exception the driver recovers from by tearing the
// context's channel down, and while it does, it holds a lock every process
// on the machine needs to start: on two H200s (bench/context_starts.c), one trap kept a fresh process's cuInit waiting 0.38-0.65 s,
// two traps beside two hangs 1.3 s, and in `kbench run` a cluster of them
// 6.9 s, on the other GPU too. The trapping worker's context is lost and
// the worker replaced, whose start waits for that same lock.
//
// What: every `trap` (and `brkpt`) instruction becomes a store to a flag of
// the module's own (`.global`, named with a nonce the candidate cannot know)
// and `exit`: the thread ends instead, the kernel runs on, and the worker
// reads the flag after the run and gives `runtime_error`, as CUDA would have.
// NvrtcBackend then assembles the PTX into a cubin (compiler/ptx_assembler.h).
// Calls of `__assertfail` (the driver's assert) go to a function of the
// module that records the failing line the same way.
//
// What differs from CUDA: the other threads go on. A kernel whose other
// threads then wait forever for the trapped one hangs (a `timeout` verdict,
// where CUDA says `runtime_error`); its outputs do not matter, the flag
// decides.
#pragma once

#include <cstdint>
#include <string>

namespace kb {

// The flag's layout in device memory: the kind of the last contained trap,
// the line of a failed assert(), and the address of a contained fault
// (compiler/fault_containment.h adds its kinds).
enum : uint32_t { kTrapNone = 0, kTrapInstruction = 1, kTrapAssert = 2 };
struct TrapFlag {
    uint32_t kind = kTrapNone;
    uint32_t line = 0;
    uint64_t address = 0;
};

// The PTX with its traps contained, and how many instructions and assert
// calls were rewritten. `nonce` names the flag. PTX without an
// `.address_size` directive is returned unchanged (rewritten = 0, no flag).
std::string contain_traps(const std::string& ptx, uint64_t nonce, size_t* rewritten = nullptr);

// The flag's symbol if `ptx` came out of contain_traps (its header line
// right after `.address_size`), else "".
std::string trap_flag_symbol(const std::string& ptx);

// What a set flag tells the candidate's author.
std::string describe_contained_trap(const TrapFlag& f, const std::string& case_name);

}  // namespace kb
