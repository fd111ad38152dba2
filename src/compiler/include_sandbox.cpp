#include "compiler/include_sandbox.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "compiler/compile_types.h"
#include "ipc/spawn.h"

namespace kb {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool hspace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

// The code after translation phases 1 and 2: trigraphs replaced (when asked)
// and line splices removed, each character keeping its original line.
struct Logical {
    std::string text;
    std::vector<int> line;
};

Logical logical_text(const std::string& src, bool trigraphs) {
    std::string t;
    std::vector<int> tl;
    t.reserve(src.size());
    tl.reserve(src.size());
    int line = 1;
    for (size_t i = 0; i < src.size(); ++i) {
        char c = src[i];
        if (trigraphs && c == '?' && i + 2 < src.size() && src[i + 1] == '?') {
            static const char from[] = "=/'()!<>-";
            static const char to[] = "#\\^[]|{}~";
            const char* hit = std::strchr(from, src[i + 2]);
            if (hit && src[i + 2] != '\0') {
                t += to[hit - from];
                tl.push_back(line);
                i += 2;
                continue;
            }
        }
        t += c;
        tl.push_back(line);
        if (c == '\n') ++line;
    }
    Logical out;
    out.text.reserve(t.size());
    out.line.reserve(t.size());
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '\\') {
            // gcc accepts blanks between the backslash and the newline.
            size_t j = i + 1;
            while (j < t.size() && hspace(t[j])) ++j;
            if (j < t.size() && t[j] == '\n') {
                i = j;
                continue;
            }
        }
        out.text += t[i];
        out.line.push_back(tl[i]);
    }
    return out;
}

bool is_include_kind(const std::string& d) {
    return d == "include" || d == "include_next" || d == "import" || d == "embed";
}

class Scanner {
public:
    explicit Scanner(const Logical& l) : s_(l.text), line_(l.line) {}

    std::vector<FileReference> run() {
        bool line_start = true;
        while (i_ < s_.size()) {
            if (line_start && !skip_directives_) {
                line_start = false;
                if (directive()) continue;  // consumed up to its newline
            }
            char c = s_[i_];
            if (c == '\n') {
                line_start = true;
                ++i_;
            } else if (c == '/' && peek(1) == '/') {
                while (i_ < s_.size() && s_[i_] != '\n') ++i_;
            } else if (c == '/' && peek(1) == '*') {
                size_t end = s_.find("*/", i_ + 2);
                i_ = end == std::string::npos ? i_ + 2 : end + 2;  // unterminated: scan on as code
            } else if (c == '"' || c == '\'') {
                quoted(c);
            } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                       (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
                pp_number();
            } else if (ident_start(c)) {
                identifier();
            } else {
                ++i_;
            }
        }
        return std::move(out_);
    }

private:
    char peek(size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
    int line_at(size_t pos) const { return pos < line_.size() ? line_[pos] : (line_.empty() ? 1 : line_.back()); }

    // A string or character literal, to its closing quote or the line's end.
    void quoted(char q) {
        ++i_;
        while (i_ < s_.size() && s_[i_] != '\n') {
            if (s_[i_] == '\\') {
                i_ += 2;
                continue;
            }
            if (s_[i_++] == q) return;
        }
    }

    // 1'000'000 and 0x1p-3: a quote inside a number starts no literal.
    void pp_number() {
        ++i_;
        while (i_ < s_.size()) {
            char c = s_[i_];
            if ((c == '+' || c == '-') && (std::tolower(s_[i_ - 1]) == 'e' || std::tolower(s_[i_ - 1]) == 'p')) ++i_;
            else if (ident_char(c) || c == '.' || (c == '\'' && ident_char(peek(1)))) ++i_;
            else break;
        }
    }

    void identifier() {
        size_t b = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        std::string id = s_.substr(b, i_ - b);
        if (i_ < s_.size() && s_[i_] == '"') {
            if (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR") return raw_string();
            if (id == "u8" || id == "u" || id == "U" || id == "L") return quoted('"');
        }
        if (id == "__has_include" || id == "__has_include_next" || id == "__has_embed") has_include(id, b);
        else if (id == "_Pragma") pragma_operator(b);
    }

    // R"delim( ... )delim": skipped only when it ends; otherwise scanned as code.
    void raw_string() {
        size_t open = s_.find('(', i_ + 1);
        if (open == std::string::npos || open - i_ - 1 > 16) {
            ++i_;
            return;
        }
        std::string delim = s_.substr(i_ + 1, open - i_ - 1);
        if (delim.find_first_of(" \t\n\\)") != std::string::npos) {
            ++i_;
            return;
        }
        size_t end = s_.find(")" + delim + "\"", open + 1);
        if (end == std::string::npos) {
            ++i_;
            return;
        }
        i_ = end + delim.size() + 2;
    }

    void skip_blanks_and_comments(size_t& j, bool cross_lines) const {
        for (;;) {
            while (j < s_.size() && (hspace(s_[j]) || (cross_lines && s_[j] == '\n'))) ++j;
            if (j + 1 < s_.size() && s_[j] == '/' && s_[j + 1] == '*') {
                size_t end = s_.find("*/", j + 2);
                if (end == std::string::npos) return;
                j = end + 2;
                continue;
            }
            return;
        }
    }

    // __has_include ( "name" | <name> ): anything else is computed.
    void has_include(const std::string& id, size_t at) {
        size_t j = i_;
        skip_blanks_and_comments(j, true);
        FileReference r;
        r.kind = "__has_include";
        r.line = line_at(at);
        if (j < s_.size() && s_[j] == '(') {
            ++j;
            skip_blanks_and_comments(j, true);
            if (j < s_.size() && (s_[j] == '"' || s_[j] == '<')) {
                char close = s_[j] == '"' ? '"' : '>';
                size_t end = s_.find_first_of(std::string(1, close) + "\n", j + 1);
                if (end != std::string::npos && s_[end] == close) {
                    r.name = s_.substr(j + 1, end - j - 1);
                    r.angled = close == '>';
                    out_.push_back(r);
                    i_ = end + 1;
                    return;
                }
            }
        }
        r.computed = true;
        r.name = id + s_.substr(i_, std::min<size_t>(40, s_.find('\n', i_) - i_));
        out_.push_back(r);
    }

    // _Pragma("GCC dependency \"file\""): the destringized text is a pragma.
    void pragma_operator(size_t at) {
        size_t j = i_;
        skip_blanks_and_comments(j, true);
        if (j >= s_.size() || s_[j] != '(') return;
        ++j;
        skip_blanks_and_comments(j, true);
        while (j < s_.size() && ident_char(s_[j])) ++j;  // an L or u8 prefix
        if (j >= s_.size() || s_[j] != '"') return;
        std::string text;
        for (++j; j < s_.size() && s_[j] != '"' && s_[j] != '\n'; ++j) {
            if (s_[j] == '\\' && j + 1 < s_.size()) ++j;
            text += s_[j];
        }
        check_pragma(text, line_at(at));
    }

    void check_pragma(const std::string& text, int line) {
        std::vector<std::string> words;
        for (size_t k = 0; k < text.size() && words.size() < 2;) {
            if (ident_start(text[k])) {
                size_t b = k;
                while (k < text.size() && ident_char(text[k])) ++k;
                words.push_back(text.substr(b, k - b));
            } else if (std::isspace(static_cast<unsigned char>(text[k]))) {
                ++k;
            } else {
                break;
            }
        }
        bool dependency = (!words.empty() && words[0] == "dependency") ||
                          (words.size() == 2 && words[0] == "GCC" && words[1] == "dependency");
        if (dependency) out_.push_back({"pragma dependency", text, false, false, line});
    }

    // At the start of a line: `#` or `%:` (after blanks and comments), then a
    // directive. Returns true (with i_ at the line's newline) when it was one.
    bool directive() {
        size_t j = i_;
        skip_blanks_and_comments(j, false);
        if (j < s_.size() && s_[j] == '#') ++j;
        else if (j + 1 < s_.size() && s_[j] == '%' && s_[j + 1] == ':') j += 2;
        else return false;
        const int line = line_at(j - 1);
        skip_blanks_and_comments(j, false);
        size_t b = j;
        while (j < s_.size() && ident_char(s_[j])) ++j;
        std::string name = s_.substr(b, j - b);
        // The rest of the directive with comments removed (a block comment
        // may run over lines: the directive goes on after it). Literals and,
        // in an #include, a <header-name> are copied as they are.
        std::string rest;
        bool first_token = true;
        while (j < s_.size() && s_[j] != '\n') {
            char c = s_[j];
            if (c == '/' && j + 1 < s_.size() && s_[j + 1] == '/') {
                while (j < s_.size() && s_[j] != '\n') ++j;
                break;
            }
            if (c == '/' && j + 1 < s_.size() && s_[j + 1] == '*') {
                size_t end = s_.find("*/", j + 2);
                if (end != std::string::npos) {
                    rest += ' ';
                    j = end + 2;
                    continue;
                }
            }
            if (c == '"' || c == '\'' || (c == '<' && first_token && is_include_kind(name))) {
                char close = c == '<' ? '>' : c;
                size_t k = j + 1;
                while (k < s_.size() && s_[k] != '\n' && s_[k] != close) k += (c != '<' && s_[k] == '\\') ? 2 : 1;
                if (k < s_.size() && s_[k] == close) ++k;
                k = std::min(k, s_.size());
                rest.append(s_, j, k - j);
                j = k;
                first_token = false;
                continue;
            }
            if (!hspace(c)) first_token = false;
            rest += c;
            ++j;
        }
        i_ = j;
        handle_directive(name, rest, line);
        return true;
    }

    static std::string trim(const std::string& s) {
        size_t b = 0, e = s.size();
        while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
        return s.substr(b, e - b);
    }

    void handle_directive(const std::string& name, const std::string& rest_raw, int line) {
        const std::string rest = trim(rest_raw);
        if (is_include_kind(name)) {
            FileReference r{name, "", false, false, line};
            char open = rest.empty() ? '\0' : rest[0];
            char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
            size_t end = close ? rest.find(close, 1) : std::string::npos;
            if (end != std::string::npos) {
                r.name = rest.substr(1, end - 1);
                r.angled = open == '<';
            } else {
                r.computed = true;
                r.name = rest.substr(0, 60);
            }
            out_.push_back(r);
            return;
        }
        // __has_include in #if and #elif (and in #define bodies).
        if (rest.find("__has_") != std::string::npos) {
            Logical sub;
            sub.text = rest;
            sub.line.assign(rest.size(), line);
            Scanner inner(sub);
            inner.skip_directives_ = true;
            for (FileReference& r : inner.run()) {
                r.line = line;
                out_.push_back(r);
            }
        }
        if (name == "pragma") return check_pragma(rest, line);
        const bool marker = !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]));
        if (name == "line" || marker) {
            // #line DIGITS ["file"]; # DIGITS "file" FLAGS (a GNU line marker).
            std::string tail = marker ? name + " " + rest : rest;
            FileReference r{"line", "", false, false, line};
            size_t k = 0;
            while (k < tail.size() && std::isdigit(static_cast<unsigned char>(tail[k]))) ++k;
            if (k == 0) {
                r.computed = true;
                r.name = tail.substr(0, 60);
                out_.push_back(r);
                return;
            }
            std::string after = trim(tail.substr(k));
            if (after.empty()) return;  // a line number alone names no file
            size_t end = after[0] == '"' ? after.find('"', 1) : std::string::npos;
            if (end == std::string::npos) {
                r.computed = true;
                r.name = after.substr(0, 60);
            } else {
                r.name = after.substr(1, end - 1);
            }
            out_.push_back(r);
        }
    }

    const std::string& s_;
    const std::vector<int>& line_;
    size_t i_ = 0;
    bool skip_directives_ = false;  // scanning a directive's own text
    std::vector<FileReference> out_;
};

// A header name as kbench compares it: "./a//b.cuh" -> "a/b.cuh"; "" when
// the name is absolute, has a ".." component, or holds a byte no file name
// should (NUL, newline, backslash).
std::string normal_name(const std::string& name, std::string* why) {
    if (name.empty()) {
        *why = "the name is empty";
        return "";
    }
    if (name[0] == '/') {
        *why = "absolute paths are not allowed";
        return "";
    }
    if (name.find_first_of(std::string("\\\n\r\0", 4)) != std::string::npos) {
        *why = "the name holds a backslash or a control character";
        return "";
    }
    std::string out;
    for (size_t b = 0; b <= name.size();) {
        size_t e = name.find('/', b);
        if (e == std::string::npos) e = name.size();
        std::string part = name.substr(b, e - b);
        if (part == "..") {
            *why = "'..' is not allowed in an include name";
            return "";
        }
        if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
        b = e + 1;
    }
    if (out.empty()) *why = "the name names no file";
    return out;
}

std::string real_path(const std::string& p) {
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

bool inside(const std::string& file, const std::string& root) {
    return !root.empty() && file.size() > root.size() && file.compare(0, root.size(), root) == 0 &&
           (root == "/" || file[root.size()] == '/');
}

enum class Found { no, yes, escapes };

// Whether `name` is a regular file in one of the allowed folders, its
// symbolic links staying within them.
Found find_in_dirs(const std::string& name, const std::vector<std::string>& dirs) {
    std::vector<std::string> roots;
    for (const std::string& d : dirs) roots.push_back(real_path(d));
    Found result = Found::no;
    for (const std::string& d : dirs) {
        std::string p = d + "/" + name;
        struct stat st;
        if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        std::string real = real_path(p);
        for (const std::string& r : roots)
            if (inside(real, r)) return Found::yes;
        result = Found::escapes;
    }
    return result;
}

std::string spelled(const FileReference& r) {
    if (r.computed) return r.name;
    return r.angled ? "<" + r.name + ">" : "\"" + r.name + "\"";
}

}  // namespace

std::vector<FileReference> scan_file_references(const std::string& text) {
    // Trigraphs are honoured by some compilers in some modes and not by
    // others: a directive either reading finds is checked.
    std::vector<FileReference> all;
    std::set<std::tuple<std::string, std::string, int, bool>> seen;
    for (bool tri : {false, true}) {
        if (tri && text.find("??") == std::string::npos) break;
        Logical l = logical_text(text, tri);
        for (FileReference& r : Scanner(l).run())
            if (seen.insert({r.kind, r.name, r.line, r.computed}).second) all.push_back(std::move(r));
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const FileReference& a, const FileReference& b) { return a.line < b.line; });
    return all;
}

void check_file_references(const std::string& source_name, const std::string& code,
                           const std::vector<SourceFile>& headers, const IncludePolicy& policy) {
    std::set<std::string> named;
    for (const SourceFile& h : headers) {
        std::string why;
        std::string n = normal_name(h.name, &why);
        if (!n.empty()) named.insert(n);
    }
    const std::string allowed =
        "a candidate may include the toolkit's headers, the host compiler's standard headers and the files its "
        "candidate document names in \"headers\"";
    auto check_one = [&](const std::string& file, const std::string& text) {
        for (const FileReference& r : scan_file_references(text)) {
            const std::string where = file + ":" + std::to_string(r.line);
            auto reject = [&](const std::string& what, const std::string& fix) {
                std::string msg = where + ": " + what + "; " + fix;
                throw CompileError(msg, where + ": error: " + what + "\n");
            };
            const std::string directive = r.kind == "__has_include" ? "__has_include(" + spelled(r) + ")"
                                          : r.kind == "line"        ? "#line " + spelled(r)
                                                                    : "#" + r.kind + " " + spelled(r);
            if (r.kind == "pragma dependency")
                reject("#pragma " + r.name + ": a pragma that reads another file is not allowed",
                       "remove it (it only compares file dates)");
            if (r.computed)
                reject(directive + ": a file name computed by a macro is not allowed",
                       "write the name as \"file\" or <file>, so kbench can check it before compiling");
            std::string why;
            if (r.kind == "line") {
                // Compilers print lines of the file a #line names in their messages.
                std::string n = normal_name(r.name, &why);
                if (r.name == source_name || r.name == file || (!n.empty() && named.count(n))) continue;
                reject(directive + ": #line may name only the candidate's own files",
                       "drop the file name (\"#line N\" alone), or name the candidate's source or one of its headers");
            }
            std::string n = normal_name(r.name, &why);
            if (n.empty()) reject(directive + ": " + why, allowed);
            if (r.kind == "__has_include") continue;  // a question about allowed folders only
            if (named.count(n) || n == source_name || (policy.is_builtin && policy.is_builtin(r.name))) continue;
            if (!r.angled) {
                // "x.cuh" from "detail/a.cuh" is "detail/x.cuh", as a compiler resolves it.
                size_t slash = file.find_last_of('/');
                if (slash != std::string::npos && named.count(file.substr(0, slash + 1) + n)) continue;
            }
            Found f = find_in_dirs(n, policy.dirs);
            if (f == Found::yes) continue;
            if (f == Found::escapes)
                reject(directive + ": the header leads out of the toolkit's and the host compiler's folders", allowed);
            reject(directive + ": no such header among the toolkit's and the host compiler's, nor among the files "
                               "the candidate names",
                   allowed + " (a file beside the candidate must be listed there)");
        }
    };
    check_one(source_name, code);
    for (const SourceFile& h : headers) check_one(h.name, h.text);
}

std::vector<SourceFile> headers_for_nvrtc(const std::vector<SourceFile>& headers) {
    std::map<std::string, const SourceFile*> by_name;
    for (const SourceFile& h : headers) by_name[h.name] = &h;
    std::map<std::string, const SourceFile*> alias;
    std::set<std::string> ambiguous;
    for (const SourceFile& h : headers) {
        size_t slash = h.name.find_last_of('/');
        if (slash == std::string::npos) continue;
        for (const FileReference& r : scan_file_references(h.text)) {
            if (r.angled || r.computed || r.kind == "line" || by_name.count(r.name)) continue;
            auto it = by_name.find(h.name.substr(0, slash + 1) + r.name);
            if (it == by_name.end()) continue;
            auto [a, fresh] = alias.emplace(r.name, it->second);
            if (!fresh && a->second != it->second) ambiguous.insert(r.name);
        }
    }
    std::vector<SourceFile> out = headers;
    for (const auto& [name, file] : alias)
        if (!ambiguous.count(name)) out.push_back({name, file->text});
    return out;
}

const std::vector<std::string>& host_compiler_include_dirs() {
    static std::once_flag once;
    static std::vector<std::string> dirs;
    std::call_once(once, [] {
        std::string gxx;
        const char* path = std::getenv("PATH");
        std::string p = path ? path : "/usr/bin:/bin";
        for (size_t b = 0; b <= p.size();) {
            size_t e = p.find(':', b);
            if (e == std::string::npos) e = p.size();
            std::string cand = (e > b ? p.substr(b, e - b) : ".") + "/g++";
            if (::access(cand.c_str(), X_OK) == 0) {
                gxx = cand;
                break;
            }
            b = e + 1;
        }
        if (gxx.empty()) return;
        SpawnSpec spec;
        spec.argv = {gxx, "-E", "-x", "c++", "-v", "/dev/null", "-o", "/dev/null"};
        spec.env = {"PATH=" + p, "LC_ALL=C"};
        spec.limits.memory_bytes = uint64_t(2) << 30;
        RunResult r = run_limited(spec, 30, 1 << 20);
        if (!r.ok()) return;
        size_t b = r.output.find("#include <...> search starts here:");
        size_t e = r.output.find("End of search list.");
        if (b == std::string::npos || e == std::string::npos || e < b) return;
        std::string list = r.output.substr(b, e - b);
        size_t pos = list.find('\n');
        while (pos != std::string::npos && pos + 1 < list.size()) {
            size_t next = list.find('\n', pos + 1);
            std::string line = list.substr(pos + 1, (next == std::string::npos ? list.size() : next) - pos - 1);
            size_t f = line.find_first_not_of(" \t");
            if (f != std::string::npos) {
                std::string dir = line.substr(f);
                std::string real = real_path(dir);
                if (!real.empty()) dirs.push_back(real);
            }
            pos = next;
        }
    });
    return dirs;
}

}  // namespace kb
