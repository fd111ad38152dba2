// Results become JSON in one place (engine/result_json.h), and the worker's
// wire reads them back: every field must survive the round trip, including
// the numbers JSON cannot hold.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/result_json.h"

using namespace kb;

namespace {

CaseInfo where() {
    CaseInfo c;
    c.task = "vector_add_f32";
    c.case_name = "prime";
    c.case_index = 2;
    c.dims = {{"n", 1009}};
    c.seed = 77;
    return c;
}

OutputReport report() {
    OutputReport r;
    r.name = "c";
    r.dtype = DType::f16;
    r.tolerance = {1e-3, 2e-3, false};
    r.elements = 1009;
    r.mismatches = 3;
    r.unwritten = 1;
    r.max_abs_err = INFINITY;
    r.max_rel_err = NAN;
    r.max_violation = 4.5;
    r.worst_flat = 17;
    r.worst_index = {17};
    r.worst_got = -INFINITY;
    r.worst_expected = 0.25;
    r.compared_on = "gpu";
    r.reference_on_gpu = "rerun";
    return r;
}

}  // namespace

TEST(ResultJson, CompareResultRoundTrips) {
    CompareResult r;
    r.where = where();
    r.kernel = "cand.cu";
    r.verdict = KB_VERDICT_WRONG_ANSWER;
    r.message = "on run 2 of 2 ...";
    r.observed = true;
    r.outputs = {report()};
    r.inputs_unchanged = false;
    r.inputs_modified = {"a"};
    r.guards_intact = false;
    r.guard_breaches = {{"c", 4, -8}};
    r.runs = 2;
    r.deterministic = false;
    r.failed_run = 2;
    r.context_lost = true;
    r.run_ms = 3.25;
    r.deadline_s = 2.5;
    r.signal = "SIGSEGV (segmentation fault)";
    r.exit_code = 3;
    r.worker = WorkerFacts{1234, uint64_t(1) << 33, 2u, true, "died", "killed", "comparing"};
    Json j = to_json(r);
    EXPECT_EQ(j["outputs"][0]["max_abs_err"], "inf");  // JSON has no infinity: kept as a string
    EXPECT_EQ(j["verdict"], "wrong_answer");
    CompareResult back = compare_result_from_json(j);
    EXPECT_EQ(to_json(back), j);
    EXPECT_TRUE(std::isnan(back.outputs[0].max_rel_err));
    EXPECT_EQ(back.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_EQ(back.outputs[0].reference_on_gpu, "rerun");
    EXPECT_EQ(back.worker->pid, 1234);
}

TEST(ResultJson, TimeResultRoundTrips) {
    TimeResult r;
    r.where = where();
    r.where.seed.reset();
    r.hot = true;
    r.message = "candidate median 5 us";
    TimedProgram c;
    c.kernel = "cand.cu";
    c.stats.median = 5;
    c.stats.count = 40;
    c.stats.rel_noise = 0.002;
    c.gbps = 2000;
    r.candidate = c;
    TimedProgram b = c;
    b.kernel = "baseline";
    b.stats.median = 10;
    b.tflops = 1.5;
    r.baseline = b;
    r.speedup = 2.0;
    r.speedup_p10 = 1.9;
    r.speedup_p90 = 2.1;
    r.launches_per_sample = 64;
    r.sm_clock_start_mhz = 1980;
    r.sm_clock_end_mhz = 1755;
    r.sm_clock_rated_mhz = 1980;
    r.throttled = true;
    r.stop_reason = "noise";
    r.wall_ms = 42;
    Json j = to_json(r);
    EXPECT_FALSE(j.contains("seed"));
    EXPECT_EQ(to_json(time_result_from_json(j)), j);
}

TEST(ResultJson, FailedTimingKeepsItsVerdictAndWorker) {
    TimeResult r;
    r.where = where();
    r.verdict = KB_VERDICT_TIMEOUT;
    r.message = "the kernel did not finish";
    r.deadline_s = 1.0;
    r.run_ms = 1051;
    r.worker = WorkerFacts{99, std::nullopt, std::nullopt, true, "timeout", "no answer", ""};
    Json j = to_json(r);
    EXPECT_TRUE(r.failed());
    EXPECT_FALSE(j.contains("stop_reason"));
    TimeResult back = time_result_from_json(j);
    EXPECT_EQ(back.verdict, KB_VERDICT_TIMEOUT);
    EXPECT_EQ(to_json(back), j);
}

TEST(ResultJson, ReferenceResultRoundTrips) {
    ReferenceResult r;
    r.where = where();
    r.run_ms = 0.5;
    ReferenceOutput o;
    o.name = "c";
    o.dtype = DType::bf16;
    o.elements = 1009;
    o.min = -1;
    o.max = NAN;
    o.nan = 2;
    o.digest = 0x0123456789abcdefull;
    o.findings = {{"nan", "output 'c' has NaN in the reference at case 'prime'"}};
    r.outputs = {o};
    r.warnings = {o.findings[0].message};
    r.message = r.warnings[0];
    Json j = to_json(r);
    EXPECT_EQ(j["verdict"], "none");
    EXPECT_EQ(to_json(reference_result_from_json(j)), j);
}

TEST(ResultJson, TheRecheckNeverShowsItsSeed) {
    CompareResult r;
    r.where = where();
    r.where.seed_secret = true;
    Json j = to_json(r);
    EXPECT_EQ(j["seed"], "secret");
    EXPECT_TRUE(compare_result_from_json(j).where.seed_secret);
}

TEST(ResultJson, RetriedStagesNameEachStageAndWhy) {
    ScoreResult s;
    EXPECT_EQ(retried_stages(s), Json::array());
    CompareResult first, second;
    first.where = where();
    second.where = where();
    second.where.case_name = "perf";
    second.retried = "a first attempt timed out while another lane's candidate hung; the first: slow";
    s.cases = {first, second};
    s.timing = TimeResult();
    s.timing->retried = "again";
    s.recheck = CompareResult();
    Json r = retried_stages(s);
    ASSERT_EQ(r.size(), 2u) << r.dump();
    EXPECT_EQ(r[0], "correctness at case 'perf': " + second.retried);
    EXPECT_EQ(r[1], "timing: again");
    // The score's JSON says the same, stage by stage and as the list that
    // `kbench run` and kbench.ray write into a result line.
    Json j = to_json(s);
    EXPECT_EQ(j["cases"][1]["case"], "perf");
    EXPECT_EQ(j["cases"][1]["retried"], second.retried);
    EXPECT_EQ(j["timing"]["retried"], "again");
    EXPECT_EQ(j["retried_stages"], r);
    EXPECT_FALSE(to_json(ScoreResult()).contains("retried_stages"));
}

TEST(ResultJson, AScoresEfficiencyIsInItsJson) {
    ScoreResult s;
    EXPECT_FALSE(to_json(s).contains("efficiency"));
    s.efficiency = 0.81;
    EXPECT_DOUBLE_EQ(to_json(s)["efficiency"].get<double>(), 0.81);
}

// A program's builds (engine/result.h: ProgramBuild) are in its JSON, each
// with its steps' times by unit.
TEST(ResultJson, AProgramsBuildsAreInItsJson) {
    ProgramFacts p;
    p.build = "fast";
    ProgramBuild b;
    b.name = "relu_ext";
    b.how = "fast";
    b.split = true;
    b.bindings_apart = true;
    b.ms = 3050;
    b.compile_ms = 2600;
    b.link_ms = 410;
    b.linker = "gold";
    b.host_compiler = "g++";
    b.linker_why = "";
    b.host_compiler_why = "no clang++ on the PATH";
    b.steps = {{"device", 480}, {"host", 2550}, {"main", 300}};
    p.builds.push_back(b);
    Json j = to_json(p);
    ASSERT_EQ(j["builds"].size(), 1u);
    const Json& got = j["builds"][0];
    EXPECT_EQ(got["name"], "relu_ext");
    EXPECT_EQ(got["build"], "fast");
    EXPECT_EQ(got["split"], true);
    EXPECT_EQ(got["bindings_apart"], true);
    EXPECT_EQ(got["ms"], 3050.0);
    EXPECT_EQ(got["compile_ms"], 2600.0);
    EXPECT_EQ(got["link_ms"], 410.0);
    EXPECT_EQ(got["steps_ms"], (Json{{"device", 480.0}, {"host", 2550.0}, {"main", 300.0}}));
    EXPECT_EQ(got["linker"], "gold");
    EXPECT_EQ(got["host_compiler"], "g++");
    EXPECT_EQ(got["host_compiler_why"], "no clang++ on the PATH");
    EXPECT_FALSE(got.contains("linker_why"));  // the fast linker did not fail
    b.linker = b.host_compiler = "";  // unknown: not said
    p.builds = {b};
    EXPECT_FALSE(to_json(p)["builds"][0].contains("linker"));
    EXPECT_FALSE(to_json(p)["builds"][0].contains("host_compiler"));
    EXPECT_FALSE(to_json(ProgramFacts{}).contains("builds"));  // no build, no list
}
