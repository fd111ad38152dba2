// A batch's lanes start their workers one after another: lane i's once lane
// i-1's has started, as soon as the batch holds a job for lane i. CUDA
// creates contexts one at a time across a machine, so workers started
// together are all ready only at the end of the line (engine/batch.cpp).
// Fake workers here: no GPU, and compiles that fail at once.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/batch.h"
#include "engine/context.h"
#include "support/task_paths.h"
#include "util/error.h"

using namespace kb;

namespace {

using Clock = std::chrono::steady_clock;

class IdleBackend : public Backend {
public:
    Json device_info() override { return {{"arch", "sm_90"}, {"isolation", "worker"}, {"name", "fake"}}; }
    ReferenceResult run_reference(const TaskBinding&, int, uint64_t) override { return {}; }
    CompareResult compare(const TaskBinding&, const KernelPtr&, int, uint64_t, unsigned) override { return {}; }
    TimeResult time(const TaskBinding&, const KernelPtr&, const TimeRequest&) override { return {}; }
};

class FailingSandbox : public CompileSandbox {
public:
    CompiledImage build(const CompileRequest&) override { throw CompileError("fake: nothing compiles here", ""); }
};

// Each start takes 150 ms and is recorded (start, end).
struct Starts {
    std::mutex mu;
    std::vector<std::pair<Clock::time_point, Clock::time_point>> spans;
};

Isolation fake(Starts& starts) {
    Isolation iso;
    iso.backend = [&starts](const ContextOptions&) -> std::unique_ptr<Backend> {
        auto t0 = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        std::lock_guard<std::mutex> lock(starts.mu);
        starts.spans.emplace_back(t0, Clock::now());
        return std::make_unique<IdleBackend>();
    };
    iso.compile_sandbox = [](const ContextOptions&, const CompilerConfig&) {
        return std::static_pointer_cast<CompileSandbox>(std::make_shared<FailingSandbox>());
    };
    return iso;
}

// Scores `jobs` candidates (each fails to compile) through a batch of four
// lanes, and returns the lanes' worker starts, lane 0's (the context's) first.
std::vector<std::pair<Clock::time_point, Clock::time_point>> lane_starts(int jobs) {
    Starts starts;
    ContextOptions o;
    o.device = 0;
    o.isolation = KB_ISOLATION_WORKER;
    o.arch = "sm_90";
    o.nvcc_fallback = false;
    Context ctx(o, fake(starts));
    TaskPtr task = load_task(test::builtin_task_file("vector_add_f32"));
    {
        BatchOptions bo;
        bo.device_lanes = 4;
        Batch batch(ctx, bo);
        for (int i = 0; i < jobs; ++i) {
            CandidateInput in;
            in.code = "// " + std::to_string(i) + "\n__global__ void vector_add() {}\n";
            in.language_given = true;
            batch.submit(task, in, ScoreOptions{}, uint64_t(i), -1);
        }
        for (int i = 0; i < jobs; ++i) {
            bool idle = false;
            EXPECT_TRUE(batch.next(30, &idle).has_value());
        }
        // The lanes' starts that were due have happened (they do not wait
        // for a job of their own to reach the device).
        for (int i = 0; i < 200; ++i) {
            {
                std::lock_guard<std::mutex> lock(starts.mu);
                if (starts.spans.size() >= size_t(std::min(jobs, 4))) break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        // Time for a start that is not due to happen (and be recorded) anyway.
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
    }
    std::lock_guard<std::mutex> lock(starts.mu);
    return starts.spans;
}

}  // namespace

TEST(BatchLanesStart, EachLanesWorkerStartsOnceThePreviousLanesHas) {
    ::unsetenv("KBENCH_LANES_START_TOGETHER");
    auto spans = lane_starts(8);
    ASSERT_EQ(spans.size(), 4u);  // lane 0's and three more
    for (size_t i = 1; i < spans.size(); ++i)
        EXPECT_GE(spans[i].first, spans[i - 1].second) << "lane " << i << " started beside lane " << i - 1;
}

TEST(BatchLanesStart, OnlyTheLanesWithAJobStartTheirWorkers) {
    ::unsetenv("KBENCH_LANES_START_TOGETHER");
    EXPECT_EQ(lane_starts(2).size(), 2u);
}

TEST(BatchLanesStart, TheOldOrderStartsThemTogether) {
    ::setenv("KBENCH_LANES_START_TOGETHER", "1", 1);
    auto spans = lane_starts(8);
    ::unsetenv("KBENCH_LANES_START_TOGETHER");
    ASSERT_EQ(spans.size(), 4u);
    // Lanes 1-3 overlap one another.
    EXPECT_LT(spans[2].first, spans[1].second);
    EXPECT_LT(spans[3].first, spans[1].second);
}
