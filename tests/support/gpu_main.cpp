// GPU tests exit 77 (CTest's SKIP_RETURN_CODE) when there is no device, so a
// machine without a GPU reports them skipped instead of passed or failed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "kbench.h"

int main(int argc, char** argv) {
    bool listing = false;
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--gtest_list_tests", 18) == 0) listing = true;
    ::testing::InitGoogleTest(&argc, argv);
    if (!listing) {
        int n = 0;
        if (kb_device_count(&n) != KB_OK || n == 0) {
            std::printf("no CUDA device: GPU test skipped (%s)\n", kb_last_error());
            return 77;
        }
    }
    return RUN_ALL_TESTS();
}
