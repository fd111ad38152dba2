// The interpreter the program-candidate tests run kbench's Python workers
// with: $KBENCH_PYTHON, else the one CMake's KBENCH_TEST_PYTHON names, else
// python3; and whether it has torch.
#pragma once

#include <cstdlib>
#include <string>

namespace kb::test {

inline std::string torch_python() {
    const char* p = std::getenv("KBENCH_PYTHON");
    if (p && *p) return p;
    return *KB_TEST_PYTHON ? KB_TEST_PYTHON : "python3";
}

inline bool python_has_torch() {
    static int cached = -1;
    if (cached < 0) cached = std::system((torch_python() + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
    return cached == 1;
}

}  // namespace kb::test
