// The worker's host side as the engine's Isolation: device contexts run
// candidates in a kbench-worker process (WorkerBackend) and compile in a pool
// of compile workers (CompilePool). The C API hands this to every context.
#pragma once

#include "engine/backend.h"

namespace kb {

Isolation worker_isolation();

}  // namespace kb
