// Tests of program candidates that need torch for the Python workers
// (docs/programs.md): they exit 77 (CTest's SKIP_RETURN_CODE) when the
// interpreter has no torch, and, built with KB_TORCH_TESTS_NEED_GPU, when
// there is no CUDA device. CI installs no torch, so there they are skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "kbench.h"
#include "torch/torch_python.h"

int main(int argc, char** argv) {
    bool listing = false;
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--gtest_list_tests", 18) == 0) listing = true;
    ::testing::InitGoogleTest(&argc, argv);
    if (!listing) {
        if (!kb::test::python_has_torch()) {
            std::printf("%s has no torch: test skipped (set $KBENCH_PYTHON to an interpreter with torch)\n",
                        kb::test::torch_python().c_str());
            return 77;
        }
#ifdef KB_TORCH_TESTS_NEED_GPU
        int n = 0;
        if (kb_device_count(&n) != KB_OK || n == 0) {
            std::printf("no CUDA device: GPU test skipped (%s)\n", kb_last_error());
            return 77;
        }
#endif
    }
    return RUN_ALL_TESTS();
}
