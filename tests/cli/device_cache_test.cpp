// The cache of `kbench devices` (src/engine/devices_cache.h): where it lives, a
// round trip through the file, and the errors a broken file gives. The
// measuring itself needs a GPU (tests/cli/sweep_devices_gpu.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "engine/devices_cache.h"
#include "support/temp_dir.h"
#include "util/files.h"

namespace kb::cli {
namespace {

struct EnvGuard {
    std::string name, old;
    bool had;
    EnvGuard(const char* n, const std::string& value) : name(n) {
        const char* v = std::getenv(n);
        had = v != nullptr;
        if (had) old = v;
        ::setenv(n, value.c_str(), 1);
    }
    ~EnvGuard() {
        if (had) ::setenv(name.c_str(), old.c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

TEST(DevicesCache, PathFollowsXdgThenHome) {
    {
        EnvGuard xdg("XDG_CACHE_HOME", "/x/cache");
        EXPECT_EQ(devices_cache_path(), "/x/cache/kbench/devices.json");
    }
    EnvGuard xdg("XDG_CACHE_HOME", "");
    EnvGuard home("HOME", "/home/u");
    EXPECT_EQ(devices_cache_path(), "/home/u/.cache/kbench/devices.json");
}

TEST(DevicesCache, KeyIsNameAndDriver) {
    EXPECT_EQ(device_cache_key("NVIDIA H100 80GB HBM3", 13000), "NVIDIA H100 80GB HBM3|driver 13000");
}

TEST(DevicesCache, MissingFileIsEmpty) {
    kb::test::TempDir dir;
    EXPECT_TRUE(read_devices_cache(dir.path() + "/none.json").devices.empty());
}

TEST(DevicesCache, WriteThenReadRoundTrips) {
    kb::test::TempDir dir;
    const std::string path = dir.path() + "/sub/folder/devices.json";  // folders are made
    DevicesCache c;
    c.devices["GPU A|driver 1"] = {{"name", "GPU A"},
                                   {"ceilings", {{"copy_gbps", 3000.5}, {"gemm_tflops", {{"f16", 700.0}, {"bf16", 690.0}, {"f32", 51.0}}}}}};
    c.devices["GPU B|driver 1"] = {{"name", "GPU B"}, {"ceilings", {{"copy_gbps", 900.0}}}};
    write_devices_cache(path, c);
    Json j = Json::parse(read_file(path));
    EXPECT_EQ(j["format"], kDevicesCacheFormat);
    DevicesCache back = read_devices_cache(path);
    ASSERT_EQ(back.devices.size(), 2u);
    EXPECT_EQ(back.devices["GPU A|driver 1"]["ceilings"]["gemm_tflops"]["f16"].get<double>(), 700.0);
    EXPECT_EQ(back.devices["GPU B|driver 1"]["ceilings"]["copy_gbps"].get<double>(), 900.0);
    // Rewriting replaces the file whole.
    back.devices.erase("GPU B|driver 1");
    write_devices_cache(path, back);
    EXPECT_EQ(read_devices_cache(path).devices.size(), 1u);
}

TEST(DevicesCache, BrokenFilesNameTheFileAndTheFix) {
    kb::test::TempDir dir;
    const std::string path = dir.path() + "/devices.json";
    for (const char* text : {"{not json", "{\"format\": \"other/1\", \"devices\": {}}",
                             "{\"format\": \"kbench-devices/1\"}",
                             "{\"format\": \"kbench-devices/1\", \"devices\": {\"x\": {\"name\": \"x\"}}}"}) {
        write_file_atomic(path, text);
        try {
            read_devices_cache(path);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("--refresh"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace kb::cli

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
