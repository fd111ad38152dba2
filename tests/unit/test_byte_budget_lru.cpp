// The LRU under the reference caches (util/byte_budget_lru.h): eviction by
// recency past a byte budget, the newest entry kept, replacement by key,
// values that outlive their eviction, and threads using it together.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "util/byte_budget_lru.h"

using namespace kb;

namespace {

struct Blob {
    size_t n;
    size_t bytes() const { return n; }
};

std::shared_ptr<const Blob> blob(size_t n) { return std::make_shared<const Blob>(Blob{n}); }

}  // namespace

TEST(ByteBudgetLru, DropsTheLeastRecentlyUsedPastTheBudget) {
    ByteBudgetLru<Blob> lru(100);
    lru.put("a", blob(40));
    lru.put("b", blob(40));
    ASSERT_TRUE(lru.find("a"));  // "a" is now the most recent
    lru.put("c", blob(40));      // 120 > 100: "b" goes
    EXPECT_TRUE(lru.find("a"));
    EXPECT_FALSE(lru.find("b"));
    EXPECT_TRUE(lru.find("c"));
    EXPECT_EQ(lru.bytes(), 80u);
}

TEST(ByteBudgetLru, KeepsTheNewestEvenWhenItAloneIsOverAndReplacesByKey) {
    ByteBudgetLru<Blob> lru(100);
    lru.put("a", blob(10));
    lru.put("big", blob(500));
    EXPECT_EQ(lru.size(), 1u);
    EXPECT_TRUE(lru.find("big"));
    lru.put("big", blob(30));  // replaced, not counted twice
    EXPECT_EQ(lru.size(), 1u);
    EXPECT_EQ(lru.bytes(), 30u);
}

TEST(ByteBudgetLru, AValueFoundOutlivesItsEviction) {
    ByteBudgetLru<Blob> lru(50);
    lru.put("a", blob(40));
    auto held = lru.find("a");
    lru.put("b", blob(40));
    EXPECT_FALSE(lru.find("a"));
    EXPECT_EQ(held->n, 40u);
}

TEST(ByteBudgetLru, ThreadsPutAndFindTogether) {
    ByteBudgetLru<Blob> lru(1000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                std::string k = std::to_string((i * 7 + t) % 64);
                if (!lru.find(k)) lru.put(k, blob(size_t(1 + i % 50)));
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_LE(lru.bytes(), 1000u);
    EXPECT_GE(lru.size(), 1u);
}

TEST(ByteBudgetLru, EraseDropsOneEntryAndItsBytes) {
    ByteBudgetLru<Blob> lru(100);
    lru.put("a", blob(40));
    lru.put("b", blob(30));
    auto held = lru.find("a");
    lru.erase("a");
    EXPECT_FALSE(lru.find("a"));
    EXPECT_TRUE(lru.find("b"));
    EXPECT_EQ(lru.bytes(), 30u);
    EXPECT_EQ(held->n, 40u) << "a value held by a caller outlives its erasure";
    lru.erase("nothing");  // no such key: nothing changes
    EXPECT_EQ(lru.size(), 1u);
}
