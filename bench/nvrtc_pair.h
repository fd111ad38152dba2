// NVRTC twice, for the compile benches (contained_compile_cost.cpp,
// nvrtc_cache_probe.cpp): as a context that contains traps compiles (to PTX
// with its traps contained, before any assembly) and as a plain one (straight
// to a cubin), both with the build's toolkit and no nvcc fallback.
#pragma once

#include "compiler/nvrtc_backend.h"

namespace bench {

struct NvrtcPair {
    kb::NvrtcBackend to_ptx{config(true), false};
    kb::NvrtcBackend to_cubin{config(false), false};

    static kb::CompilerConfig config(bool contain_traps) {
        kb::CompilerConfig c;
        c.cuda_home = KB_CUDA_HOME;
        c.contain_traps = contain_traps;
        return c;
    }
};

}  // namespace bench
