// The device layer's own kernels: GPU comparison agrees with the host's,
// guard zones catch small overruns, timing gives sane numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compare/comparator.h"
#include "device/device.h"
#include "engine/result_json.h"
#include "gpu_test_util.h"
#include "measure/timer.h"

using namespace kb;

TEST(Device, GpuCompareEqualsHostCompare) {
    Device dev(0);
    const uint64_t n = (1u << 20) + 37;
    HostTensor ref, cand;
    ref.name = cand.name = "y";
    ref.shape = cand.shape = {int64_t(n)};
    ref.bytes.resize(n * 4);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> r(n), c(n);
    for (uint64_t i = 0; i < n; ++i) r[i] = c[i] = u(rng);
    c[12345] += 0.5f;
    c[999999] = NAN;
    c[77] += 1e-3f;
    uint32_t poison = 0x7fa5a5a5u;
    std::memcpy(&c[5000], &poison, 4);
    std::memcpy(ref.bytes.data(), r.data(), n * 4);
    cand.bytes.resize(n * 4);
    std::memcpy(cand.bytes.data(), c.data(), n * 4);
    Arg arg;
    arg.name = "y";
    arg.role = Role::out;
    arg.tolerance = Tolerance{1e-4, 1e-4, true};
    OutputReport host = compare_host(cand, ref, arg);

    DeviceBuffer dc = dev.alloc(n * 4), dr = dev.alloc(n * 4);
    dev.upload(dc.data(), c.data(), n * 4);
    dev.upload(dr.data(), r.data(), n * 4);
    CompareStats g = dev.compare(dc.data(), dr.data(), n, DType::f32, *arg.tolerance);
    EXPECT_EQ(g.mismatches, host.mismatches);
    EXPECT_EQ(g.mismatches, 4u);
    EXPECT_EQ(g.unwritten, host.unwritten);
    EXPECT_EQ(g.unwritten, 1u);
    EXPECT_EQ(g.max_violation, host.max_violation);
    EXPECT_EQ(g.worst_index, host.worst_flat);
    EXPECT_EQ(g.max_abs_err, host.max_abs_err);
    // Both values at the worst element, read on the device: a report needs
    // no host copy of the reference (one held from a digest has none).
    float got = 0, expected = 0;
    std::memcpy(&got, &g.worst_bits, 4);
    std::memcpy(&expected, &g.expected_bits, 4);
    // The worst element here is the poisoned one: NaN, equal to nothing.
    auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    EXPECT_TRUE(same(got, host.worst_got)) << got << " against " << host.worst_got;
    EXPECT_TRUE(same(expected, host.worst_expected)) << expected << " against " << host.worst_expected;
    EXPECT_EQ(expected, r[g.worst_index]);
}

TEST(Device, GuardZonesCatchSmallOverruns) {
    Device dev(0);
    DeviceBuffer b = dev.alloc(1000);
    EXPECT_TRUE(dev.check_guards(b).intact());
    dev.fill_bytes(b.data(), 1000, 0);  // inside: fine
    EXPECT_TRUE(dev.check_guards(b).intact());
    dev.fill_bytes(b.data() + 1000, 4, 1);  // 4 bytes past the end
    GuardReport r = dev.check_guards(b);
    EXPECT_EQ(r.bad_bytes, 4u);
    EXPECT_EQ(r.first_bad_offset, 1000);
    dev.arm_guards(b);
    dev.fill_bytes(b.data() - 8, 1, 1);  // before the start
    r = dev.check_guards(b);
    EXPECT_EQ(r.bad_bytes, 1u);
    EXPECT_EQ(r.first_bad_offset, -8);
}

TEST(Device, ChecksumSeesEveryByte) {
    Device dev(0);
    DeviceBuffer b = dev.alloc(4099);
    dev.fill_random(b.data(), 4099, DType::u8, InitSpec{InitSpec::Dist::randint, 0, 255}, 1, 0);
    uint64_t s0 = dev.checksum(b.data(), 4099);
    EXPECT_EQ(s0, dev.checksum(b.data(), 4099));
    uint8_t byte = 0;
    dev.download(&byte, b.data() + 4098, 1);  // the tail byte, past the last 8-byte word
    byte ^= 1;
    dev.upload(b.data() + 4098, &byte, 1);
    EXPECT_NE(s0, dev.checksum(b.data(), 4099));
}

// A run's checks and its small outputs come back behind it, under one
// synchronisation, with the same results as the synchronous calls; the
// page-locked area they land in grows when a later readback needs more.
TEST(Device, ReadbackEqualsTheSynchronousChecksAndDownloads) {
    Device dev(0);
    DeviceBuffer a = dev.alloc(4099), b = dev.alloc(1000), big = dev.alloc(size_t(3) << 20);
    dev.fill_random(a.data(), 4099, DType::u8, InitSpec{InitSpec::Dist::randint, 0, 255}, 7, 0);
    dev.fill_random(big.data(), big.bytes(), DType::u8, InitSpec{InitSpec::Dist::randint, 0, 255}, 7, 1);
    dev.fill_bytes(b.data() + 1000, 3, 1);  // 3 bytes past b's end
    const uint64_t sum_a = dev.checksum(a.data(), a.bytes());
    const GuardReport guard_b = dev.check_guards(b);
    ASSERT_EQ(guard_b.bad_bytes, 3u);
    for (const DeviceBuffer* last : {&b, &big}) {
        SCOPED_TRACE(last == &big ? "with a 3 MB download" : "small downloads");
        Device::Readback rb;
        ASSERT_EQ(dev.enqueue_readback({{a.data(), a.bytes()}}, {&a, &b}, {{a.data(), a.bytes()}, {last->data(), last->bytes()}},
                                       &rb),
                  CUDA_SUCCESS);
        ASSERT_EQ(dev.sync_within(10.0), CUDA_SUCCESS);
        PostRunChecks c = dev.checks_of(rb);
        ASSERT_EQ(c.checksums.size(), 1u);
        EXPECT_EQ(c.checksums[0], sum_a);
        ASSERT_EQ(c.guards.size(), 2u);
        EXPECT_TRUE(c.guards[0].intact());
        EXPECT_EQ(c.guards[1].bad_bytes, guard_b.bad_bytes);
        EXPECT_EQ(c.guards[1].first_bad_offset, 1000);
        std::vector<uint8_t> want_a(a.bytes()), want_last(last->bytes());
        dev.download(want_a.data(), a.data(), a.bytes());
        dev.download(want_last.data(), last->data(), last->bytes());
        ASSERT_EQ(rb.downloads.size(), 2u);
        EXPECT_EQ(std::memcmp(dev.downloaded(rb, 0), want_a.data(), want_a.size()), 0);
        EXPECT_EQ(std::memcmp(dev.downloaded(rb, 1), want_last.data(), want_last.size()), 0);
    }
}

TEST(Device, ClockProbeReadsAPlausibleClock) {
    Device dev(0);
    double mhz = dev.measure_sm_clock_mhz(100);
    EXPECT_GT(mhz, 100.0);
    EXPECT_LT(mhz, 4000.0);
}

TEST(Timing, BaselineAgainstItselfIsOneX) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(test::task_file("copy_f32"));
    TaskBinding tb = ctx->bind(task);
    TimeRequest req;
    req.against_baseline = true;
    req.timing.budget_ms = 300;
    Json r = to_json(ctx->time(task, tb.baseline, req));
    ASSERT_TRUE(r.contains("speedup")) << r.dump(2);
    EXPECT_NEAR(r["speedup"].get<double>(), 1.0, 0.05) << r.dump(2);
    double gbps = r["candidate"]["gbps"].get<double>();
    double peak = test::local(*ctx).device().props().peak_dram_gbps();
    EXPECT_GT(gbps, 0.3 * peak) << r.dump(2);
    EXPECT_LT(gbps, 1.05 * peak) << r.dump(2);
    // Hot mode runs and reports launches per sample.
    req.timing.hot = true;
    req.against_baseline = false;
    Json h = to_json(ctx->time(task, nullptr, req));
    EXPECT_GT(h["baseline"]["median_us"].get<double>(), 0.0) << h.dump(2);
}
