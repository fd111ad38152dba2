// A CUDA C++ program (a task's reference, usually) compiled for the CPU
// emulator: the source, prepared for the host compiler, is built with the
// emulator's runtime into a shared object and loaded with dlopen.
//
// What runs: kernels written with threads, blocks, __syncthreads(), static
// and dynamic shared memory, atomics, warp-level intrinsics (__shfl*_sync,
// __ballot_sync, ...), __half / __nv_bfloat16 and the math library. What
// does not: inline PTX (asm), cooperative groups, dynamic parallelism, and
// spin-waits on other blocks (blocks run one after another). Each is a clear
// error, not a wrong answer. src/emulate/runtime/kbemu_cuda.h has the detail.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "emulate/host_compiler.h"
#include "emulate/runtime/kbemu_abi.h"
#include "task/task.h"

namespace kb::emulate {

struct ModuleOptions {
    // Where compiled modules, the runtime object and the precompiled header
    // are kept (content-addressed). Empty: $KBENCH_CACHE_DIR/emulate, else
    // $XDG_CACHE_HOME/kbench/emulate, else ~/.cache/kbench/emulate.
    std::string cache_dir;
    double compile_timeout_s = 300;
};

// The source as the host compiler gets it: `extern __shared__ T name[];`
// pointed at the block's dynamic shared memory, a #line so that messages name
// the original file, and one trampoline per kernel of the plan
// (kbemu_kernel_<i>, in the order of Program::kernel_names()). Throws
// kb::Error(KB_ERR_COMPILE) for code the emulator cannot run (inline PTX),
// KB_ERR_TASK_INVALID for a program that is not CUDA C++.
std::string prepare_source(const Program& program);

class EmulatedModule {
public:
    // Compiles `program` for the emulator (or takes it from the cache) and
    // loads it. `label` names it in messages ("the reference of softmax_f32").
    // Throws kb::Error: KB_ERR_NOT_FOUND without a host compiler,
    // KB_ERR_COMPILE with the compiler's log (and what to change, for the
    // emulator's known limits), KB_ERR_IO for cache or loading problems.
    static std::unique_ptr<EmulatedModule> build(const Program& program, const CompilePolicy& policy,
                                                 const std::string& label, const ModuleOptions& options = {});
    ~EmulatedModule();
    EmulatedModule(const EmulatedModule&) = delete;
    EmulatedModule& operator=(const EmulatedModule&) = delete;

    // The trampoline of a kernel of the plan, by the name the plan uses.
    kbemu_kernel_fn kernel(const std::string& plan_name) const;
    void attach_progress(kbemu_progress* progress) const;
    const std::string& label() const { return label_; }
    bool from_cache() const { return from_cache_; }
    double compile_ms() const { return compile_ms_; }

private:
    EmulatedModule() = default;
    void* handle_ = nullptr;
    std::string label_;
    std::vector<std::string> names_;
    std::vector<kbemu_kernel_fn> kernels_;
    kbemu_attach_progress_fn attach_ = nullptr;
    bool from_cache_ = false;
    double compile_ms_ = 0;
};

}  // namespace kb::emulate
