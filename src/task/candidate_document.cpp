// `kbench-candidate/1` documents: a candidate's code plus, optionally, its own
// launch plan. A candidate that brings only code takes the plan its task
// declares for candidates (task.candidate.launch), which is what lets a model
// answer with nothing but a kernel.
#include "task/task_json.h"

namespace kb {

using namespace taskjson;

namespace {

constexpr const char* kFormat = "kbench-candidate/1";
constexpr const char* kRoot = "candidate";

const std::vector<std::string>& candidate_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k = {"format"};
        k.insert(k.end(), program_code_keys().begin(), program_code_keys().end());
        k.insert(k.end(), {"launch", "scratch"});
        return k;
    }();
    return keys;
}

}  // namespace

Program parse_candidate_document(const Json& doc, const Task& task, const std::string& base_dir, const Limits& limits) {
    if (!doc.is_object())
        fail_at(kRoot, "got " + describe(doc),
                std::string("expected a JSON object with \"format\": \"") + kFormat + "\"");
    const std::string fp = child_path(kRoot, "format");
    std::string format =
        as_string(require(doc, kRoot, "format", std::string("expected \"format\": \"") + kFormat + "\""), fp,
                  std::string("expected \"") + kFormat + "\"");
    if (format != kFormat)
        fail_at(
            fp,
            "unknown format '" + format + "'" + (format == "kbench-task/1" ? " (this is a task, not a candidate)" : ""),
            std::string("expected \"") + kFormat + "\"");
    check_object(doc, kRoot, candidate_keys(), "a kbench-candidate/1 document");

    Program p;
    read_program_code(doc, kRoot, base_dir, kRoot, p, limits, FileScope::inside_folder);
    if (find(doc, "launch")) {
        Program plan = parse_plan_fields(doc, task, kRoot, false, p.language, limits);
        p.launch = std::move(plan.launch);
        p.scratch = std::move(plan.scratch);
    } else if (find(doc, "scratch")) {
        fail_at(child_path(kRoot, "scratch"), "scratch buffers are given without a launch plan",
                "expected \"launch\" beside \"scratch\" (the task's default plan brings its own scratch buffers)");
    } else if (p.language == Language::triton) {
        // A Triton kernel's grid and constexprs are its own: the task's default
        // plan is for CUDA candidates. Its source may say how to launch it.
        Json plan = triton_plan_from_comments(p.source, p.source_name, task);
        if (plan.is_null())
            fail_at(child_path(kRoot, "launch"), "a Triton candidate needs its launch entries (grid, constexprs, "
                                                 "num_warps)",
                    "expected a \"launch\" array in the candidate document, or a `# kbench: launch kernel=... "
                    "grid=...` comment in the source (docs/triton.md)");
        Program from = parse_plan_fields(Json{{"launch", plan}}, task, p.source_name, false, p.language);
        p.launch = std::move(from.launch);
    } else if (task.candidate_default) {
        p.launch = task.candidate_default->launch;
        p.scratch = task.candidate_default->scratch;
    } else {
        fail_at(child_path(kRoot, "launch"),
                "candidate has no launch plan and the task defines no default (task.candidate.launch)",
                "expected a \"launch\" array in the candidate document");
    }
    return p;
}

}  // namespace kb
