// Whole scores of program candidates on torch's CPU (test hooks:
// KBENCH_PROGRAM_TEST_CPU=1), through a context with kbench's Python
// workers, so the verdicts of both protocols are checked end to end without
// a GPU (docs/programs.md). Needs torch for the interpreter $KBENCH_PYTHON
// (or CMake's KBENCH_TEST_PYTHON) names: label torch, exit 77 without it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "engine/batch.h"
#include "engine/context.h"
#include "engine/result_json.h"
#include "torch/torch_python.h"
#include "util/error.h"
#include "worker_host/isolation.h"

using namespace kb;

namespace {

const std::string kDir = std::string(KB_SOURCE_DIR) + "/tests/programs";

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TaskPtr softmax_task() { return load_task(kDir + "/tasks/softmax_rows/task.json"); }

const std::string kLoadInlineCache = "/tmp/kbench-test-load-inline-cache";

}  // namespace

namespace {

class ProgramScores : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
        ::setenv("KBENCH_PROGRAM_TEST_CPU", "1", 1);
        ::setenv("KBENCH_PYTHON", test::torch_python().c_str(), 1);
        // A context without a device builds load_inline answers ahead only
        // when asked; the precompiled headers outlive the test.
        ::setenv("KBENCH_PREBUILD", "1", 1);
        if (!std::getenv("KBENCH_LOAD_INLINE_CACHE")) ::setenv("KBENCH_LOAD_INLINE_CACHE", kLoadInlineCache.c_str(), 1);
        if (!ctx_) {
            ContextOptions o;
            o.device = KB_DEVICE_NONE;
            ctx_ = std::make_unique<Context>(o, worker_isolation());
        }
    }
    static void TearDownTestSuite() { ctx_.reset(); }

    // A candidate of tests/programs/candidates scored in the shared
    // context, or in `on`.
    ScoreResult score(const std::string& name, const std::string& protocol = "strict", bool timing = false,
                      const std::string& task = "softmax_rows", Context* on = nullptr) {
        TaskPtr t = load_task(kDir + "/tasks/" + task + "/task.json");
        CandidateInput in;
        in.language = Language::python;
        in.language_given = true;
        in.path = kDir + "/candidates/" + name;
        ScoreOptions so;
        so.protocol = protocol;
        so.skip_timing = !timing;
        if (protocol == "kernelbench") so.correctness_runs = 2;  // fewer trials: CPU time
        return (on ? *on : *ctx_).score(t, in, so);
    }

    static std::unique_ptr<Context> ctx_;
};

std::unique_ptr<Context> ProgramScores::ctx_;

}  // namespace

TEST_F(ProgramScores, ACorrectCandidatePassesEveryCaseAndIsAttributed) {
    ScoreResult r = score("softmax_torch.py");
    EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    // small_primes at two seeds, batch_of_one; faithful (the problem's own
    // sizes) is the recheck's alone, at a secret seed, as nothing is timed.
    EXPECT_EQ(r.cases.size(), 3u);
    ASSERT_TRUE(r.recheck);
    EXPECT_EQ(r.recheck->verdict, KB_VERDICT_PASS);
    EXPECT_TRUE(r.recheck->where.seed_secret);
    EXPECT_EQ(r.recheck->where.case_name, "faithful");
    ASSERT_TRUE(r.program);
    EXPECT_EQ(r.program->protocol, "strict");
    // Torch compute is reported (the task's rule), not failed.
    EXPECT_FALSE(r.program->attribution.torch_compute_ops.empty());
    bool reported = false;
    for (const ProgramFinding& f : r.program->findings) reported = reported || f.rule == "torch_compute";
    EXPECT_TRUE(reported);
    Json j = to_json(r);
    EXPECT_EQ(j["program"]["protocol"], "strict");
    EXPECT_TRUE(j["program"]["attribution"]["aten_ops"].contains("aten.exp"));
    EXPECT_EQ(j["compile"]["ok"], true);
    for (const CompareResult& c : r.cases) {
        ASSERT_EQ(c.outputs.size(), 1u);
        EXPECT_EQ(c.outputs[0].mismatches, 0u);
        EXPECT_FALSE(c.outputs[0].tolerance.equal_nan);
    }
}

TEST_F(ProgramScores, ACandidateOutOfDeviceMemoryBesideOtherLanesIsRunAgainAlone) {
    // Its worker retries the first failure after freeing its caches; the
    // second comes back to the host, which runs the cases once more with the
    // GPU alone (engine/score.cpp: with_retry) rather than call a correct
    // candidate a runtime_error.
    ScoreResult r = score("runs_out_of_memory_twice.py");
    EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    bool retried = false;
    for (const CompareResult& c : r.cases) retried = retried || has(c.retried, "ran out of device memory");
    EXPECT_TRUE(retried) << to_json(r).dump(1);
}

TEST_F(ProgramScores, VerdictsOfWrongCandidates) {
    struct Want {
        const char* file;
        kb_verdict verdict;
        const char* says;
    };
    for (const Want& w : {Want{"softmax_wrong_axis.py", KB_VERDICT_WRONG_ANSWER, "elements wrong"},
                          Want{"softmax_raises.py", KB_VERDICT_RUNTIME_ERROR, "this candidate gives up"},
                          Want{"import_error.py", KB_VERDICT_COMPILE_ERROR, "NameError"},
                          Want{"no_model_new.py", KB_VERDICT_COMPILE_ERROR, "defines no ModelNew"},
                          Want{"modifies_input.py", KB_VERDICT_INPUT_MODIFIED, "input 0 (x)"},
                          Want{"wrong_dtype.py", KB_VERDICT_WRONG_ANSWER, "dtype f64, expected f32"},
                          Want{"wrong_shape.py", KB_VERDICT_WRONG_ANSWER, "expected [31, 997]"},
                          Want{"returns_none.py", KB_VERDICT_WRONG_ANSWER, "NoneType"},
                          Want{"thread_left_running.py", KB_VERDICT_POLICY_VIOLATION, "keeps-working"},
                          Want{"patches_timer.py", KB_VERDICT_POLICY_VIOLATION, "time.perf_counter"},
                          Want{"replays_first_output.py", KB_VERDICT_WRONG_ANSWER, "elements wrong"},
                          Want{"gc_search.py", KB_VERDICT_WRONG_ANSWER, "elements wrong"}}) {
        ScoreResult r = score(w.file);
        EXPECT_EQ(r.verdict, w.verdict) << w.file << ": " << r.message;
        EXPECT_TRUE(has(r.message, w.says)) << w.file << ": " << r.message;
    }
    // After all of that, a correct candidate still passes in the same context.
    EXPECT_EQ(score("softmax_torch.py").verdict, KB_VERDICT_PASS);
}

TEST_F(ProgramScores, TheKernelBenchProtocolReportsWhatStrictFails) {
    // KernelBench checks the values at the problem's sizes only: dtype,
    // modified inputs, threads and replaced timers do not fail there.
    for (const char* f : {"wrong_dtype.py", "modifies_input.py", "thread_left_running.py", "patches_timer.py"}) {
        ScoreResult r = score(f, "kernelbench");
        EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << f << ": " << r.message;
        ASSERT_TRUE(r.program);
        EXPECT_EQ(r.program->protocol, "kernelbench");
        EXPECT_EQ(r.seed, 42u);
        for (const ProgramFinding& x : r.program->findings) EXPECT_EQ(x.severity, "report") << f << ": " << x.message;
    }
    ScoreResult w = score("softmax_wrong_axis.py", "kernelbench");
    EXPECT_EQ(w.verdict, KB_VERDICT_WRONG_ANSWER);
    ASSERT_FALSE(w.cases.empty());
    EXPECT_EQ(w.cases[0].where.case_name, "faithful");
    ASSERT_TRUE(w.cases[0].where.seed);  // the trial's seed, as torch drew it
    EXPECT_NE(*w.cases[0].where.seed, 42u);
}

TEST_F(ProgramScores, TimingOnTheCpuGivesASpeedupAgainstTheReference) {
    ScoreResult r = score("softmax_torch.py", "strict", true);
    ASSERT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    ASSERT_TRUE(r.timing);
    ASSERT_TRUE(r.speedup);
    EXPECT_GT(*r.speedup, 0.0);
    ASSERT_TRUE(r.program->timing);
    EXPECT_EQ(r.program->timing->method, "host_wall");  // no CUDA: neither events nor CUPTI
    EXPECT_EQ(r.program->timing->statistic, "median");
    EXPECT_GE(r.program->timing->rounds, 2u);
    EXPECT_GE(r.program->timing->candidate_ms->count, 2u);
    Json j = to_json(r);
    EXPECT_TRUE(j["timing"].contains("speedup_p10"));
    ScoreResult k = score("softmax_torch.py", "kernelbench", true);
    ASSERT_EQ(k.verdict, KB_VERDICT_PASS) << k.message;
    EXPECT_EQ(k.program->timing->statistic, "mean");
    EXPECT_EQ(k.program->timing->candidate_ms->count, 100u);  // 100 trials, the first discarded
}

TEST_F(ProgramScores, ACandidateThatSkipsWorkWhileTimedFails) {
    // Correct on every input it has not seen (every correctness run and the
    // recheck), zeros on the repeated inputs of the timed samples.
    ScoreResult r = score("skips_work_when_timed.py", "strict", true);
    EXPECT_EQ(r.verdict, KB_VERDICT_WRONG_ANSWER) << r.message;
    EXPECT_TRUE(has(r.message, "while timing: the last timed call's outputs")) << r.message;
    for (const CompareResult& c : r.cases) EXPECT_EQ(c.verdict, KB_VERDICT_PASS) << c.message;
    // Without timing it passes: only the timed calls skip the work.
    EXPECT_EQ(score("skips_work_when_timed.py").verdict, KB_VERDICT_PASS);
    // KernelBench's protocol does not check the timed calls' outputs.
    ScoreResult k = score("skips_work_when_timed.py", "kernelbench", true);
    EXPECT_EQ(k.verdict, KB_VERDICT_PASS) << k.message;
    // A correct candidate is timed as before.
    EXPECT_EQ(score("softmax_torch.py", "strict", true).verdict, KB_VERDICT_PASS);
}

TEST_F(ProgramScores, ACandidateThatWritesItsInputsWhileTimedFails) {
    // The timed calls share one copy of the inputs (alias_inputs): their
    // checksums after the last sample are judged as a run's.
    ScoreResult r = score("writes_inputs_when_timed.py", "strict", true);
    EXPECT_EQ(r.verdict, KB_VERDICT_INPUT_MODIFIED) << r.message;
    EXPECT_TRUE(has(r.message, "while timing")) << r.message;
    for (const CompareResult& c : r.cases) EXPECT_EQ(c.verdict, KB_VERDICT_PASS) << c.message;
    // Without timing it passes: every run has its own copy.
    EXPECT_EQ(score("writes_inputs_when_timed.py").verdict, KB_VERDICT_PASS);
}

TEST_F(ProgramScores, ACandidateThatReplaysItsOutputWhenTimedFails) {
    // The timed calls share one copy of the inputs: a cache keyed on their
    // address and a sample of their values hits on every timed call after
    // the first, while the recheck's fresh inputs miss it.
    ScoreResult r = score("replays_when_timed.py", "strict", true);
    EXPECT_EQ(r.verdict, KB_VERDICT_POLICY_VIOLATION) << r.message;
    EXPECT_TRUE(has(r.message, "did not do the call's work")) << r.message;
    ASSERT_TRUE(r.program);
    bool found = false;
    for (const ProgramFinding& f : r.program->findings) found = found || f.rule == "replayed_when_timed";
    EXPECT_TRUE(found);
    // Its outputs were right everywhere: without timing it passes.
    EXPECT_EQ(score("replays_when_timed.py").verdict, KB_VERDICT_PASS);
    // KernelBench's protocol has no recheck: nothing to hold the timing against.
    EXPECT_EQ(score("replays_when_timed.py", "kernelbench", true).verdict, KB_VERDICT_PASS);
}

TEST_F(ProgramScores, ASlowCandidateThatDoesItsWorkEveryCallPasses) {
    ScoreResult r = score("softmax_slow.py", "strict", true);
    EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    ASSERT_TRUE(r.program);
    for (const ProgramFinding& f : r.program->findings) EXPECT_NE(f.rule, "replayed_when_timed") << f.message;
    ASSERT_TRUE(r.program->timing);
    ASSERT_TRUE(r.program->timing->candidate_walls_ms);
    EXPECT_GE(r.program->timing->candidate_walls_ms->median, 50.0);
}

TEST_F(ProgramScores, TorchComputeFailsWhereTheRuleForbidsIt) {
    TaskPtr t = softmax_task();
    CandidateInput in;
    in.language = Language::python;
    in.language_given = true;
    in.path = kDir + "/candidates/softmax_torch.py";
    ScoreOptions so;
    so.skip_timing = true;
    so.torch_compute = "forbid";
    ScoreResult r = ctx_->score(t, in, so);
    EXPECT_EQ(r.verdict, KB_VERDICT_POLICY_VIOLATION) << r.message;
    EXPECT_TRUE(has(r.message, "forbids torch compute")) << r.message;
}

TEST_F(ProgramScores, ABatchScoresProgramsOnSeveralLanesWithTheirVerdicts) {
    // The batch's queue and lanes (engine/batch.h) with program candidates:
    // each lane imports into its own candidate worker, the reference worker
    // and its cached runs are shared, and every verdict is kb_score's.
    TaskPtr t = softmax_task();
    BatchOptions bo;
    bo.device_lanes = 2;
    bo.compile_threads = 2;
    Batch b(*ctx_, bo);
    EXPECT_EQ(b.options().device_lanes, 2u);
    const std::vector<std::pair<std::string, kb_verdict>> want = {
        {"softmax_torch.py", KB_VERDICT_PASS},           {"softmax_wrong_axis.py", KB_VERDICT_WRONG_ANSWER},
        {"modifies_input.py", KB_VERDICT_INPUT_MODIFIED}, {"softmax_torch.py", KB_VERDICT_PASS},
        {"patches_timer.py", KB_VERDICT_POLICY_VIOLATION}, {"replays_first_output.py", KB_VERDICT_WRONG_ANSWER}};
    for (size_t i = 0; i < want.size(); ++i) {
        CandidateInput in;
        in.language = Language::python;
        in.language_given = true;
        in.path = kDir + "/candidates/" + want[i].first;
        ScoreOptions so;
        so.skip_timing = true;
        ASSERT_TRUE(b.submit(t, in, so, i, -1.0));
    }
    size_t seen = 0;
    bool idle = false;
    while (auto c = b.next(120.0, &idle)) {
        ASSERT_EQ(c->status, KB_OK) << c->error;
        ASSERT_TRUE(c->result);
        EXPECT_EQ(c->result->verdict, want[c->tag].second) << want[c->tag].first << ": " << c->result->message;
        ASSERT_TRUE(c->result->program) << want[c->tag].first;
        ++seen;
    }
    EXPECT_EQ(seen, want.size());
}

// Builds ahead (engine/program_builders.h, docs/programs.md "Builds ahead of
// the GPU"): a builder worker builds a load_inline answer's extension on the
// compile thread and the lane's import loads the library; a compile error
// the builder met comes back from the lane's import unchanged. The verdicts
// are those of a context that builds in the lane.
TEST_F(ProgramScores, ALoadInlineAnswerIsBuiltAheadWithTheVerdictsOfABuildInTheLane) {
    ScoreResult ok = score("softmax_cpp_extension.py");
    EXPECT_EQ(ok.verdict, KB_VERDICT_PASS) << ok.message;
    ASSERT_TRUE(ok.program);
    ASSERT_TRUE(ok.program->prebuild);
    EXPECT_EQ(ok.program->prebuild->built, 1u) << ok.program->prebuild->stopped;
    EXPECT_EQ(ok.program->prebuild->stopped, "");
    ASSERT_EQ(ok.program->builds.size(), 1u);
    EXPECT_TRUE(ok.program->builds[0].prebuilt);
    EXPECT_EQ(ok.program->builds[0].how, "fast");
    EXPECT_GT(ok.program->builds[0].built_ms, ok.program->builds[0].ms);  // loading it is no build
    EXPECT_TRUE(has(to_json(ok).dump(), "\"prebuilt\":true"));

    ScoreResult bad = score("softmax_cpp_extension_error.py");
    EXPECT_EQ(bad.verdict, KB_VERDICT_COMPILE_ERROR) << bad.message;
    EXPECT_TRUE(has(bad.message, "undeclared_factor")) << bad.message;
    ASSERT_TRUE(bad.program && bad.program->prebuild);
    EXPECT_EQ(bad.program->prebuild->failed, 1u);

    // The same answers in a context that leaves the build to the lane.
    ::setenv("KBENCH_PREBUILD", "0", 1);
    ContextOptions o;
    o.device = KB_DEVICE_NONE;
    Context lane_builds(o, worker_isolation());
    for (const auto& [name, want] : {std::pair<std::string, const ScoreResult*>{"softmax_cpp_extension.py", &ok},
                                     {"softmax_cpp_extension_error.py", &bad}}) {
        ScoreResult r = score(name, "strict", false, "softmax_rows", &lane_builds);
        EXPECT_EQ(r.verdict, want->verdict) << name << ": " << r.message;
        ASSERT_TRUE(r.program) << name;
        EXPECT_FALSE(r.program->prebuild) << name;
        ASSERT_EQ(r.program->builds.size(), 1u) << name;
        EXPECT_FALSE(r.program->builds[0].prebuilt) << name;
    }
    ::setenv("KBENCH_PREBUILD", "1", 1);
}

// A load_inline call in ModelNew.__init__: the builder constructs the model
// from the problem's init inputs after the import, so that call is built
// ahead too, and the lane's construction computes the same key and loads
// it; the result lists the construction's build beside the import's.
TEST_F(ProgramScores, ALoadInlineCallInModelNewInitIsBuiltAhead) {
    ScoreResult r = score("softmax_cpp_extension_in_init.py");
    EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    ASSERT_TRUE(r.program);
    ASSERT_TRUE(r.program->prebuild);
    EXPECT_EQ(r.program->prebuild->built, 1u) << r.program->prebuild->stopped;
    EXPECT_EQ(r.program->prebuild->stopped, "");
    EXPECT_EQ(r.program->build, "fast");
    ASSERT_EQ(r.program->builds.size(), 1u);
    EXPECT_EQ(r.program->builds[0].name, "kb_test_softmax_rows_in_init");
    EXPECT_TRUE(r.program->builds[0].prebuilt);
}

// A load_inline call in ModelNew.__init__ that does not compile: a
// compile_error with the compiler's message at the answer's line, as for
// the import's builds, with the builder's construction ahead and with the
// lane's own.
TEST_F(ProgramScores, ALoadInlineCallInModelNewInitThatDoesNotCompileIsACompileError) {
    ScoreResult r = score("softmax_cpp_extension_error_in_init.py");
    EXPECT_EQ(r.verdict, KB_VERDICT_COMPILE_ERROR) << r.message;
    EXPECT_TRUE(has(r.message, "undeclared_scale")) << r.message;
    EXPECT_TRUE(has(r.message, "the answer's line 12")) << r.message;
    ASSERT_TRUE(r.program && r.program->prebuild);
    EXPECT_EQ(r.program->prebuild->failed, 1u);

    ::setenv("KBENCH_PREBUILD", "0", 1);
    ContextOptions o;
    o.device = KB_DEVICE_NONE;
    // The lane builds inside its first run, under that run's deadline: a
    // cold build over torch's headers on a busy 2-core host took over the
    // default 120 s.
    o.timeout_s = 600;
    Context lane_builds(o, worker_isolation());
    ScoreResult lane = score("softmax_cpp_extension_error_in_init.py", "strict", false, "softmax_rows", &lane_builds);
    ::setenv("KBENCH_PREBUILD", "1", 1);
    EXPECT_EQ(lane.verdict, KB_VERDICT_COMPILE_ERROR) << lane.message;
    EXPECT_TRUE(has(lane.message, "undeclared_scale")) << lane.message;
}

// A builder's import that does not end (engine/program_builders.h): past
// the builder's deadline (here the context's timeout_s, under the 120 s
// bound) the lane imports the candidate itself, and the verdict is the
// lane's. The builder's hang is no verdict: it has no device.
TEST_F(ProgramScores, ABuilderThatHangsLeavesTheImportToTheLane) {
    ContextOptions o;
    o.device = KB_DEVICE_NONE;
    o.timeout_s = 3;
    Context short_deadline(o, worker_isolation());
    CandidateInput in;
    in.language = Language::python;
    in.language_given = true;
    in.label = "hangs_before_load_inline.py";
    in.code = "# builds its kernels with torch's load_inline, once this import ends\nimport time\n\n"
              "while True:\n    time.sleep(1)\n";
    ScoreOptions so;
    so.skip_timing = true;
    const auto t0 = std::chrono::steady_clock::now();
    ScoreResult r = short_deadline.score(softmax_task(), in, so);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.verdict, KB_VERDICT_TIMEOUT) << r.message;
    ASSERT_TRUE(r.program);
    ASSERT_TRUE(r.program->prebuild);
    EXPECT_EQ(r.program->prebuild->built, 0u);
    EXPECT_FALSE(r.program->prebuild->stopped.empty());
    EXPECT_GE(r.program->prebuild->ms, 2500.0) << r.program->prebuild->stopped;
    EXPECT_LT(secs, 90.0);  // two deadlines of 3 s and the workers' starts, not the load deadline of 300 s
}

// The precision audit (compare/precision.h, docs/programs.md "Precision
// audit"): on torch's CPU, where bf16 and fp16 autocast run and TF32 changes
// nothing. Under strict both candidates pass the task's loose tolerance and
// only the one that multiplies in bf16 is "reduced"; under KernelBench's own
// tolerance (1e-4) the bf16 one fails, and the audit still says why.
TEST_F(ProgramScores, ThePrecisionAuditNamesABf16MatmulAndNotAnFp32One) {
    for (const char* protocol : {"strict", "kernelbench"}) {
        ScoreResult full = score("matmul_fp32_split.py", protocol, false, "matmul_loose");
        ASSERT_EQ(full.verdict, KB_VERDICT_PASS) << protocol << ": " << full.message;
        const Json fj = to_json(full);
        ASSERT_TRUE(full.precision) << fj.dump(1);
        EXPECT_EQ(full.precision->verdict, "full") << fj.dump(1);
        EXPECT_EQ(full.precision->case_name, "faithful") << fj.dump(1);
        EXPECT_EQ(fj["precision"]["verdict"], "full");

        ScoreResult bf16 = score("matmul_bf16.py", protocol, false, "matmul_loose");
        const kb_verdict want = std::string(protocol) == "strict" ? KB_VERDICT_PASS : KB_VERDICT_WRONG_ANSWER;
        ASSERT_EQ(bf16.verdict, want) << protocol << ": " << bf16.message;
        const Json bj = to_json(bf16);
        ASSERT_TRUE(bf16.precision) << bj.dump(1);
        EXPECT_EQ(bf16.precision->verdict, "reduced") << bj.dump(1);
        EXPECT_EQ(bf16.precision->mode, "bf16") << bj.dump(1);
        EXPECT_GT(bf16.precision->err_full, bf16.precision->floor) << bj.dump(1);
        EXPECT_LE(bf16.precision->err_reduced * kPrecisionRatio, bf16.precision->err_full) << bj.dump(1);
        EXPECT_EQ(bj["precision"]["verdict"], "reduced");
        EXPECT_EQ(bj["precision"]["mode"], "bf16");
        EXPECT_TRUE(bj["precision"].contains("err_full") && bj["precision"].contains("err_reduced"));
        // TF32 changes nothing on the CPU: its recomputation is the reference's bits.
        bool tf32_same = false;
        for (const PrecisionProbe& p : bf16.precision->probes) tf32_same = tf32_same || (p.mode == "tf32" && p.same_bits);
        EXPECT_TRUE(tf32_same) << bj.dump(1);
        if (std::string(protocol) == "strict") std::printf("%s\n", bj["precision"].dump().c_str());
    }
}

TEST_F(ProgramScores, ThePrecisionAuditOfAReferenceWithoutMatmulsIsFullWithAReason) {
    // A softmax does no work that TF32 changes, and autocast runs softmax
    // in f32: every recomputation gives the reference's bits.
    ScoreResult r = score("softmax_torch.py");
    ASSERT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
    const std::string doc = to_json(r).dump(1);
    ASSERT_TRUE(r.precision) << doc;
    EXPECT_EQ(r.precision->verdict, "full") << doc;
    EXPECT_TRUE(r.precision->mode.empty()) << doc;
    EXPECT_NE(r.precision->why.find("same bits"), std::string::npos) << doc;
    ASSERT_EQ(r.precision->probes.size(), 3u) << doc;
    for (const PrecisionProbe& p : r.precision->probes) EXPECT_TRUE(p.same_bits) << p.mode << "\n" << doc;
}
