// Faults and hangs contained in checked copies of the candidate's functions,
// in the same module, which its comparisons run (ContextOptions::contain_traps
// turns them on with contained traps; docs/isolation.md, "Contained faults
// and hangs").
//
// Why: an out-of-bounds or misaligned access ends the kernel with a sticky
// error; the worker's context is lost, and while the driver reports the
// fault (about 145 ms) no other context on that GPU makes progress
// (bench/gpu_disturbance.cu). A kernel that never finishes is stopped
// only by ending its process. Either way the worker is replaced, and its
// replacement's start waits in line with every other process start on the
// machine (bench/context_starts.c). In a stream of model answers these are common.
//
// What: on top of contained traps (compiler/trap_containment.h), every
// global or generic load, store and atomic whose address is a 64-bit
// register (plus an offset) is preceded by a check that the bytes it touches
// lie inside the case's buffers (their guard zones included) or the
// module's own variables, and are aligned to the access's size; every
// backward branch (every loop has one) by a check of %globaltimer against a
// deadline. A failed check stores what it found in the trap flag (kind,
// address) and ends the thread, as a contained trap does. An extra entry,
// `__kb_arm_<nonce>(lo, hi, limit_ns)`, launched before the plan, writes the
// bounds and the deadline and clears the flag.
//
// The checks cost instructions, so the timed runs and the recheck after them
// launch the functions themselves, not their copies: the numbers are the
// candidate's own, and the recheck sees the very code that was timed. The
// copies share the module's variables with them. The form of a check
// matters: one failure block per function, branched to, with the ranges in
// registers, makes a correct attention kernel's copy 3-6 times slower on an
// H100 (`kbench_batch_bench`); a store and an exit where each check stands
// does not. What the checks do not cover
// (an address held in a 32-bit register, a symbol's address, indirect
// branches, a barrier waited on forever, instructions of multi-statement
// lines of inline asm) still faults or hangs as before, and process
// isolation deals with it: the checks make failures cheap, they are not what
// makes kbench safe.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "compiler/trap_containment.h"

namespace kb {

// The trap flag's kinds beyond compiler/trap_containment.h's.
enum : unsigned { kFaultOutOfBounds = 3, kFaultMisaligned = 4, kFaultOverTime = 5 };

// The checked copy of function NAME is NAME + kCheckedSuffix.
constexpr const char* kCheckedSuffix = "__kb_checked";

struct CheckedPtx {
    // The module with both builds: the input's functions as they were, then
    // a checked copy of each (renamed; calls between copies too), sharing
    // the module's variables, so that state a kernel keeps in a global is
    // one, as in a single build (CheckedForm::copies_only: the copies
    // without the functions). "" when the input has no trap flag.
    std::string ptx;
    std::string arm_entry;  // the entry that arms the checks
    std::set<std::string> functions;  // the functions that have a checked copy
    size_t accesses = 0;    // memory instructions given a bounds check
    size_t loops = 0;       // backward branches given a deadline check
    // false when a module-level variable's size could not be read or the
    // code calls the device heap (malloc): its addresses are unknown, so no
    // access is checked, only loops.
    bool bounds_checked = true;
};

// Which module check_faults writes: the input's functions with their
// checked copies beside them (what a score that times needs: its timing and
// the recheck after it run the functions themselves), or the copies alone,
// with the module's variables and the arming entry: all a score's
// comparisons run. The copies alone take ptxas 7-45% less time
// (bench/contained_compile_cost.cpp); a
// correctness-only score builds them (CompileRequest::comparisons_only)
// and runs them for its recheck too.
enum class CheckedForm { beside_plain, copies_only };

// `ptx` must come out of contain_traps (it names the flag the checks set).
CheckedPtx check_faults(const std::string& ptx, CheckedForm form = CheckedForm::beside_plain);

// What a set flag says, for every kind but kFaultOverTime (a timeout, which
// the run's limit describes): describe_contained_trap's for traps.
std::string describe_contained_fault(const TrapFlag& f, const std::string& case_name);

}  // namespace kb
