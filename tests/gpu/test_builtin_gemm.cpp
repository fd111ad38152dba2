// Built-in baselines on a GPU ({"builtin": "cublas_gemm"}, docs/task-format.md
// "Built-in steps"): every task whose baseline calls cuBLAS gets, on every
// case, the same answer from its baseline as from its reference (so the
// row-major mapping, the transposes, the batch strides and the f32 numerics
// are right); the baseline times like any baseline, cold and hot (graph
// capture); it runs in the worker process too; and a missing cuBLAS is a task
// error with the fix, not a crash or a verdict.
#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/result_json.h"
#include "gpu_test_util.h"
#include "kbench.h"
#include "util/json.h"

using namespace kb;

namespace {

// Every shipped task whose baseline has a built-in step.
std::vector<std::string> builtin_baseline_tasks() {
    std::vector<std::string> out;
    for (const std::string& dir : test::builtin_task_dirs()) {
        TaskPtr t;
        try {
            t = load_task(dir + "/task.json");
        } catch (const Error&) {
            continue;  // the loader's own tests report broken tasks
        }
        if (t->baseline && t->baseline->has_builtin_steps()) out.push_back(dir + "/task.json");
    }
    return out;
}

std::string test_name(const std::string& path) {
    std::string dir = std::filesystem::path(path).parent_path().filename().string();
    for (char& c : dir)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return dir;
}


class BuiltinBaseline : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(BuiltinBaseline, MatchesTheReferenceOnEveryCase) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(GetParam());
    TaskBinding tb = ctx->bind(task);
    EXPECT_EQ(kernel_json(*tb.baseline)["image"], task->baseline->has_code() ? "cubin" : "none");
    LocalBackend& lb = test::local(*ctx);
    for (size_t ci = 0; ci < task->cases.size(); ++ci) {
        // The baseline judged exactly like a candidate: poisoned outputs,
        // guard zones, input checksums, the task's tolerances.
        CompareResult r = lb.compare(tb, tb.baseline, int(ci), 4242, 1);
        EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << task->name << " at case " << task->cases[ci].name << ": " << r.message;
    }
}

TEST_P(BuiltinBaseline, TimesColdAndHot) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(GetParam());
    TaskBinding tb = ctx->bind(task);
    for (bool hot : {false, true}) {
        TimeRequest req;
        req.timing.hot = hot;  // hot mode captures the cuBLAS call in a CUDA graph
        req.timing.budget_ms = 50;
        TimeResult r = test::local(*ctx).time(tb, nullptr, req);
        ASSERT_EQ(r.verdict, KB_VERDICT_NONE) << to_json(r).dump();
        ASSERT_TRUE(r.baseline.has_value()) << to_json(r).dump();
        double us = r.baseline->stats.median;
        EXPECT_GT(us, 0.0);
        std::string rate = r.baseline->tflops ? " (" + std::to_string(*r.baseline->tflops) + " TFLOP/s)" : "";
        std::printf("[ baseline ] %s %s: %.2f us%s\n", task->name.c_str(), hot ? "hot" : "cold", us, rate.c_str());
    }
}

INSTANTIATE_TEST_SUITE_P(Tasks, BuiltinBaseline, ::testing::ValuesIn(builtin_baseline_tasks()),
                         [](const auto& info) { return test_name(info.param); });

// The plan travels to the worker (src/worker/wire.cpp) and runs there: a
// correct candidate is scored against cuBLAS with a speedup.
TEST(BuiltinBaselineInWorker, ScoresAgainstCublas) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(test::task_file("gemm_f32").c_str(), &t), KB_OK) << kb_last_error();
    std::string cand = test::candidate_file("gemm_f32", "correct.cu");
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = cand.c_str();
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    kb_result* r = nullptr;
    ASSERT_EQ(kb_score(ctx, t, &c, &so, &r), KB_OK) << kb_last_error();
    Json j = Json::parse(kb_result_json(r));
    EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_PASS) << kb_result_message(r);
    EXPECT_TRUE(j.contains("speedup")) << j.dump();
    std::printf("[ worker   ] gemm_f32 correct.cu vs cuBLAS: %s\n", kb_result_message(r));
    kb_result_destroy(r);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
}

// Without cuBLAS the task cannot be timed: KB_ERR_REFERENCE_FAILED naming
// what was tried and the fix. The worker is started after the variable is
// set, so it is the worker's loader that fails, and the host that reports it.
TEST(BuiltinBaselineInWorker, MissingCublasIsATaskError) {
    ::setenv("KBENCH_CUBLAS_LIBRARY", "/nonexistent/libcublas.so.13", 1);
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    ::unsetenv("KBENCH_CUBLAS_LIBRARY");
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(test::task_file("gemm_f16").c_str(), &t), KB_OK) << kb_last_error();
    // The reference still runs: correctness needs no cuBLAS.
    kb_result* r = nullptr;
    EXPECT_EQ(kb_run_reference(ctx, t, 0, 1, &r), KB_OK) << kb_last_error();
    kb_result_destroy(r);
    r = nullptr;
    EXPECT_EQ(kb_time(ctx, t, nullptr, nullptr, &r), KB_ERR_REFERENCE_FAILED);
    std::string msg = kb_last_error();
    EXPECT_NE(msg.find("/nonexistent/libcublas.so.13"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KBENCH_CUBLAS_LIBRARY"), std::string::npos) << msg;
    kb_result_destroy(r);
    // The worker survived: the context still works.
    r = nullptr;
    EXPECT_EQ(kb_run_reference(ctx, t, 1, 1, &r), KB_OK) << kb_last_error();
    kb_result_destroy(r);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
}
