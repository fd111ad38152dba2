// libFuzzer target: kbench-candidate/1 documents and launch plans, parsed
// against a real task (vector_add_f32). Refusals are kb::Error; anything
// else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "support/task_paths.h"
#include "task/task.h"
#include "util/error.h"

namespace {
kb::TaskPtr g_task;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_task = kb::load_task(kb::test::builtin_task_file("vector_add_f32"));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    kb::Json doc;
    try {
        doc = kb::parse_json_text(text, "candidate.json");
    } catch (const kb::Error&) {
        return 0;
    }
    try {
        kb::Program p = kb::parse_candidate_document(doc, *g_task, "/nonexistent-kbench-fuzz");
        // A plan that parsed serialises and parses again.
        kb::parse_launch_plan(kb::launch_plan_to_json(p), *g_task, "plan", false, p.language, kb::Limits::trusted());
    } catch (const kb::Error&) {
    }
    try {
        kb::parse_launch_plan(doc, *g_task, "launch_json");
    } catch (const kb::Error&) {
    }
    return 0;
}
