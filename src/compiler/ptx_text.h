// Reading PTX text: what an identifier is made of (letters, digits, `_`,
// `$` and `%`, which starts register names). Shared by the rewrites of
// compiler/trap_containment.h and compiler/fault_containment.h.
#pragma once

#include <cctype>

namespace kb {

inline bool ptx_ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

}  // namespace kb
