// kbench validate: check task files; on a GPU also run each reference (at two
// seeds, rejecting outputs that cannot tell right from wrong); with --oracle
// also run it on the CPU emulator against the task's float64 oracle.
#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/validate_checks.h"
#include "emulate/oracle_plugin.h"
#include "util/error.h"

namespace kb::cli {
namespace {

// Validates one task; fills `entry` and returns the problems found.
std::vector<std::string> validate_one(const std::string& path, OpenedContext& oc, const emulate::OraclePlugin* oracles,
                                      Json& entry, Json& warnings, std::string* oracle_line) {
    TaskHandle task;
    try {
        load_task(path, task);
    } catch (const Failure& f) {
        return {f.what()};
    }
    entry["name"] = kb_task_name(task.get());
    entry["cases"] = kb_task_case_count(task.get());
    std::vector<std::string> problems;
    if (parse(kb_task_json(task.get()))["reference"].value("language", "") == "python") {
        // A Python reference (docs/programs.md) is not compiled: the Python
        // workers run it when a candidate is scored, and `kbench import`
        // validated it against the problem's own code.
        entry["python_reference"] = true;
        return problems;
    }
    // Compiling the reference and baseline is part of validity.
    for (kb_program_role role : {KB_ROLE_REFERENCE, KB_ROLE_BASELINE}) {
        KernelHandle k;
        kb_status s = kb_compile_task_program(oc.ctx.get(), task.get(), role, k.out());
        if (s != KB_OK)
            problems.push_back(std::string(role == KB_ROLE_REFERENCE ? "reference" : "baseline") +
                               " does not compile: " + kb_last_error());
    }
    if (problems.empty() && oc.device) {
        std::string error;
        for (std::string& f : reference_lint_on_device(oc.ctx.get(), task.get(), path, &warnings, &error))
            problems.push_back(std::move(f));
        if (!error.empty()) problems.push_back(error);
    }
    if (oracles) {
        emulate::TaskOracleCheck check = emulate::check_task_with_oracle(path, *oracles);
        entry["oracle"] = oracle_check_json(check);
        *oracle_line = oracle_check_summary(check);
        for (const std::string& f : check.failures) problems.push_back(f);
        if (!oc.device)
            for (const std::string& w : check.warnings) warnings.push_back(w);
    }
    return problems;
}

int run_validate(const Args& a) {
    if (a.positional.empty()) throw BadUsage("validate needs at least one task file or folder of tasks");
    const std::vector<std::string> paths = expand_task_args(a.positional);
    // A path that is not there is a wrong command line's input, not a task
    // to report on: the error document (--json), as for every command.
    for (const std::string& path : paths) require_file(path, "task");
    std::unique_ptr<emulate::OraclePlugin> oracles;
    if (a.has("--oracle")) {
        std::string lib = a.value("--oracles", emulate::OraclePlugin::default_path());
        if (lib.empty())
            throw Failure("not found", "--oracle needs the oracle library: build kbench with its tests "
                                       "(libkbench_oracles.so is built beside the kbench executable) or pass --oracles PATH");
        try {
            oracles = std::make_unique<emulate::OraclePlugin>(lib);
        } catch (const kb::Error& e) {
            throw Failure(kb_status_string(e.status()), e.what());
        }
    } else if (a.has("--oracles")) {
        throw BadUsage("--oracles names the oracle library of --oracle, which is not given");
    }
    OpenedContext oc;
    open_context(a, oc);
    if (!oc.device) say_no_device(oc.no_device_reason, "references are compiled, not run");
    int bad = 0;
    Json all = Json::array();
    for (const std::string& path : paths) {
        Json entry = {{"task", path}};
        Json warnings = Json::array();
        std::string oracle_line;
        std::vector<std::string> problems = validate_one(path, oc, oracles.get(), entry, warnings, &oracle_line);
        entry["ok"] = problems.empty();
        const bool python_reference = entry.value("python_reference", false);
        entry["references_run"] = oc.device && problems.empty() && !python_reference;
        entry["warnings"] = warnings;
        if (!problems.empty()) {
            ++bad;
            entry["error"] = problems.front();
            entry["problems"] = problems;
        }
        all.push_back(entry);
        if (a.json()) continue;
        if (!entry.contains("name")) {
            std::printf("INVALID  %s\n  %s\n", path.c_str(), problems.front().c_str());
            continue;
        }
        std::string detail = python_reference ? ", Python reference: run when a candidate is scored"
                             : oc.device      ? ", references run on every case at two seeds"
                                              : ", reference compiled";
        if (!oracle_line.empty()) detail += "; " + oracle_line;
        std::printf("%s  %s (%s, %d cases%s)\n", problems.empty() ? "OK     " : "INVALID", path.c_str(),
                    entry["name"].get<std::string>().c_str(), entry["cases"].get<int>(), detail.c_str());
        for (const std::string& p : problems) std::printf("  %s\n", p.c_str());
        for (const auto& w : warnings) std::printf("  warning: %s\n", w.get<std::string>().c_str());
    }
    if (a.json()) print_json(all);
    return bad ? kExitFailed : kExitOk;
}

}  // namespace

extern const Command kValidateCommand = {
    "validate",
    "validate TASK|DIR...",
    "check tasks (a folder: every task under it); on a GPU also run each reference",
    "Loads each task file (kbench-task/1, docs/task-format.md) and reports the\n"
    "first problem with its JSON path, and compiles its reference and baseline.\n"
    "A folder stands for every task under it (a task is a folder holding\n"
    "task.json, e.g. tasks/elementwise/relu_f32/). On a GPU it also runs the\n"
    "reference on every case at two seeds and rejects outputs that cannot tell\n"
    "right from wrong. With --oracle it runs the reference on the CPU emulator\n"
    "(no GPU needed) on its small cases against the task's float64 oracle.\n"
    "Exit 1 when any task is invalid or missing, or a folder holds no task.\n"
    "--json prints an array with one entry per task ({\"task\", \"ok\", \"error\",\n"
    "\"problems\", \"warnings\", \"oracle\", ...}); a missing path, like every\n"
    "error of the command itself, is the error document {\"error\": {\"kind\",\n"
    "\"status\", \"message\"}}.",
    {"--json", "--device", "--no-device", "--arch", "--ptx", "--no-nvcc", "--in-process", "--oracle", "--oracles"},
    "  kbench validate tasks                                  # every built-in task\n"
    "  kbench validate --no-device --oracle tasks/elementwise  # references against their oracles, on the CPU\n"
    "  kbench validate --json my_task.json | jq '.[0].error'\n",
    run_validate,
};

}  // namespace kb::cli
