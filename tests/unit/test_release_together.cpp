// util/release_together.h: owners that end slowly end side by side, every
// one of them, before the call returns.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "util/release_together.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kEach = std::chrono::milliseconds(200);

struct SlowToEnd {
    std::atomic<int>* ended;
    explicit SlowToEnd(std::atomic<int>* e) : ended(e) {}
    ~SlowToEnd() {
        std::this_thread::sleep_for(kEach);
        ++*ended;
    }
};

TEST(ReleaseTogether, SlowOwnersEndSideBySideAndAllBeforeItReturns) {
    std::atomic<int> ended{0};
    std::vector<std::unique_ptr<SlowToEnd>> owners;
    for (int i = 0; i < 5; ++i) owners.push_back(std::make_unique<SlowToEnd>(&ended));
    owners.push_back(nullptr);  // an empty owner is fine
    const auto t0 = Clock::now();
    kb::release_together(std::move(owners));
    const auto took = Clock::now() - t0;
    EXPECT_EQ(ended.load(), 5);
    EXPECT_GE(took, kEach);
    EXPECT_LT(took, 3 * kEach) << "one after another would take 5 x 200 ms";
}

TEST(ReleaseTogether, OwnersOfDifferentTypesAsSharedPointers) {
    std::atomic<int> ended{0};
    std::vector<std::shared_ptr<void>> owners;
    owners.emplace_back(std::make_unique<SlowToEnd>(&ended));
    owners.emplace_back(std::make_unique<int>(7));
    kb::release_together(std::move(owners));
    EXPECT_EQ(ended.load(), 1);
}

}  // namespace
