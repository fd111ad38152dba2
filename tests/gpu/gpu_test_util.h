// Shared helpers of the GPU tests: an in-process context on device 0 and the
// built-in tasks by name.
#pragma once

#include <memory>
#include <string>

#include "compiler/triton_backend.h"
#include "engine/context.h"
#include "engine/local_backend.h"
#include "support/task_paths.h"

namespace kb::test {

inline std::string task_file(const std::string& name) { return builtin_task_file(name); }
inline std::string candidate_file(const std::string& task, const std::string& file) {
    return builtin_candidate_file(task, file);
}

inline std::unique_ptr<Context> in_process_context() {
    ContextOptions o;
    o.device = 0;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    return std::make_unique<Context>(o);
}

inline LocalBackend& local(Context& ctx) { return dynamic_cast<LocalBackend&>(ctx.backend()); }

// "" when Triton candidates can be compiled here, else why not.
inline std::string triton_missing() {
    static const std::string why = [] {
        try {
            TritonBackend probe{CompilerConfig{}};
            probe.version();
            return std::string();
        } catch (const Error& e) {
            return std::string(e.what());
        }
    }();
    return why;
}

}  // namespace kb::test
