#include "compiler/nvrtc_errors.h"

#include <sstream>

namespace kb {
namespace {

// EDG's messages for code that does not parse: no header, host compiler or
// option of nvcc's changes how a token sequence parses.
bool is_syntax_error(const std::string& message) {
    static const char* const kSyntax[] = {
        "expected a ",        // expected a ";" / ")" / "}" / declaration
        "expected an ",       // expected an expression / identifier
        "unrecognized token",
        "missing closing quote",
        "unterminated comment",
    };
    for (const char* s : kSyntax)
        if (message.rfind(s, 0) == 0) return true;
    return false;
}

}  // namespace

bool nvcc_could_cure(const std::string& nvrtc_log, const PreparedSource& prep) {
    // nvcc would compile different text: host code kbench removed, headers it
    // resolves on its own include path, constructs only nvcc accepts.
    if (!prep.removed.empty() || !prep.includes.empty() || !prep.nvcc_only.empty()) return true;
    std::istringstream in(nvrtc_log);
    int errors = 0;
    // "<name>(<line>): error: <message>", or, for code that stops before its
    // braces close (a model's answer cut off mid-kernel), "At end of source:
    // error: <message>": without the second form every truncated answer went
    // to nvcc too, about 0.5 s each.
    static const std::string kAtEnd = "At end of source: error: ";
    for (std::string line; std::getline(in, line);) {
        std::string message;
        if (size_t at = line.find("): error: "); at != std::string::npos)
            message = line.substr(at + 10);
        else if (line.rfind(kAtEnd, 0) == 0)
            message = line.substr(kAtEnd.size());
        else
            continue;
        ++errors;
        if (!is_syntax_error(message)) return true;
    }
    return errors == 0;  // no error kbench can read: let nvcc decide
}

}  // namespace kb
