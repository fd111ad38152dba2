#include "compiler/compile_log.h"

#include <cctype>
#include <vector>

namespace kb {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t end = s.find('\n', pos);
        if (end == std::string::npos) end = s.size();
        std::string l = s.substr(pos, end - pos);
        if (!l.empty() && l.back() == '\r') l.pop_back();
        out.push_back(l);
        pos = end + 1;
    }
    return out;
}

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

// "file.cu(12): error: text" -> "file.cu:12: error: text"
std::string colonize(const std::string& line) {
    size_t open = line.find('(');
    size_t close = line.find("): ", open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos || close < open) return line;
    std::string num = line.substr(open + 1, close - open - 1);
    for (char c : num)
        if (!std::isdigit(static_cast<unsigned char>(c))) return line;
    return line.substr(0, open) + ":" + num + ": " + line.substr(close + 3);
}

// The fix for type names that come from PyTorch rather than CUDA, when the
// first error is one of them being undefined.
std::string type_name_hint(const std::string& first_error) {
    static const struct {
        const char* name;
        const char* hint;
    } names[] = {
        {"\"bfloat16\"", "CUDA's bfloat16 type is __nv_bfloat16 (cuda_bf16.h, which kbench includes when the task "
                         "passes bf16 data); 'bfloat16' is PyTorch's name"},
        {"\"BFloat16\"", "c10::BFloat16 is PyTorch's type: use __nv_bfloat16 (cuda_bf16.h)"},
        {"\"Half\"", "c10::Half is PyTorch's type: use __half (cuda_fp16.h, which kbench includes when the task "
                     "passes f16 data)"},
        {"\"scalar_t\"", "scalar_t comes from PyTorch's AT_DISPATCH macros: write the element type the task "
                         "names (float, __half, ...) or a template parameter"},
    };
    if (!contains(first_error, "is undefined")) return "";
    for (const auto& n : names)
        if (contains(first_error, n.name)) return std::string("; ") + n.hint;
    return "";
}

}  // namespace

std::string summarize_compile_log(const std::string& log, const std::string& tool) {
    std::vector<std::string> ls = lines_of(log);
    int first = -1;
    int errors = 0;
    for (size_t i = 0; i < ls.size(); ++i) {
        const std::string& l = ls[i];
        bool err = contains(l, ": error") || contains(l, ": catastrophic error") || contains(l, "error   :") ||
                   contains(l, "fatal   :") || contains(l, ": fatal error") || l.compare(0, 7, "error: ") == 0 ||
                   contains(l, "nvrtc: error");
        if (!err) continue;
        ++errors;
        if (first < 0) first = int(i);
    }
    std::string count;
    for (const std::string& l : ls) {
        // "3 errors detected in the compilation of ..."
        size_t p = l.find(" error");
        if (p != std::string::npos && contains(l, "detected in the compilation of")) {
            count = trim(l.substr(0, l.find(" detected")));
            break;
        }
    }
    if (first < 0) {
        for (const std::string& l : ls)
            if (!trim(l).empty()) return tool + " failed: " + trim(l);
        return tool + " failed without a message";
    }
    std::string s = colonize(trim(ls[first])) + type_name_hint(ls[first]);
    // The source line NVRTC/nvcc echo after the message, if any.
    if (size_t(first) + 1 < ls.size()) {
        std::string code = trim(ls[first + 1]);
        bool caret_next = size_t(first) + 2 < ls.size() && trim(ls[first + 2]) == "^";
        if (!code.empty() && caret_next) {
            if (code.size() > 120) code = code.substr(0, 117) + "...";
            s += " [at: " + code + "]";
        }
    }
    if (!count.empty() && count.compare(0, 2, "1 ") != 0) s += " (" + count + " in all)";
    else if (count.empty() && errors > 1) s += " (" + std::to_string(errors) + " errors in all)";
    return s;
}

std::string strip_temp_dir(const std::string& log, const std::string& dir) {
    if (dir.empty()) return log;
    std::string prefix = dir.back() == '/' ? dir : dir + "/";
    std::string out;
    size_t pos = 0, hit;
    while ((hit = log.find(prefix, pos)) != std::string::npos) {
        out.append(log, pos, hit - pos);
        pos = hit + prefix.size();
    }
    out.append(log, pos, std::string::npos);
    return out;
}

std::string with_cuda_keywords(const std::string& log, const std::string& code) {
    static const char* const kKeywords[] = {"global", "device", "host", "shared", "constant"};
    std::string out = log;
    for (const char* k : kKeywords) {
        const std::string expanded = std::string("__attribute__((") + k + "))";
        if (code.find(expanded) != std::string::npos) continue;
        const std::string keyword = std::string("__") + k + "__";
        for (size_t at = out.find(expanded); at != std::string::npos; at = out.find(expanded, at + keyword.size()))
            out.replace(at, expanded.size(), keyword);
    }
    return out;
}

}  // namespace kb
