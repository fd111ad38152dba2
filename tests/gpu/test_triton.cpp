// Triton kernels scored by the C core on a GPU: the tutorial kernels pass
// (their speedups are printed for bench/RESULTS.md), the wrong ones get the
// verdict their mistake earns, a kernel with global scratch runs, a cluster
// launch runs, a precompiled Triton cubin runs, a binary is never used for a
// case whose specialisation it was not compiled for, and Triton kernels work
// through worker isolation. Needs Python with Triton ($KBENCH_PYTHON or
// python3); each test is skipped, saying why, without it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "compiler/compiler.h"
#include "gpu_test_util.h"
#include "support/task_paths.h"
#include "kbench.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace {

using kb::Json;

const std::string kRoot = KB_SOURCE_DIR;

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A built-in task (tasks/<family>/<name>/), or one of the Triton tests'
// fixture tasks (tests/fixtures/triton/tasks/<name>/).
std::string task_path(const std::string& name) {
    const std::string fixture = kRoot + "/tests/fixtures/triton/tasks/" + name + "/task.json";
    if (kb::file_exists(fixture)) return fixture;
    return kb::test::builtin_task_file(name);
}

using kb::test::triton_missing;

#define REQUIRE_TRITON()                                                     \
    do {                                                                     \
        if (!triton_missing().empty()) GTEST_SKIP() << triton_missing();     \
    } while (0)

struct Scored {
    kb_status status = KB_OK;
    kb_verdict verdict = KB_VERDICT_NONE;
    std::string message;
    Json json;
};

Scored score(const std::string& task, const std::string& candidate, unsigned flags,
             kb_isolation isolation = KB_ISOLATION_IN_PROCESS, kb_language lang = KB_LANG_AUTO,
             const char* metadata = nullptr, const char* launch_json = nullptr) {
    Scored out;
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = isolation;
    kb_context* ctx = nullptr;
    EXPECT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(task.c_str(), &t), KB_OK) << kb_last_error();
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = candidate.c_str();
    c.language = lang;
    c.metadata_json = metadata;
    c.launch_json = launch_json;
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = flags;
    kb_result* r = nullptr;
    out.status = kb_score(ctx, t, &c, &so, &r);
    if (out.status == KB_OK) {
        out.verdict = kb_result_verdict(r);
        out.message = kb_result_message(r);
        out.json = Json::parse(kb_result_json(r));
    } else {
        out.message = kb_last_error();
    }
    kb_result_destroy(r);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
    return out;
}

std::string example(const std::string& rel) { return kRoot + "/examples/triton/" + rel; }

// A tutorial kernel passes its task, timed against the task's baseline.
void expect_pass_and_report(const std::string& task_name, const std::string& candidate) {
    std::string task = task_path(task_name);
    Scored s = score(task, example(candidate), 0);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
    if (s.json.contains("speedup"))
        std::printf("TRITON_RESULT task=%s candidate=%s speedup=%.3f candidate_median_us=%.2f baseline_median_us=%.2f\n",
                    task_name.c_str(), candidate.c_str(), s.json["speedup"].get<double>(),
                    s.json["timing"]["candidate"]["median_us"].get<double>(),
                    s.json["timing"]["baseline"]["median_us"].get<double>());
}

}  // namespace

TEST(TritonGpu, VectorAddPasses) {
    REQUIRE_TRITON();
    expect_pass_and_report("vector_add_f32", "vector_add/candidate.json");
}

TEST(TritonGpu, FusedSoftmaxPasses) {
    REQUIRE_TRITON();
    expect_pass_and_report("softmax_f32", "softmax/candidate.json");
}

TEST(TritonGpu, GroupedF16MatmulPasses) {
    REQUIRE_TRITON();
    expect_pass_and_report("gemm_f16", "matmul/candidate.json");
}

TEST(TritonGpu, LayerNormPasses) {
    REQUIRE_TRITON();
    expect_pass_and_report("layernorm_f32", "layernorm/candidate.json");
}

TEST(TritonGpu, BarePyFilesScore) {
    REQUIRE_TRITON();
    Scored s = score(task_path("softmax_f32"), example("softmax/softmax.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
}

TEST(TritonGpu, OffByOneMaskIsAnOutOfBoundsWrite) {
    REQUIRE_TRITON();
    Scored s = score(task_path("vector_add_f32"), example("wrong/vector_add_off_by_one.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_OUT_OF_BOUNDS_WRITE) << s.message;
    EXPECT_TRUE(has(s.message, "'c'")) << s.message;
}

TEST(TritonGpu, MissingOtherIsAWrongAnswerWhereZeroIsNotNeutral) {
    REQUIRE_TRITON();
    Scored neg = score(task_path("softmax_negative_f32"), example("wrong/softmax_missing_other.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(neg.status, KB_OK) << neg.message;
    EXPECT_EQ(neg.verdict, KB_VERDICT_WRONG_ANSWER) << neg.message;
    // The same kernel on inputs near +100, where the zeros never win the
    // maximum: right answers, and kbench says so.
    Scored pos = score(task_path("softmax_f32"), example("wrong/softmax_missing_other.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(pos.status, KB_OK) << pos.message;
    EXPECT_EQ(pos.verdict, KB_VERDICT_PASS) << pos.message;
    // The correct kernel passes the negative task.
    Scored good = score(task_path("softmax_negative_f32"), example("softmax/candidate.json"), KB_SCORE_SKIP_TIMING);
    EXPECT_EQ(good.verdict, KB_VERDICT_PASS) << good.message;
}

TEST(TritonGpu, WrongReductionAxisIsAWrongAnswer) {
    REQUIRE_TRITON();
    Scored s = score(task_path("softmax_f32"), example("wrong/softmax_wrong_axis.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_WRONG_ANSWER) << s.message;
}

// Device-side tensor descriptors need Triton's global scratch, which kbench
// allocates (grid x 384 bytes here) and passes as the hidden parameter.
TEST(TritonGpu, KernelWithGlobalScratchRuns) {
    REQUIRE_TRITON();
    Scored s = score(task_path("vector_add_f32"), example("tma_vector_add/candidate.json"), 0);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
}

// The same kernel trusting TMA to clip its last partial slice: on the H100
// (Triton 3.6) the store wrote c up to the next 16-byte boundary.
TEST(TritonGpu, TmaTailOverrunIsAnOutOfBoundsWrite) {
    REQUIRE_TRITON();
    Scored s = score(task_path("vector_add_f32"), example("wrong/tma_vector_add_tail_overrun.py"), KB_SCORE_SKIP_TIMING);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_OUT_OF_BOUNDS_WRITE) << s.message;
    EXPECT_TRUE(has(s.message, "'c'")) << s.message;
}

// num_ctas = 2: a cluster launch through cuLaunchKernelEx.
TEST(TritonGpu, ClusterLaunchRuns) {
    REQUIRE_TRITON();
    const char* plan = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, BLOCK)", "args": ["a", "b", "c", "n"],
                                        "constexprs": {"BLOCK": 1024}, "num_warps": 4, "num_ctas": 2}]})J";
    Scored s = score(task_path("vector_add_f32"), example("vector_add/vector_add.py"), KB_SCORE_SKIP_TIMING,
                     KB_ISOLATION_IN_PROCESS, KB_LANG_TRITON, nullptr, plan);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
}

// A cubin Triton compiled (3.6, sm_90, n not specialised) with its metadata:
// block, shared memory and the two hidden scratch pointers from the metadata.
TEST(TritonGpu, PrecompiledTritonCubinRuns) {
    const std::string dir = kRoot + "/tests/fixtures/triton/3.6.0/";
    const std::string metadata = kb::read_file(dir + "vector_add_n1009.metadata.json");
    const char* plan = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 1024)", "block": 128,
                                        "args": ["a", "b", "c", "n"]}]})J";
    Scored s = score(task_path("vector_add_f32"), dir + "vector_add_n1009.sm90.cubin", KB_SCORE_SKIP_TIMING,
                     KB_ISOLATION_IN_PROCESS, KB_LANG_TRITON_BINARY, metadata.c_str(), plan);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
    // A block that is not 32 x num_warps is refused with the right one named.
    const char* bad = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 1024)", "block": 256,
                                       "args": ["a", "b", "c", "n"]}]})J";
    Scored b = score(task_path("vector_add_f32"), dir + "vector_add_n1009.sm90.cubin", KB_SCORE_SKIP_TIMING,
                     KB_ISOLATION_IN_PROCESS, KB_LANG_TRITON_BINARY, metadata.c_str(), bad);
    ASSERT_EQ(b.status, KB_OK) << b.message;
    EXPECT_EQ(b.verdict, KB_VERDICT_LAUNCH_ERROR) << b.message;
    EXPECT_TRUE(has(b.message, "(128, 1, 1)")) << b.message;
}

// A kernel compiled for the perf case only (n = 16777216, divisible by 16)
// is never launched on the n = 1009 case: that is a kbench bug, reported as one.
TEST(TritonGpu, BinaryIsNeverLaunchedOnACaseItWasNotCompiledFor) {
    REQUIRE_TRITON();
    auto ctx = kb::test::in_process_context();
    kb::TaskPtr task = kb::load_task(task_path("vector_add_f32"));
    kb::CandidateInput in;
    in.path = example("vector_add/candidate.json");
    std::string label;
    kb::Program p = ctx->resolve_candidate(*task, in, &label);
    kb::KernelPtr perf_only = ctx->compile(*task, p, label, {task->perf_index});
    ASSERT_EQ(perf_only->variants.size(), 1u);
    int prime = -1;
    for (size_t i = 0; i < task->cases.size(); ++i)
        if (task->cases[i].dims.at("n") % 16 != 0) prime = int(i);
    ASSERT_GE(prime, 0);
    try {
        ctx->compare(task, perf_only, prime, 1);
        FAIL() << "the n % 16 == 0 binary ran a case with n % 16 != 0";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INTERNAL);
        EXPECT_TRUE(has(e.what(), "no Triton binary was compiled for this case's specialisation")) << e.what();
    }
    kb::CompareResult ok = ctx->compare(task, perf_only, task->perf_index, 1);
    EXPECT_EQ(ok.verdict, KB_VERDICT_PASS) << ok.message;
}

// Through a kbench-worker process: the variants travel on the wire.
TEST(TritonGpu, WorkerIsolationRunsTritonKernels) {
    REQUIRE_TRITON();
    Scored s = score(task_path("vector_add_f32"), example("vector_add/candidate.json"), KB_SCORE_SKIP_TIMING,
                     KB_ISOLATION_WORKER);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
}

// configs: each is timed on the perf case with kbench's protocol, the fastest
// is scored on every case, and the result lists every config's time.
TEST(TritonGpu, TuningPicksTheFastestConfigAndReportsAll) {
    REQUIRE_TRITON();
    Scored s = score(task_path("softmax_f32"), example("softmax/tuned.json"), 0);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
    ASSERT_TRUE(s.json.contains("tuning")) << s.json.dump();
    const Json& t = s.json["tuning"];
    ASSERT_EQ(t["configs"].size(), 4u);
    ASSERT_TRUE(t["chosen"].is_number_integer());
    size_t chosen = t["chosen"].get<size_t>();
    double best = t["configs"][chosen]["median_us"].get<double>();
    for (const Json& c : t["configs"]) {
        ASSERT_EQ(c["verdict"], "pass") << c.dump();
        EXPECT_GE(c["median_us"].get<double>(), best);
        std::printf("TRITON_TUNE config=\"%s\" median_us=%.2f%s\n", c["config"].get<std::string>().c_str(),
                    c["median_us"].get<double>(), &c == &t["configs"][chosen] ? " (chosen)" : "");
    }
    // The scored kernel is the chosen configuration, compiled for every case.
    EXPECT_FALSE(s.json["compile"]["plan"]["launch"][0].contains("configs"));
}

TEST(TritonGpu, TunedMatmulPasses) {
    REQUIRE_TRITON();
    std::string task = task_path("gemm_f16");
    Scored s = score(task, example("matmul/tuned.json"), 0);
    ASSERT_EQ(s.status, KB_OK) << s.message;
    EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
    ASSERT_TRUE(s.json.contains("tuning"));
    std::printf("TRITON_TUNE gemm_f16 chosen=\"%s\" speedup=%.3f\n",
                s.json["tuning"].value("chosen_config", "").c_str(), s.json.value("speedup", 0.0));
}
