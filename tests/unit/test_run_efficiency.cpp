// kbench run's efficiency figure (src/engine/efficiency.h): the fraction of
// the ceilings `kbench devices` cached, by the task's output type, computed
// by hand here; and the cache lookup by device name and driver.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/efficiency.h"
#include "support/task_paths.h"
#include "support/temp_dir.h"
#include "task/task.h"

namespace {

using kb::Json;

const Json kCeilings = {{"copy_gbps", 3000.0}, {"gemm_tflops", {{"f16", 700.0}, {"bf16", 650.0}, {"f32", 50.0}}}};

TEST(RunEfficiency, BandwidthAgainstTheCopyCeiling) {
    kb::TaskPtr t = kb::load_task(kb::test::builtin_task_file("vector_add_f32"));
    auto e = kb::efficiency_of(2400.0, std::nullopt, kCeilings, *t);
    ASSERT_TRUE(e);
    EXPECT_DOUBLE_EQ(*e, 0.8);
}

TEST(RunEfficiency, TheLargerFractionAndTheOutputsType) {
    kb::TaskPtr f32 = kb::load_task(kb::test::builtin_task_file("vector_add_f32"));
    // 30 TFLOP/s of an f32 output: 30/50 = 0.6 beats 300/3000 = 0.1.
    EXPECT_DOUBLE_EQ(*kb::efficiency_of(300.0, 30.0, kCeilings, *f32), 0.6);
    kb::TaskPtr f16 = kb::load_task(kb::test::builtin_task_file("gemm_f16"));
    // An f16 output divides by the f16 GEMM ceiling: 350/700.
    EXPECT_DOUBLE_EQ(*kb::efficiency_of(std::nullopt, 350.0, kCeilings, *f16), 0.5);
}

TEST(RunEfficiency, NothingWithoutCeilingsOrFigures) {
    kb::TaskPtr t = kb::load_task(kb::test::builtin_task_file("vector_add_f32"));
    EXPECT_FALSE(kb::efficiency_of(2400.0, 1.0, Json(), *t));
    EXPECT_FALSE(kb::efficiency_of(std::nullopt, std::nullopt, kCeilings, *t));
    EXPECT_FALSE(kb::efficiency_of(2400.0, std::nullopt, Json{{"copy_gbps", 0}}, *t));
}

TEST(RunEfficiency, CeilingsComeFromTheDevicesCacheByNameAndDriver) {
    kb::test::TempDir dir("kb_run_eff");
    const char* old = std::getenv("XDG_CACHE_HOME");
    std::string saved = old ? old : "";
    ::setenv("XDG_CACHE_HOME", dir.path().c_str(), 1);
    Json dev = {{"name", "NVIDIA H100 80GB HBM3"}, {"driver_version", 13000}};
    std::string warning;
    EXPECT_TRUE(kb::cached_ceilings(dev, &warning).is_null()) << "no cache: no ceilings";
    EXPECT_TRUE(warning.empty());
    Json cache = {{"format", "kbench-devices/1"},
                  {"devices", {{"NVIDIA H100 80GB HBM3|driver 13000", {{"name", "NVIDIA H100 80GB HBM3"}, {"ceilings", kCeilings}}}}}};
    dir.write("kbench/devices.json", cache.dump());
    EXPECT_EQ(kb::cached_ceilings(dev, &warning), kCeilings);
    Json other = {{"name", "NVIDIA H100 80GB HBM3"}, {"driver_version", 12080}};
    EXPECT_TRUE(kb::cached_ceilings(other, &warning).is_null()) << "another driver was not measured";
    dir.write("kbench/devices.json", "{not json");
    EXPECT_TRUE(kb::cached_ceilings(dev, &warning).is_null());
    EXPECT_NE(warning.find("no efficiency figures"), std::string::npos) << warning;
    if (old) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
