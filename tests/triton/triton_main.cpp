// The Triton tests need Python with `triton` (no GPU). Without it they exit
// 77, which CTest reports as skipped, and say why.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/compiler.h"
#include "compiler/triton_backend.h"
#include "util/error.h"

int main(int argc, char** argv) {
    bool listing = false;
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], "--gtest_list_tests", 18) == 0) listing = true;
    // The interpreter CMake was told about (KBENCH_TEST_PYTHON), unless the
    // environment names one.
    if (!std::getenv("KBENCH_PYTHON") && std::strlen(KB_TEST_PYTHON) > 0) ::setenv("KBENCH_PYTHON", KB_TEST_PYTHON, 1);
    ::testing::InitGoogleTest(&argc, argv);
    if (!listing) {
        try {
            kb::TritonBackend probe{kb::CompilerConfig{}};
            std::printf("Triton %s via %s\n", probe.version().c_str(), probe.python().c_str());
        } catch (const kb::Error& e) {
            if (e.status() != KB_ERR_NOT_FOUND) {
                std::printf("the Triton compile worker does not start: %s\n", e.what());
                return 1;
            }
            std::printf("Triton tests skipped (Triton is not installed): %s\n", e.what());
            return 77;
        }
    }
    return RUN_ALL_TESTS();
}
