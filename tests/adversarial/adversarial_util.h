// Shared helpers of the adversarial GPU tests: worker contexts, the tasks and
// kernels by name, and scoring one candidate.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/context.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "support/task_paths.h"
#include "task/task.h"
#include "util/json.h"
#include "worker_host/isolation.h"

namespace kb::adversarial {

inline std::string task_file(const std::string& name) {
    if (name == "sum_deterministic_f32" || name == "vector_add_jitter_f32")
        return std::string(KB_ADVERSARIAL_DIR) + "/tasks/" + name + ".json";
    return kb::test::builtin_task_file(name);
}

// "kernels/x.cu" lives in tests/adversarial; "tasks/..." in the repository.
inline std::string kernel_file(const std::string& rel) {
    if (rel.rfind("tasks/", 0) == 0) return std::string(KB_SOURCE_DIR) + "/" + rel;
    return std::string(KB_ADVERSARIAL_DIR) + "/" + rel;
}

inline TaskPtr task(const std::string& name) {
    static std::map<std::string, TaskPtr> loaded;
    auto it = loaded.find(name);
    if (it != loaded.end()) return it->second;
    return loaded[name] = load_task(task_file(name));
}

// `contain_comparisons`: the library's default (correctness-only builds
// contained); false is KB_CONTEXT_NO_CONTAIN_TRAPS.
inline std::unique_ptr<Context> worker_context(double timeout_s = 0, bool contain_comparisons = true) {
    ContextOptions o;
    o.device = 0;
    o.isolation = KB_ISOLATION_WORKER;
    o.timeout_s = timeout_s;
    o.contain_comparisons = contain_comparisons;
    return std::make_unique<Context>(o, worker_isolation());
}

inline KernelPtr compile(Context& ctx, const std::string& task_name, const std::string& kernel_rel,
                         std::optional<std::string> launch_json = std::nullopt) {
    CandidateInput in;
    in.path = kernel_file(kernel_rel);
    in.launch_json = launch_json;
    return ctx.compile_candidate(task(task_name), in);
}

inline KernelPtr compile_code(Context& ctx, const std::string& task_name, const std::string& code,
                              const std::string& label) {
    CandidateInput in;
    in.code = code;
    in.label = label;
    return ctx.compile_candidate(task(task_name), in);
}

struct Scored {
    kb_verdict verdict = KB_VERDICT_NONE;
    std::string message;
    Json json;
};

inline Scored score(Context& ctx, const std::string& task_name, const std::string& kernel_rel,
                    std::optional<std::string> launch_json = std::nullopt, bool timing = false, unsigned runs = 0) {
    CandidateInput in;
    in.path = kernel_file(kernel_rel);
    in.launch_json = launch_json;
    ScoreOptions so;
    so.skip_timing = !timing;
    so.correctness_runs = runs;
    Json r = to_json(ctx.score(task(task_name), in, so));
    return {verdict_from_name(r.value("verdict", "none")), r.value("message", ""), r};
}

inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace kb::adversarial
