// Deliberately bad candidates get the right verdict and a message that says
// what went wrong; good ones pass. Each crash-prone case is its own test, so
// it runs in its own process (CTest runs each test separately).
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.h"
#include "kbench.h"
#include "util/json.h"

namespace {

struct Scored {
    kb_verdict verdict;
    std::string message;
    kb::Json json;
};

Scored score(const std::string& task, const std::string& candidate, unsigned flags = KB_SCORE_SKIP_TIMING,
             const char* launch_json = nullptr, const char* code = nullptr) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    kb_context* ctx = nullptr;
    EXPECT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(kb::test::task_file(task).c_str(), &t), KB_OK) << kb_last_error();
    std::string path = kb::test::candidate_file(task, candidate);
    kb_candidate c = KB_CANDIDATE_INIT;
    if (code) c.code = code;
    else c.path = path.c_str();
    c.launch_json = launch_json;
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = flags;
    kb_result* r = nullptr;
    kb_status s = kb_score(ctx, t, &c, &so, &r);
    EXPECT_EQ(s, KB_OK) << kb_last_error();
    Scored out{kb_result_verdict(r), kb_result_message(r), kb::Json::parse(kb_result_json(r))};
    kb_result_destroy(r);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
    return out;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Verdicts, CorrectCandidatesPassEveryTask) {
    for (const char* task : {"vector_add_f32", "gelu_tanh_f16", "softmax_f32", "sum_f32", "gemm_f32", "copy_f32"}) {
        Scored s = score(task, "correct.cu");
        EXPECT_EQ(s.verdict, KB_VERDICT_PASS) << task << ": " << s.message;
    }
}

TEST(Verdicts, WrongAnswerNamesTheWorstElement) {
    Scored s = score("vector_add_f32", "wrong.cu");
    EXPECT_EQ(s.verdict, KB_VERDICT_WRONG_ANSWER) << s.message;
    EXPECT_TRUE(has(s.message, "output 'c'")) << s.message;
    EXPECT_TRUE(has(s.message, "expected")) << s.message;
    EXPECT_TRUE(has(s.message, "case 'one'")) << s.message;
    const auto& out = s.json["cases"][0]["outputs"][0];
    EXPECT_GT(out["mismatches"].get<uint64_t>(), 0u);
    EXPECT_TRUE(out.contains("worst"));
}

TEST(Verdicts, NotWritingIsOutputNotWritten) {
    Scored s = score("vector_add_f32", "not_writing.cu");
    EXPECT_EQ(s.verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN) << s.message;
    EXPECT_TRUE(has(s.message, "written")) << s.message;
}

TEST(Verdicts, PartialWriteIsOutputNotWritten) {
    Scored s = score("vector_add_f32", "partial_write.cu");
    EXPECT_EQ(s.verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN) << s.message;
    EXPECT_TRUE(has(s.message, "never written")) << s.message;
}

TEST(Verdicts, InputMutatingIsInputModified) {
    Scored s = score("vector_add_f32", "input_mutating.cu");
    EXPECT_EQ(s.verdict, KB_VERDICT_INPUT_MODIFIED) << s.message;
    EXPECT_TRUE(has(s.message, "'a'")) << s.message;
}

TEST(Verdicts, HardcodedSizeFailsAtSmallSizes) {
    Scored s = score("vector_add_f32", "hardcoded_size.cu");
    EXPECT_NE(s.verdict, KB_VERDICT_PASS) << s.message;
}

TEST(Verdicts, FullScoreWithTimingReportsSpeedup) {
    Scored s = score("vector_add_f32", "correct.cu", 0);
    ASSERT_EQ(s.verdict, KB_VERDICT_PASS) << s.message;
    EXPECT_GT(s.json["speedup"].get<double>(), 0.5);
    EXPECT_LT(s.json["speedup"].get<double>(), 2.0);
    EXPECT_EQ(s.json["recheck"]["verdict"], "pass");
    EXPECT_GT(s.json["timing"]["candidate"]["median_us"].get<double>(), 0.0);
    EXPECT_GT(s.json["timing"]["candidate"]["gbps"].get<double>(), 100.0);
}

TEST(Verdicts, CachingAcrossCallsFailsTheRecheck) {
    // Honest for its first two full launches at the perf size, then skips the
    // work and leaves whatever the output buffer holds. The decision uses only
    // launches that have finished (blocks counted at their end), so every
    // block of one launch decides alike: correctness passes, timing runs the
    // skipping version, and only the recheck on fresh inputs can catch it.
    const char* code = R"(
__device__ unsigned long long blocks_done = 0;
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    __shared__ bool skip;
    unsigned long long per_launch = (unsigned long long)gridDim.x;
    if (threadIdx.x == 0) skip = n > 1000000 && atomicAdd(&blocks_done, 0ull) >= 2 * per_launch;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (!skip && i < n) c[i] = a[i] + b[i];
    __syncthreads();
    if (threadIdx.x == 0 && n > 1000000) atomicAdd(&blocks_done, 1ull);
}
)";
    Scored s = score("vector_add_f32", "", 0, nullptr, code);
    EXPECT_NE(s.verdict, KB_VERDICT_PASS) << s.message;
    EXPECT_TRUE(has(s.message, "after timing, on fresh inputs")) << s.message;
    EXPECT_EQ(s.json["cases"].size(), 4u);  // every correctness case passed first
}

TEST(LaunchErrors, BlockTooLargeNamesTheLimit) {
    const char* plan = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 2048)", "block": 2048, "args": ["a", "b", "c", "n"]}]})J";
    Scored s = score("vector_add_f32", "correct.cu", KB_SCORE_SKIP_TIMING, plan);
    EXPECT_EQ(s.verdict, KB_VERDICT_LAUNCH_ERROR) << s.message;
    EXPECT_TRUE(has(s.message, "1024")) << s.message;
}

TEST(LaunchErrors, HugeSharedMemoryNamesTheLimit) {
    const char* plan = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 256)", "block": 256, "shared_mem": 100000000, "args": ["a", "b", "c", "n"]}]})J";
    Scored s = score("vector_add_f32", "correct.cu", KB_SCORE_SKIP_TIMING, plan);
    EXPECT_EQ(s.verdict, KB_VERDICT_LAUNCH_ERROR) << s.message;
    EXPECT_TRUE(has(s.message, "shared memory")) << s.message;
}

TEST(LaunchErrors, ParameterMismatchIsCaughtBeforeLaunch) {
    // As a host launch with the wrong arguments is for nvcc, a plan whose
    // arguments the kernel does not take is a compile error, naming both.
    const char* plan = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 256)", "block": 256, "args": ["a", "b", "c"]}]})J";
    Scored s = score("vector_add_f32", "correct.cu", KB_SCORE_SKIP_TIMING, plan);
    EXPECT_EQ(s.verdict, KB_VERDICT_COMPILE_ERROR) << s.message;
    EXPECT_TRUE(has(s.message, "takes 4 parameters")) << s.message;
}

TEST(LaunchErrors, CompileErrorIsAVerdictWithTheLog) {
    Scored s = score("vector_add_f32", "", KB_SCORE_SKIP_TIMING, nullptr, "__global__ void vector_add(float* a) { a[0] = oops; }");
    EXPECT_EQ(s.verdict, KB_VERDICT_COMPILE_ERROR) << s.message;
    EXPECT_TRUE(has(s.json["compile"]["log"].get<std::string>(), "oops"));
}

TEST(RuntimeErrors, IllegalAddressIsARuntimeError) {
    const char* code = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {"
                       " c[(size_t)1 << 40] = 1.0f; }";
    Scored s = score("vector_add_f32", "", KB_SCORE_SKIP_TIMING, nullptr, code);
    EXPECT_EQ(s.verdict, KB_VERDICT_RUNTIME_ERROR) << s.message;
    EXPECT_TRUE(has(s.message, "ILLEGAL_ADDRESS")) << s.message;
}

// kb_launch returns before its kernel ends, so a contained trap's flag
// (compiler/trap_containment.h) would never be read: a kernel compiled with
// its traps contained is refused, saying why, before anything runs.
TEST(ContainedTraps, KbLaunchRefusesAKernelWhoseTrapsAreContained) {
    ::setenv("KBENCH_CONTAIN_TRAPS", "1", 1);
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(kb::test::task_file("vector_add_f32").c_str(), &t), KB_OK) << kb_last_error();
    kb_kernel* k = nullptr;
    ASSERT_EQ(kb_compile_task_program(ctx, t, KB_ROLE_REFERENCE, &k), KB_OK) << kb_last_error();
    ::unsetenv("KBENCH_CONTAIN_TRAPS");
    kb_launch_args* args = nullptr;
    ASSERT_EQ(kb_launch_args_create(&args), KB_OK);
    kb_launch_args_set_dim(args, "n", 16);
    EXPECT_EQ(kb_launch(ctx, t, k, args, 0), KB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kb_last_error()).find("traps contained"), std::string::npos) << kb_last_error();
    kb_launch_args_destroy(args);
    kb_kernel_destroy(k);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
}
