// kbench compile: compile a task's reference and baseline, or a candidate.
#include <cstdio>
#include <fstream>
#include <iterator>

#include "cli/cli.h"
#include "cli/commands.h"

namespace kb::cli {
namespace {

void print_kernel(const Json& k) {
    std::printf("  %-12s %s via %s in %.1f ms%s, %zu bytes\n", k["label"].get<std::string>().c_str(),
                k["image"].get<std::string>().c_str(), k["path"].get<std::string>().c_str(),
                k["compile_ms"].get<double>(), k["cache_hit"].get<bool>() ? " (cache hit)" : "",
                size_t(k["image_bytes"].get<uint64_t>()));
    for (const auto& kv : k["symbols"].items())
        std::printf("    %s -> %s\n", kv.key().c_str(), kv.value().get<std::string>().c_str());
    // Triton: one binary per specialisation of the task's cases, and how it launches.
    if (k.contains("triton_variants"))
        for (const auto& v : k["triton_variants"]) {
            std::printf("    variant %s\n", v["key"].get<std::string>().c_str());
            if (!v.contains("launch")) continue;
            const auto& l = v["launch"];
            std::string params;
            for (const auto& p : l["params"])
                params += (params.empty() ? "" : ", ") +
                          (p.contains("hidden") ? "[" + p["hidden"].get<std::string>() + "]" : p["name"].get<std::string>());
            std::printf("      block %d, shared %lld B, params (%s)\n", l["block"][0].get<int>(),
                        (long long)l["shared_mem"].get<int64_t>(), params.c_str());
        }
}

// A Python program candidate: a .py file that defines ModelNew, or any .py
// without a `# kbench: launch` comment (a Triton kernel brings its launch).
bool is_program_file(const std::string& path) {
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".py") != 0) return false;
    std::ifstream f(path);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return text.find("ModelNew") != std::string::npos || text.find("kbench: launch") == std::string::npos;
}

int run_compile(const Args& a) {
    if (a.positional.empty() || a.positional.size() > 2) throw BadUsage("compile needs TASK [CANDIDATE]");
    TaskHandle task;
    load_task(a.positional[0], task);
    if (a.positional.size() == 2) require_file(a.positional[1], "candidate", "candidate.json");
    OpenedContext oc;
    open_context(a, oc);
    Json out = Json::array();
    int failures = 0;
    auto report = [&](kb_status st, KernelHandle& k, const std::string& what) {
        if (st == KB_OK) {
            Json j = parse(kb_kernel_json(k.get()));
            if (a.json()) {
                out.push_back(j);
                return;
            }
            print_kernel(j);
            std::string log = kb_kernel_log(k.get());
            if (log.find_first_not_of(" \n") != std::string::npos) std::printf("    log: %s\n", log.c_str());
            return;
        }
        ++failures;
        if (a.json()) out.push_back({{"label", what}, {"ok", false}, {"status", kb_status_string(st)}, {"error", kb_last_error()}});
        else std::printf("  %-12s FAILED: %s\n", what.c_str(), error_text(st).c_str());
    };
    if (!a.json())
        std::printf("task %s, target %s\n", kb_task_name(task.get()),
                    parse(kb_context_json(oc.ctx.get()))["arch"].get<std::string>().c_str());
    // A task whose reference is Python (an imported KernelBench/TritonBench
    // problem, docs/programs.md) has nothing to compile: its reference, also
    // its baseline, runs in kbench's Python workers when a candidate is scored.
    const Json task_doc = parse(kb_task_json(task.get()));
    const bool python_reference = task_doc.value("reference", Json::object()).value("language", "") == "python";
    if (a.positional.size() == 1 && python_reference) {
        const char* why = "Python (the problem's code): not compiled; it runs in kbench's Python workers when a "
                          "candidate is scored (kbench score TASK CANDIDATE)";
        if (a.json()) {
            out.push_back({{"label", "reference"}, {"ok", true}, {"language", "python"}, {"compiled", false}, {"note", why}});
            print_json(out);
        } else {
            std::printf("  %-12s %s\n  %-12s the reference (no baseline of its own)\n", "reference", why, "baseline");
        }
        return kExitOk;
    }
    if (a.positional.size() == 1) {
        for (kb_program_role role : {KB_ROLE_REFERENCE, KB_ROLE_BASELINE}) {
            KernelHandle k;
            report(kb_compile_task_program(oc.ctx.get(), task.get(), role, k.out()), k,
                   role == KB_ROLE_REFERENCE ? "reference" : "baseline");
        }
    } else if (python_reference && is_program_file(a.positional[1])) {
        // A program candidate (a ModelNew, a TritonBench wrapper): its
        // compile is its import, in a Python candidate worker (no GPU needed,
        // torch needed): kb_score's compile-only stage.
        kb_candidate c = candidate_for(a.positional[1], a);
        c.language = KB_LANG_PYTHON;
        kb_score_options so = KB_SCORE_OPTIONS_INIT;
        so.flags = KB_SCORE_COMPILE_ONLY;
        kb_result* r = nullptr;
        kb_status st = kb_score(oc.ctx.get(), task.get(), &c, &so, &r);
        if (st != KB_OK) {
            ++failures;
            if (a.json()) out.push_back({{"label", a.positional[1]}, {"ok", false}, {"status", kb_status_string(st)}, {"error", kb_last_error()}});
            else std::printf("  %-12s FAILED: %s\n", a.positional[1].c_str(), error_text(st).c_str());
        } else {
            const bool ok = kb_result_verdict(r) == KB_VERDICT_NONE;
            if (!ok) ++failures;
            Json j = parse(kb_result_json(r));
            if (a.json()) {
                out.push_back({{"label", a.positional[1]}, {"ok", ok}, {"language", "python"}, {"verdict", j["verdict"]},
                               {"message", j["message"]}, {"import_ms", j["program"].value("import_ms", 0.0)}});
            } else {
                std::printf("  %-12s %s: %s\n", a.positional[1].c_str(), ok ? "imported" : "FAILED",
                            kb_result_message(r));
            }
            kb_result_destroy(r);
        }
    } else {
        kb_candidate c = candidate_for(a.positional[1], a);
        KernelHandle k;
        report(kb_compile(oc.ctx.get(), task.get(), &c, k.out()), k, a.positional[1]);
    }
    if (a.json()) print_json(out);
    return failures ? kExitFailed : kExitOk;
}

}  // namespace

extern const Command kCompileCommand = {
    "compile",
    "compile TASK [CANDIDATE]",
    "compile the task's reference/baseline, or a candidate",
    "Compiles a candidate (a .cu, .ptx or .cubin file, or a kbench-candidate/1\n"
    "candidate.json) with the task's compile policy, or, without CANDIDATE, the\n"
    "task's reference and baseline. Prints the image, the path it took (NVRTC,\n"
    "nvcc, given), the time and the kernels the launch plan resolved to. Needs no\n"
    "GPU: without one it compiles to PTX (--arch sm_XY for a cubin). Exit 1 when\n"
    "something does not compile; the compiler's log says why.\n"
    "A Python program candidate (a ModelNew) of an imported task is imported in\n"
    "a Python worker instead, which needs torch but no GPU; it reports the\n"
    "import's error and line, or that it imported (docs/programs.md says what\n"
    "such a check cannot see).\n"
    "--json prints an array of the kernels' JSON (kb_kernel_json), or of\n"
    "{\"label\", \"ok\": false, \"status\", \"error\"} for one that failed.",
    {"--json", "--device", "--no-device", "--arch", "--ptx", "--no-nvcc", "--in-process", "--launch"},
    "  kbench compile tasks/elementwise/vector_add_f32/task.json                # reference and baseline\n"
    "  kbench compile tasks/elementwise/vector_add_f32/task.json my_kernel.cu   # a candidate\n"
    "  kbench compile --arch sm_90 --launch '{\"launch\": [{\"kernel\": \"vector_add\", \"grid\": \"ceil_div(n, 128)\",\n"
    "    \"block\": 128, \"args\": [\"a\", \"b\", \"c\", \"n\"]}]}' tasks/elementwise/vector_add_f32/task.json my_kernel.cu\n",
    run_compile,
};

}  // namespace kb::cli
