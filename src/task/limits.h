// The limits on what kbench reads: documents, code, plans and expressions
// (docs/limits.md). Text written by models and people reaches kbench in RL
// loops that run for days; every size here is checked before anything is
// allocated, parsed recursively or launched, and a document past one is
// rejected with a message naming the field, the limit and how to raise it.
//
// The defaults are far above anything a real task or kernel needs and far
// below what would hurt the host. kb_limits (include/kbench.h) sets them
// through the C API; 0 there means the default below.
#pragma once

#include <cstdint>
#include <string>

#include "util/units.h"

namespace kb {

struct Limits {
    // A task or candidate document, launch plan or metadata JSON, in bytes
    // (a task file's size too).
    uint64_t max_document_bytes = uint64_t(64) << 20;
    // Nesting of JSON arrays and objects. Real tasks nest about 6 deep.
    uint32_t max_json_depth = 64;
    // A program's code (text or binary image) and each header file it names.
    uint64_t max_source_bytes = uint64_t(16) << 20;
    // Header files a program names beside its code ("headers").
    uint32_t max_headers = 64;
    uint32_t max_dims = 64;
    uint32_t max_cases = 256;           // correctness cases plus the perf case
    uint32_t max_args = 256;            // the task's kernel arguments
    uint32_t max_launch_steps = 64;     // steps of one launch plan
    uint32_t max_kernel_args = 256;     // arguments of one kernel step
    uint32_t max_scratch = 64;          // scratch buffers of one plan
    uint32_t max_expression_chars = 1024;
    uint32_t max_expression_depth = 32; // nesting of parentheses, functions and unary signs

    // What the worker uses for documents its host has already checked: the
    // host's limits (whatever the caller set) decided; the worker re-reads.
    static Limits trusted();
};

// The text every limit message ends with: which kb_limits field to raise.
std::string raise_hint(const char* field);

}  // namespace kb
