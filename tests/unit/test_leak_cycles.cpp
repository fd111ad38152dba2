// No leak over 10,000 load/compile/destroy cycles (issue 15): each cycle
// loads a task from its file, compiles a candidate and destroys both; every
// 20th cycle compiles a source never seen before (a real NVRTC compile), the
// others hit the compile cache, and every 100th cycle the context itself is
// destroyed and made again. The process's resident memory after the first
// 1,000 cycles (caches warm) may grow by at most 16 MiB over the remaining
// 9,000: the 450 fresh images the cache keeps are a few MiB, while a task or
// kernel handle leaked per cycle would be tens to hundreds of MiB.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "kbench.h"
#include "support/compile_only_context.h"
#include "support/task_paths.h"

namespace {

uint64_t rss_bytes() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return uint64_t(std::strtoull(line.c_str() + 6, nullptr, 10)) * 1024;
    return 0;
}

TEST(LeakCycles, TenThousandLoadCompileDestroyCyclesKeepMemoryFlat) {
    const std::string task_file = kb::test::builtin_task_file("vector_add_f32");
    static const std::string salt = std::to_string(std::random_device{}());
    const std::string body =
        "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) c[i] = a[i] + b[i];\n}\n";
    constexpr int kCycles = 10000, kWarm = 1000;
    kb_context* ctx = kb::test::compile_only_context();
    ASSERT_NE(ctx, nullptr);
    uint64_t warm_rss = 0, peak_after_warm = 0;
    std::string fresh = "// " + salt + " fresh 0\n" + body;
    for (int i = 0; i < kCycles; ++i) {
        if (i % 100 == 99) {
            kb_context_destroy(ctx);
            ctx = kb::test::compile_only_context();
            ASSERT_NE(ctx, nullptr);
        }
        if (i % 20 == 0) fresh = "// " + salt + " fresh " + std::to_string(i) + "\n" + body;
        kb_task* task = nullptr;
        ASSERT_EQ(kb_load_task(task_file.c_str(), &task), KB_OK) << kb_last_error();
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = fresh.c_str();
        c.language = KB_LANG_CUDA;
        kb_kernel* k = nullptr;
        ASSERT_EQ(kb_compile(ctx, task, &c, &k), KB_OK) << "cycle " << i << ": " << kb_last_error();
        kb_kernel_destroy(k);
        kb_task_destroy(task);
        if (i == kWarm) warm_rss = rss_bytes();
        if (i > kWarm && i % 100 == 0) peak_after_warm = std::max(peak_after_warm, rss_bytes());
    }
    kb_context_destroy(ctx);
    ASSERT_GT(warm_rss, 0u);
    const uint64_t bound = uint64_t(16) << 20;
    EXPECT_LE(peak_after_warm, warm_rss + bound)
        << "resident memory grew from " << warm_rss / 1024 << " KiB after " << kWarm << " cycles to "
        << peak_after_warm / 1024 << " KiB";
    std::printf("LeakCycles: RSS %llu KiB after %d cycles, at most %llu KiB after\n",
                (unsigned long long)(warm_rss / 1024), kWarm, (unsigned long long)(peak_after_warm / 1024));
}

}  // namespace
