// Context::bind: a task's reference and baseline are compiled once per
// context, by whichever caller asks first, while callers asking for other
// tasks bind those meanwhile. A binding that fails is not kept. Compile-only
// contexts on the CPU: binding compiles and needs no device.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/context.h"
#include "support/task_paths.h"
#include "support/temp_dir.h"
#include "task/task.h"
#include "util/error.h"
#include "util/files.h"

using namespace kb;

namespace {

std::unique_ptr<Context> compile_only() {
    ContextOptions o;
    o.device = KB_DEVICE_NONE;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    o.arch = "sm_90";
    o.nvcc_fallback = false;
    return std::make_unique<Context>(o, Isolation{});
}

}  // namespace

TEST(TaskBinding, EachTaskIsCompiledOnceWhileOtherTasksBindBesideIt) {
    std::unique_ptr<Context> owner = compile_only();
    Context& ctx = *owner;
    const std::vector<std::string> names = {"vector_add_f32", "softmax_f32", "gemm_f32", "sum_f32"};
    std::vector<TaskPtr> tasks;
    for (const std::string& n : names) tasks.push_back(load_task(test::builtin_task_file(n)));

    // Twelve callers, each binding every task in its own order.
    std::mutex mu;
    std::map<std::string, std::vector<TaskBinding>> seen;
    std::vector<std::thread> callers;
    for (int c = 0; c < 12; ++c)
        callers.emplace_back([&, c] {
            std::vector<TaskPtr> order = tasks;
            std::rotate(order.begin(), order.begin() + (c % order.size()), order.end());
            if (c % 2) std::reverse(order.begin(), order.end());
            for (const TaskPtr& t : order) {
                TaskBinding b = ctx.bind(t);
                std::lock_guard<std::mutex> lock(mu);
                seen[t->name].push_back(b);
            }
        });
    for (std::thread& t : callers) t.join();

    for (const std::string& n : names) {
        const std::vector<TaskBinding>& bs = seen[n];
        ASSERT_EQ(bs.size(), 12u) << n;
        ASSERT_TRUE(bs[0].reference) << n;
        ASSERT_TRUE(bs[0].baseline) << n;
        EXPECT_EQ(bs[0].task->name, n);
        for (const TaskBinding& b : bs) {
            // One compile per task: every caller holds the same kernels.
            EXPECT_EQ(b.reference.get(), bs[0].reference.get()) << n;
            EXPECT_EQ(b.baseline.get(), bs[0].baseline.get()) << n;
        }
    }
    // gemm_f32's baseline is cuBLAS, compiled apart from its reference.
    EXPECT_NE(seen["gemm_f32"][0].baseline.get(), seen["gemm_f32"][0].reference.get());
    EXPECT_NE(seen["vector_add_f32"][0].reference.get(), seen["softmax_f32"][0].reference.get());
}

TEST(TaskBinding, ABindingThatFailsIsReportedToEveryCallerAndNotKept) {
    test::TempDir dir;
    std::string task_json = read_file(test::builtin_task_file("vector_add_f32"));
    dir.write("task.json", task_json);
    dir.write("reference.cu", "__global__ void vector_add_ref(const float* a, const float* b, float* c, int n) {\n"
                              "    c[0] = ;\n"
                              "}\n");
    TaskPtr task = load_task(dir.path() + "/task.json");
    std::unique_ptr<Context> owner = compile_only();
    Context& ctx = *owner;
    std::vector<std::thread> callers;
    std::mutex mu;
    std::vector<std::string> errors;
    for (int c = 0; c < 6; ++c)
        callers.emplace_back([&] {
            try {
                ctx.bind(task);
                std::lock_guard<std::mutex> lock(mu);
                errors.push_back("bound");
            } catch (const Error& e) {
                std::lock_guard<std::mutex> lock(mu);
                errors.push_back(e.status() == KB_ERR_REFERENCE_FAILED ? std::string(e.what()) : "other status");
            }
        });
    for (std::thread& t : callers) t.join();
    ASSERT_EQ(errors.size(), 6u);
    for (const std::string& e : errors)
        EXPECT_NE(e.find("the task's reference or baseline does not compile"), std::string::npos) << e;
    // Not kept: the next caller compiles again, and is told again.
    try {
        ctx.bind(task);
        FAIL() << "a failed binding was kept as a success";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_REFERENCE_FAILED) << e.what();
    }
}
