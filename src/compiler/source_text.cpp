#include "compiler/source_text.h"

#include <cstdio>

namespace kb {
namespace {

// Length of the UTF-8 sequence starting at s[i], 0 when it is not valid
// (overlong forms, surrogates and code points past U+10FFFF included).
size_t utf8_length(const std::string& s, size_t i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = byte(i);
    if (c < 0x80) return 1;
    size_t n;
    unsigned min;
    unsigned cp;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

std::string hex_byte(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    return buf;
}

}  // namespace

std::string source_text_problem(const std::string& code, const std::string& source_name) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < code.size();) {
        unsigned char c = static_cast<unsigned char>(code[i]);
        std::string at = source_name + ":" + std::to_string(line) + ":" + std::to_string(column);
        if (c == 0) {
            return at + ": a NUL byte: this is a binary file, not CUDA C++ source. A compiled kernel goes in as "
                        "a .cubin (or .ptx) file, or with the language set (kb_candidate.language, "
                        "\"language\" in a candidate.json)";
        }
        size_t n = utf8_length(code, i);
        if (n == 0) {
            return at + ": byte " + hex_byte(c) +
                   " is not UTF-8: kbench reads CUDA C++ source as UTF-8 text. If this is a Latin-1 or "
                   "Windows-1252 file, convert it (iconv -f latin1 -t utf-8 FILE) or keep the source ASCII; "
                   "if it is a compiled image, name it .cubin or .ptx";
        }
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
        i += n;
    }
    return "";
}

}  // namespace kb
