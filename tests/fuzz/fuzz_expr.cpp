// libFuzzer target: the launch-expression language (src/task/expr.cpp).
// Parsing and evaluating never crash, overflow silently or recurse without
// bound; an expression that parses evaluates the same from its own text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "task/expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The first 16 bytes, when there are that many, are the values of two dims.
    int64_t n = 7, m = -3;
    if (size >= 16) {
        std::memcpy(&n, data, 8);
        std::memcpy(&m, data + 8, 8);
        data += 16;
        size -= 16;
    }
    const std::string text(reinterpret_cast<const char*>(data), size);
    kb::Expr e;
    try {
        e = kb::Expr::parse(text);
    } catch (const kb::ExprError&) {
        return 0;
    }
    e.names();
    e.is_constant();
    const kb::DimValues dims = {{"n", n}, {"m", m}, {"k", 1}};
    int64_t v = 0;
    bool ok = true;
    try {
        v = e.eval(dims);
    } catch (const kb::ExprError&) {
        ok = false;
    }
    kb::Expr again = kb::Expr::parse(e.text());
    try {
        if (again.eval(dims) != v || !ok) std::abort();
    } catch (const kb::ExprError&) {
        if (ok) std::abort();
    }
    return 0;
}
