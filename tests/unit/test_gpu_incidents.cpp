// The context's record of GPU-disturbing failures (engine/gpu_incidents.h):
// a lane's request overlaps another lane's incident, or its aftermath, and
// never its own.
#include <gtest/gtest.h>

#include <chrono>

#include "engine/gpu_incidents.h"

namespace {

using namespace std::chrono_literals;
using Clock = kb::GpuIncidents::Clock;

TEST(GpuIncidents, AnotherLanesIncidentOverlapsWithItsAftermathAndAnOwnOneDoesNot) {
    kb::GpuIncidents log;
    const Clock::time_point t = Clock::now();
    log.record(1, t, t + 2s);  // lane 1 hung for two seconds
    EXPECT_TRUE(log.others_overlap(0, t + 1s, t + 3s));
    EXPECT_TRUE(log.others_overlap(0, t - 1s, t + 100ms));
    // Its worker is torn down after the reply: the aftermath counts.
    EXPECT_TRUE(log.others_overlap(0, t + 2500ms, t + 4s));
    EXPECT_FALSE(log.others_overlap(0, t + 2s + kb::GpuIncidents::kAftermath + 1ms, t + 5s));
    EXPECT_FALSE(log.others_overlap(0, t - 3s, t - 1s));
    EXPECT_FALSE(log.others_overlap(1, t + 1s, t + 3s)) << "a lane's own incident is no excuse";
}

// A timeout that ended in its worker (a checked build's loops stopped
// themselves) killed nothing: it disturbs the GPU while it runs and for the
// reply's way back, not for a teardown's second.
TEST(GpuIncidents, ATimeoutThatEndedInItsWorkerHasAShortAftermath) {
    kb::GpuIncidents log;
    const Clock::time_point t = Clock::now();
    log.record(1, t, t + 250ms, kb::GpuIncidents::kInPlaceAftermath);
    EXPECT_TRUE(log.others_overlap(0, t + 100ms, t + 400ms)) << "ran beside its spin";
    EXPECT_TRUE(log.others_overlap(0, t + 250ms + kb::GpuIncidents::kInPlaceAftermath, t + 400ms));
    EXPECT_FALSE(log.others_overlap(0, t + 250ms + kb::GpuIncidents::kInPlaceAftermath + 1ms, t + 600ms))
        << "started after its spin was over";
    EXPECT_FALSE(log.others_overlap(1, t + 100ms, t + 400ms));
    log.record(2, t, t + 250ms);  // a killed worker's: the full aftermath
    EXPECT_TRUE(log.others_overlap(0, t + 250ms + kb::GpuIncidents::kInPlaceAftermath + 1ms, t + 600ms));
}

TEST(GpuIncidents, AnotherLanesLongRequestStillRunningCounts) {
    kb::GpuIncidents log;
    const Clock::time_point t = Clock::now();
    log.begin(1, t);  // lane 1's request, not over yet
    EXPECT_FALSE(log.others_overlap(0, t, t + 100ms)) << "an ordinary request in flight";
    EXPECT_TRUE(log.others_overlap(0, t, t + kb::GpuIncidents::kLong)) << "the other hang, not yet stopped";
    EXPECT_FALSE(log.others_overlap(1, t, t + 5s)) << "its own";
    log.end(1);
    EXPECT_FALSE(log.others_overlap(0, t, t + 5s)) << "ended without an incident";
}

TEST(GpuIncidents, KeepsABoundedHistory) {
    kb::GpuIncidents log;
    const Clock::time_point t = Clock::now();
    log.record(2, t, t + 1ms);
    for (int i = 0; i < 1000; ++i) log.record(1, t + 1h + std::chrono::seconds(i), t + 1h + std::chrono::seconds(i));
    EXPECT_FALSE(log.others_overlap(0, t, t + 1ms)) << "the oldest incident was dropped";
    EXPECT_TRUE(log.others_overlap(0, t + 1h + 999s, t + 1h + 999s));
}

}  // namespace
