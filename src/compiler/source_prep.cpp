#include "compiler/source_prep.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "compiler/compiler.h"

namespace kb {
namespace {

// --------------------------------------------------------------------------
// Tokenizer: enough of C++'s lexical grammar to find namespace-scope
// declarations. Comments are skipped; string, character and raw string
// literals are single tokens; a preprocessor directive (with its line
// continuations) is a single token.

enum class Tok { ident, number, string, punct, directive };

struct Token {
    Tok kind;
    size_t begin, end;  // byte offsets into the source
    int line;           // 1-based line of `begin`
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

class Lexer {
public:
    explicit Lexer(const std::string& s) : s_(s) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        bool line_start = true;  // only whitespace/comments so far on this line
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == '\n') {
                ++line_;
                ++pos_;
                line_start = true;
                continue;
            }
            if (c == '\\' && peek(1) == '\n') {  // line splice
                pos_ += 2;
                ++line_;
                continue;
            }
            if (c == '\\' && peek(1) == '\r' && peek(2) == '\n') {
                pos_ += 3;
                ++line_;
                continue;
            }
            if (std::isspace(static_cast<unsigned char>(c))) {
                ++pos_;
                continue;
            }
            if (c == '/' && peek(1) == '/') {
                skip_line_comment();
                continue;
            }
            if (c == '/' && peek(1) == '*') {
                skip_block_comment();
                continue;
            }
            size_t b = pos_;
            int l = line_;
            if (c == '#' && line_start) {
                lex_directive();
                out.push_back({Tok::directive, b, pos_, l});
                continue;
            }
            line_start = false;
            if (lex_string_like()) {
                out.push_back({Tok::string, b, pos_, l});
            } else if (ident_start(c)) {
                while (pos_ < s_.size() && ident_char(s_[pos_])) ++pos_;
                out.push_back({Tok::ident, b, pos_, l});
            } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                       (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
                lex_number();
                out.push_back({Tok::number, b, pos_, l});
            } else {
                lex_punct();
                out.push_back({Tok::punct, b, pos_, l});
            }
        }
        return out;
    }

private:
    char peek(size_t k) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }

    void skip_line_comment() {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
            if (s_[pos_] == '\\' && peek(1) == '\n') {
                pos_ += 2;
                ++line_;
                continue;
            }
            ++pos_;
        }
    }
    void skip_block_comment() {
        pos_ += 2;
        while (pos_ < s_.size() && !(s_[pos_] == '*' && peek(1) == '/')) {
            if (s_[pos_] == '\n') ++line_;
            ++pos_;
        }
        pos_ = std::min(s_.size(), pos_ + 2);
    }
    // A directive runs to the end of its line, across continuations and
    // block comments that start on it.
    void lex_directive() {
        while (pos_ < s_.size() && s_[pos_] != '\n') {
            char c = s_[pos_];
            if (c == '\\' && peek(1) == '\n') {
                pos_ += 2;
                ++line_;
                continue;
            }
            if (c == '\\' && peek(1) == '\r' && peek(2) == '\n') {
                pos_ += 3;
                ++line_;
                continue;
            }
            if (c == '/' && peek(1) == '*') {
                skip_block_comment();
                continue;
            }
            if (c == '/' && peek(1) == '/') {
                skip_line_comment();
                continue;
            }
            if (c == '"' || c == '\'') {
                skip_quoted(c);
                continue;
            }
            ++pos_;
        }
    }
    void skip_quoted(char q) {
        ++pos_;
        while (pos_ < s_.size() && s_[pos_] != q && s_[pos_] != '\n') {
            if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
                if (s_[pos_ + 1] == '\n') ++line_;
                pos_ += 2;
                continue;
            }
            ++pos_;
        }
        if (pos_ < s_.size() && s_[pos_] == q) ++pos_;
    }
    // String and character literals with their encoding prefixes, and raw
    // strings R"delim(...)delim".
    bool lex_string_like() {
        size_t p = pos_;
        size_t prefix = 0;
        if (s_.compare(p, 2, "u8") == 0) prefix = 2;
        else if (s_[p] == 'u' || s_[p] == 'U' || s_[p] == 'L') prefix = 1;
        bool raw = false;
        if (p + prefix < s_.size() && s_[p + prefix] == 'R' && p + prefix + 1 < s_.size() && s_[p + prefix + 1] == '"') {
            raw = true;
            prefix += 1;
        }
        if (p + prefix >= s_.size()) return false;
        char q = s_[p + prefix];
        if (q != '"' && q != '\'') return false;
        if (prefix > 0 && !raw) {
            // "u8" etc. must not be the tail of a longer identifier: the caller
            // only calls us at token starts, so this is a prefix.
        }
        if (raw) {
            size_t open = p + prefix + 1;
            size_t paren = s_.find('(', open);
            if (paren == std::string::npos || paren - open > 16) return false;
            std::string close = ")" + s_.substr(open, paren - open) + "\"";
            size_t end = s_.find(close, paren + 1);
            size_t stop = end == std::string::npos ? s_.size() : end + close.size();
            for (size_t i = pos_; i < stop; ++i)
                if (s_[i] == '\n') ++line_;
            pos_ = stop;
            return true;
        }
        pos_ = p + prefix;
        skip_quoted(q);
        return true;
    }
    void lex_number() {
        // pp-number: digits, letters, '.', digit separators, exponent signs.
        ++pos_;
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if ((c == '+' || c == '-') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E' || s_[pos_ - 1] == 'p' ||
                                           s_[pos_ - 1] == 'P')) {
                ++pos_;
            } else if (c == '\'' && std::isalnum(static_cast<unsigned char>(peek(1)))) {
                pos_ += 2;
            } else if (ident_char(c) || c == '.') {
                ++pos_;
            } else {
                break;
            }
        }
    }
    void lex_punct() {
        static const char* const three[] = {"<<=", ">>=", "...", "->*", "<=>"};
        static const char* const two[] = {"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
                                          "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", "##"};
        for (const char* t : three)
            if (s_.compare(pos_, 3, t) == 0) {
                pos_ += 3;
                return;
            }
        for (const char* t : two)
            if (s_.compare(pos_, 2, t) == 0) {
                pos_ += 2;
                return;
            }
        ++pos_;
    }

    const std::string& s_;
    size_t pos_ = 0;
    int line_ = 1;
};

// --------------------------------------------------------------------------
// Directives.

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

// The directive's name ("include", "define", ...) and the rest of its text,
// with continuations joined.
void split_directive(const std::string& text, std::string& name, std::string& rest) {
    std::string joined;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;
            continue;
        }
        joined += text[i];
    }
    size_t p = 1;  // past '#'
    while (p < joined.size() && (joined[p] == ' ' || joined[p] == '\t')) ++p;
    size_t q = p;
    while (q < joined.size() && ident_char(joined[q])) ++q;
    name = joined.substr(p, q - p);
    rest = joined.substr(q);
}

bool parse_include(const std::string& rest, IncludeDirective& inc) {
    std::string r = trim(rest);
    if (r.size() < 2) return false;
    char open = r[0];
    char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
    if (!close) return false;
    size_t end = r.find(close, 1);
    if (end == std::string::npos) return false;
    inc.name = r.substr(1, end - 1);
    inc.angled = open == '<';
    return true;
}

void add_identifiers(const std::string& text, std::unordered_set<std::string>& ids) {
    for (size_t i = 0; i < text.size();) {
        if (ident_start(text[i]) && (i == 0 || !ident_char(text[i - 1]))) {
            size_t j = i;
            while (j < text.size() && ident_char(text[j])) ++j;
            ids.insert(text.substr(i, j - i));
            i = j;
        } else {
            ++i;
        }
    }
}

// --------------------------------------------------------------------------
// The namespace-scope parser.

class Splitter {
public:
    Splitter(const std::string& src, std::vector<Token> toks) : s_(src), t_(std::move(toks)) {}

    PreparedSource run() {
        PreparedSource out;
        out.text = s_;
        for (const Token& tk : t_) {
            if (tk.kind == Tok::ident) out.identifiers.insert(text(tk));
            if (tk.kind == Tok::directive) {
                std::string name, rest;
                split_directive(std::string(s_, tk.begin, tk.end - tk.begin), name, rest);
                add_identifiers(rest, out.identifiers);
                IncludeDirective inc;
                if ((name == "include" || name == "include_next") && parse_include(rest, inc)) {
                    inc.line = tk.line;
                    out.includes.push_back(inc);
                }
            }
        }
        size_t i = 0;
        bool ok = scope(i, false) && i == t_.size();
        if (!ok) {
            out.understood = false;
            return out;
        }
        // A host function with a __device__ twin of the same signature is a
        // redefinition to nvcc: keep it, so that NVRTC fails as nvcc would.
        std::vector<bool> dropped_note(removed_.size(), false);
        for (size_t x = 0; x < edits_.size();) {
            if (!edits_[x].sig.empty() && device_sigs_.count(edits_[x].sig)) {
                if (edits_[x].note < dropped_note.size()) dropped_note[edits_[x].note] = true;
                edits_.erase(edits_.begin() + long(x));
            } else {
                ++x;
            }
        }
        std::vector<std::string> notes;
        for (size_t x = 0; x < removed_.size(); ++x)
            if (!dropped_note[x]) notes.push_back(removed_[x]);
        removed_.swap(notes);
        remove_unreferenced_host_classes();
        // What NVRTC will see spells fewer names than the input: the prelude
        // is chosen from the identifiers of the code that stays (and of every
        // directive). Edits are in source order.
        std::unordered_set<std::string> kept_ids;
        std::map<std::string, int> uses;
        for (const auto& a : const_arrays_) uses[a.first] = 0;
        size_t e = 0;
        for (const Token& tk : t_) {
            while (e < edits_.size() && (!edits_[e].insert.empty() || edits_[e].end <= tk.begin)) ++e;
            bool removed = e < edits_.size() && edits_[e].begin <= tk.begin && tk.end <= edits_[e].end;
            if (tk.kind == Tok::ident && !removed) {
                std::string w = text(tk);
                auto u = uses.find(w);
                if (u != uses.end()) ++u->second;
                kept_ids.insert(std::move(w));
            }
            if (tk.kind == Tok::directive) {
                std::string name, rest;
                split_directive(std::string(s_, tk.begin, tk.end - tk.begin), name, rest);
                add_identifiers(rest, kept_ids);
            }
        }
        // nvcc parses host code too: a host launcher calling a helper that
        // does not exist is a compile error there, invisible to NVRTC once the
        // launcher is removed. Calls to names this file never declares (and no
        // library is known to) send the compile to nvcc for its verdict.
        bool using_std = false;
        for (size_t x = 0; x + 2 < t_.size(); ++x)
            if (is(x, "using") && is(x + 1, "namespace") && is(x + 2, "std")) using_std = true;
        std::unordered_set<std::string> reported;
        if (!using_std) {
            for (const auto& call : host_calls_) {
                const std::string& w = call.first;
                if (all_names_.count(w) || declared_.count(w) || macros_.count(w) || kept_ids.count(w) ||
                    removed_functions_.count(w) || kept_functions_.count(w) || known_library_call(w) ||
                    reported.count(w))
                    continue;
                reported.insert(w);
                out.nvcc_only.push_back("line " + std::to_string(call.second) + ": host code calls '" + w +
                                        "', which this file does not declare (nvcc checks host code; NVRTC "
                                        "never sees it)");
            }
        }
        out.identifiers = std::move(kept_ids);
        for (const auto& a : const_arrays_)
            if (uses[a.first] > 1)
                out.nvcc_only.push_back("line " + std::to_string(a.second) + ": namespace-scope constant array '" +
                                        a.first + "' is used by code NVRTC compiles (nvcc allows it in device code "
                                        "only inside constant expressions)");
        // Apply edits back to front so offsets stay valid.
        for (auto it = edits_.rbegin(); it != edits_.rend(); ++it) {
            if (it->insert.empty()) {
                blank(out.text, it->begin, it->end);
            } else {
                out.text.insert(it->begin, it->insert);
            }
        }
        out.removed = std::move(removed_);
        out.annotated = std::move(annotated_);
        out.host_launched_templates = std::move(launched_);
        return out;
    }

private:
    struct Edit {
        size_t begin, end;   // blank [begin, end) ...
        std::string insert;  // ... or insert this at `begin`
        std::string sig;     // removed function: name(params), to spot host/device twins
        size_t note = ~size_t(0);  // index in removed_
    };

    std::string text(const Token& tk) const { return s_.substr(tk.begin, tk.end - tk.begin); }
    bool is(size_t i, const char* str) const {
        if (i >= t_.size()) return false;
        const Token& tk = t_[i];
        size_t n = std::strlen(str);
        return tk.end - tk.begin == n && s_.compare(tk.begin, n, str) == 0 && tk.kind != Tok::string &&
               tk.kind != Tok::directive;
    }
    bool is_ident(size_t i) const { return i < t_.size() && t_[i].kind == Tok::ident; }

    // Blanks [b, e) but keeps newlines and the directives in it (except
    // #pragma, which belongs to the removed code).
    void blank(std::string& out, size_t b, size_t e) {
        size_t k = b;
        for (const Token& tk : t_) {
            if (tk.kind != Tok::directive || tk.begin < b || tk.end > e) continue;
            std::string name, rest;
            split_directive(std::string(s_, tk.begin, tk.end - tk.begin), name, rest);
            blank_range(out, k, tk.begin);
            if (name == "pragma") blank_range(out, tk.begin, tk.end);
            k = tk.end;
        }
        blank_range(out, k, e);
    }
    static void blank_range(std::string& out, size_t b, size_t e) {
        for (size_t i = b; i < e && i < out.size(); ++i)
            if (out[i] != '\n' && out[i] != '\r') out[i] = ' ';
    }

    // Records #define/#undef as they come, so annotations hidden behind
    // macros (#define DEVICE __device__ __forceinline__) are seen.
    void directive(const Token& tk) {
        std::string name, rest;
        split_directive(std::string(s_, tk.begin, tk.end - tk.begin), name, rest);
        if (name == "define") {
            size_t p = 0;
            while (p < rest.size() && std::isspace(static_cast<unsigned char>(rest[p]))) ++p;
            size_t q = p;
            while (q < rest.size() && ident_char(rest[q])) ++q;
            std::string macro = rest.substr(p, q - p);
            if (macro.empty()) return;
            if (q < rest.size() && rest[q] == '(') {
                function_macros_.insert(macro);
                size_t close = rest.find(')', q);
                std::string body = close == std::string::npos ? "" : rest.substr(close + 1);
                macros_[macro] = body;
            } else {
                function_macros_.erase(macro);
                macros_[macro] = rest.substr(q);
            }
        } else if (name == "undef") {
            std::string m = trim(rest);
            macros_.erase(m);
            function_macros_.erase(m);
        }
    }

    // What the identifiers in [b, e) say about execution and memory space,
    // looking through macros.
    struct Spaces {
        bool global = false, device = false, host = false, memory = false;  // memory: __constant__/__shared__/__managed__
        bool constexpr_ = false, const_ = false, typedef_ = false, extern_ = false;
    };
    void note_word(const std::string& w, Spaces& sp, int depth) const {
        if (w == "__global__" || w == "global") sp.global = true;  // `global` inside __attribute__((global))
        else if (w == "__device__" || w == "device") sp.device = true;
        else if (w == "__host__" || w == "host") sp.host = true;
        else if (w == "__constant__" || w == "__shared__" || w == "__managed__" || w == "constant" ||
                 w == "shared" || w == "managed") sp.memory = true;
        else if (w == "constexpr" || w == "consteval") sp.constexpr_ = true;
        else if (w == "typedef" || w == "using") sp.typedef_ = true;
        else if (depth < 8) {
            auto it = macros_.find(w);
            if (it != macros_.end()) {
                std::unordered_set<std::string> words;
                add_identifiers(it->second, words);
                for (const std::string& x : words) note_word(x, sp, depth + 1);
            }
        }
    }
    // The words `global`, `device`, ... count only inside __attribute__ or
    // __location__; elsewhere they are ordinary identifiers.
    Spaces spaces(size_t b, size_t e) const {
        Spaces sp;
        for (size_t i = b; i < e; ++i) {
            if (t_[i].kind != Tok::ident) continue;
            std::string w = text(t_[i]);
            if (w == "__attribute__" || w == "__location__") {
                size_t j = i + 1;
                if (!is(j, "(")) continue;
                size_t close = match(j);
                for (size_t k = j; k < close && k < e; ++k)
                    if (t_[k].kind == Tok::ident) note_word(text(t_[k]), sp, 0);
                i = close;
                continue;
            }
            if (w == "global" || w == "device" || w == "host" || w == "constant" || w == "shared" ||
                w == "managed")
                continue;
            if (w == "const") sp.const_ = true;
            if (w == "extern") sp.extern_ = true;
            note_word(w, sp, 0);
        }
        return sp;
    }

    // Index of the token closing the bracket opened at i; t_.size() if none.
    size_t match(size_t i) const {
        std::string open = text(t_[i]);
        int depth = 0;
        for (size_t k = i; k < t_.size(); ++k) {
            if (t_[k].kind != Tok::punct) continue;
            char c = s_[t_[k].begin];
            if (t_[k].end - t_[k].begin != 1) continue;
            if (c == '(' || c == '[' || c == '{') ++depth;
            else if (c == ')' || c == ']' || c == '}') {
                if (--depth == 0) return k;
                if (depth < 0) return t_.size();
            }
        }
        return t_.size();
    }

    // Past a template header `template <...>` starting at i (at `template`).
    size_t skip_template_header(size_t i) const {
        size_t j = i + 1;
        if (!is(j, "<")) return j;
        int depth = 0;
        for (; j < t_.size(); ++j) {
            if (is(j, "(") || is(j, "[") || is(j, "{")) {
                j = match(j);
                if (j >= t_.size()) return j;
                continue;
            }
            if (is(j, "<")) ++depth;
            else if (is(j, ">")) --depth;
            else if (is(j, ">>")) depth -= 2;
            else if (is(j, ";") || is(j, "}")) return j;  // malformed
            if (depth <= 0) return j + 1;
        }
        return j;
    }

    bool is_keywordish(const std::string& w) const {
        static const char* const kw[] = {"decltype", "alignas", "__attribute__", "__declspec", "__launch_bounds__",
                                         "static_assert", "typeof", "__typeof__", "noexcept", "sizeof", "alignof",
                                         "__location__", "__align__", "throw", "operator", "requires",
                                         "__cluster_dims__", "__maxnreg__", "__grid_constant__"};
        for (const char* k : kw)
            if (w == k) return true;
        return false;
    }

    // Parses declarations until the end of the file (nested == false) or the
    // `}` closing this scope. Returns false where it loses track.
    bool scope(size_t& i, bool nested) {
        while (i < t_.size()) {
            const Token& tk = t_[i];
            if (tk.kind == Tok::directive) {
                directive(tk);
                ++i;
                continue;
            }
            if (is(i, "}")) {
                if (!nested) return false;
                ++i;
                return true;
            }
            if (is(i, ";")) {
                ++i;
                continue;
            }
            // namespace N { ... }, inline namespace, namespace a::b { ... }
            size_t j = i;
            if (is(j, "inline") && is(j + 1, "namespace")) ++j;
            if (is(j, "namespace")) {
                size_t k = j + 1;
                while (k < t_.size() && !is(k, "{") && !is(k, ";") && !is(k, "=")) ++k;
                if (is(k, "{")) {
                    for (size_t x = j + 1; x < k; ++x)
                        if (is_ident(x)) declared_.insert(text(t_[x]));
                    i = k + 1;
                    if (!scope(i, true)) return false;
                    continue;
                }
                // alias: namespace a = b;
                while (k < t_.size() && !is(k, ";")) ++k;
                i = k + 1;
                continue;
            }
            // extern "C" { ... }
            if (is(i, "extern") && i + 1 < t_.size() && t_[i + 1].kind == Tok::string && is(i + 2, "{")) {
                i += 3;
                if (!scope(i, true)) return false;
                continue;
            }
            // Function-like macro invocations at namespace scope, such as
            // DEFINE_KERNEL(float), are their own items: keep them.
            if (is_ident(i) && is(i + 1, "(")) {
                std::string w = text(t_[i]);
                if (function_macros_.count(w) || w == "_Pragma") {
                    size_t close = match(i + 1);
                    if (close >= t_.size()) return false;
                    i = close + 1;
                    // A macro that spells a function head: keep its body too.
                    if (is(i, "{")) {
                        size_t body_close = match(i);
                        if (body_close >= t_.size()) return false;
                        i = body_close + 1;
                    }
                    continue;
                }
                if (!is_keywordish(w)) {
                    size_t close = match(i + 1);
                    if (close >= t_.size()) return false;
                    // NAME(...) followed by the start of another declaration:
                    // a macro from some header. Keep it.
                    if (close + 1 < t_.size() && (t_[close + 1].kind == Tok::ident || t_[close + 1].kind == Tok::directive) &&
                        !is(close + 1, "const") && !is(close + 1, "noexcept") && !is(close + 1, "override") &&
                        !is(close + 1, "final") && !is(close + 1, "throw") && !is(close + 1, "try") &&
                        !is(close + 1, "volatile") && !is(close + 1, "requires") && !is(close + 1, "__attribute__")) {
                        i = close + 1;
                        continue;
                    }
                }
            }
            if (!declaration(i)) return false;
        }
        return !nested;
    }

    // One declaration starting at i; leaves i past it. `cls` is the
    // enclosing class for member declarations ("" at namespace scope).
    bool declaration(size_t& i, const std::string& cls = "") {
        bool member = !cls.empty();
        size_t start = i;
        size_t spec = i;  // first token after template headers and `extern "C"`
        bool explicit_inst = false;
        std::vector<std::pair<size_t, size_t>> headers;  // template headers [template, past '>')
        while (is(spec, "template")) {
            if (!is(spec + 1, "<")) {  // explicit instantiation
                explicit_inst = true;
                break;
            }
            size_t past = skip_template_header(spec);
            headers.emplace_back(spec, past);
            spec = past;
        }
        if (is(spec, "extern") && spec + 1 < t_.size() && t_[spec + 1].kind == Tok::string) spec += 2;
        // Declarations that are never host entities.
        bool keep_kind = is(spec, "typedef") || is(spec, "using") || is(spec, "static_assert") || is(spec, "asm") ||
                         is(spec, "__asm__") || is(spec, "friend") || (is(start, "extern") && is(start + 1, "template"));

        // Walk to the end: `;` at depth 0, or a body.
        bool has_params = false;    // a (...) group at depth 0 before any '='
        bool saw_assign = false;
        bool class_key = false;
        size_t class_body = t_.size();  // `{` of a class definition
        size_t name_tok = t_.size();  // identifier before the parameter list
        size_t params_open = t_.size();
        size_t k = explicit_inst ? spec + 1 : spec;
        size_t body_open = t_.size();
        for (; k < t_.size(); ++k) {
            const Token& tk = t_[k];
            if (tk.kind == Tok::directive) {
                directive(tk);
                continue;
            }
            if (is(k, ";")) break;
            if (is(k, "}")) return false;  // unbalanced
            if (is(k, "=") && !saw_assign) {
                saw_assign = true;
                continue;
            }
            if (!saw_assign && (is(k, "struct") || is(k, "class") || is(k, "union") || is(k, "enum")) && !has_params)
                class_key = true;
            if (is(k, "(")) {
                if (!saw_assign && !has_params && k > spec) {
                    // The first (...) after an identifier (or operator token) is
                    // the parameter list, unless it belongs to an attribute.
                    size_t p = k - 1;
                    std::string prev = text(t_[p]);
                    if (t_[p].kind == Tok::ident && !is_keywordish(prev)) {
                        has_params = true;
                        name_tok = p;
                        params_open = k;
                    } else if (t_[p].kind == Tok::ident && prev == "operator") {
                        // operator()(...): the first () is the name
                        has_params = true;
                        name_tok = p;
                        size_t close = match(k);
                        if (close >= t_.size()) return false;
                        k = close;
                        continue;
                    } else if (t_[p].kind == Tok::punct && p >= 1 && (is(p - 1, "operator") || is(p - 2, "operator"))) {
                        has_params = true;
                        name_tok = p;
                        params_open = k;
                    } else if (is(p, ">") || is(p, ">>")) {
                        has_params = true;  // name<args>(...)
                        name_tok = p;
                        params_open = k;
                    }
                }
                size_t close = match(k);
                if (close >= t_.size()) return false;
                k = close;
                continue;
            }
            if (is(k, "[")) {
                size_t close = match(k);
                if (close >= t_.size()) return false;
                k = close;
                continue;
            }
            if (is(k, "{")) {
                if (saw_assign || !has_params) {
                    // initializer braces, or a class/enum body
                    size_t close = match(k);
                    if (close >= t_.size()) return false;
                    if (!saw_assign && class_key && class_body == t_.size()) class_body = k;
                    k = close;
                    continue;
                }
                body_open = k;
                break;
            }
            if (is(k, ":") && has_params && !saw_assign) {
                // constructor initializer list: a(b), c{d} ... then the body
                size_t m = k + 1;
                while (m < t_.size()) {
                    if (is(m, "(") || is(m, "{")) {
                        size_t close = match(m);
                        if (close >= t_.size()) return false;
                        m = close + 1;
                        if (is(m, ",")) {
                            ++m;
                            continue;
                        }
                        if (is(m, "...")) ++m;
                        if (is(m, "{")) break;
                        continue;
                    }
                    if (is(m, ";") || is(m, "}")) return false;
                    ++m;
                }
                if (!is(m, "{")) return false;
                body_open = m;
                k = m;
                break;
            }
            if (is(k, "try") && has_params) {
                body_open = k + 1;
                k = k + 1;
                break;
            }
        }
        if (k >= t_.size()) return false;

        size_t end_tok;  // last token of the declaration
        if (body_open < t_.size()) {
            if (!is(body_open, "{")) return false;
            size_t close = match(body_open);
            if (close >= t_.size()) return false;
            end_tok = close;
            // function-try-block handlers
            while (is(end_tok + 1, "catch") && is(end_tok + 2, "(")) {
                size_t c = match(end_tok + 2);
                if (c >= t_.size() || !is(c + 1, "{")) return false;
                end_tok = match(c + 1);
                if (end_tok >= t_.size()) return false;
            }
        } else {
            end_tok = k;  // the ';'
        }
        i = end_tok + 1;
        if (name_tok < t_.size() && (is(name_tok, ">") || is(name_tok, ">>"))) {
            // name<args>(...): the name is before the template arguments
            int depth = 0;
            for (size_t m = name_tok; m > spec; --m) {
                if (is(m, ">")) ++depth;
                else if (is(m, ">>")) depth += 2;
                else if (is(m, "<") && --depth == 0) {
                    if (is_ident(m - 1)) name_tok = m - 1;
                    break;
                }
            }
        }
        std::string name = name_tok < t_.size() ? text(t_[name_tok]) : "";
        if (!name.empty()) all_names_.insert(name);
        for (const auto& h : headers)
            for (size_t x = h.first; x < h.second; ++x)
                if (is_ident(x)) all_names_.insert(text(t_[x]));
        if (params_open < t_.size()) {
            size_t close = match(params_open);
            for (size_t x = params_open + 1; x < close && x < t_.size(); ++x)
                if (is_ident(x)) all_names_.insert(text(t_[x]));
        }
        std::string sig;
        if (params_open < t_.size()) {
            sig = (member ? cls + "::" : "") + name + "(";
            size_t close = match(params_open);
            for (size_t x = params_open + 1; x < close && x < t_.size(); ++x) sig += text(t_[x]) + " ";
            sig += ")";
        }

        if (keep_kind) {
            if (!member) note_alias(spec, end_tok);
            return true;
        }
        size_t head_end = body_open < t_.size() ? body_open : class_body < t_.size() ? class_body : end_tok;
        Spaces sp = spaces(start, head_end);
        if (sp.typedef_) return true;
        bool annotated = sp.global || sp.device || sp.memory;
        bool is_function = has_params && !saw_assign;

        if (explicit_inst) {
            // `template void launch<float>(float*);` instantiates a host
            // template we removed: remove it too. Kernel instantiations stay.
            if (!annotated && !member && removed_functions_.count(name) && !kept_functions_.count(name))
                remove(start, end_tok, "explicit instantiation of host function '" + name + "'");
            return true;
        }
        if (class_key && !is_function) {
            if (!member) note_class_name(spec, class_body < t_.size() ? class_body : end_tok);
            if (class_body < t_.size() && !annotated && !has_word(spec, class_body, "enum")) {
                // Member functions of a class at namespace scope.
                std::string cname = class_name(spec, class_body);
                size_t m = class_body + 1;
                size_t close = match(class_body);
                if (!members(m, close, cname.empty() ? "?" : cname)) return false;
                // A class with no device member at all is host code; if no
                // code NVRTC compiles names it, it goes as a whole (its
                // constructors included).
                Spaces body = spaces(class_body, close);
                bool declarator = close + 1 < end_tok;  // struct S {...} s;
                if (!member && !cname.empty() && !body.device && !body.global && !declarator)
                    host_classes_.push_back({cname, start, end_tok});
            }
            return true;  // class/enum definitions and declarations
        }
        bool is_main = !member && name == "main";
        if (annotated && !is_main) {
            if (is_function && (sp.device || sp.global)) device_sigs_.insert(sig);
            if (!member) {
                if (is_function) kept_functions_.insert(name);
                else note_declared(spec, end_tok);
            }
            return true;  // device code (or __host__ __device__): keep
        }
        if (is_function) {
            // Members the class's meaning depends on stay (NVRTC then decides,
            // and the nvcc fallback if need be): constructors, destructors,
            // assignment and conversion operators, virtual functions.
            if (member) {
                bool special = name == cls || (name_tok > 0 && is(name_tok - 1, "~")) || is(spec, "virtual") ||
                               has_word(spec, name_tok, "virtual") || (name_tok > 0 && is(name_tok, "=") && is(name_tok - 1, "operator")) ||
                               conversion_operator(spec, name_tok);
                if (special) return true;
            }
            if (sp.constexpr_ && !sp.host && !is_main) {
                // constexpr functions are callable from device code under
                // --expt-relaxed-constexpr: make that explicit for NVRTC.
                edits_.push_back({t_[spec].begin, t_[spec].begin, "__host__ __device__ "});
                annotated_.push_back("line " + std::to_string(t_[start].line) + ": constexpr function '" +
                                     (member ? cls + "::" : "") + name + "'");
                if (!member) kept_functions_.insert(name);
                return true;
            }
            std::string what = std::string(member ? "host member function '" + cls + "::" : "host function '") + name +
                               "'" + (body_open < t_.size() ? "" : " (declaration)");
            remove(start, end_tok, what);
            edits_.back().sig = sig;
            if (!member) removed_functions_.insert(name);
            if (body_open < t_.size()) {
                note_launches(body_open, end_tok, headers);
                note_host_calls(body_open, end_tok);
            }
            return true;
        }
        if (member) return true;  // data members stay
        // A variable (or something we do not recognise).
        note_declared(spec, end_tok);
        if (sp.constexpr_ || (sp.const_ && top_level_const(spec, end_tok))) {
            // A constant array is a host variable to nvcc: device code may
            // only use it in constant expressions. NVRTC takes any use.
            for (size_t x = spec; x < end_tok; ++x) {
                if (is(x, "=") || is(x, "{") || is(x, "(")) break;
                if (is(x, "[") && x > spec && is_ident(x - 1)) {
                    const_arrays_.push_back({text(t_[x - 1]), t_[x - 1].line});
                    break;
                }
            }
            return true;
        }
        if (!looks_like_variable(spec, end_tok)) return true;
        remove(start, end_tok, "host variable");
        return true;
    }

    // Member declarations in (b, close) of a class named `cls`.
    bool members(size_t& m, size_t close, const std::string& cls) {
        while (m < close) {
            if (t_[m].kind == Tok::directive) {
                directive(t_[m]);
                ++m;
                continue;
            }
            if (is(m, ";")) {
                ++m;
                continue;
            }
            if ((is(m, "public") || is(m, "private") || is(m, "protected")) && is(m + 1, ":")) {
                m += 2;
                continue;
            }
            if (is_ident(m) && is(m + 1, "(") && function_macros_.count(text(t_[m]))) {
                size_t c = match(m + 1);
                if (c >= close) return false;
                m = c + 1;
                continue;
            }
            size_t before = m;
            if (!declaration(m, cls)) return false;
            if (m > close || m <= before) return false;
        }
        return m == close;
    }

    bool has_word(size_t b, size_t e, const char* w) const {
        for (size_t k = b; k < e && k < t_.size(); ++k)
            if (is(k, w)) return true;
        return false;
    }
    // `operator float()`, `explicit operator bool() const`
    bool conversion_operator(size_t b, size_t name_tok) const {
        for (size_t k = b; k < name_tok && k < t_.size(); ++k)
            if (is(k, "operator")) return t_[k + 1].kind == Tok::ident;
        return false;
    }
    // The class's name: the first plain identifier after the class key.
    std::string class_name(size_t b, size_t body) const {
        for (size_t k = b; k < body; ++k) {
            if (!(is(k, "struct") || is(k, "class") || is(k, "union"))) continue;
            for (size_t j = k + 1; j < body; ++j) {
                if (t_[j].kind != Tok::ident) {
                    if (is(j, "(") || is(j, "[")) {
                        j = match(j);
                        continue;
                    }
                    if (is(j, ":") || is(j, "<")) break;
                    continue;
                }
                std::string w = text(t_[j]);
                if (is_keywordish(w) || w == "final" || w == "__align__") continue;
                return w;
            }
            break;
        }
        return "";
    }

    // Names declared at namespace scope, for judging which host-launched
    // template instantiations NVRTC can name.
    void note_declared(size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) {
            if (is(k, "=") || is(k, "(") || is(k, "{") || is(k, "[")) {
                if (k > b && is_ident(k - 1)) declared_.insert(text(t_[k - 1]));
                return;
            }
            if (is(k, ";") || is(k, ",")) break;
        }
        if (e > b && is_ident(e - 1)) declared_.insert(text(t_[e - 1]));
    }
    void note_alias(size_t b, size_t e) {
        if (is(b, "using")) {
            if (is_ident(b + 1) && is(b + 2, "=")) declared_.insert(text(t_[b + 1]));
            else if (is(b + 1, "namespace")) return;
            else if (e > b && is_ident(e - 1)) declared_.insert(text(t_[e - 1]));
        } else if (is(b, "typedef") && e > b && is_ident(e - 1)) {
            declared_.insert(text(t_[e - 1]));
        }
    }
    void note_class_name(size_t b, size_t body) {
        std::string n = class_name(b, body);
        if (!n.empty()) declared_.insert(n);
        for (size_t k = b; k < body; ++k)  // enum E {...} / enum class E
            if (is(k, "enum")) {
                size_t j = k + 1;
                if (is(j, "class") || is(j, "struct")) ++j;
                if (is_ident(j)) declared_.insert(text(t_[j]));
            }
        // enumerators of an enum body
        if (body < t_.size() && is(body, "{") && has_word(b, body, "enum")) {
            size_t close = match(body);
            for (size_t k = body + 1; k < close; ++k)
                if (is_ident(k) && (is(k - 1, "{") || is(k - 1, ","))) declared_.insert(text(t_[k]));
        }
    }

    // Whether a const in [b, e) applies to the declared object itself
    // (`const int n`, `float* const p`), not only to what it points at.
    bool top_level_const(size_t b, size_t e) const {
        bool seen_const = false, seen_ptr = false;
        for (size_t k = b; k < e; ++k) {
            if (is(k, "=") || is(k, "{") || is(k, "(") || is(k, "[") || is(k, ",")) break;
            if (is(k, "*") || is(k, "&") || is(k, "&&")) {
                seen_ptr = true;
                seen_const = false;
            } else if (is(k, "const")) {
                seen_const = true;
            }
        }
        (void)seen_ptr;
        return seen_const;
    }
    // A simple declaration with at least a type and a name: `int x;`,
    // `float table[4] = {...};`, `auto f = [](...) {...};`.
    bool looks_like_variable(size_t b, size_t e) const {
        int idents = 0;
        for (size_t k = b; k < e; ++k) {
            if (is(k, "=") || is(k, "{") || is(k, "[") || is(k, "(")) break;
            if (t_[k].kind == Tok::ident) ++idents;
        }
        return idents >= 2;
    }

    void remove(size_t first, size_t last, const std::string& what) {
        edits_.push_back({t_[first].begin, t_[last].end, "", "", removed_.size()});
        int l1 = t_[first].line, l2 = t_[last].line;
        removed_.push_back("line" + (l1 == l2 ? " " + std::to_string(l1)
                                              : "s " + std::to_string(l1) + "-" + std::to_string(l2)) +
                           ": " + what);
    }

    // Host-only classes that no kept code names are removed whole.
    void remove_unreferenced_host_classes() {
        for (const HostClass& c : host_classes_) {
            size_t b = t_[c.first].begin, e = t_[c.last].end;
            bool referenced = false;
            size_t ed = 0;
            for (size_t k = 0; k < t_.size() && !referenced; ++k) {
                if (k >= c.first && k <= c.last) continue;
                if (!is_ident(k) || text(t_[k]) != c.name) continue;
                bool removed = false;
                for (ed = 0; ed < edits_.size(); ++ed)
                    if (edits_[ed].insert.empty() && edits_[ed].begin <= t_[k].begin && t_[k].end <= edits_[ed].end)
                        removed = true;
                if (!removed) referenced = true;
            }
            if (referenced) continue;
            // Drop the member edits inside, then blank the whole class.
            std::vector<Edit> kept;
            std::vector<std::string> notes;
            std::vector<bool> drop_note(removed_.size(), false);
            for (const Edit& x : edits_) {
                if (x.begin >= b && x.end <= e) {
                    if (x.note < drop_note.size()) drop_note[x.note] = true;
                    continue;
                }
                kept.push_back(x);
            }
            for (size_t n = 0; n < removed_.size(); ++n)
                if (!drop_note[n]) notes.push_back(removed_[n]);
            // re-number notes of the surviving edits
            std::vector<size_t> renum(removed_.size(), ~size_t(0));
            for (size_t n = 0, m = 0; n < removed_.size(); ++n)
                if (!drop_note[n]) renum[n] = m++;
            for (Edit& x : kept)
                if (x.note < renum.size()) x.note = renum[x.note];
            edits_.swap(kept);
            removed_.swap(notes);
            remove(c.first, c.last, "host-only class '" + c.name + "'");
            std::stable_sort(edits_.begin(), edits_.end(),
                             [](const Edit& l, const Edit& r) { return l.begin < r.begin; });
        }
    }

    // Calls in removed host code (name(...) not after `.`, `->` or `::`), and
    // the names declared locally there, for the undeclared-helper check.
    void note_host_calls(size_t b, size_t e) {
        for (size_t k = b + 1; k < e; ++k) {
            if (!is_ident(k)) continue;
            std::string w = text(t_[k]);
            bool after_type = is_ident(k - 1) || is(k - 1, ">") || is(k - 1, "*") || is(k - 1, "&") ||
                              is(k - 1, "&&") || is(k - 1, ">>");
            bool decl_next = is(k + 1, "=") || is(k + 1, "(") || is(k + 1, "{") || is(k + 1, ";") ||
                             is(k + 1, ",") || is(k + 1, "[") || is(k + 1, ":") || is(k + 1, ")");
            if (after_type && decl_next && !is(k - 1, "return")) {
                all_names_.insert(w);  // a local variable, parameter or object
                continue;
            }
            if (is(k - 1, "[") || is(k - 1, ",")) all_names_.insert(w);  // lambda captures, structured bindings
            if (!is(k + 1, "(")) continue;
            if (is(k - 1, ".") || is(k - 1, "->") || is(k - 1, "::") || is(k - 1, "~") || is(k - 1, "operator"))
                continue;
            host_calls_.push_back({w, t_[k].line});
        }
    }
    static bool known_library_call(const std::string& w) {
        static const char* const prefixes[] = {"cuda", "cu", "nv", "make_", "__", "atomic", "std", "thrust", "cub",
                                               "omp_", "pthread_", "str", "mem"};
        for (const char* p : prefixes)
            if (w.compare(0, std::strlen(p), p) == 0) return true;
        static const char* const names[] = {
            "if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "static_cast",
            "dynamic_cast", "reinterpret_cast", "const_cast", "typeid", "noexcept", "static_assert", "defined",
            "catch", "throw", "new", "delete", "alignas", "assert", "printf", "sprintf", "snprintf", "puts",
            "putchar", "perror", "scanf", "sscanf", "exit", "abort", "atexit", "malloc", "calloc", "realloc",
            "atoi", "atof", "atol", "rand", "srand", "time", "clock", "getenv", "system", "sqrt", "exp", "log",
            "log2", "log10", "pow", "abs", "labs", "llabs", "floor", "ceil", "round", "trunc", "min", "max", "sin",
            "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "erf", "erfc", "hypot", "cbrt",
            "expm1", "log1p", "lround", "llround", "copysign", "signbit", "nan", "dim3", "char2", "char4",
            "uchar4", "short2", "int2", "int3", "int4", "uint2", "uint3", "uint4", "float2", "float3", "float4",
            "double2", "longlong2", "main", "rsqrt", "rsqrtf", "exp2", "exp2f", "expf", "logf", "sqrtf", "powf",
            "sinf", "cosf", "tanhf", "erff", "ceilf", "roundf", "truncf", "lrint", "rint", "nearbyint",
            "remainder", "ldexp", "frexp", "modf", "ilogb", "scalbn", "tgamma", "lgamma", "getchar", "usleep",
            "sleep", "clock_gettime", "gettimeofday", "open", "close", "read", "write", "signal", "raise",
            "longjmp", "setjmp", "va_start", "va_end", "va_arg", "va_copy", "offsetof", "half", "half2",
            "bfloat16", "cooperative_groups", "wmma", "_Pragma", "requires", "co_await", "co_yield", "fprintf",
            "fopen", "fclose", "fread", "fwrite", "fflush", "fgets", "fputs", "fseek", "ftell", "fscanf", "fabs",
            "fabsf", "fmax", "fmin", "fmaxf", "fminf", "fmod", "fmodf", "floorf", "fma", "fmaf", "free", "isnan",
            "isinf", "isfinite", "isdigit", "isalpha", "isspace", "isupper", "islower", "isalnum", "toupper",
            "tolower", "qsort", "bsearch", "div", "ldiv", "localtime", "strftime", "difftime", "mktime"};
        for (const char* n : names)
            if (w == n) return true;
        return false;
    }

    // Kernel templates launched from removed host code: name<args><<<...>>>.
    // Recorded as candidate name expressions; `safe` when every identifier in
    // them names something at namespace scope (not a parameter of the host
    // function or of its template), so that NVRTC can name them too.
    void note_launches(size_t b, size_t e, const std::vector<std::pair<size_t, size_t>>& headers) {
        std::unordered_set<std::string> tparams;
        for (const auto& h : headers)
            for (size_t k = h.first; k < h.second; ++k)
                if (is_ident(k) && (is(k + 1, ",") || is(k + 1, ">") || is(k + 1, "=") || is(k + 1, ">>") || is(k + 1, "...")))
                    tparams.insert(text(t_[k]));
        for (size_t k = b; k < e; ++k) {
            if (!is(k, "<<")) continue;
            if (!is(k + 1, "<")) continue;
            if (k == 0 || !(is(k - 1, ">") || is(k - 1, ">>"))) continue;
            // walk back over the template argument list
            int depth = 0;
            size_t m = k - 1;
            for (;; --m) {
                if (is(m, ">")) ++depth;
                else if (is(m, ">>")) depth += 2;
                else if (is(m, "<")) --depth;
                if (depth <= 0 || m == b) break;
            }
            if (depth != 0 || m == 0 || !is_ident(m - 1)) continue;
            size_t n = m - 1;
            while (n >= 2 && is(n - 1, "::") && is_ident(n - 2)) n -= 2;
            std::string expr;
            bool safe = true;
            for (size_t x = n; x < k; ++x) {
                std::string piece = text(t_[x]);
                if (t_[x].kind == Tok::ident && x >= m) {
                    bool known = builtin_word(piece) || macros_.count(piece) || declared_.count(piece) ||
                                 kept_functions_.count(piece);
                    if (tparams.count(piece) || !known) safe = false;
                }
                if (t_[x].kind == Tok::string || t_[x].kind == Tok::directive) safe = false;
                if (!expr.empty() && (t_[x].kind == Tok::ident || t_[x].kind == Tok::number) &&
                    (std::isalnum(static_cast<unsigned char>(expr.back())) || expr.back() == '_'))
                    expr += ' ';
                expr += piece;
            }
            if (safe) launched_.push_back(expr);
        }
    }
    static bool builtin_word(const std::string& w) {
        static const char* const words[] = {
            "float", "double", "int", "unsigned", "signed", "long", "short", "char", "bool", "true", "false",
            "void", "half", "__half", "half2", "__half2", "__nv_bfloat16", "nv_bfloat16", "__nv_bfloat162",
            "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
            "float2", "float4", "int2", "int4", "double2", "std", "const", "sizeof"};
        for (const char* x : words)
            if (w == x) return true;
        return false;
    }

    const std::string& s_;
    std::vector<Token> t_;
    std::map<std::string, std::string> macros_;  // object-like and function-like bodies
    std::unordered_set<std::string> function_macros_;
    std::unordered_set<std::string> removed_functions_, kept_functions_, declared_, device_sigs_;
    std::vector<std::pair<std::string, int>> const_arrays_;  // name, line
    std::unordered_set<std::string> all_names_;              // every name declared anywhere
    struct HostClass {
        std::string name;
        size_t first, last;  // token range of the whole definition
    };
    std::vector<HostClass> host_classes_;
    std::vector<std::pair<std::string, int>> host_calls_;    // calls in removed host code
    std::vector<Edit> edits_;
    std::vector<std::string> removed_, annotated_, launched_;
};

}  // namespace

PreparedSource prepare_cuda_source(const std::string& code) {
    Splitter sp(code, Lexer(code).run());
    PreparedSource out = sp.run();
    if (!out.understood) out.text = code;
    return out;
}

std::vector<IncludeDirective> scan_includes(const std::string& code) {
    std::vector<IncludeDirective> out;
    for (const Token& tk : Lexer(code).run()) {
        if (tk.kind != Tok::directive) continue;
        std::string name, rest;
        split_directive(code.substr(tk.begin, tk.end - tk.begin), name, rest);
        IncludeDirective inc;
        if ((name == "include" || name == "include_next") && parse_include(rest, inc)) {
            inc.line = tk.line;
            out.push_back(inc);
        }
    }
    return out;
}

void reject_framework_includes(const std::vector<IncludeDirective>& includes, const std::string& source_name) {
    static const char* const prefixes[] = {"torch/", "ATen/", "c10/", "caffe2/", "pybind11/", "THC/", "THCUNN/",
                                           "tensorflow/", "jax/", "triton/"};
    static const char* const exact[] = {"Python.h", "torch.h", "pybind11.h"};
    for (const IncludeDirective& inc : includes) {
        bool framework = false;
        for (const char* p : prefixes)
            if (inc.name.compare(0, std::strlen(p), p) == 0) framework = true;
        for (const char* x : exact)
            if (inc.name == x) framework = true;
        if (!framework) continue;
        std::string spelled = inc.angled ? "<" + inc.name + ">" : "\"" + inc.name + "\"";
        std::string where = source_name + ":" + std::to_string(inc.line);
        throw CompileError(
            where + ": #include " + spelled +
                ": the candidate must be a CUDA kernel that kbench launches, not a framework extension. "
                "Remove the framework includes and the host bindings (PYBIND11_MODULE, torch::Tensor "
                "wrappers); the launch plan names the __global__ kernels kbench calls.",
            where + ": error: framework header " + spelled +
                " is not allowed: the candidate must be a CUDA kernel, not a framework extension\n");
    }
}

}  // namespace kb
