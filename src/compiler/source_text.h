// Whether a candidate's CUDA source is text a compiler should see: a binary
// file (an executable, a cubin without its .cubin extension, an archive) or
// a file in a legacy encoding gets a message that names the place and the
// fix, instead of pages of compiler errors about stray bytes (or logs that
// cannot travel in a JSON result).
#pragma once

#include <string>

namespace kb {

// "" when `code` is UTF-8 text without NUL bytes; otherwise a message
// starting with `source_name` that names the line, the column and the byte.
std::string source_text_problem(const std::string& code, const std::string& source_name);

}  // namespace kb
