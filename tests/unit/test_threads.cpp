// The thread-safety rules of include/kbench.h, exercised: eight threads
// compiling and scoring at once, on one shared context and on a context each,
// with one kb_task shared by all. On a machine without a GPU the contexts are
// compile-only, so kb_score stops after compiling (KB_SCORE_COMPILE_ONLY)
// and a broken source gets its compile_error verdict; the CPU paths (the
// compiler, its cache, the batch-free score path, thread-local errors) are
// what run here, and scripts/run-sanitizers.sh thread runs this under TSan.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kbench.h"
#include "support/compile_only_context.h"
#include "support/task_paths.h"

namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 6;

std::string source(int thread, int round) {
    static const std::string salt = std::to_string(std::random_device{}());
    return "// thread " + std::to_string(thread) + " round " + std::to_string(round) + " " + salt +
           "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) c[i] = a[i] + b[i];\n}\n";
}

// One thread's work: compile, score (compile only), and a broken source whose
// error must stay this thread's. Returns the number of failed expectations.
int work(kb_context* ctx, const kb_task* task, int thread) {
    int failures = 0;
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = KB_SCORE_COMPILE_ONLY;
    for (int r = 0; r < kRounds; ++r) {
        std::string code = source(thread, r);
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.c_str();
        c.language = KB_LANG_CUDA;
        kb_kernel* k = nullptr;
        if (kb_compile(ctx, task, &c, &k) != KB_OK) ++failures;
        kb_kernel_destroy(k);

        std::string other = source(thread + 100, r);
        c.code = other.c_str();
        kb_result* res = nullptr;
        if (kb_score(ctx, task, &c, &so, &res) != KB_OK || kb_result_verdict(res) != KB_VERDICT_NONE) ++failures;
        kb_result_destroy(res);

        std::string broken = "// " + std::to_string(thread) + "." + std::to_string(r) +
                             "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) { c[0] = ; }\n";
        c.code = broken.c_str();
        res = nullptr;
        if (kb_score(ctx, task, &c, &so, &res) != KB_OK || kb_result_verdict(res) != KB_VERDICT_COMPILE_ERROR)
            ++failures;
        kb_result_destroy(res);
        // A failing call's message is this thread's own, whatever the others do.
        const std::string label = "thread-" + std::to_string(thread) + "-round-" + std::to_string(r);
        c.label = label.c_str();
        k = nullptr;
        if (kb_compile(ctx, task, &c, &k) == KB_OK || std::string(kb_last_error()).find(label) == std::string::npos)
            ++failures;
        kb_kernel_destroy(k);
    }
    return failures;
}

struct Threads : ::testing::Test {
    kb_task* task = nullptr;
    void SetUp() override {
        ASSERT_EQ(kb_load_task(kb::test::builtin_task_file("vector_add_f32").c_str(), &task), KB_OK)
            << kb_last_error();
    }
    void TearDown() override { kb_task_destroy(task); }
};

TEST_F(Threads, EightThreadsCompileAndScoreOnOneContext) {
    kb_context* ctx = kb::test::compile_only_context();
    ASSERT_NE(ctx, nullptr);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { failures += work(ctx, task, t); });
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
    kb_context_destroy(ctx);
}

TEST_F(Threads, EightThreadsWithAContextEachShareOneTask) {
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            kb_context* ctx = kb::test::compile_only_context();
            if (!ctx) {
                ++failures;
                return;
            }
            failures += work(ctx, task, t);
            kb_context_destroy(ctx);
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0);
}

}  // namespace
