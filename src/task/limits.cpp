#include "task/limits.h"

#include <limits>

namespace kb {

Limits Limits::trusted() {
    constexpr uint32_t u32 = std::numeric_limits<uint32_t>::max();
    constexpr uint64_t u64 = std::numeric_limits<uint64_t>::max();
    Limits l;
    l.max_document_bytes = u64;
    l.max_json_depth = u32;
    l.max_source_bytes = u64;
    l.max_headers = l.max_dims = l.max_cases = l.max_args = u32;
    l.max_launch_steps = l.max_kernel_args = l.max_scratch = u32;
    l.max_expression_chars = l.max_expression_depth = u32;
    return l;
}

std::string raise_hint(const char* field) {
    return std::string("the limit is kb_limits.") + field + " (docs/limits.md)";
}

}  // namespace kb
