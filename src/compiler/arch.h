// Compile targets as kbench spells them ("sm_90", "sm_90a", "sm_100f").
#pragma once

#include <string>

namespace kb {

struct Arch {
    int sm = 0;          // 90
    std::string digits;  // "90"
    std::string suffix;  // "", "a" or "f"
};

// "sm_90", "sm_90a", "sm_100f", "compute_90" -> {90, "90", suffix}. Throws
// kb::Error(KB_ERR_INVALID_ARGUMENT) naming the expected forms otherwise.
Arch parse_arch(const std::string& arch);

}  // namespace kb
