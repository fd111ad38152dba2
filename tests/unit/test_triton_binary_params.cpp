// A cubin Triton compiled takes more parameters than the plan passes (Triton's
// launcher appends its global and profile scratch pointers), so kb_compile
// must not refuse it for its parameter count, as it refuses a CUDA kernel
// whose parameters do not take the plan's arguments. On a GPU,
// TritonGpu.PrecompiledTritonCubinRuns runs the same cubin.
#include <gtest/gtest.h>

#include <string>

#include "kbench.h"
#include "support/task_paths.h"
#include "util/files.h"

namespace {

TEST(TritonBinaryParams, AScratchTakingCubinCompilesForAFourArgumentPlan) {
    const std::string dir = std::string(KB_SOURCE_DIR) + "/tests/fixtures/triton/3.6.0/";
    const std::string cubin = kb::read_file(dir + "vector_add_n1009.sm90.cubin");
    const std::string metadata = kb::read_file(dir + "vector_add_n1009.metadata.json");
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    o.arch = "sm_90";
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* task = nullptr;
    ASSERT_EQ(kb_load_task(kb::test::builtin_task_file("vector_add_f32").c_str(), &task), KB_OK) << kb_last_error();
    kb_candidate c = KB_CANDIDATE_INIT;
    c.language = KB_LANG_TRITON_BINARY;
    c.code = cubin.data();
    c.code_size = cubin.size();
    c.metadata_json = metadata.c_str();
    c.launch_json = R"J({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 1024)", "block": 128,
                                     "args": ["a", "b", "c", "n"]}]})J";
    c.label = "vector_add_n1009.sm90.cubin";
    kb_kernel* k = nullptr;
    EXPECT_EQ(kb_compile(ctx, task, &c, &k), KB_OK) << kb_last_error();
    kb_kernel_destroy(k);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
}

}  // namespace
