// The long run's checks (bench/longrun_checks.h) can fail: a leaking series
// is rejected, a cache that fills and stops is not, and a child left running
// is found (then gone once reaped).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "../../bench/longrun_checks.h"

TEST(LongrunChecks, ALeakingSeriesIsNotFlatAndAFillingCacheIs) {
    std::vector<uint64_t> leak, cache;
    for (uint64_t i = 0; i < 20; ++i) {
        leak.push_back(100 + 10 * i);              // grows without end
        cache.push_back(100 + std::min<uint64_t>(i, 4) * 10);  // fills, then flat
    }
    std::string why;
    EXPECT_FALSE(longrun::flat(leak, 4, 50, &why));
    EXPECT_NE(why.find("above the highest of samples 4-"), std::string::npos) << why;
    EXPECT_TRUE(longrun::flat(cache, 4, 50, &why)) << why;
    EXPECT_FALSE(longrun::flat(cache, 40, 50, &why)) << "a series shorter than its warm-up proves nothing";
    // A noisy but level series (a context more or less at each sample) is flat.
    std::vector<uint64_t> noisy;
    for (uint64_t i = 0; i < 20; ++i) noisy.push_back(6000 + (i % 3) * 700);
    EXPECT_TRUE(longrun::flat(noisy, 3, 1024, &why)) << why;
}

TEST(LongrunChecks, AChildLeftRunningIsFoundAndAReapedOneIsNot) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    std::vector<long> left = longrun::descendants(getpid());
    EXPECT_NE(std::find(left.begin(), left.end(), long(child)), left.end());
    EXPECT_GT(longrun::rss_bytes(getpid()), 0u);
    kill(child, SIGKILL);
    // Killed but not reaped: a zombie is still left behind.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = longrun::descendants(getpid());
    EXPECT_NE(std::find(left.begin(), left.end(), long(child)), left.end());
    waitpid(child, nullptr, 0);
    left = longrun::descendants(getpid());
    EXPECT_EQ(std::find(left.begin(), left.end(), long(child)), left.end());
}
