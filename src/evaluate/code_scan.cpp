#include "evaluate/code_scan.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace kb::evaluate {

const char* code_language_name(CodeLanguage l) {
    switch (l) {
        case CodeLanguage::cuda: return "cuda";
        case CodeLanguage::python: return "python";
        case CodeLanguage::unknown: break;
    }
    return "unknown";
}

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string collapse_spaces(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = !out.empty();
        } else {
            if (space) out += ' ';
            out += c;
            space = false;
        }
    }
    return out;
}

// ---- CUDA C++ -----------------------------------------------------------------

struct Tok {
    enum Kind { ident, number, punct, str } kind;
    std::string text;
};

// Tokens of C++ source outside comments; preprocessor lines are consumed
// here (their #define names and #include paths recorded in facts).
std::vector<Tok> tokenize_cuda(const std::string& s, CodeFacts& facts) {
    std::vector<Tok> toks;
    size_t i = 0, n = s.size();
    bool line_start = true;
    auto add_uses_in = [&](const std::string& text) {
        for (size_t k = 0; k < text.size();) {
            if (is_ident_start(text[k])) {
                size_t b = k;
                while (k < text.size() && is_ident_char(text[k])) ++k;
                facts.uses.insert(text.substr(b, k - b));
            } else {
                ++k;
            }
        }
    };
    while (i < n) {
        char c = s[i];
        if (c == '\n') {
            line_start = true;
            ++i;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++i;
            continue;
        }
        if (c == '#' && line_start) {
            // A directive, continued over backslash-newlines.
            size_t b = i;
            while (i < n && s[i] != '\n') {
                if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') i += 2;
                else ++i;
            }
            std::string line = s.substr(b, i - b);
            static const std::regex define_re(R"(^#\s*define\s+([A-Za-z_]\w*))");
            static const std::regex include_re(R"(^#\s*include\s*[<"]([^>"]+)[>"])");
            std::smatch m;
            if (std::regex_search(line, m, define_re)) {
                facts.definitions[m[1]] = collapse_spaces(line);
                add_uses_in(line.substr(size_t(m.position(1) + m.length(1))));
            } else if (std::regex_search(line, m, include_re)) {
                std::string path = m[1];
                for (const char* fw : {"torch/", "ATen/", "c10/", "pybind11/"})
                    if (path.rfind(fw, 0) == 0) facts.framework_includes.push_back(path);
            } else {
                add_uses_in(line);
            }
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') ++i;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            size_t e = s.find("*/", i + 2);
            i = e == std::string::npos ? n : e + 2;
            continue;
        }
        if (c == '"') {
            size_t b = i;
            // A raw string R"delim(...)delim" (the R prefix was lexed as an identifier).
            if (!toks.empty() && toks.back().kind == Tok::ident) {
                const std::string& p = toks.back().text;
                if (p == "R" || p == "u8R" || p == "uR" || p == "UR" || p == "LR") {
                    size_t open = s.find('(', i);
                    if (open != std::string::npos) {
                        std::string close = ")" + s.substr(i + 1, open - i - 1) + "\"";
                        size_t e = s.find(close, open);
                        i = e == std::string::npos ? n : e + close.size();
                        toks.back() = {Tok::str, s.substr(b, i - b)};
                        continue;
                    }
                }
            }
            ++i;
            while (i < n && s[i] != '"' && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
            if (i < n && s[i] == '"') ++i;
            toks.push_back({Tok::str, s.substr(b, i - b)});
            continue;
        }
        if (c == '\'') {
            size_t b = i++;
            while (i < n && s[i] != '\'' && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
            if (i < n && s[i] == '\'') ++i;
            toks.push_back({Tok::str, s.substr(b, i - b)});
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            size_t b = i;
            while (i < n) {
                char d = s[i];
                if (is_ident_char(d) || d == '.' || d == '\'') {
                    ++i;
                } else if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' ||
                                                      s[i - 1] == 'P')) {
                    ++i;
                } else {
                    break;
                }
            }
            toks.push_back({Tok::number, s.substr(b, i - b)});
            continue;
        }
        if (is_ident_start(c)) {
            size_t b = i;
            while (i < n && is_ident_char(s[i])) ++i;
            toks.push_back({Tok::ident, s.substr(b, i - b)});
            facts.uses.insert(toks.back().text);
            continue;
        }
        toks.push_back({Tok::punct, std::string(1, c)});
        ++i;
    }
    return toks;
}

// Identifiers that are followed by '(' without being the declared name.
bool is_attribute_word(const std::string& w) {
    static const std::set<std::string> words = {
        "__launch_bounds__", "__attribute__", "__align__", "alignas", "__declspec", "decltype", "sizeof",
        "alignof",           "noexcept",      "static_assert", "__cluster_dims__", "operator", "throw"};
    return words.count(w) > 0;
}

class CudaScanner {
public:
    CudaScanner(const std::vector<Tok>& t, CodeFacts& f) : t_(t), f_(f) {}

    void run() {
        int namespaces = 0;        // open namespace or extern "C" braces (still file scope)
        int body_depth = 0;        // braces of bodies and initialisers around the current token
        Pending pending;
        stmt_.clear();
        int paren = 0;
        for (size_t k = 0; k < t_.size(); ++k) {
            const Tok& tok = t_[k];
            bool open = tok.kind == Tok::punct && tok.text == "{";
            bool close = tok.kind == Tok::punct && tok.text == "}";
            if (open) ++f_.brace_balance;
            if (close) --f_.brace_balance;
            if (body_depth > 0) {
                if (open) ++body_depth;
                if (close && --body_depth == 0) {
                    // The definition ends with its body. After a type's or an
                    // initialiser's body, what follows up to the ';' (`} s;`)
                    // is a declaration of its own.
                    define(pending.name, pending.first, k);
                    if (pending.kind == Pending::function && pending.kernel) f_.kernels.insert(pending.name);
                    if (pending.kind == Pending::function && pending.name == "main") f_.has_main = true;
                    pending = Pending();
                    stmt_.clear();
                    paren = 0;
                }
                continue;
            }
            if (tok.kind == Tok::punct && tok.text == "(") ++paren;
            if (tok.kind == Tok::punct && tok.text == ")") paren = std::max(0, paren - 1);
            if (open && paren == 0) {
                if (opens_namespace()) {
                    ++namespaces;
                    stmt_.clear();
                    continue;
                }
                // A function body, a type's body or a braced initialiser: its
                // definition is recorded when the body closes (functions) or at
                // the ';' after it (types and variables).
                body_depth = 1;
                pending = classify_brace();
                continue;
            }
            if (close && paren == 0) {
                // Closes a namespace (bodies were handled above).
                if (namespaces > 0) --namespaces;
                stmt_.clear();
                continue;
            }
            if (tok.kind == Tok::punct && tok.text == ";" && paren == 0) {
                declaration_end(k);
                stmt_.clear();
                continue;
            }
            stmt_.push_back(k);
        }
        // A body the text ends inside (an answer cut off mid-kernel) still
        // defines its function: the code is incomplete, not absent.
        if (body_depth > 0 && pending.kind == Pending::function) {
            define(pending.name, pending.first, t_.size() - 1);
            if (pending.kernel) f_.kernels.insert(pending.name);
        }
    }

private:
    struct Pending {
        enum Kind { none, function, type, variable } kind = none;
        std::string name;
        size_t first = 0;
        bool kernel = false;
    };

    const Tok& tok(size_t idx) const { return t_[stmt_[idx]]; }

    // The first statement token after a `template <...>` prefix (whose
    // default arguments may hold '=' and '(' that are not the declaration's).
    size_t after_template() const {
        if (stmt_.size() < 2 || !is_ident(0, "template") || !is_punct(1, "<")) return 0;
        int depth = 0;
        for (size_t i = 1; i < stmt_.size(); ++i) {
            if (is_punct(i, "<") || is_punct(i, "(")) ++depth;
            if ((is_punct(i, ">") || is_punct(i, ")")) && --depth == 0) return i + 1;
        }
        return stmt_.size();
    }
    bool is_punct(size_t idx, const char* p) const { return tok(idx).kind == Tok::punct && tok(idx).text == p; }
    bool is_ident(size_t idx, const char* w) const { return tok(idx).kind == Tok::ident && tok(idx).text == w; }

    bool opens_namespace() const {
        if (stmt_.empty()) return false;
        size_t last = stmt_.size() - 1;
        if (tok(last).kind == Tok::str) return last >= 1 && is_ident(last - 1, "extern");
        for (size_t i = 0; i < stmt_.size(); ++i)
            if (is_ident(i, "namespace")) {
                for (size_t j = i + 1; j < stmt_.size(); ++j)
                    if (!(tok(j).kind == Tok::ident || is_punct(j, ":"))) return false;
                return true;
            }
        return false;
    }

    bool stmt_has(const char* w) const {
        for (size_t i = 0; i < stmt_.size(); ++i)
            if (is_ident(i, w)) return true;
        return false;
    }

    // The declared name of a function: the identifier before the first '(' at
    // depth 0 that is not an attribute (`__launch_bounds__(256)`).
    std::string function_name() const {
        int depth = 0;
        for (size_t i = after_template(); i < stmt_.size(); ++i) {
            if (is_punct(i, "(")) {
                if (depth == 0 && i > 0 && tok(i - 1).kind == Tok::ident && !is_attribute_word(tok(i - 1).text))
                    return tok(i - 1).text;
                ++depth;
            } else if (is_punct(i, ")")) {
                depth = std::max(0, depth - 1);
            }
        }
        return "";
    }

    // The variable name before '=' or '[' (or the last identifier).
    std::string variable_name(size_t end) const {
        std::string last;
        int depth = 0;
        for (size_t i = after_template(); i < end; ++i) {
            if (is_punct(i, "(") || is_punct(i, "<")) ++depth;
            if (is_punct(i, ")") || is_punct(i, ">")) depth = std::max(0, depth - 1);
            if (depth == 0 && (is_punct(i, "=") || is_punct(i, "["))) break;
            if (depth == 0 && tok(i).kind == Tok::ident && !is_attribute_word(tok(i).text)) last = tok(i).text;
        }
        return last;
    }

    Pending classify_brace() const {
        Pending p;
        if (stmt_.empty()) return p;
        p.first = stmt_.front();
        const size_t from = after_template();
        // `struct S {`, `enum class E {`, `class K : public B {`
        for (size_t i = from; i < stmt_.size(); ++i) {
            if (is_punct(i, "(") || is_punct(i, "=")) break;
            if (is_ident(i, "struct") || is_ident(i, "class") || is_ident(i, "union") || is_ident(i, "enum")) {
                for (size_t j = i + 1; j < stmt_.size(); ++j) {
                    if (tok(j).kind != Tok::ident) {
                        if (is_punct(j, "(")) {  // __align__(16)
                            while (j < stmt_.size() && !is_punct(j, ")")) ++j;
                        }
                        continue;
                    }
                    const std::string& w = tok(j).text;
                    if (w == "class" || w == "struct" || is_attribute_word(w)) continue;
                    p.kind = Pending::type;
                    p.name = w;
                    return p;
                }
                return p;  // anonymous
            }
        }
        for (size_t i = from; i < stmt_.size(); ++i) {
            if (is_punct(i, "=")) {
                p.kind = Pending::variable;
                p.name = variable_name(stmt_.size());
                return p;
            }
            if (is_punct(i, "(")) break;
        }
        std::string name = function_name();
        if (!name.empty()) {
            p.kind = Pending::function;
            p.name = name;
            p.kernel = stmt_has("__global__");
        }
        return p;
    }

    void declaration_end(size_t end_tok) {
        if (stmt_.empty()) return;
        if (is_ident(0, "typedef")) {
            std::string last;
            for (size_t i = 0; i < stmt_.size(); ++i)
                if (tok(i).kind == Tok::ident) last = tok(i).text;
            if (!last.empty()) define(last, stmt_.front(), end_tok);
            return;
        }
        if (is_ident(0, "using")) {
            if (stmt_.size() >= 3 && tok(1).kind == Tok::ident && tok(1).text != "namespace" && is_punct(2, "="))
                define(tok(1).text, stmt_.front(), end_tok);
            return;
        }
        if (is_ident(0, "template") && stmt_.size() > 1 && !is_punct(1, "<")) return;  // explicit instantiation
        // A prototype (name followed by a parameter list, no initialiser) is not a definition.
        for (size_t i = after_template(); i < stmt_.size(); ++i) {
            if (is_punct(i, "=")) break;
            if (is_punct(i, "(") && i > 0 && tok(i - 1).kind == Tok::ident && !is_attribute_word(tok(i - 1).text))
                return;
        }
        std::string name = variable_name(stmt_.size());
        if (!name.empty() && name != "extern") define(name, stmt_.front(), end_tok);
    }

    void define(const std::string& name, size_t first, size_t last) {
        if (name.empty()) return;
        std::string text;
        for (size_t k = first; k <= last && k < t_.size(); ++k) {
            if (!text.empty()) text += ' ';
            text += t_[k].text;
        }
        f_.definitions[name] = text;
    }

    const std::vector<Tok>& t_;
    CodeFacts& f_;
    std::vector<size_t> stmt_;  // token indices of the current file-scope statement
};

// ---- Python -------------------------------------------------------------------

struct PyLine {
    std::string text;          // the raw line
    std::string code;          // with string contents blanked and the comment dropped
    bool starts_statement = false;  // not inside a string, brackets or a backslash continuation
    int indent = 0;
};

// One pass over Python source: lines with string literals and comments
// masked, whether each line starts a statement, the identifiers outside
// strings and comments, and the triple-quoted strings.
struct PyScan {
    std::vector<PyLine> lines;
    std::set<std::string> idents;
    std::vector<PythonString> strings;
};

PyScan scan_python_text(const std::string& s) {
    PyScan out;
    size_t i = 0, n = s.size();
    int bracket = 0;
    bool continued = false;
    int line_no = 1;
    std::string raw, masked;
    bool line_starts_statement = true;
    std::string quote;  // the open string's delimiter, "" when outside a string
    PythonString current;
    auto end_line = [&]() {
        PyLine l;
        l.text = raw;
        l.code = masked;
        l.starts_statement = line_starts_statement;
        size_t ind = raw.find_first_not_of(" \t");
        l.indent = ind == std::string::npos ? 0 : int(ind);
        out.lines.push_back(std::move(l));
        raw.clear();
        masked.clear();
        ++line_no;
        // The next line starts a statement unless something is still open.
        line_starts_statement = quote.empty() && bracket == 0 && !continued;
        continued = false;
    };
    while (i < n) {
        char c = s[i];
        if (!quote.empty()) {
            if (s.compare(i, quote.size(), quote) == 0) {
                raw += quote;
                masked += quote;
                i += quote.size();
                if (quote.size() == 3) out.strings.push_back(current);
                quote.clear();
                continue;
            }
            if (c == '\\' && i + 1 < n && s[i + 1] != '\n') {
                raw += s.substr(i, 2);
                masked += "  ";
                current.text += s.substr(i, 2);
                i += 2;
                continue;
            }
            if (c == '\n') {
                if (quote.size() == 1) quote.clear();  // an unterminated one-line string
                current.text += c;
                end_line();
                ++i;
                continue;
            }
            raw += c;
            masked += ' ';
            current.text += c;
            ++i;
            continue;
        }
        if (c == '\n') {
            end_line();
            ++i;
            continue;
        }
        if (c == '#') {
            while (i < n && s[i] != '\n') raw += s[i++];
            continue;
        }
        if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
            continued = true;
            raw += c;
            ++i;
            continue;
        }
        if (c == '"' || c == '\'') {
            bool triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
            quote = triple ? std::string(3, c) : std::string(1, c);
            if (triple) {
                current = PythonString();
                current.line = line_no;
                static const std::regex assign_re(R"(([A-Za-z_]\w*)\s*(?::[^=]*)?=\s*[rRbBuUfF]{0,2}$)");
                std::smatch m;
                if (std::regex_search(masked, m, assign_re)) current.assigned_to = m[1];
            }
            raw += quote;
            masked += quote;
            i += quote.size();
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++bracket;
        if (c == ')' || c == ']' || c == '}') bracket = std::max(0, bracket - 1);
        if (is_ident_start(c)) {
            size_t b = i;
            while (i < n && is_ident_char(s[i])) ++i;
            std::string w = s.substr(b, i - b);
            raw += w;
            masked += w;
            // A string prefix (r"...", f'...') is not an identifier.
            bool prefix = i < n && (s[i] == '"' || s[i] == '\'') && w.size() <= 2 &&
                          w.find_first_not_of("rRbBuUfF") == std::string::npos;
            if (!prefix) out.idents.insert(w);
            continue;
        }
        raw += c;
        masked += c;
        ++i;
    }
    if (!raw.empty() || !masked.empty()) end_line();
    return out;
}

bool starts_with_word(const std::string& s, const std::string& w) {
    return s.compare(0, w.size(), w) == 0 && (s.size() == w.size() || !is_ident_char(s[w.size()]));
}

}  // namespace

CodeFacts scan_cuda(const std::string& code) {
    CodeFacts f;
    std::vector<Tok> toks = tokenize_cuda(code, f);
    CudaScanner(toks, f).run();
    return f;
}

CodeFacts scan_python(const std::string& code) {
    CodeFacts f;
    PyScan ps = scan_python_text(code);
    f.uses = ps.idents;
    static const std::regex def_re(R"(^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\()");
    static const std::regex class_re(R"(^class\s+([A-Za-z_]\w*))");
    static const std::regex import_re(R"(^import\s+(.+))");
    static const std::regex from_re(R"(^from\s+\S+\s+import\s+\(?([^)]*)\)?)");
    static const std::regex const_re(R"(^([A-Z][A-Z0-9_]*)\s*(?::[^=]*)?=[^=])");
    static const std::regex main_re(R"(^if\s+__name__\s*==\s*['"]__main__['"]\s*:)");
    std::vector<std::string> decorators;
    // The open top-level definition: its name, its text so far, whether it is a kernel.
    std::string open_name, open_text;
    bool open_kernel = false;
    auto close_open = [&]() {
        if (!open_name.empty()) {
            f.definitions[open_name] = open_text;
            if (open_kernel) f.kernels.insert(open_name);
        }
        open_name.clear();
        open_text.clear();
        open_kernel = false;
    };
    auto add_alias_list = [&](const std::string& list) {
        // "a.b as c, d" -> c, d (the first component of a dotted module name is what `import a.b` binds)
        size_t p = 0;
        while (p <= list.size()) {
            size_t q = list.find(',', p);
            std::string item = trim(list.substr(p, q == std::string::npos ? std::string::npos : q - p));
            static const std::regex as_re(R"(^[\w.]+\s+as\s+([A-Za-z_]\w*)$)");
            std::smatch m;
            if (std::regex_match(item, m, as_re)) {
                f.definitions[m[1]] = "import " + item;
            } else if (!item.empty() && item != "*") {
                std::string first = item.substr(0, item.find('.'));
                if (!first.empty() && is_ident_start(first[0])) f.definitions[first] = "import " + item;
            }
            if (q == std::string::npos) break;
            p = q + 1;
        }
    };
    for (size_t li = 0; li < ps.lines.size(); ++li) {
        const PyLine& l = ps.lines[li];
        std::string code_text = trim(l.code);
        bool top = l.starts_statement && l.indent == 0 && !code_text.empty();
        // The whole logical line: an import in parentheses spans several.
        std::string logical = code_text;
        for (size_t k = li + 1; top && k < ps.lines.size() && !ps.lines[k].starts_statement; ++k)
            logical += " " + trim(ps.lines[k].code);
        if (!top) {
            if (!open_name.empty() && !code_text.empty()) open_text += " " + collapse_spaces(l.code);
            continue;
        }
        std::smatch m;
        if (code_text[0] == '@') {
            close_open();
            decorators.push_back(code_text);
            continue;
        }
        close_open();
        if (std::regex_search(code_text, m, def_re) || std::regex_search(code_text, m, class_re)) {
            open_name = m[1];
            open_text = collapse_spaces(code_text);
            for (const std::string& d : decorators) {
                if (d.find("triton") != std::string::npos || d == "@jit" || d.rfind("@jit(", 0) == 0) {
                    open_kernel = starts_with_word(code_text, "def") || starts_with_word(code_text, "async");
                    f.uses_triton = true;
                }
            }
        } else if (std::regex_search(logical, m, import_re) || std::regex_search(logical, m, from_re)) {
            add_alias_list(m[1]);
            if (logical.find("triton") != std::string::npos) f.uses_triton = true;
        } else if (std::regex_search(code_text, m, const_re)) {
            f.definitions[m[1]] = collapse_spaces(logical);
        } else if (std::string raw = trim(l.text); std::regex_search(raw, m, main_re)) {
            f.has_main = true;  // (matched on the raw line: the masked one has the string blanked)
        }
        decorators.clear();
    }
    close_open();
    return f;
}

CodeFacts scan_code(const std::string& code, CodeLanguage lang) {
    if (lang == CodeLanguage::python) return scan_python(code);
    if (lang == CodeLanguage::cuda) return scan_cuda(code);
    return CodeFacts();
}

std::vector<PythonString> python_strings(const std::string& code) { return scan_python_text(code).strings; }

std::string mask_python_strings(const std::string& code) {
    std::string out;
    for (const PyLine& l : scan_python_text(code).lines) out += l.code + "\n";
    return out;
}

CodeLanguage guess_language(const std::string& code) {
    int cuda = 0, python = 0, prose = 0, lines = 0;
    static const std::regex py_def(R"(^(async\s+)?def\s+\w+\s*\(.*\)\s*(->.*)?:\s*$)");
    static const std::regex py_class(R"(^class\s+\w+.*:\s*$)");
    static const std::regex py_import(R"(^(import\s+[\w.]+|from\s+[\w.]+\s+import\s+))");
    static const std::regex py_block(R"(^(if|elif|else|for|while|with|try|except|finally)\b.*:\s*$)");
    static const std::regex c_decl(
        R"(^(static\s+|inline\s+|const\s+|unsigned\s+)*(void|int|float|double|auto|bool|char|long|size_t|half|__half|dim3)\b[^;]*[;{(]\s*$)");
    size_t p = 0;
    while (p < code.size()) {
        size_t e = code.find('\n', p);
        std::string raw = code.substr(p, e == std::string::npos ? std::string::npos : e - p);
        p = e == std::string::npos ? code.size() : e + 1;
        std::string l = trim(raw);
        if (l.empty()) continue;
        ++lines;
        if (looks_like_prose(raw)) ++prose;
        if (l.rfind("#include", 0) == 0) cuda += 3;
        if (l.rfind("#define", 0) == 0 || l.rfind("#pragma", 0) == 0) cuda += 2;
        for (const char* w : {"__global__", "__device__", "__shared__", "__syncthreads", "threadIdx", "blockIdx",
                              "blockDim", "extern \"C\""})
            if (l.find(w) != std::string::npos) cuda += 3;
        if (l.rfind("template", 0) == 0 && l.find('<') != std::string::npos) cuda += 2;
        if (l.back() == ';') cuda += 1;
        if (l.back() == '{' || l == "}" || l == "};") cuda += 1;
        if (l.rfind("//", 0) == 0) cuda += 1;
        if (std::regex_search(l, c_decl)) cuda += 1;
        if (std::regex_search(l, py_def) || std::regex_search(l, py_class)) python += 3;
        if (std::regex_search(l, py_import)) python += 3;
        if (l.rfind("@triton", 0) == 0) python += 4;
        else if (l[0] == '@') python += 1;
        if (std::regex_search(l, py_block)) python += 1;
        if (l.find("tl.") != std::string::npos || l.find("self.") != std::string::npos) python += 1;
        if (l.rfind("\"\"\"", 0) == 0) python += 1;
    }
    int best = std::max(cuda, python);
    if (best < 3) return CodeLanguage::unknown;
    // Text that reads mostly as sentences is prose that happens to mention code.
    if (prose * 2 > lines && best < 2 * (lines - prose) + 3) return CodeLanguage::unknown;
    return cuda > python ? CodeLanguage::cuda : CodeLanguage::python;
}

bool looks_like_code_start(const std::string& line) {
    static const std::regex re(
        R"(^(#\s*(include|define|pragma|if|ifdef|ifndef)\b|__global__|__device__|__host__|__constant__|template\s*<|extern\s+"C"|typedef\b|struct\s+\w|namespace\b|using\s+\w|static\s|inline\s|__forceinline__|constexpr\s|const\s+\w|//|/\*|import\s+\w|from\s+[\w.]+\s+import\b|@\w|(async\s+)?def\s+\w+\s*\(|class\s+\w+|(void|int|float|double|auto|unsigned|size_t|bool|half|__half)\b.*\())");
    return std::regex_search(trim(line), re);
}

bool looks_like_prose(const std::string& line) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;  // indented: code or a list's continuation
    std::string l = trim(line);
    if (l.empty()) return false;
    if (looks_like_code_start(l)) return false;
    static const std::regex keyword_re(
        R"(^(return\b|if\s.*:$|for\s.*:$|for\s*\(|while\b|else\b|elif\b|try:|except\b|with\s.*:$|print\(|assert\b|self\.|[A-Za-z_]\w*\s*=[^=]))");
    if (std::regex_search(l, keyword_re)) return false;
    char last = l.back();
    if (last == ';' || last == '{' || last == '}' || last == ',' || last == '(' || last == ')' || last == '\\') return false;
    if (l.find(';') != std::string::npos && last != '.') return false;
    int words = 0, letters = 0;
    for (size_t k = 0; k < l.size();) {
        if (std::isalpha(static_cast<unsigned char>(l[k]))) {
            size_t b = k;
            while (k < l.size() && (std::isalpha(static_cast<unsigned char>(l[k])) || l[k] == '\'' || l[k] == '-')) ++k;
            letters += int(k - b);
            ++words;
        } else {
            ++k;
        }
    }
    return words >= 4 && letters * 2 >= int(l.size());
}

std::string entry_base_name(const std::string& kernel) {
    std::string s = kernel;
    size_t paren = s.find('(');
    if (paren != std::string::npos) s = s.substr(0, paren);
    size_t angle = s.find('<');
    if (angle != std::string::npos) s = s.substr(0, angle);
    s = trim(s);
    size_t b = s.size();
    while (b > 0 && is_ident_char(s[b - 1])) --b;
    return s.substr(b);
}

}  // namespace kb::evaluate
