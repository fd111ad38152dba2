// When a batch lane times the candidates it kept waiting (engine/timing_backlog.h).
#include <gtest/gtest.h>

#include "engine/timing_backlog.h"

namespace {

using kb::TimingBacklog;

TEST(TimingBacklog, NothingWaitingNeverWaitsForTheGpu) {
    TimingBacklog b;
    EXPECT_FALSE(b.must_wait(0, false, false));
    EXPECT_FALSE(b.must_wait(0, true, true));
}

TEST(TimingBacklog, ALaneWithNoOtherWorkWaitsForTheGpuAtOnce) {
    TimingBacklog b;
    EXPECT_TRUE(b.must_wait(1, false, false));
    EXPECT_TRUE(b.must_wait(1, false, true)) << "beside a hang too: it has nothing better to do";
}

TEST(TimingBacklog, ALaneKeepsUpToItsLimitWhileOtherWorkIsReady) {
    TimingBacklog b;
    ASSERT_EQ(b.limit, TimingBacklog::kDefault);
    for (size_t n = 1; n < b.limit; ++n) EXPECT_FALSE(b.must_wait(n, true, false)) << n << " waiting";
    EXPECT_TRUE(b.must_wait(b.limit, true, false));
    EXPECT_TRUE(b.must_wait(b.limit + 1, true, false));
    EXPECT_TRUE(b.may_keep());
}

TEST(TimingBacklog, BesideAHangALaneKeepsMoreBeforeItWaits) {
    TimingBacklog b;
    EXPECT_FALSE(b.must_wait(b.limit, true, true)) << "it would wait for the hang to be stopped";
    EXPECT_FALSE(b.must_wait(TimingBacklog::kMaxBesideHang - 1, true, true));
    EXPECT_TRUE(b.must_wait(TimingBacklog::kMaxBesideHang, true, true)) << "the bound holds beside a hang too";
}

TEST(TimingBacklog, ALaneWithOtherWorkMayGiveUpItsWaitUnlessItKeepsTheMostItMay) {
    TimingBacklog b;
    EXPECT_TRUE(b.may_give_up(b.limit, true)) << "should a sharer look hung, it would keep more";
    EXPECT_TRUE(b.may_give_up(TimingBacklog::kMaxBesideHang - 1, true));
    EXPECT_FALSE(b.may_give_up(TimingBacklog::kMaxBesideHang, true)) << "the bound holds";
    EXPECT_FALSE(b.may_give_up(1, false)) << "nothing else to do";
    b.limit = 0;
    EXPECT_FALSE(b.may_give_up(1, true)) << "no backlog: each candidate is timed at once";
}

TEST(TimingBacklog, ALimitOfZeroTimesEachCandidateAtOnce) {
    TimingBacklog b;
    b.limit = 0;
    EXPECT_FALSE(b.may_keep());
    EXPECT_TRUE(b.must_wait(1, true, false));
    EXPECT_TRUE(b.must_wait(1, true, true));
}

TEST(TimingBacklog, ALimitAboveTheHangBoundStillHolds) {
    TimingBacklog b;
    b.limit = TimingBacklog::kMaxBesideHang + 8;
    EXPECT_FALSE(b.must_wait(TimingBacklog::kMaxBesideHang, true, true));
    EXPECT_TRUE(b.must_wait(b.limit, true, true));
}

}  // namespace
