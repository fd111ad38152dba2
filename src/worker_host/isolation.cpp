#include "worker_host/isolation.h"

#include "worker_host/compile_pool.h"
#include "worker_host/program_workers.h"
#include "worker_host/worker_backend.h"

namespace kb {

Isolation worker_isolation() {
    Isolation iso;
    iso.backend = [](const ContextOptions& opts) { return make_worker_backend(opts); };
    iso.compile_sandbox = [](const ContextOptions& opts, const CompilerConfig& config) -> std::shared_ptr<CompileSandbox> {
        return make_compile_pool(opts, config);
    };
    iso.python_workers = [](const ContextOptions& opts, ProgramRole role, unsigned sharing) {
        return make_python_workers(opts, role, sharing);
    };
    return iso;
}

}  // namespace kb
