// kbench run's moves of waiting candidates to an idle GPU (src/cli/run_rebalance.h).
#include <gtest/gtest.h>

#include "cli/run_rebalance.h"

using kb::cli::LaneLoad;
using kb::cli::plan_rebalance;

TEST(RunRebalance, MovesHalfTheDifferenceToTheIdleLane) {
    // GPU 0 is done; GPU 1 has 4 on its device and 10 waiting.
    auto m = plan_rebalance({{0, 4, 0, 0}, {14, 4, 0, 0}});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->from, 1u);
    EXPECT_EQ(m->to, 0u);
    EXPECT_EQ(m->count, 7u);
}

TEST(RunRebalance, MovesOnlyWhatWaits) {
    // 4 on the device and 2 waiting: only the 2 may move, and half the difference is 3.
    auto m = plan_rebalance({{6, 4, 0, 0}, {0, 4, 0, 0}});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->from, 0u);
    EXPECT_EQ(m->to, 1u);
    EXPECT_EQ(m->count, 2u);
}

TEST(RunRebalance, NothingWhenNoLaneHasAFreeDeviceLane) {
    EXPECT_FALSE(plan_rebalance({{4, 4, 0, 0}, {20, 4, 0, 0}}));
}

TEST(RunRebalance, NothingWhenNothingWaits) {
    EXPECT_FALSE(plan_rebalance({{0, 4, 0, 0}, {4, 4, 0, 0}}));
    EXPECT_FALSE(plan_rebalance({{1, 4, 0, 0}, {3, 4, 0, 0}}));
}

TEST(RunRebalance, NothingWithOneLane) {
    EXPECT_FALSE(plan_rebalance({{0, 4, 0, 0}}));
    EXPECT_FALSE(plan_rebalance({}));
}

TEST(RunRebalance, NothingWhenMovingWouldNotBringThemCloser) {
    // GPU 0 has 3 (a lane free), GPU 1 has 5 (1 waiting): moving it gives 4 and 4.
    auto m = plan_rebalance({{3, 4, 0, 0}, {5, 4, 0, 0}});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->count, 1u);
    // 3 and 4: one waiting nowhere; nothing.
    EXPECT_FALSE(plan_rebalance({{3, 4, 0, 0}, {4, 4, 0, 0}}));
}

TEST(RunRebalance, CountsMovesUnderWay) {
    // 7 already leaving GPU 1 for GPU 0: the lanes will hold 7 and 7, nothing more moves.
    EXPECT_FALSE(plan_rebalance({{0, 4, 0, 7}, {14, 4, 7, 0}}));
    // 3 under way: 3 against 11 (7 waiting); two more.
    auto m = plan_rebalance({{0, 4, 0, 3}, {14, 4, 3, 0}});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->count, 4u);
}

TEST(RunRebalance, PicksTheIdlestAndTheBusiest) {
    auto m = plan_rebalance({{5, 4, 0, 0}, {0, 4, 0, 0}, {12, 4, 0, 0}, {2, 4, 0, 0}});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->from, 2u);
    EXPECT_EQ(m->to, 1u);
    EXPECT_EQ(m->count, 6u);
}
