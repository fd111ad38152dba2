// Sample statistics of the measurement protocol, and SHA-256 for the caches.
#include <gtest/gtest.h>

#include "engine/result_json.h"
#include "measure/stats.h"
#include "util/sha256.h"

using namespace kb;

TEST(Stats, MedianQuantilesAndNoise) {
    SampleStats s = summarize({5, 1, 3, 2, 4});
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.median, 3);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 5);
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_NEAR(s.stdev, 1.5811, 1e-4);
    EXPECT_DOUBLE_EQ(s.mad, 1);
    EXPECT_GT(s.rel_noise, 0);
    // One wild outlier barely moves the median or the robust noise estimate.
    std::vector<double> v(100, 10.0);
    for (int i = 0; i < 100; ++i) v[size_t(i)] += 0.01 * (i % 7);
    SampleStats a = summarize(v);
    v.push_back(1e6);
    SampleStats b = summarize(v);
    EXPECT_NEAR(a.median, b.median, 0.02);
    EXPECT_NEAR(a.rel_noise, b.rel_noise, a.rel_noise * 0.2 + 1e-9);
    EXPECT_GT(b.stdev, 1000 * a.stdev);
    TimedProgram t;
    t.stats = b;
    Json j = to_json(t);
    EXPECT_TRUE(j.contains("median_us"));
    EXPECT_TRUE(j.contains("p90_us"));
}

TEST(Stats, EmptyAndSingle) {
    EXPECT_EQ(summarize({}).count, 0u);
    SampleStats s = summarize({7});
    EXPECT_DOUBLE_EQ(s.median, 7);
    EXPECT_DOUBLE_EQ(s.stdev, 0);
}

TEST(Sha256, KnownAnswers) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    std::string million(1000000, 'a');
    EXPECT_EQ(sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // Streaming in pieces gives the same digest; length-prefixed fields keep boundaries.
    Sha256 h;
    h.update("ab").update("c");
    EXPECT_EQ(h.hex(), sha256_hex("abc"));
    EXPECT_NE(Sha256().field("ab").field("c").hex(), Sha256().field("a").field("bc").hex());
}
