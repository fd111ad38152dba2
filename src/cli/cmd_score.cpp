// kbench score: compile a candidate, check every case, time it, verdict.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"

namespace kb::cli {
namespace {

void print_score(const Json& r) {
    std::printf("%s: %s\n", r["verdict"].get<std::string>().c_str(), r["message"].get<std::string>().c_str());
    if (r.contains("cases")) {
        for (const auto& c : r["cases"])
            std::printf("  case %-24s %-18s %s\n", c["case"].get<std::string>().c_str(),
                        c["verdict"].get<std::string>().c_str(), c.value("message", "").c_str());
    }
    if (r.contains("timing") && r["timing"].contains("candidate")) {
        const auto& t = r["timing"];
        auto line = [&](const char* role) {
            if (!t.contains(role)) return;
            const auto& s = t[role];
            std::printf("  %-9s median %10.2f us  (min %.2f, p90 %.2f, %zu samples, noise %.2f%%)", role,
                        s["median_us"].get<double>(), s["min_us"].get<double>(), s["p90_us"].get<double>(),
                        size_t(s["samples"].get<uint64_t>()), 100 * s["rel_noise"].get<double>());
            if (s.contains("gbps")) std::printf("  %.0f GB/s", s["gbps"].get<double>());
            if (s.contains("tflops")) std::printf("  %.2f TFLOP/s", s["tflops"].get<double>());
            std::printf("\n");
        };
        line("candidate");
        line("baseline");
        if (t.contains("speedup"))
            std::printf("  speedup   %.3fx (per-round p10..p90: %.3f..%.3f)%s\n", t["speedup"].get<double>(),
                        t.value("speedup_p10", 0.0), t.value("speedup_p90", 0.0),
                        t.value("throttled", false) ? "  [GPU throttled]" : "");
    }
    print_program(r);
    // The precision audit (compare/precision.h): one line, only when the
    // outputs match a reduced-precision recomputation of the reference.
    if (r.contains("precision") && r["precision"].value("verdict", "") == "reduced") {
        const Json& p = r["precision"];
        std::printf("  precision reduced: the outputs match the reference computed in %s (largest error %.3g of the "
                    "output's magnitude from the reference, %.3g from its %s recomputation); reported, not judged\n",
                    p.value("mode", "").c_str(), p.value("err_full", 0.0), p.value("err_reduced", 0.0),
                    p.value("mode", "").c_str());
    }
    if (r.contains("elapsed_ms")) std::printf("  scored in %.1f ms\n", r["elapsed_ms"].get<double>());
}

// Without a device: compile, which is the only stage that can give a
// verdict; a candidate that compiles still has none, and that is a failure
// to score (exit 1), never a pass.
int compile_only(const Args& a, OpenedContext& oc, TaskHandle& task, kb_candidate& c) {
    say_no_device(oc.no_device_reason, "the candidate is compiled, not run or timed");
    KernelHandle k;
    kb_status s = kb_compile(oc.ctx.get(), task.get(), &c, k.out());
    if (s == KB_ERR_COMPILE) {
        std::string detail = kb_last_error();
        std::string first_line = detail.substr(0, detail.find('\n'));
        if (a.json()) print_json({{"verdict", "compile_error"}, {"message", first_line}, {"compile", {{"ok", false}, {"error", detail}}}, {"device", nullptr}});
        else std::printf("compile_error: %s\n", detail.c_str());
        return kExitFailed;
    }
    if (s != KB_OK) fail_with(s);
    Json kj = parse(kb_kernel_json(k.get()));
    std::string msg = "no CUDA device (" + oc.no_device_reason + "): the candidate compiled (" +
                      kj["image"].get<std::string>() + " via " + kj["path"].get<std::string>() +
                      ") but cannot be run, so it has no verdict; score it on a machine with a GPU";
    if (a.json()) {
        Json out = {{"verdict", nullptr}, {"message", msg}, {"compile", kj}, {"device", nullptr}};
        out.update(error_json("failure", kb_status_string(KB_ERR_NO_DEVICE), msg));
        print_json(out);
    } else {
        std::printf("compiled: %s via %s in %.1f ms; not run (no device)\n", kj["image"].get<std::string>().c_str(),
                    kj["path"].get<std::string>().c_str(), kj["compile_ms"].get<double>());
    }
    return kExitFailed;
}

int run_score(const Args& a) {
    if (a.positional.size() != 2) throw BadUsage("score needs TASK CANDIDATE");
    TaskHandle task;
    if (is_problem_file(a.positional[0])) {
        // A KernelBench problem file: imported on the fly (docs/programs.md).
        const std::string text = task_from_problem(a.positional[0], "kernelbench");
        kb_status s = kb_load_task(text.c_str(), task.out());
        if (s != KB_OK) fail_with(s);
    } else {
        load_task(a.positional[0], task);
    }
    require_file(a.positional[1], "candidate", "candidate.json");
    kb_score_options o = score_options(a);
    OpenedContext oc;
    open_context(a, oc);
    kb_candidate c = candidate_for(a.positional[1], a);
    const bool program = parse(kb_task_json(task.get()))["reference"].value("language", "") == "python";
    if (program) {
        // A program candidate: Python that kbench's Python workers run, never
        // compiled. Tests run them on torch's CPU (KBENCH_PROGRAM_TEST_CPU=1).
        // A kernel (.cu, a candidate document, Triton with its launch) keeps
        // the language the library infers from the path, and is run as a
        // program built from its launch plan.
        c.language = KB_LANG_AUTO;
        const char* cpu = std::getenv("KBENCH_PROGRAM_TEST_CPU");
        if (!oc.device && !(cpu && std::string(cpu) == "1"))
            throw Failure(kb_status_string(KB_ERR_NO_DEVICE),
                          "no CUDA device (" + oc.no_device_reason + "): a program candidate needs one to run");
    } else if (!oc.device) {
        return compile_only(a, oc, task, c);
    }
    ResultHandle r;
    kb_status s = kb_score(oc.ctx.get(), task.get(), &c, &o, r.out());
    if (s != KB_OK) fail_with(s);
    Json j = parse(kb_result_json(r.get()));
    if (a.json()) print_json(j);
    else print_score(j);
    return kb_result_verdict(r.get()) == KB_VERDICT_PASS ? kExitOk : kExitFailed;
}

}  // namespace

extern const Command kScoreCommand = {
    "score",
    "score TASK CANDIDATE",
    "compile, check every case, time against the baseline, verdict",
    "Scores a candidate against a task: compiles it, runs it on every case\n"
    "against the reference (outputs poisoned, inputs checksummed, guard zones\n"
    "checked), times it against the baseline on the perf case, and rechecks on\n"
    "inputs from a secret seed. Prints the verdict (pass, wrong_answer, ...) with\n"
    "a message, per-case results and timing. Exit 0 for pass, 1 for any other\n"
    "verdict. Needs a GPU: without one the candidate is compiled (a compile error\n"
    "is still a verdict) and the command fails with exit 1, never a pass.\n"
    "--json prints the result document (kb_result_json): .verdict, .message,\n"
    ".cases, .timing; without a GPU, .verdict is null and .error says why.\n"
    "TASK may be a KernelBench problem file (.py), imported on the fly, and\n"
    "CANDIDATE then a Python program defining ModelNew (docs/programs.md); its\n"
    "result has a .program section (protocol, findings, attribution).",
    {"--json", "--device", "--no-device", "--arch", "--ptx", "--no-nvcc", "--in-process", "--seed", "--runs",
     "--budget-ms", "--hot", "--skip-timing", "--no-recheck", "--launch", "--protocol", "--torch-compute"},
    "  kbench score tasks/elementwise/vector_add_f32/task.json my_kernel.cu\n"
    "  kbench score --json tasks/elementwise/vector_add_f32/task.json my_kernel.cu | jq .verdict\n"
    "  kbench score --skip-timing --runs 4 my_task.json my_kernel.cu   # correctness only, determinism\n"
    "  kbench score --protocol kernelbench 23_Softmax.py softmax_triton.py   # a KernelBench problem, a ModelNew\n",
    run_score,
};

}  // namespace kb::cli
