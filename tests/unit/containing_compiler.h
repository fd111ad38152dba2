// The compiler of a context that contains traps and checks faults
// (CompilerConfig::contain_traps): one per test process, shared by the
// tests of compiler/trap_containment.h and compiler/fault_containment.h.
#pragma once

#include "compiler/compiler.h"

inline kb::Compiler& containing_compiler() {
    static kb::Compiler c([] {
        kb::CompilerConfig cfg;
        cfg.contain_traps = true;
        return cfg;
    }());
    return c;
}
