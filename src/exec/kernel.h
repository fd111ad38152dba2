// A compiled program: the image a compiler produced plus the launch plan
// that runs it. Immutable once built; `id` keys the module cache here and
// the kernel cache in a worker process.
#pragma once

#include <memory>
#include <string>

#include "compiler/compiler.h"
#include "compiler/triton_specialize.h"
#include "task/task.h"

namespace kb {

// A candidate that its backend runs whole rather than an image the launcher
// runs: a Python program candidate (engine/program_backend.h). What that
// backend needs to run it is opaque here.
struct HostProgram {
    virtual ~HostProgram() = default;
};

struct Kernel {
    std::string label;       // "candidate.cu", "reference", "baseline"
    Program program;         // language, launch plan, scratch (source kept for the record)
    CompiledImage image;     // Language::triton: the first variant's (each variant has its own)
    // Language::triton: one image per launch entry and specialisation key of
    // the task's cases; binding a plan at a case takes the variant whose key
    // is the case's (docs/triton.md).
    std::vector<TritonVariant> variants;
    std::string id;          // SHA-256 over image bytes, symbols, variants and the plan
    std::shared_ptr<const HostProgram> host_program;  // a program candidate (Language::python)
};

using KernelPtr = std::shared_ptr<const Kernel>;

// Fills in `id` (call once the other fields are set).
KernelPtr finish_kernel(Kernel k);

}  // namespace kb
