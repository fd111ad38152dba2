// A compiled program: the image a compiler produced plus the launch plan
// that runs it. Immutable once built; `id` keys the module cache here and
// the kernel cache in a worker process.
#pragma once

#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "task/task.h"

namespace kb {

struct Kernel {
    std::string label;       // "candidate.cu", "reference", "baseline"
    Program program;         // language, launch plan, scratch (source kept for the record)
    CompiledImage image;
    std::string id;          // SHA-256 over image bytes, symbols and the plan
};

using KernelPtr = std::shared_ptr<const Kernel>;

// Fills in `id` (call once the other fields are set).
KernelPtr finish_kernel(Kernel k);

}  // namespace kb
