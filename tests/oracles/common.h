// Helpers shared by the oracle files (tests/oracles/<family>.cpp): rounding
// constants for the bounds, and bound functions for common shapes of task.
//
// Notation used in the bound comments: u = 2^-24, the unit roundoff of f32
// (round to nearest); one f32 ulp of a value v is at most 2^-23 |v|. For f16
// the unit roundoff is 2^-11, for bf16 2^-8. "First order" bounds drop u^2
// terms (covered by the slack factor).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracles/oracle.h"

namespace kb::oracle {

constexpr double kU32 = 1.0 / 16777216.0;  // 2^-24, f32 unit roundoff
constexpr double kU16 = 1.0 / 2048.0;      // 2^-11, f16 unit roundoff
constexpr double kUBF16 = 1.0 / 256.0;     // 2^-8, bf16 unit roundoff
constexpr double kSlack = 1.01;            // covers the second-order terms of the bounds

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

using BoundFn = std::function<Bound(const std::string&, const Dims&)>;

// A task with one output: `bound` for it, std::invalid_argument for any other name.
template <class F>
BoundFn only(const char* task, const char* output, F bound) {
    return [=](const std::string& name, const Dims& dims) {
        if (name != output)
            throw std::invalid_argument(std::string("oracle: task '") + task + "' has no output '" + name +
                                        "' (its output is '" + output + "')");
        return bound(dims);
    };
}

// The same bound for every output of a task whose outputs are `names`.
template <class F>
BoundFn each_of(const char* task, std::vector<std::string> names, F bound) {
    return [=](const std::string& name, const Dims& dims) {
        for (const std::string& n : names)
            if (n == name) return bound(name, dims);
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        throw std::invalid_argument(std::string("oracle: task '") + task + "' has no output '" + name +
                                    "' (its outputs are " + list + ")");
    };
}

// Values of f16 / bf16 outputs are rounded once: a reference that computes
// in f32 and rounds at the end is within half an ulp of the narrow format
// (relative kU16 / kUBF16) plus its f32 error; below the smallest normal the
// rounding is absolute (2^-25 for f16, tiny for bf16).
constexpr double kF16SubnormalHalfUlp = 1.0 / 33554432.0;  // 2^-25

// Neumaier-compensated float64 sum: exact for the sums of f32 values the
// tasks use (and accurate for any).
template <class It>
double exact_sum(It first, It last) {
    double s = 0.0, comp = 0.0;
    for (; first != last; ++first) {
        const double x = *first;
        const double t = s + x;
        comp += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
        s = t;
    }
    return s + comp;
}

}  // namespace kb::oracle
