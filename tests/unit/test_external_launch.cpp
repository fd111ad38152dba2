// kb_launch's checks that need no GPU: the task at the caller's dims, the
// launch arguments, and the errors of a context that cannot launch (compile
// only). The launches themselves: bindings/python/tests/launch_gpu.py.
#include <gtest/gtest.h>

#include <string>

#include "exec/external_launch.h"
#include "kbench.h"
#include "support/task_paths.h"
#include "util/error.h"

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

kb::TaskPtr task(const char* name) { return kb::load_task(kb::test::builtin_task_file(name)); }

std::string error_of(const kb::TaskPtr& t, const kb::DimValues& dims) {
    try {
        kb::task_at_dims(t, dims);
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT) << e.what();
        return e.what();
    }
    return "";
}

TEST(TaskAtDims, OneCaseAtTheCallersDims) {
    kb::TaskPtr t = task("gemm_f32");
    kb::TaskPtr at = kb::task_at_dims(t, {{"M", 3}, {"N", 5}, {"K", 7}});
    ASSERT_EQ(at->cases.size(), 1u);
    EXPECT_EQ(at->cases[0].name, "kb_launch");
    EXPECT_EQ(at->cases[0].dims.at("N"), 5);
    EXPECT_EQ(at->args.size(), t->args.size());
    EXPECT_GT(t->cases.size(), 1u);  // the task itself is unchanged
}

TEST(TaskAtDims, EveryDimGivenKnownAndPositive) {
    kb::TaskPtr t = task("gemm_f32");
    EXPECT_TRUE(has(error_of(t, {{"M", 3}, {"N", 5}}), "dim 'K' of task 'gemm_f32' is not given"));
    EXPECT_TRUE(has(error_of(t, {{"M", 3}, {"N", 5}, {"K", 7}, {"Q", 1}}), "dim 'Q' is not a dim of task"));
    EXPECT_TRUE(has(error_of(t, {{"M", 3}, {"N", 0}, {"K", 7}}), "dim 'N' = 0: dims are sizes, at least 1"));
    EXPECT_TRUE(has(error_of(t, {{"M", 3}, {"N", -4}, {"K", 7}}), "at least 1"));
}

TEST(TaskAtDims, ShapesThatOverflowAreRefused) {
    kb::TaskPtr t = task("gemm_f32");
    std::string e = error_of(t, {{"M", int64_t(1) << 40}, {"N", int64_t(1) << 40}, {"K", 7}});
    EXPECT_FALSE(e.empty());
    EXPECT_TRUE(has(e, "at dims {K=7, M=")) << e;
}

TEST(LaunchArgs, NullsAndNamesAndDtypes) {
    EXPECT_EQ(kb_launch_args_create(nullptr), KB_ERR_INVALID_ARGUMENT);
    kb_launch_args_destroy(nullptr);
    kb_launch_args* args = nullptr;
    ASSERT_EQ(kb_launch_args_create(&args), KB_OK);
    EXPECT_EQ(kb_launch_args_set_dim(nullptr, "n", 1), KB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(kb_launch_args_set_dim(args, "", 1), KB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(kb_launch_args_set_dim(args, "n", 1009), KB_OK);
    EXPECT_EQ(kb_launch_args_set_buffer(args, "a", 0x1000, 4036, "float"), KB_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(has(kb_last_error(), "buffer 'a': unknown dtype 'float' (known: "));
    EXPECT_EQ(kb_launch_args_set_buffer(args, "a", 0x1000, 4036, "f32"), KB_OK);
    EXPECT_EQ(kb_launch_args_set_buffer(args, "a", 0x1000, 4036, nullptr), KB_OK);
    EXPECT_EQ(kb_launch(nullptr, nullptr, nullptr, args, 0), KB_ERR_INVALID_ARGUMENT);
    kb_launch_args_destroy(args);
}

TEST(LaunchArgs, ACompileOnlyContextCannotLaunch) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(kb::test::builtin_task_file("vector_add_f32").c_str(), &t), KB_OK) << kb_last_error();
    kb_kernel* k = nullptr;
    ASSERT_EQ(kb_compile_task_program(ctx, t, KB_ROLE_REFERENCE, &k), KB_OK) << kb_last_error();
    kb_launch_args* args = nullptr;
    ASSERT_EQ(kb_launch_args_create(&args), KB_OK);
    kb_launch_args_set_dim(args, "n", 16);
    EXPECT_EQ(kb_launch(ctx, t, k, args, 0), KB_ERR_NO_DEVICE);
    EXPECT_TRUE(has(kb_last_error(), "cannot run kernels")) << kb_last_error();
    kb_launch_args_destroy(args);
    kb_kernel_destroy(k);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
}

}  // namespace
