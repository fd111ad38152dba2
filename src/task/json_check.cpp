// Reading JSON with messages that name the JSON path, the fault and the fix
// (see task_json.h). Every check of the loader funnels through here so that
// all of kbench's task errors read alike.
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "task/task_json.h"

namespace kb::taskjson {

// ---- paths and failure ----------------------------------------------------

std::string child_path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

void fail_at(const std::string& path, const std::string& what, const std::string& expected) {
    fail(KB_ERR_TASK_INVALID, path + ": " + what + "; " + expected);
}

std::string describe(const Json& v) {
    switch (v.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return v.get<bool>() ? "true" : "false";
        case Json::value_t::string: {
            std::string s = v.get<std::string>();
            if (s.size() > 40) s = s.substr(0, 40) + "...";
            return "the string \"" + s + "\"";
        }
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
        case Json::value_t::number_float: return "the number " + v.dump();
        case Json::value_t::array: return "an array";
        case Json::value_t::object: return "an object";
        default: return "a " + std::string(v.type_name());
    }
}

std::string join(const std::vector<std::string>& items) {
    if (items.empty()) return "(none)";
    std::string s;
    for (const auto& i : items) {
        if (!s.empty()) s += ", ";
        s += i;
    }
    return s;
}

namespace {

// Optimal string alignment distance: Levenshtein plus adjacent transpositions,
// so "soruce" is one edit from "source", as a typist would count it.
size_t edit_distance(const std::string& a, const std::string& b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
    for (size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            size_t cost =
                std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]))
                    ? 0
                    : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

}  // namespace

std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& candidates) {
    std::optional<std::string> best;
    size_t best_d = 3;
    for (const auto& c : candidates) {
        size_t d = edit_distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    if (best) return best;
    // A longer or shorter spelling of a known name ("shared_memory" for
    // "shared_mem", "tol" for "tolerance") is worth suggesting too.
    for (const auto& c : candidates) {
        const std::string& shorter = c.size() < word.size() ? c : word;
        const std::string& longer = c.size() < word.size() ? word : c;
        if (shorter.size() >= 3 && longer.compare(0, shorter.size(), shorter) == 0) return c;
    }
    return std::nullopt;
}

// ---- documents ------------------------------------------------------------

namespace {

// Follows nlohmann's parse events to know the JSON path of every key, and
// records the first key that repeats within one object.
class DuplicateKeyFinder {
public:
    bool on_event(int /*depth*/, nlohmann::detail::parse_event_t event, Json& parsed) {
        using E = nlohmann::detail::parse_event_t;
        switch (event) {
            case E::object_start: frames_.push_back({element_path(), false, -1, {}, {}}); break;
            case E::array_start: frames_.push_back({element_path(), true, -1, {}, {}}); break;
            case E::object_end:
            case E::array_end: frames_.pop_back(); break;
            case E::key: {
                Frame& f = frames_.back();
                f.key = parsed.get<std::string>();
                if (!is_comment_key(f.key) && !f.keys.insert(f.key).second && !duplicate_)
                    duplicate_ = child_path(f.path, f.key);
                break;
            }
            case E::value: element_path(); break;
        }
        return true;
    }
    const std::optional<std::string>& duplicate() const { return duplicate_; }

private:
    struct Frame {
        std::string path;
        bool is_array;
        long index;
        std::string key;
        std::set<std::string> keys;
    };
    // The path of the value that starts now (advancing an array's index).
    std::string element_path() {
        if (frames_.empty()) return "";
        Frame& f = frames_.back();
        if (f.is_array) return index_path(f.path, size_t(++f.index));
        return child_path(f.path, f.key);
    }
    std::vector<Frame> frames_;
    std::optional<std::string> duplicate_;
};

}  // namespace

namespace {

// Size and nesting, checked by a loop over the bytes before nlohmann's parser
// (and everything after it that recurses per level) sees the text: a
// 100,000-deep document is refused here, not by a stack overflow.
void check_document_shape(const std::string& text, const std::string& what, const Limits& limits) {
    if (text.size() > limits.max_document_bytes)
        fail_at(what, "the document is " + std::to_string(text.size()) + " bytes long",
                "expected at most " + format_bytes(limits.max_document_bytes) + "; " +
                    raise_hint("max_document_bytes"));
    uint64_t depth = 0;
    size_t line = 1, line_start = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            line_start = i + 1;
        }
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limits.max_json_depth)
                fail_at(what,
                        "the JSON nests deeper than " + std::to_string(limits.max_json_depth) +
                            " levels of arrays and objects (at line " + std::to_string(line) + ", column " +
                            std::to_string(i - line_start + 1) + ")",
                        "expected a flatter document; " + raise_hint("max_json_depth"));
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
}

}  // namespace

Json parse_document(const std::string& text, const std::string& what, const Limits& limits) {
    check_document_shape(text, what, limits);
    DuplicateKeyFinder finder;
    Json doc;
    try {
        doc = Json::parse(text, [&finder](int depth, nlohmann::detail::parse_event_t e, Json& parsed) {
            return finder.on_event(depth, e, parsed);
        });
    } catch (const nlohmann::json::exception& e) {
        // what() reads "[json.exception.parse_error.101] parse error at line 3, column 7: ...";
        // the bracketed id means nothing to a user.
        std::string detail = e.what();
        size_t close = detail.find("] ");
        if (close != std::string::npos) detail = detail.substr(close + 2);
        fail_at(what, "not valid JSON (" + detail + ")", "expected a JSON document");
    }
    if (finder.duplicate())
        fail_at(*finder.duplicate(), "this key appears more than once in its object",
                "expected each key once (a repeated key would silently replace the first)");
    return doc;
}

void check_count(size_t count, uint32_t max, const std::string& path, const char* items, const char* field) {
    if (count > max)
        fail_at(path, std::to_string(count) + " " + items,
                "expected at most " + std::to_string(max) + "; " + raise_hint(field));
}

// ---- objects --------------------------------------------------------------

bool is_comment_key(const std::string& key) { return (!key.empty() && key[0] == '_') || key.rfind("comment", 0) == 0; }

void check_object(const Json& v, const std::string& path, const std::vector<std::string>& known,
                  const std::string& what) {
    as_object(v, path, "expected " + what + " (a JSON object)");
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& key = it.key();
        if (is_comment_key(key) || std::find(known.begin(), known.end(), key) != known.end()) continue;
        std::string hint;
        if (auto near = closest(key, known)) hint = "did you mean '" + *near + "'? ";
        fail_at(child_path(path, key), "unknown field '" + key + "' in " + what,
                hint + "the fields of " + what + " are: " + join(known) +
                    " (keys beginning with '_' or 'comment' are comments)");
    }
}

const Json* find(const Json& obj, const std::string& key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const Json& require(const Json& obj, const std::string& path, const std::string& key, const std::string& expected) {
    const Json* v = find(obj, key);
    if (!v) fail_at(child_path(path, key), "missing required field '" + key + "'", expected);
    return *v;
}

// ---- typed values ---------------------------------------------------------

std::string as_string(const Json& v, const std::string& path, const std::string& expected) {
    if (!v.is_string()) fail_at(path, "got " + describe(v), expected);
    return v.get<std::string>();
}

bool as_bool(const Json& v, const std::string& path) {
    if (!v.is_boolean()) fail_at(path, "got " + describe(v), "expected true or false");
    return v.get<bool>();
}

double as_number(const Json& v, const std::string& path) {
    if (!v.is_number()) fail_at(path, "got " + describe(v), "expected a number");
    return v.get<double>();
}

int64_t as_int(const Json& v, const std::string& path, const std::string& expected) {
    if (v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        if (u > uint64_t(std::numeric_limits<int64_t>::max()))
            fail_at(path, "the integer " + v.dump() + " does not fit in 64 signed bits", expected);
        return int64_t(u);
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    fail_at(path, "got " + describe(v), expected);
}

const Json& as_array(const Json& v, const std::string& path, const std::string& expected) {
    if (!v.is_array()) fail_at(path, "got " + describe(v), expected);
    return v;
}

const Json& as_object(const Json& v, const std::string& path, const std::string& expected) {
    if (!v.is_object()) fail_at(path, "got " + describe(v), expected);
    return v;
}

DType as_dtype(const Json& v, const std::string& path) {
    const std::string expected = "expected one of: " + dtype_names();
    std::string name = as_string(v, path, expected);
    auto t = parse_dtype(name);
    if (!t) {
        std::vector<std::string> names;
        for (int i = 0; i <= int(DType::boolean); ++i) names.push_back(dtype_name(DType(i)));
        std::string hint;
        if (auto near = closest(name, names)) hint = "did you mean '" + *near + "'? ";
        fail_at(path, "unknown dtype '" + name + "'", hint + expected);
    }
    return *t;
}

void check_identifier(const std::string& s, const std::string& path, const std::string& what) {
    bool ok = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
    for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok)
        fail_at(path, "'" + s + "' is not a valid " + what,
                "expected a C identifier (a letter or '_', then letters, digits or '_')");
}

void check_label(const std::string& s, const std::string& path, const std::string& what) {
    bool ok = !s.empty() && s.size() <= 128;
    for (char c : s) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
    if (!ok) fail_at(path, "'" + s + "' is not a valid " + what, "expected 1 to 128 letters, digits, '_', '.' or '-'");
}

// ---- expressions ----------------------------------------------------------

Expr as_expr(const Json& v, const std::string& path, const std::vector<std::string>& dims, const std::string& what,
             const Limits& limits) {
    const std::string expected = "expected " + what + ": an integer or an expression over the dims (" + join(dims) +
                                 ") with + - * / % ceil_div min max";
    if (v.is_number_integer()) return Expr::constant(as_int(v, path, expected));
    if (!v.is_string()) fail_at(path, "got " + describe(v), expected);
    const std::string text = v.get<std::string>();
    if (text.size() > limits.max_expression_chars)
        fail_at(path, "the expression is " + std::to_string(text.size()) + " characters long",
                "expected at most " + std::to_string(limits.max_expression_chars) + " characters; " +
                    raise_hint("max_expression_chars"));
    Expr e;
    try {
        e = Expr::parse(text, limits.max_expression_chars, limits.max_expression_depth);
    } catch (const ExprError& err) {
        if (std::string(err.what()).find("nests deeper") != std::string::npos)
            fail_at(path, err.what(), expected + "; " + raise_hint("max_expression_depth"));
        fail_at(path, "cannot parse '" + text + "' at column " + std::to_string(err.position() + 1) + ": " + err.what(),
                expected);
    }
    for (const auto& name : e.names())
        if (std::find(dims.begin(), dims.end(), name) == dims.end()) {
            std::string hint;
            if (auto near = closest(name, dims)) hint = "did you mean '" + *near + "'? ";
            fail_at(path, "'" + text + "' names '" + name + "', which is not a declared dim",
                    hint + "the declared dims are: " + join(dims));
        }
    return e;
}

Json expr_to_json(const Expr& e) {
    const std::string& t = e.text();
    bool plain =
        !t.empty() && t.size() <= 18 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (plain && e.is_constant()) return Json(e.eval({}));
    return Json(t);
}

std::string at_case(const Case& c, const std::vector<std::string>& dims) {
    std::string s = c.perf ? " at the perf case '" : " at case '";
    s += c.name + "'";
    std::string values;
    for (const auto& d : dims) {
        auto it = c.dims.find(d);
        if (it == c.dims.end()) continue;
        if (!values.empty()) values += ", ";
        values += d + "=" + std::to_string(it->second);
    }
    if (!values.empty()) s += " (" + values + ")";
    return s;
}

int64_t eval_at(const Expr& e, const DimValues& dims, const std::string& path, const std::string& at) {
    try {
        return e.eval(dims);
    } catch (const ExprError& err) {
        fail_at(path, "'" + e.text() + "' cannot be evaluated" + at + ": " + err.what(),
                "expected an expression that is defined at every case");
    }
}

int64_t count_elements(const std::vector<Expr>& shape, const DimValues& dims, const std::string& path,
                       const std::string& at) {
    constexpr int64_t kMax = int64_t(1) << 62;
    std::vector<int64_t> extents;
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t v = eval_at(shape[i], dims, index_path(path, i), at);
        if (v < 0)
            fail_at(index_path(path, i), "'" + shape[i].text() + "' evaluates to " + std::to_string(v) + at,
                    "expected a size >= 0");
        extents.push_back(v);
    }
    // An empty extent makes an empty buffer, whatever the others are.
    if (std::find(extents.begin(), extents.end(), 0) != extents.end()) return 0;
    int64_t n = 1;
    for (int64_t v : extents)
        if (__builtin_mul_overflow(n, v, &n) || n > kMax)
            fail_at(path, "the element count overflows" + at, "expected at most 2^62 elements");
    return n;
}

std::vector<Expr> as_shape(const Json& v, const std::string& path, const std::vector<std::string>& dims,
                           const Limits& limits) {
    as_array(v, path, "expected an array of sizes, e.g. [\"n\"] or [\"m\", \"k\"] ([] for one element)");
    std::vector<Expr> shape;
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string p = index_path(path, i);
        Expr e = as_expr(v[i], p, dims, "a size", limits);
        if (e.is_constant()) {
            int64_t c = eval_at(e, {}, p, "");
            if (c < 0) fail_at(p, "the size " + std::to_string(c) + " is negative", "expected a size >= 0");
        }
        shape.push_back(std::move(e));
    }
    return shape;
}

void check_bytes(int64_t count, DType t, const std::string& path, const std::string& at) {
    constexpr int64_t kMax = int64_t(1) << 62;
    if (count > kMax / int64_t(dtype_size(t)))
        fail_at(path, std::to_string(count) + " elements of " + dtype_name(t) + " overflow the byte count" + at,
                "expected at most 2^62 bytes");
}

// ---- numbers and dtypes ---------------------------------------------------

void int_range(DType t, int64_t* lo, int64_t* hi) {
    constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
    if (t == DType::boolean) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (dtype_is_float(t)) {
        *lo = std::numeric_limits<int64_t>::min();
        *hi = kI64Max;
        return;
    }
    const int bits = int(dtype_size(t)) * 8;
    if (dtype_is_signed_int(t)) {
        *hi = bits == 64 ? kI64Max : (int64_t(1) << (bits - 1)) - 1;
        *lo = -*hi - 1;
    } else {
        *lo = 0;
        *hi = bits == 64 ? kI64Max : (int64_t(1) << bits) - 1;  // u64: expressions stop at int64's max
    }
}

double float_max(DType t) {
    switch (t) {
        case DType::f16: return 65504.0;
        case DType::bf16: return 3.3895313892515355e38;
        case DType::f32: return double(FLT_MAX);
        default: return DBL_MAX;
    }
}

void check_int_fits(int64_t v, DType t, const std::string& path, const std::string& at) {
    if (dtype_is_float(t)) {
        // Integers convert to floats; only the magnitude can go wrong.
        if (std::fabs(double(v)) > float_max(t))
            fail_at(path, "the value " + std::to_string(v) + at + " overflows " + dtype_name(t),
                    "expected a value within the dtype's finite range");
        return;
    }
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    if (v < lo || v > hi)
        fail_at(path, "the value " + std::to_string(v) + at + " does not fit " + dtype_name(t),
                "expected a value in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

void check_float_fits(double v, DType t, const std::string& path) {
    if (!std::isfinite(v) || std::fabs(v) > float_max(t)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        fail_at(path, std::string("the value ") + buf + " overflows " + dtype_name(t),
                "expected a finite value of magnitude at most " + Json(float_max(t)).dump());
    }
}

// ---- bytes ----------------------------------------------------------------

namespace {
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        uint32_t w = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
        out += kB64[w >> 18];
        out += kB64[(w >> 12) & 63];
        out += kB64[(w >> 6) & 63];
        out += kB64[w & 63];
    }
    if (size_t rest = bytes.size() - i) {
        uint32_t w = uint32_t(uint8_t(bytes[i])) << 16 | (rest == 2 ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
        out += kB64[w >> 18];
        out += kB64[(w >> 12) & 63];
        out += rest == 2 ? kB64[(w >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    // Strict RFC 4648: whole quads, padding only at the end, no other characters.
    if (text.size() % 4 != 0) return std::nullopt;
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        uint32_t w = 0;
        int pad = 0;
        for (size_t j = 0; j < 4; ++j) {
            char c = text[i + j];
            uint32_t v;
            if (c == '=') {
                if (i + 4 != text.size() || j < 2) return std::nullopt;
                ++pad;
                v = 0;
            } else {
                if (pad) return std::nullopt;  // data after padding
                const char* p = std::strchr(kB64, c);
                if (!p || c == '\0') return std::nullopt;
                v = uint32_t(p - kB64);
            }
            w = w << 6 | v;
        }
        out += char(w >> 16);
        if (pad < 2) out += char((w >> 8) & 0xff);
        if (pad < 1) out += char(w & 0xff);
    }
    return out;
}

bool is_valid_utf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t len;
        uint32_t cp;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xe0) == 0xc0) {
            len = 2;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            cp = c & 0x07;
        } else
            return false;
        if (i + len > s.size()) return false;
        for (size_t k = 1; k < len; ++k) {
            unsigned char cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xc0) != 0x80) return false;
            cp = cp << 6 | (cc & 0x3f);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
        static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kMin[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
        i += len;
    }
    return true;
}

}  // namespace kb::taskjson

namespace kb {
Json parse_json_text(const std::string& text, const std::string& what, const Limits& limits) {
    return taskjson::parse_document(text, what, limits);
}
}  // namespace kb
