#include "cli/sweep_range.h"

#include <cctype>
#include <stdexcept>

namespace kb::cli {

namespace {

const char* kForms = "expected NAME=A..B (powers of two times A), NAME=A..B:STEP, NAME=A..B:xFACTOR or NAME=A,B,C, "
                     "e.g. --dim N=1024..16384:1024 or --dim M,N,K=256..8192";

[[noreturn]] void bad(const std::string& text, const std::string& why) {
    throw std::invalid_argument("--dim '" + text + "': " + why + "; " + kForms);
}

int64_t number(const std::string& text, const std::string& s, const char* what) {
    if (s.empty()) bad(text, std::string("the ") + what + " is missing");
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) bad(text, std::string("the ") + what + " '" + s + "' is not a positive integer");
    if (s.size() > 15) bad(text, std::string("the ") + what + " '" + s + "' is too large");
    int64_t v = std::stoll(s);
    if (v <= 0) bad(text, std::string("the ") + what + " must be at least 1");
    return v;
}

bool valid_name(const std::string& n) {
    if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
    for (char c : n)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

}  // namespace

DimSweep parse_dim_sweep(const std::string& text) {
    DimSweep out;
    size_t eq = text.find('=');
    if (eq == std::string::npos) bad(text, "no '='");
    std::string names = text.substr(0, eq), range = text.substr(eq + 1);
    size_t start = 0;
    while (true) {
        size_t comma = names.find(',', start);
        std::string n = names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!valid_name(n)) bad(text, "'" + n + "' is not a dim name");
        for (const std::string& seen : out.dims)
            if (seen == n) bad(text, "dim '" + n + "' is named twice");
        out.dims.push_back(n);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    size_t dots = range.find("..");
    if (dots == std::string::npos) {
        // A list of sizes.
        size_t s = 0;
        while (true) {
            size_t comma = range.find(',', s);
            out.sizes.push_back(number(text, range.substr(s, comma == std::string::npos ? std::string::npos : comma - s), "size"));
            if (out.sizes.size() > 1 && out.sizes.back() <= out.sizes[out.sizes.size() - 2])
                bad(text, "sizes must increase");
            if (comma == std::string::npos) break;
            s = comma + 1;
        }
    } else {
        std::string first = range.substr(0, dots), rest = range.substr(dots + 2), step;
        size_t colon = rest.find(':');
        if (colon != std::string::npos) {
            step = rest.substr(colon + 1);
            rest = rest.substr(0, colon);
        }
        int64_t a = number(text, first, "start"), b = number(text, rest, "end");
        if (b < a) bad(text, "the end " + std::to_string(b) + " is below the start " + std::to_string(a));
        bool multiply = colon == std::string::npos || (!step.empty() && step[0] == 'x');
        int64_t k = colon == std::string::npos ? 2 : number(text, multiply ? step.substr(1) : step, "step");
        if (multiply && k < 2) bad(text, "a factor must be at least 2");
        for (int64_t v = a; v <= b; v = multiply ? v * k : v + k) {
            out.sizes.push_back(v);
            if (out.sizes.size() > kMaxSweepPoints) break;
        }
    }
    if (out.sizes.size() > kMaxSweepPoints)
        bad(text, "more than " + std::to_string(kMaxSweepPoints) + " sizes; take a larger step");
    return out;
}

}  // namespace kb::cli
