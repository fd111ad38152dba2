// prepare_score of a program candidate (docs/programs.md): on a CPU thread,
// ahead of the lanes, the candidate's source is resolved, a kernel
// candidate (CUDA, PTX, cubin) is compiled like any kernel, and the
// protocol is made. What runs it is the program backend
// (engine/program_backend.h), from the load stage on.
#include <chrono>

#include "engine/context.h"
#include "engine/kernel_program.h"
#include "engine/program_backend.h"
#include "engine/program_protocol.h"
#include "ipc/confine.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/files.h"
#include "util/profile.h"

namespace kb {

PreparedScore Context::prepare_program(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts,
                                       PreparedScore ps) {
    const Task& t = *task;
    ScoreResult& res = ps.result;
    res.task = t.name;
    res.seed = opts.seed ? opts.seed : kDefaultSeed;
    res.candidate = !in.label.empty() ? in.label : !in.path.empty() ? in.path : "candidate";

    const bool is_kernel = is_kernel_candidate(in, t);
    if (is_kernel && !is_kernel_language(in.language))
        fail(KB_ERR_INVALID_ARGUMENT, "task '" + t.name + "' has a Python reference: its candidates are Python "
                                      "programs, or CUDA, PTX, cubin or Triton kernels; a " +
                                          std::string(language_name(in.language)) + " candidate is not supported");
    if (is_kernel && t.python->style != "kernelbench")
        fail(KB_ERR_TASK_INVALID, "task '" + t.name + "' is a " + t.python->style +
                                      " task: it takes program candidates only (the functions its test calls); kernel "
                                      "candidates need a KernelBench-style reference");
    if (is_kernel && t.args.empty())
        fail(KB_ERR_TASK_INVALID,
             "task '" + t.name + "' has no kernel signature: a kernel candidate against its Python reference needs "
             "`args` (the in buffers in the order get_inputs() returns them, then the out buffers in the order the "
             "Model returns them) and a launch plan (the task's `candidate.launch` or the candidate's own); or score "
             "a Python program (ModelNew) instead (docs/programs.md, \"Kernel candidates against a Python reference\")");
    ProgramProtocolOptions po;
    po.name = opts.protocol.empty() ? "strict" : opts.protocol;
    po.seed = opts.seed;
    po.torch_compute = opts.torch_compute;
    po.correctness_trials = opts.correctness_runs;
    po.skip_timing = opts.skip_timing;
    po.recheck = opts.recheck;
    po.timing = opts.timing.timing;
    po.timing_given = opts.timing_given;
    ProgramCandidate pc;
    pc.protocol = make_program_protocol(t, po);
    pc.policy.torch_compute = pc.protocol.torch_compute;
    pc.policy.enforce = pc.protocol.enforce_policy;
    if (pc.protocol.name == "kernelbench") res.seed = 42;

    ProgramFacts facts;
    facts.protocol = pc.protocol.name;
    facts.style = t.python->style;
    facts.torch_compute = pc.protocol.torch_compute;
    facts.confined = confine_python_worker(opts_.confine, opts_.device);
    // The import's findings, but for those of outputs that cannot tell right
    // from wrong where strict's negative controls transform the inputs
    // (their warning no longer holds), then what the controls applied.
    bool transformed = false;
    if (t.origin.is_object() && pc.protocol.name == "strict") {
        const Json controls = t.origin.value("controls", Json::object());
        const Json strict = controls.is_object() ? controls.value("strict", Json::object()) : Json::object();
        const Json transforms = strict.is_object() ? strict.value("input_transforms", Json()) : Json();
        transformed = (transforms.is_array() || transforms.is_object()) && !transforms.empty();
    }
    if (t.origin.is_object())
        for (const Json& f : t.origin.value("findings", Json::array())) {
            if (!f.is_object() || !f.contains("message")) continue;
            const std::string reason = f.value("reason", std::string());
            if (transformed && (reason == "equals_input" || reason == "near_zero" || reason == "near_constant"))
                continue;
            facts.reference_warnings.push_back("import finding: " + f["message"].get<std::string>());
        }
    for (const std::string& n : pc.protocol.controls_notes) facts.reference_warnings.push_back(n);
    ps.done = true;  // until the candidate is resolved
    auto stage = SteadyClock::now();
    auto done = [&](kb_verdict v, const std::string& msg) {
        res.stages.compile_ms = ms_since(stage);
        res.program = facts;
        res.verdict = v;
        res.message = msg;
        res.elapsed_ms = ms_since(ps.started);
        return std::move(ps);
    };
    if (is_kernel) {
        // A kernel candidate: compiled here like any kernel (CUDA; Triton's
        // JIT compiles in the worker), then run as the ModelNew the candidate
        // worker builds from its plan evaluated at every case.
        try {
            Program prog = resolve_candidate(t, in, &res.candidate);
            facts.kernel_language = prog.language == Language::triton ? "triton" : "cuda";
            KernelPtr compiled;
            if (prog.language != Language::triton) {
                KB_PROFILE_SPAN("engine.compile");
                compiled = compile(t, prog, res.candidate);
            }
            // Triton's JIT compiles in the worker: a failure there comes
            // back from the load as a compile error (score.cpp).
            res.compile = {true, "", "", compiled};
            pc.kernel = make_kernel_candidate(t, prog, compiled.get());
            pc.source = prog.language == Language::triton ? prog.source : in.code.empty() ? read_file(in.path) : in.code;
            pc.source_name = prog.source_name.empty() ? res.candidate : prog.source_name;
        } catch (const CompileError& e) {
            res.compile = {false, e.what(), e.log(), nullptr};
            return done(KB_VERDICT_COMPILE_ERROR, e.what());
        } catch (const Error& e) {
            if (e.status() != KB_ERR_TASK_INVALID) throw;
            res.compile = {false, e.what(), "", nullptr};
            return done(KB_VERDICT_LAUNCH_ERROR, std::string("the candidate's launch plan is invalid: ") + e.what());
        }
    } else {
        pc.source = in.code;
        if (pc.source.empty()) {
            if (in.path.empty()) fail(KB_ERR_INVALID_ARGUMENT, "the candidate has neither code nor a path");
            FileRead file = read_regular_file(in.path, opts_.limits.max_source_bytes);
            if (file.too_large) {
                const std::string what = res.candidate + ": the candidate is " + std::to_string(file.size) +
                                         " bytes long, more than the context's limit (limits.max_source_bytes, " +
                                         std::to_string(opts_.limits.max_source_bytes) + " bytes)";
                res.compile = {false, what, "", nullptr};
                return done(KB_VERDICT_COMPILE_ERROR, what);
            }
            pc.source = std::move(file.data);
        }
        if (pc.source.find_first_not_of(" \t\r\n") == std::string::npos) {
            res.compile = {false, "the candidate is empty", "", nullptr};
            return done(KB_VERDICT_COMPILE_ERROR, "the candidate " + res.candidate +
                                                      " is empty: a program candidate defines ModelNew (KernelBench) "
                                                      "or the functions its test calls (TritonBench)");
        }
        pc.source_name = in.path.empty() ? "candidate.py" : in.path.substr(in.path.find_last_of('/') + 1);
        if (pc.source_name.empty()) pc.source_name = "candidate.py";
        res.compile = {true, "", "", nullptr};
        if (ProgramBuilders::wanted(pc.source))
            if (ProgramBuilders* builders = program_builders()) {
                KB_PROFILE_SPAN("engine.prebuild");
                const auto t0 = SteadyClock::now();
                if (std::optional<ProgramPrebuild> pre = builders->prebuild(pc.source, pc.source_name, task)) {
                    ProgramFacts::Prebuild f;
                    f.ms = ms_since(t0);
                    for (const ProgramPrebuilt& c : pre->calls) ++(c.error.empty() ? f.built : f.failed);
                    f.stopped = pre->failure ? pre->failure->message : pre->stopped;
                    facts.prebuild = f;
                    // The folder goes with the candidate's last copy.
                    pc.prebuilt = std::shared_ptr<const ProgramPrebuild>(
                        new ProgramPrebuild(std::move(*pre)), [](const ProgramPrebuild* p) {
                            if (!p->folder.empty()) remove_tree(p->folder);
                            delete p;
                        });
                }
            }
    }
    res.stages.compile_ms = ms_since(stage);
    res.program = facts;
    ps.kernel = make_program_kernel(res.candidate, std::move(pc));
    ps.done = false;
    return ps;
}

}  // namespace kb
