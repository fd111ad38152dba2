#include "compiler/arch.h"

#include <regex>

#include "util/error.h"

namespace kb {

Arch parse_arch(const std::string& arch) {
    static const std::regex re("^(sm|compute)_([0-9]{2,3})([af]?)$");
    std::smatch m;
    if (!std::regex_match(arch, m, re))
        fail(KB_ERR_INVALID_ARGUMENT, "architecture '" + arch + "': expected sm_XY, sm_XYa or sm_XYf (e.g. sm_90)");
    Arch a;
    a.digits = m[2];
    a.sm = std::stoi(a.digits);
    a.suffix = m[3];
    return a;
}

}  // namespace kb
