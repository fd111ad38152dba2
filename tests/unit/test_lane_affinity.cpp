// Which compiled job a batch's lane takes (engine/lane_affinity.h): the
// oldest, unless a job of a task the lane ran lately is among the oldest
// ones, and never passing over the oldest without bound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/lane_affinity.h"

namespace {

using kb::LaneAffinity;

std::vector<LaneAffinity::Ready> ready(const std::vector<const std::string*>& tasks, unsigned oldest_skipped = 0) {
    std::vector<LaneAffinity::Ready> r;
    for (const std::string* t : tasks) r.push_back({t, 0});
    if (!r.empty()) r.front().skipped = oldest_skipped;
    return r;
}

const std::string A = "task-a", B = "task-b", C = "task-c", D = "task-d", E = "task-e", F = "task-f";

TEST(LaneAffinity, ALaneWithNoHistoryTakesTheOldest) {
    LaneAffinity a;
    EXPECT_EQ(a.choose(0, ready({&A, &B, &C})), 0u);
    EXPECT_EQ(a.choose(3, ready({&B})), 0u);
}

TEST(LaneAffinity, ALaneTakesTheOldestJobOfATaskItRanLately) {
    LaneAffinity a;
    a.took(0, B);
    a.took(1, A);
    EXPECT_EQ(a.choose(0, ready({&A, &C, &B, &B})), 2u);
    EXPECT_EQ(a.choose(1, ready({&C, &A, &B})), 1u);
    EXPECT_EQ(a.choose(0, ready({&A, &C})), 0u) << "none of its tasks: the oldest";
}

TEST(LaneAffinity, OnlyTheWindowOfOldestJobsIsSearched) {
    LaneAffinity a;
    a.took(0, B);
    std::vector<const std::string*> tasks(LaneAffinity::kWindow, &A);
    tasks.push_back(&B);  // just past the window
    EXPECT_EQ(a.choose(0, ready(tasks)), 0u);
}

TEST(LaneAffinity, TheOldestJobIsPassedOverABoundedNumberOfTimes) {
    LaneAffinity a;
    a.took(0, B);
    EXPECT_EQ(a.choose(0, ready({&A, &B}, LaneAffinity::kMaxSkips - 1)), 1u);
    EXPECT_EQ(a.choose(0, ready({&A, &B}, LaneAffinity::kMaxSkips)), 0u);
}

TEST(LaneAffinity, ALaneRemembersItsLatestTasksOnly) {
    LaneAffinity a;
    for (const std::string* t : {&A, &B, &C, &D, &E}) a.took(0, *t);  // kRecent = 4: A is forgotten
    static_assert(LaneAffinity::kRecent == 4);
    EXPECT_EQ(a.choose(0, ready({&F, &A})), 0u);
    EXPECT_EQ(a.choose(0, ready({&F, &B})), 1u);
    a.took(0, B);  // B again: now the latest, and C the oldest remembered
    a.took(0, F);
    EXPECT_EQ(a.choose(0, ready({&A, &C})), 0u) << "C was pushed out by F";
    EXPECT_EQ(a.choose(0, ready({&A, &B})), 1u);
}

}  // namespace
