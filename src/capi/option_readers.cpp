#include "capi/option_readers.h"

#include <cmath>
#include <limits>

namespace kb::capi {

kb_limits default_c_limits() {
    const Limits l;
    const ProcessLimits p = default_compile_limits();
    kb_limits c = KB_LIMITS_INIT;
    c.max_document_bytes = l.max_document_bytes;
    c.max_json_depth = l.max_json_depth;
    c.max_source_bytes = l.max_source_bytes;
    c.max_headers = l.max_headers;
    c.max_dims = l.max_dims;
    c.max_cases = l.max_cases;
    c.max_args = l.max_args;
    c.max_launch_steps = l.max_launch_steps;
    c.max_kernel_args = l.max_kernel_args;
    c.max_scratch = l.max_scratch;
    c.max_expression_chars = l.max_expression_chars;
    c.max_expression_depth = l.max_expression_depth;
    c.compile_memory_bytes = p.memory_bytes;
    c.compile_cpu_s = p.cpu_s;
    c.compile_wall_s = CompilerConfig().timeout_s;
    c.compile_file_bytes = p.file_bytes;
    return c;
}

std::string apply_limits(const kb_limits& c, ContextOptions* out) {
    for (double v : {c.compile_cpu_s, c.compile_wall_s})
        if (!(v >= 0) || std::isinf(v))
            return "kb_limits: compile_cpu_s and compile_wall_s must be finite and >= 0 (0: the default)";
    // 0 keeps the default; anything else is the caller's value.
    Limits* limits = &out->limits;
    auto take = [](auto given, auto& field) {
        if (given) field = given;
    };
    take(c.max_document_bytes, limits->max_document_bytes);
    take(c.max_json_depth, limits->max_json_depth);
    take(c.max_source_bytes, limits->max_source_bytes);
    take(c.max_headers, limits->max_headers);
    take(c.max_dims, limits->max_dims);
    take(c.max_cases, limits->max_cases);
    take(c.max_args, limits->max_args);
    take(c.max_launch_steps, limits->max_launch_steps);
    take(c.max_kernel_args, limits->max_kernel_args);
    take(c.max_scratch, limits->max_scratch);
    take(c.max_expression_chars, limits->max_expression_chars);
    take(c.max_expression_depth, limits->max_expression_depth);
    // UINT64_MAX means none: the kernel's "no limit" is 0 here.
    auto cap = [](uint64_t given, uint64_t& field) {
        if (given) field = given == std::numeric_limits<uint64_t>::max() ? 0 : given;
    };
    cap(c.compile_memory_bytes, out->compile_limits.memory_bytes);
    cap(c.compile_file_bytes, out->compile_limits.file_bytes);
    if (c.compile_cpu_s > 0) out->compile_limits.cpu_s = c.compile_cpu_s;
    if (c.compile_wall_s > 0) out->compile_timeout_s = c.compile_wall_s;
    return "";
}

}  // namespace kb::capi
