// A case that cannot fit the device (or the host) is refused before a byte
// is allocated (src/exec/memory_budget.cpp); the device is described by its
// numbers, so this runs without one.
#include <gtest/gtest.h>

#include "exec/memory_budget.h"
#include "task/task.h"
#include "util/error.h"

namespace {

using kb::Json;

kb::TaskPtr task_with_perf_n(int64_t n) {
    Json t = Json::parse(R"J({
      "format": "kbench-task/1", "name": "big", "dims": {"n": "elements"},
      "cases": [{"name": "one", "dims": {"n": 1}}],
      "args": [
        {"name": "a", "role": "in", "dtype": "f32", "shape": ["n"]},
        {"name": "c", "role": "out", "dtype": "f64", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}}
      ],
      "reference": {"source": "__global__ void r(const float* a, double* c) {}",
                    "launch": [{"kernel": "r", "grid": 1, "block": 1, "args": ["a", "c"],
                                "_": "grid 1 at every size: the plan is not what is checked here"}],
                    "scratch": [{"name": "s", "dtype": "f32", "shape": ["n"]}]}
    })J");
    t["perf_case"] = {{"dims", {{"n", n}}}};
    return kb::load_task_json(t.dump(), "");
}

std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_OUT_OF_MEMORY) << e.what();
        return e.what();
    }
    return "";
}

TEST(MemoryBudget, FootprintCountsPaddingAndGuardsWithoutOverflow) {
    EXPECT_EQ(kb::device_footprint(1), 256u + 2 * kb::DeviceBuffer::kGuardBytes);
    EXPECT_EQ(kb::device_footprint(257), 512u + 2 * kb::DeviceBuffer::kGuardBytes);
    EXPECT_EQ(kb::device_footprint(~uint64_t(0) - 3), ~uint64_t(0));  // saturates
}

TEST(MemoryBudget, CaseBeyondTheDeviceIsRefusedNamingItsLargestBuffer) {
    const uint64_t gib80 = uint64_t(80) << 30;
    // 2^33 elements: 32 GiB of f32 plus 64 GiB of f64, more than 80 GiB.
    kb::TaskPtr t = task_with_perf_n(int64_t(1) << 33);
    std::string msg = refusal([&] { kb::check_case_fits(*t, t->perf_index, gib80, 0, "NVIDIA H100 80GB HBM3"); });
    EXPECT_NE(msg.find("case 'perf' of task 'big' needs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("args[1] 'c'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("NVIDIA H100 80GB HBM3"), std::string::npos) << msg;
    // The small case fits; so does the big one on a (hypothetical) larger device.
    EXPECT_NO_THROW(kb::check_case_fits(*t, 0, gib80, 0, "x"));
    EXPECT_NO_THROW(kb::check_case_fits(*t, t->perf_index, gib80 * 2, 0, "x"));
    // Outputs are kept host-side: a host with 64 GiB cannot hold 64 GiB of them twice.
    msg = refusal([&] { kb::check_case_fits(*t, t->perf_index, gib80 * 2, uint64_t(64) << 30, "x"); });
    EXPECT_NE(msg.find("host memory"), std::string::npos) << msg;
}

TEST(MemoryBudget, ScratchOnTopOfTheBuffers) {
    kb::TaskPtr t = task_with_perf_n(int64_t(1) << 30);  // 4 GiB of f32 scratch
    const kb::Case& perf = t->cases[size_t(t->perf_index)];
    EXPECT_NO_THROW(kb::check_scratch_fits(t->reference, perf, 0, uint64_t(8) << 30, "x"));
    std::string msg =
        refusal([&] { kb::check_scratch_fits(t->reference, perf, uint64_t(6) << 30, uint64_t(8) << 30, "GPU"); });
    EXPECT_NE(msg.find("scratch buffers"), std::string::npos) << msg;
    EXPECT_GT(kb::host_memory_bytes(), 0u);
}

}  // namespace
