// The protocols program candidates are scored by, as parameters
// (engine/program_protocol.h, docs/programs.md): KernelBench's as its
// published numbers were made, and kbench's strict one on top.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "engine/options.h"
#include "engine/program_backend.h"
#include "engine/program_protocol.h"
#include "protocol/program_wire.h"
#include "util/error.h"

using namespace kb;

namespace {

// A task with a Python reference, three correctness cases and the perf case.
TaskPtr program_task(const std::string& style = "kernelbench", const std::string& precision = "f32") {
    Json doc = {
        {"format", "kbench-task/1"},
        {"name", "p"},
        {"dims", {{"n", "rows"}}},
        {"cases", {{{"name", "small"}, {"dims", {{"n", 7}}}}, {{"name", "one"}, {"dims", {{"n", 1}}}}}},
        {"perf_case", {{"name", "faithful"}, {"dims", {{"n", 4096}}}}},
        {"tolerance", {{"f32", {{"atol", 1e-3}, {"rtol", 2e-3}}}}},
        {"reference",
         {{"language", "python"},
          {"style", style},
          {"source", "import torch\nn = 4096\n"},
          {"precision", precision}}},
    };
    if (style == "tritonbench") {
        doc["reference"]["entry"] = "test_x";
        doc["reference"]["candidate_functions"] = {"x"};
        doc["reference"]["test_source"] = "def test_x():\n    return {}\n";
    }
    return load_task_json(doc.dump(), "");
}

}  // namespace

TEST(ProgramProtocol, KernelBenchIsItsEvalAsPublished) {
    TaskPtr t = program_task();
    ProgramProtocolOptions o;
    o.name = "kernelbench";
    ProgramProtocol p = make_program_protocol(*t, o);
    EXPECT_EQ(p.input_mode, "kernelbench");
    EXPECT_EQ(p.model_seed.key(), "s:42");
    // 5 trials (eval_from_generations.py), at the problem's own sizes only,
    // with seeds drawn from torch.manual_seed(42).
    ASSERT_EQ(p.correctness.size(), 5u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(p.correctness[size_t(i)].case_index, t->perf_index);
        EXPECT_EQ(p.correctness[size_t(i)].seed.kernelbench_trial, i);
        EXPECT_EQ(p.correctness[size_t(i)].seed.base, 42u);
    }
    EXPECT_FALSE(p.clone_inputs);
    EXPECT_FALSE(p.check_inputs);
    EXPECT_FALSE(p.check_dtype);
    EXPECT_FALSE(p.recheck);
    EXPECT_FALSE(p.enforce_policy);
    ASSERT_TRUE(p.excessive_speedup);
    EXPECT_EQ(*p.excessive_speedup, 10.0);
    // time_execution_with_cuda_event: 3 warm-up calls, empty_cache, 100
    // trials after 1 discarded, each after a 256 MiB fill, the mean; inputs
    // from seed 42, the same objects every call.
    const ProgramTimingPlan& tp = p.time;
    EXPECT_EQ(tp.warmup_calls, 3u);
    EXPECT_TRUE(tp.empty_cache_after_warmup);
    EXPECT_EQ(tp.trials, 100u);
    EXPECT_EQ(tp.discard_first, 1u);
    EXPECT_EQ(tp.l2_flush_bytes, uint64_t(256) << 20);
    EXPECT_EQ(tp.measure, "events");
    EXPECT_EQ(tp.statistic, "mean");
    EXPECT_FALSE(tp.clone_inputs);
    EXPECT_EQ(tp.seed.key(), "s:42");
    EXPECT_EQ(tp.warmup_seed.key(), "s:42");
    EXPECT_EQ(tp.budget_ms, 0.0);
    EXPECT_EQ(tp.rounds, 1u);
    EXPECT_EQ(tp.case_index, t->perf_index);
}

TEST(ProgramProtocol, KernelBenchTolerancesFollowThePrecisionNotTheTask) {
    ProgramProtocolOptions o;
    o.name = "kernelbench";
    TaskPtr f32 = program_task("kernelbench", "f32");
    ProgramProtocol p = make_program_protocol(*f32, o);
    Tolerance t = program_tolerance(p, *f32, DType::f32);
    EXPECT_EQ(t.atol, 1e-4);
    EXPECT_EQ(t.rtol, 1e-4);
    EXPECT_FALSE(t.equal_nan);
    // Every float output gets the precision's tolerance, as allclose did.
    EXPECT_EQ(program_tolerance(p, *f32, DType::f16).atol, 1e-4);
    TaskPtr f16 = program_task("kernelbench", "f16");
    ProgramProtocol q = make_program_protocol(*f16, o);
    EXPECT_EQ(program_tolerance(q, *f16, DType::f16).atol, 1e-2);
    EXPECT_EQ(program_tolerance(q, *f16, DType::f32).rtol, 1e-2);
    TaskPtr bf16 = program_task("kernelbench", "bf16");
    EXPECT_EQ(program_tolerance(make_program_protocol(*bf16, o), *bf16, DType::bf16).atol, 1e-2);
    // Integers compare exactly.
    Tolerance i = program_tolerance(p, *f32, DType::i64);
    EXPECT_EQ(i.atol, 0.0);
    EXPECT_EQ(i.rtol, 0.0);
    o.correctness_trials = 2;
    EXPECT_EQ(make_program_protocol(*f32, o).correctness.size(), 2u);
}

TEST(ProgramProtocol, StrictChecksEveryCaseOnFreshInputsPerPhase) {
    TaskPtr t = program_task();
    ProgramProtocolOptions o;
    o.seed = 1234;
    ProgramProtocol p = make_program_protocol(*t, o);
    EXPECT_EQ(p.name, "strict");
    EXPECT_EQ(p.input_mode, "strict");
    ASSERT_EQ(p.correctness.size(), t->cases.size());
    for (size_t i = 0; i < t->cases.size(); ++i) {
        EXPECT_EQ(p.correctness[i].case_index, int(i));
        EXPECT_EQ(p.correctness[i].seed.key(), "s:1234");
    }
    EXPECT_EQ(p.correctness.back().case_index, t->perf_index);  // the problem's own sizes last
    EXPECT_TRUE(p.clone_inputs);
    EXPECT_TRUE(p.check_inputs);
    EXPECT_TRUE(p.check_dtype);
    EXPECT_TRUE(p.check_device);
    EXPECT_TRUE(p.recheck);
    EXPECT_TRUE(p.enforce_policy);
    EXPECT_FALSE(p.excessive_speedup);
    // The warm-up and the timed phase each draw their own inputs, different
    // from the correctness inputs and from each other.
    const ProgramTimingPlan& tp = p.time;
    std::set<std::string> seeds = {"s:1234", tp.warmup_seed.key(), tp.seed.key()};
    EXPECT_EQ(seeds.size(), 3u);
    // The model's parameters draw from none of the inputs' seeds.
    seeds.insert(p.model_seed.key());
    EXPECT_EQ(seeds.size(), 4u);
    // Timed calls run on one copy of the inputs, each through tensor
    // objects of its own; the checksums after the last one are judged.
    EXPECT_FALSE(tp.clone_inputs);
    EXPECT_TRUE(tp.alias_inputs);
    EXPECT_EQ(tp.measure, "spans");
    EXPECT_EQ(tp.statistic, "median");
    EXPECT_GE(tp.rounds, 2u);
    // Rounds past the second only while the estimate is loose.
    EXPECT_EQ(tp.min_rounds, 2u);
    EXPECT_LT(tp.min_rounds, tp.rounds);
    EXPECT_EQ(tp.min_samples, 10u);
    EXPECT_DOUBLE_EQ(tp.target_rel_noise, 0.005);
    EXPECT_GT(tp.budget_ms, 0.0);
    EXPECT_GE(tp.trials, tp.min_trials);
    EXPECT_GE(tp.l2_flush_bytes, uint64_t(100) << 20);  // at least twice an H100's 50 MiB L2
    // The task's own tolerances apply, NaN never matches.
    Tolerance tol = program_tolerance(p, *t, DType::f32);
    EXPECT_EQ(tol.atol, 1e-3);
    EXPECT_EQ(tol.rtol, 2e-3);
    EXPECT_FALSE(tol.equal_nan);
    // A dtype without a task default falls back to KernelBench's value.
    EXPECT_EQ(program_tolerance(p, *t, DType::f16).atol, 1e-2);
}

TEST(ProgramProtocol, StrictRunsPerCaseAndTimingOptions) {
    TaskPtr t = program_task();
    ProgramProtocolOptions o;
    o.seed = 9;
    o.correctness_trials = 2;
    o.timing_given = true;
    o.timing.budget_ms = 1000;
    o.timing.max_samples = 40;
    o.timing.min_samples = 8;
    ProgramProtocol p = make_program_protocol(*t, o);
    ASSERT_EQ(p.correctness.size(), 2 * t->cases.size());
    EXPECT_NE(p.correctness[0].seed.key(), p.correctness[1].seed.key());
    EXPECT_EQ(p.time.trials * p.time.rounds, 40u);
    // The rounds that may settle hold min_samples between them.
    EXPECT_EQ(p.time.min_trials * p.time.min_rounds, 8u);
    EXPECT_DOUBLE_EQ(p.time.budget_ms * 2 * p.time.rounds, 1000.0);
    o.skip_timing = true;
    o.recheck = false;
    ProgramProtocol q = make_program_protocol(*t, o);
    EXPECT_FALSE(q.timing);
    EXPECT_FALSE(q.recheck);
}

// A strict timing's request tells the worker when a round may end early:
// after its share of the samples, once their median is known to the
// target, in the measure the host judges; KernelBench's runs its trials.
// Correctness only, the perf case runs once, at the recheck's secret seed:
// its public-seed run leaves the plan (the smaller cases keep theirs), and
// the recheck takes over that run's records. A timed plan, one without a
// recheck and kernelbench's keep every run.
TEST(ProgramProtocol, CorrectnessOnlyLeavesThePerfCaseToTheRecheck) {
    TaskPtr t = program_task();
    ASSERT_GT(t->cases.size(), 1u);
    ProgramProtocolOptions o;
    o.correctness_trials = 2;
    const ProgramProtocol timed = make_program_protocol(*t, o);
    EXPECT_FALSE(timed.perf_at_recheck);
    o.skip_timing = true;
    const ProgramProtocol p = make_program_protocol(*t, o);
    EXPECT_TRUE(p.perf_at_recheck);
    EXPECT_TRUE(p.recheck);
    ASSERT_EQ(p.correctness.size(), timed.correctness.size() - 1);
    std::vector<std::string> perf_seeds, timed_perf_seeds;
    for (const ProgramRunPlan& r : p.correctness)
        if (r.case_index == t->perf_index) perf_seeds.push_back(r.seed.key());
    for (const ProgramRunPlan& r : timed.correctness)
        if (r.case_index == t->perf_index) timed_perf_seeds.push_back(r.seed.key());
    // The second trial's seed stays; the public seed's run is the one that leaves.
    ASSERT_EQ(timed_perf_seeds.size(), 2u);
    EXPECT_EQ(perf_seeds, std::vector<std::string>{timed_perf_seeds[1]});
    // The smaller cases run first, as before.
    EXPECT_NE(p.correctness.front().case_index, t->perf_index);
    // One run of the first case at a second seed takes the place of the
    // perf case's second run where each case runs once: a result replayed
    // from an earlier call of the same shape still meets other inputs.
    o.correctness_trials = 1;
    const ProgramProtocol once = make_program_protocol(*t, o);
    ASSERT_EQ(once.correctness.size(), t->cases.size());
    EXPECT_EQ(once.correctness[0].case_index, once.correctness[1].case_index);
    EXPECT_NE(once.correctness[0].seed.key(), once.correctness[1].seed.key());
    for (const ProgramRunPlan& r : once.correctness) EXPECT_NE(r.case_index, t->perf_index);
    o.correctness_trials = 2;
    o.recheck = false;
    const ProgramProtocol unchecked = make_program_protocol(*t, o);
    EXPECT_FALSE(unchecked.perf_at_recheck);
    EXPECT_EQ(unchecked.correctness.size(), timed.correctness.size());
    ProgramProtocolOptions kb;
    kb.name = "kernelbench";
    kb.skip_timing = true;
    EXPECT_FALSE(make_program_protocol(*t, kb).perf_at_recheck);
}

TEST(ProgramProtocol, TimingRequestsCarryTheRoundsNoiseStop) {
    TaskPtr t = program_task();
    ProgramTimeRequest tq;
    tq.plan = make_program_protocol(*t, ProgramProtocolOptions{}).time;
    Json body = wire::program_time_body(tq);
    EXPECT_EQ(body["min_trials"], 5);
    EXPECT_DOUBLE_EQ(body["target_rel_noise"].get<double>(), 0.005);
    EXPECT_EQ(body["measure"], "spans");
    ProgramProtocolOptions kb;
    kb.name = "kernelbench";
    tq.plan = make_program_protocol(*t, kb).time;
    body = wire::program_time_body(tq);
    EXPECT_EQ(body["min_trials"], 100);
    EXPECT_DOUBLE_EQ(body["target_rel_noise"].get<double>(), 0.0);
    EXPECT_EQ(body["measure"], "events");
}

TEST(ProgramProtocol, TimingSettlesEarlyOnlyWhenTightAndMostRoundsAgree) {
    ProgramTimingPlan plan;
    plan.rounds = 4;
    plan.min_rounds = 2;
    plan.min_samples = 10;
    plan.target_rel_noise = 0.005;
    // Ten samples a side within 0.1% of each other, two rounds agreeing.
    std::vector<double> cand, ref;
    for (int i = 0; i < 10; ++i) {
        cand.push_back(4.0 + 0.001 * (i % 3));
        ref.push_back(5.0 + 0.001 * (i % 4));
    }
    EXPECT_TRUE(program_timing_settled(plan, cand, ref, {1.25, 1.251}));
    // One round is not enough, whatever the noise.
    EXPECT_FALSE(program_timing_settled(plan, cand, ref, {1.25}));
    // Fewer samples than min_samples.
    std::vector<double> few(cand.begin(), cand.begin() + 9);
    EXPECT_FALSE(program_timing_settled(plan, few, ref, {1.25, 1.251}));
    // Rounds that disagree (drift): 1.25 against 1.30 is 4%, over 4 x 0.5%.
    EXPECT_FALSE(program_timing_settled(plan, cand, ref, {1.25, 1.30}));
    // A first round off, the last two agreeing: settled at the third.
    EXPECT_TRUE(program_timing_settled(plan, cand, ref, {1.40, 1.25, 1.251}));
    // A later round off, the two others agreeing: outvoted, settled at the third.
    EXPECT_TRUE(program_timing_settled(plan, cand, ref, {1.25, 1.40, 1.251}));
    EXPECT_TRUE(program_timing_settled(plan, cand, ref, {1.25, 1.251, 1.30}));
    // No two of three agreeing: drift, the fourth round runs.
    EXPECT_FALSE(program_timing_settled(plan, cand, ref, {1.20, 1.25, 1.30}));
    // Two agreeing among four is not more than half.
    EXPECT_FALSE(program_timing_settled(plan, cand, ref, {1.10, 1.25, 1.251, 1.40}));
    // Agreement is within 4 x 0.5% of the lowest of the group: 1.25 and 1.2749 (2.0%).
    EXPECT_TRUE(program_timing_settled(plan, cand, ref, {1.25, 1.2749}));
    EXPECT_FALSE(program_timing_settled(plan, cand, ref, {1.25, 1.2751}));
    // A noisy side: samples spread by tens of percent.
    std::vector<double> noisy;
    for (int i = 0; i < 10; ++i) noisy.push_back(i % 2 ? 4.0 : 6.0);
    EXPECT_FALSE(program_timing_settled(plan, noisy, ref, {1.25, 1.251}));
    EXPECT_FALSE(program_timing_settled(plan, cand, noisy, {1.25, 1.251}));
    // The rule off (kernelbench: every trial runs).
    ProgramTimingPlan off = plan;
    off.min_rounds = 0;
    EXPECT_FALSE(program_timing_settled(off, cand, ref, {1.25, 1.251}));
}

TEST(ProgramProtocol, KernelBenchTimingNeverStopsEarly) {
    TaskPtr t = program_task();
    ProgramProtocolOptions o;
    o.name = "kernelbench";
    ProgramProtocol p = make_program_protocol(*t, o);
    EXPECT_EQ(p.time.min_rounds, 0u);
}

TEST(ProgramProtocol, TorchComputeRuleAndTritonBenchDefaults) {
    TaskPtr kbt = program_task();
    ProgramProtocolOptions o;
    EXPECT_EQ(make_program_protocol(*kbt, o).torch_compute, "report");
    o.torch_compute = "forbid";
    EXPECT_EQ(make_program_protocol(*kbt, o).torch_compute, "forbid");
    TaskPtr tb = program_task("tritonbench");
    ProgramProtocolOptions d;
    ProgramProtocol p = make_program_protocol(*tb, d);
    EXPECT_EQ(p.torch_compute, "forbid");  // TritonBench-style tasks forbid torch compute
    EXPECT_FALSE(p.timing);                // its tests are checked, not timed
    d.torch_compute = "allow";
    EXPECT_EQ(make_program_protocol(*tb, d).torch_compute, "allow");
}

TEST(ProgramProtocol, ATritonBenchTaskWithItsPerformanceScriptIsTimedAtThePerfCase) {
    TaskPtr tb = load_task(std::string(KB_SOURCE_DIR) + "/tests/programs/tasks/vec_add_tb/task.json");
    ProgramProtocolOptions o;
    ProgramProtocol p = make_program_protocol(*tb, o);
    EXPECT_TRUE(p.timing);
    EXPECT_EQ(p.time.case_index, tb->perf_index);
    // Its correctness covers the test function and the script's inputs.
    std::set<int> cases;
    for (const ProgramRunPlan& r : p.correctness) cases.insert(r.case_index);
    EXPECT_EQ(cases, (std::set<int>{0, tb->perf_index}));
    o.skip_timing = true;
    EXPECT_FALSE(make_program_protocol(*tb, o).timing);
}

TEST(ProgramProtocol, BadNamesAndKernelTasksAreRefusedWithTheChoices) {
    TaskPtr t = program_task();
    ProgramProtocolOptions o;
    o.name = "kernelbenchh";
    try {
        make_program_protocol(*t, o);
        FAIL() << "accepted an unknown protocol";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("strict, kernelbench"), std::string::npos) << e.what();
    }
    o.name = "strict";
    o.torch_compute = "never";
    EXPECT_THROW(make_program_protocol(*t, o), Error);
    TaskPtr cuda = load_task_json(R"({"format": "kbench-task/1", "name": "c", "dims": {"n": "size"},
        "cases": [{"name": "one", "dims": {"n": 1}}], "perf_case": {"dims": {"n": 8}},
        "args": [{"name": "y", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}},
                 {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}],
        "reference": {"source": "__global__ void k(float* y, int n) {}",
                      "launch": [{"kernel": "k", "grid": 1, "block": 1, "args": ["y", "n"]}]}})",
                                  "");
    ProgramProtocolOptions d;
    try {
        make_program_protocol(*cuda, d);
        FAIL() << "a CUDA task was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA reference"), std::string::npos) << e.what();
    }
}

TEST(ProgramProtocol, SeedSpecs) {
    EXPECT_EQ(SeedSpec::plain(5).to_json(), Json(5));
    EXPECT_EQ(SeedSpec::trial(3).to_json(), (Json{{"kernelbench_trial", 3}, {"base", 42}}));
    EXPECT_NE(SeedSpec::trial(3).key(), SeedSpec::plain(3).key());
    EXPECT_NE(SeedSpec::trial(3).text().find("torch.manual_seed(42)"), std::string::npos);
}

// The reference's timing rounds, reused by the candidates timed after it
// within the window, from its first round on.
TEST(ProgramReferenceTiming, RoundsAreKeptInOrderAndExpire) {
    ProgramReferences refs([]() -> std::unique_ptr<PythonWorkers> { return nullptr; }, 0);
    ProgramTimeReply r0, r1;
    r0.span_ms = {1.0};
    r1.span_ms = {2.0};
    EXPECT_FALSE(refs.timed_round("k", 0, 30));
    refs.keep_timed_round("k", 1, r1);  // a later round before the first: not kept
    EXPECT_FALSE(refs.timed_round("k", 1, 30));
    refs.keep_timed_round("k", 0, r0);
    refs.keep_timed_round("k", 1, r1);
    ASSERT_TRUE(refs.timed_round("k", 0, 30));
    EXPECT_EQ(refs.timed_round("k", 0, 30)->span_ms, std::vector<double>{1.0});
    EXPECT_EQ(refs.timed_round("k", 1, 30)->span_ms, std::vector<double>{2.0});
    EXPECT_FALSE(refs.timed_round("k", 2, 30));
    EXPECT_FALSE(refs.timed_round("other", 0, 30));
    EXPECT_FALSE(refs.timed_round("k", 0, 0));  // 0: never reused
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_FALSE(refs.timed_round("k", 0, 0.01));  // older than the window: dropped
    EXPECT_FALSE(refs.timed_round("k", 1, 30));
    // A new first round starts a new window.
    refs.keep_timed_round("k", 0, r1);
    EXPECT_EQ(refs.timed_round("k", 0, 30)->span_ms, std::vector<double>{2.0});
}
