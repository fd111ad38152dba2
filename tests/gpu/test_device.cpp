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
