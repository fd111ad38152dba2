// The lanes' GPU phase lock (engine/gpu_phase.h): correctness work shares
// the GPU, timing has it alone, a waiting timer is not starved by a
// stream of correctness work, and does not stall the others behind a sharer
// that looks hung.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "engine/gpu_phase.h"

namespace {

using namespace std::chrono_literals;

// One more sharer in: `sharing` counts it, `max_sharing` keeps the most
// seen at once.
void enter(std::atomic<int>& sharing, std::atomic<int>& max_sharing) {
    int now = sharing.fetch_add(1) + 1;
    int seen = max_sharing.load();
    while (now > seen && !max_sharing.compare_exchange_weak(seen, now)) {
    }
}

TEST(GpuPhaseLock, SharersOverlapAndATimerIsAlone) {
    kb::GpuPhaseLock lock;
    std::atomic<int> sharing{0}, max_sharing{0}, timing{0};
    std::atomic<bool> overlap_with_timer{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                if ((i + t) % 10 == 0) {
                    std::unique_lock<kb::GpuPhaseLock> l(lock);
                    if (sharing.load() != 0 || timing.fetch_add(1) != 0) overlap_with_timer = true;
                    std::this_thread::sleep_for(50us);
                    timing.fetch_sub(1);
                } else {
                    std::shared_lock<kb::GpuPhaseLock> l(lock);
                    if (timing.load() != 0) overlap_with_timer = true;
                    enter(sharing, max_sharing);
                    std::this_thread::sleep_for(50us);
                    sharing.fetch_sub(1);
                }
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_FALSE(overlap_with_timer) << "a timer ran beside other work";
    EXPECT_GT(max_sharing.load(), 1) << "correctness work never overlapped";
}

TEST(GpuPhaseLock, AWaitingTimerStopsNewSharersAndGetsTheGpu) {
    kb::GpuPhaseLock lock;
    std::atomic<bool> stop{false};
    // Three "lanes" comparing back to back, always at least one inside: with a
    // reader-preferring lock a timer would wait for a gap that never comes.
    std::vector<std::thread> sharers;
    for (int t = 0; t < 3; ++t)
        sharers.emplace_back([&] {
            while (!stop) {
                std::shared_lock<kb::GpuPhaseLock> l(lock);
                std::this_thread::sleep_for(2ms);
            }
        });
    std::this_thread::sleep_for(10ms);
    auto t0 = std::chrono::steady_clock::now();
    {
        std::unique_lock<kb::GpuPhaseLock> l(lock);
    }
    auto waited = std::chrono::steady_clock::now() - t0;
    stop = true;
    for (auto& t : sharers) t.join();
    EXPECT_LT(waited, 500ms) << "the timer waited behind a stream of correctness work";
}

// Steps taken in order, not by sleeping: under ThreadSanitizer a thread may
// start many milliseconds late.
void wait_until(const std::function<bool()>& ready) {
    while (!ready()) std::this_thread::sleep_for(100us);
}

TEST(GpuPhaseLock, BehindASharerThatLooksHungAWaitingTimerLetsOtherWorkIn) {
    // A candidate spinning until its deadline holds its share; the timer
    // cannot time beside it, so the other lanes' correctness work goes on
    // meanwhile, and the timer still never runs beside anyone.
    const auto suspect = 30ms;
    kb::GpuPhaseLock lock(suspect);
    std::atomic<bool> holding{false}, hang_done{false}, release{false}, timed{false}, overlap{false};
    std::atomic<int> sharing{0};
    std::chrono::steady_clock::time_point hang_since;
    std::thread hang([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        hang_since = std::chrono::steady_clock::now();
        sharing.fetch_add(1);
        holding = true;
        // Until the test is done with it; a lock that stalls new work behind
        // the timer would wait here for ever without the limit.
        const auto limit = std::chrono::steady_clock::now() + 2s;
        wait_until([&] { return release.load() || std::chrono::steady_clock::now() > limit; });
        sharing.fetch_sub(1);
        hang_done = true;
    });
    wait_until([&] { return holding.load(); });
    std::thread timer([&] {
        std::unique_lock<kb::GpuPhaseLock> l(lock);
        if (sharing.load() != 0) overlap = true;
        timed = true;
    });
    wait_until([&] { return lock.timers_waiting() == 1; });
    // Before the hang looks hung, new work waits behind the timer; after,
    // it goes on beside the hang.
    std::chrono::steady_clock::time_point first_in;
    int done_during_hang = 0;
    for (int i = 0; i < 5; ++i) {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        if (i == 0) first_in = std::chrono::steady_clock::now();
        if (timed) overlap = true;
        if (!hang_done) ++done_during_hang;
    }
    release = true;
    hang.join();
    timer.join();
    EXPECT_FALSE(overlap) << "the timer ran beside other work";
    EXPECT_EQ(done_during_hang, 5) << "correctness work waited for the hang to end";
    // The lock counts the hang's age from just before hang_since.
    EXPECT_GE(first_in - hang_since, suspect - 5ms) << "new work went ahead of the timer before the hang looked hung";
    EXPECT_TRUE(timed);
}

TEST(GpuPhaseLock, OnceNoSharerLooksHungTheTimerComesFirstAgain) {
    const auto suspect = 30ms;
    kb::GpuPhaseLock lock(suspect);
    std::atomic<bool> holding{false}, timed{false};
    std::thread hang([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        holding = true;
        std::this_thread::sleep_for(100ms);
    });
    wait_until([&] { return holding.load(); });
    std::thread timer([&] {
        std::unique_lock<kb::GpuPhaseLock> l(lock);
        timed = true;
    });
    wait_until([&] { return lock.timers_waiting() == 1; });
    hang.join();  // the old sharer is gone; the timer is first in line
    std::shared_lock<kb::GpuPhaseLock> l(lock);
    EXPECT_TRUE(timed) << "new correctness work went ahead of a waiting timer with no sharer hung";
    l.unlock();
    timer.join();
}

}  // namespace

// A batch lane tries for the GPU alone and takes other work when it is busy
// (engine/timing_backlog.h): the try never waits, never goes ahead of a timer
// in line, and never times beside a sharer.
TEST(GpuPhaseLock, TryLockTakesTheGpuOnlyWhenNobodyHoldsOrWaitsForIt) {
    kb::GpuPhaseLock lock;
    {
        std::unique_lock<kb::GpuPhaseLock> alone(lock, std::try_to_lock);
        EXPECT_TRUE(alone.owns_lock()) << "a free GPU was refused";
        std::unique_lock<kb::GpuPhaseLock> second(lock, std::try_to_lock);
        EXPECT_FALSE(second.owns_lock()) << "two timers at once";
    }
    std::atomic<bool> sharing{false}, release{false};
    std::thread sharer([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        sharing = true;
        wait_until([&] { return release.load(); });
    });
    wait_until([&] { return sharing.load(); });
    {
        std::unique_lock<kb::GpuPhaseLock> alone(lock, std::try_to_lock);
        EXPECT_FALSE(alone.owns_lock()) << "a timer beside a sharer";
    }
    // A timer in line behind the sharer: a try must not go ahead of it, even
    // in the moment after the sharer leaves.
    std::atomic<bool> timed{false};
    std::thread timer([&] {
        std::unique_lock<kb::GpuPhaseLock> l(lock);
        timed = true;
        std::this_thread::sleep_for(5ms);
    });
    wait_until([&] { return lock.timers_waiting() == 1; });
    {
        std::unique_lock<kb::GpuPhaseLock> alone(lock, std::try_to_lock);
        EXPECT_FALSE(alone.owns_lock()) << "a try went ahead of a timer in line";
    }
    release = true;
    sharer.join();
    timer.join();
    EXPECT_TRUE(timed.load());
    std::unique_lock<kb::GpuPhaseLock> alone(lock, std::try_to_lock);
    EXPECT_TRUE(alone.owns_lock()) << "the GPU stayed taken after everyone left";
}

TEST(GpuPhaseLock, ASharerLooksHungOnlyOnceItHeldTheGpuForTheSuspectTime) {
    const auto suspect = 30ms;
    kb::GpuPhaseLock lock(suspect);
    EXPECT_FALSE(lock.sharer_looks_hung()) << "nobody holds the GPU";
    std::atomic<bool> holding{false}, release{false};
    auto since = std::chrono::steady_clock::now();
    std::thread sharer([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        holding = true;
        wait_until([&] { return release.load(); });
    });
    wait_until([&] { return holding.load(); });
    // Read at once, it may only say hung if the suspect time has passed already
    // (a slow machine); it must say so once it has.
    if (std::chrono::steady_clock::now() - since < suspect - 5ms)
        EXPECT_FALSE(lock.sharer_looks_hung()) << "a sharer looked hung at once";
    std::this_thread::sleep_for(suspect + 10ms);
    EXPECT_TRUE(lock.sharer_looks_hung()) << "a sharer held the GPU past the suspect time";
    release = true;
    sharer.join();
    EXPECT_FALSE(lock.sharer_looks_hung()) << "nobody holds the GPU any more";
}

// A batch lane with other work waits for the GPU alone only until a sharer
// looks hung (engine/timing_backlog.h, may_give_up): then it leaves the line
// and does that work instead of idling behind a hang.
TEST(GpuPhaseLock, ATimerThatMayGiveUpLeavesTheLineOnceASharerLooksHung) {
    const auto suspect = 30ms;
    kb::GpuPhaseLock lock(suspect);
    ASSERT_TRUE(lock.lock_unless_hung()) << "a free GPU was refused";
    lock.unlock();

    // A sharer that leaves in time: the timer gets the GPU.
    std::atomic<bool> holding{false}, release{false};
    std::thread brief([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        holding = true;
        wait_until([&] { return release.load(); });
    });
    wait_until([&] { return holding.load(); });
    std::thread releaser([&] {
        wait_until([&] { return lock.timers_waiting() == 1; });
        release = true;
    });
    const auto t0 = std::chrono::steady_clock::now();
    const bool got = lock.lock_unless_hung();
    if (std::chrono::steady_clock::now() - t0 < suspect - 5ms) EXPECT_TRUE(got) << "gave up before any sharer looked hung";
    if (got) lock.unlock();
    brief.join();
    releaser.join();

    // A sharer that stays (a hang): the timer gives up once it looks hung,
    // leaves the line, and new sharers get in.
    holding = false;
    release = false;
    std::thread hang([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        holding = true;
        wait_until([&] { return release.load(); });
    });
    wait_until([&] { return holding.load(); });
    EXPECT_FALSE(lock.lock_unless_hung()) << "a timer got the GPU beside a sharer";
    EXPECT_TRUE(lock.sharer_looks_hung()) << "it gave up before the sharer looked hung";
    EXPECT_EQ(lock.timers_waiting(), 0u) << "it stayed in line";
    {
        std::shared_lock<kb::GpuPhaseLock> other(lock);  // would wait for a timer in line
        EXPECT_TRUE(other.owns_lock());
    }
    release = true;
    hang.join();
}

// set_max_sharers: more lanes than may run correctness work at once (they
// import and compile without the GPU phase). No more than the cap share the
// GPU, the cap still lets that many overlap, and a sharer that looks hung
// frees its slot rather than hold it until its deadline.
TEST(GpuPhaseLock, NoMoreThanTheCapShareTheGpuAndAHungSharerFreesItsSlot) {
    const auto suspect = 60ms;
    kb::GpuPhaseLock lock(suspect);
    lock.set_max_sharers(2);
    EXPECT_EQ(lock.max_sharers(), 2u);
    std::atomic<int> sharing{0}, max_sharing{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 40; ++i) {
                std::shared_lock<kb::GpuPhaseLock> l(lock);
                enter(sharing, max_sharing);
                std::this_thread::sleep_for(500us);
                sharing.fetch_sub(1);
            }
        });
    for (auto& t : threads) t.join();
    EXPECT_LE(max_sharing.load(), 2) << "more sharers than the cap";
    EXPECT_EQ(max_sharing.load(), 2) << "the cap's sharers never overlapped";

    // One slot, held by a sharer that stays (a hang): the next sharer waits
    // until it looks hung, then gets in beside it.
    lock.set_max_sharers(1);
    std::atomic<bool> holding{false}, release{false};
    std::chrono::steady_clock::time_point held_from;
    std::thread hang([&] {
        std::shared_lock<kb::GpuPhaseLock> l(lock);
        held_from = std::chrono::steady_clock::now();  // just after its share began
        holding = true;
        wait_until([&] { return release.load(); });
    });
    wait_until([&] { return holding.load(); });
    {
        std::shared_lock<kb::GpuPhaseLock> next(lock);
        EXPECT_TRUE(next.owns_lock());
        EXPECT_GE(std::chrono::steady_clock::now() - held_from, suspect - 1ms)
            << "it got in beside a sharer that filled the cap";
        EXPECT_TRUE(lock.sharer_looks_hung());
    }
    release = true;
    hang.join();
}
