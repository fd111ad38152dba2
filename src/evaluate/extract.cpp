// Answer extraction, in the order docs/batch.md documents:
//   1. clean: BOM, CRLF, chat markup at the start, cut at the first end token;
//   2. reasoning: <think>/<thinking>/<reasoning> sections set aside;
//   3. blocks: fenced blocks per region (CommonMark-like fences), else runs
//      of unfenced code;
//   4. language: the tag, unless the content clearly says otherwise;
//   5. choice: the block that defines the task's entry (rules for ties);
//   6. closure: other blocks the chosen one needs (helpers, imports, a
//      second kernel of the plan) are joined in answer order.
#include "evaluate/extract.h"

#include "task/task_json.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <regex>
#include <set>

namespace kb::evaluate {

const char* answer_language_name(AnswerLanguage l) {
    switch (l) {
        case AnswerLanguage::cuda: return "cuda";
        case AnswerLanguage::triton: return "triton";
        case AnswerLanguage::detect: break;
    }
    return "detect";
}

bool parse_answer_language(const std::string& s, AnswerLanguage* out) {
    if (s == "cuda") *out = AnswerLanguage::cuda;
    else if (s == "triton") *out = AnswerLanguage::triton;
    else if (s == "auto" || s == "detect") *out = AnswerLanguage::detect;
    else return false;
    return true;
}

const char* extract_outcome_name(ExtractOutcome o) {
    switch (o) {
        case ExtractOutcome::ok: return "ok";
        case ExtractOutcome::ambiguous: return "ambiguous";
        case ExtractOutcome::no_code: break;
    }
    return "no_code";
}

int CodeBlock::code_lines() const {
    int n = 0;
    bool blank = true;
    for (char c : code) {
        if (c == '\n') {
            if (!blank) ++n;
            blank = true;
        } else if (c != ' ' && c != '\t') {
            blank = false;
        }
    }
    return n + (blank ? 0 : 1);
}

std::string CodeBlock::describe() const {
    std::string what = "block " + std::to_string(index) + " (";
    if (source == "fence") what += "```" + tag + ", ";
    else if (source == "unfenced") what += "unfenced code, ";
    else what += "string " + (string_name.empty() ? std::string("literal") : "'" + string_name + "'") + ", ";
    what += first_line == last_line ? "line " + std::to_string(first_line)
                                    : "lines " + std::to_string(first_line) + "-" + std::to_string(last_line);
    return what + ")";
}

bool Extraction::has_flag(const std::string& f) const {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
}

namespace {

// A model's answer may hold any bytes (a stray 0x8A inside the code, found by
// fuzz_extract): the report carries them as valid UTF-8, each broken
// sequence replaced by U+FFFD, so that any JSON writer can serialise it.
std::string utf8(const std::string& s) {
    if (taskjson::is_valid_utf8(s)) return s;
    return Json::parse(Json(s).dump(-1, ' ', false, Json::error_handler_t::replace)).get<std::string>();
}

std::vector<std::string> utf8(const std::vector<std::string>& v) {
    std::vector<std::string> out;
    for (const std::string& s : v) out.push_back(utf8(s));
    return out;
}

}  // namespace

Json Extraction::to_json(bool with_code, bool with_blocks) const {
    Json j;
    j["outcome"] = extract_outcome_name(outcome);
    j["language"] = utf8(language);
    j["picked_block"] = picked_block;
    j["used_blocks"] = used_blocks;
    j["blocks"] = block_count;
    j["reason"] = utf8(reason);
    j["flags"] = utf8(flags);
    j["notes"] = utf8(notes);
    if (with_code) j["code"] = utf8(code);
    if (with_blocks) {
        Json list = Json::array();
        for (const CodeBlock& b : blocks) {
            Json e;
            e["index"] = b.index;
            e["source"] = b.source;
            e["tag"] = utf8(b.tag);
            e["language"] = b.language == CodeLanguage::python && b.triton ? "triton" : code_language_name(b.language);
            e["lines"] = {b.first_line, b.last_line};
            e["closed"] = b.closed;
            e["in_reasoning"] = b.in_reasoning;
            e["kernels"] = utf8(std::vector<std::string>(b.facts.kernels.begin(), b.facts.kernels.end()));
            e["has_main"] = b.facts.has_main;
            list.push_back(std::move(e));
        }
        j["block_list"] = std::move(list);
    }
    return j;
}

namespace {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> lines;
    size_t p = 0;
    while (true) {
        size_t e = s.find('\n', p);
        if (e == std::string::npos) {
            lines.push_back(s.substr(p));
            break;
        }
        lines.push_back(s.substr(p, e - p));
        p = e + 1;
    }
    return lines;
}

// Overwrites [b, e) with spaces, keeping newlines, so line numbers stay those of the answer.
void blank(std::string& s, size_t b, size_t e) {
    for (size_t k = b; k < e && k < s.size(); ++k)
        if (s[k] != '\n') s[k] = ' ';
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
    return out;
}

std::string block_list(const std::vector<const CodeBlock*>& blocks) {
    std::vector<std::string> names;
    for (const CodeBlock* b : blocks) names.push_back(std::to_string(b->index));
    if (names.size() == 1) return "block " + names[0];
    std::string last = names.back();
    names.pop_back();
    return "blocks " + join(names, ", ") + " and " + last;
}

std::string language_title(AnswerLanguage l) {
    return l == AnswerLanguage::triton ? "Triton (Python)" : "CUDA C++";
}

// ---- 1. cleaning ----------------------------------------------------------------

const std::vector<std::string>& end_tokens() {
    static const std::vector<std::string> t = {
        "<|im_end|>", "<|EOT|>", "<|eot_id|>", "</s>", "<|endoftext|>", "<|end_of_text|>", "<|end|>",
        "<|return|>", "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"};  // DeepSeek's <｜end▁of▁sentence｜>
    return t;
}

struct Cleaned {
    std::string text;
    std::vector<std::string> flags, notes;
};

Cleaned clean(const std::string& answer) {
    Cleaned c;
    std::string s = answer;
    if (s.compare(0, 3, "\xEF\xBB\xBF") == 0) s.erase(0, 3);
    if (s.find('\r') != std::string::npos) {
        std::string t;
        t.reserve(s.size());
        for (size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\r') {
                t += '\n';
                if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
            } else {
                t += s[i];
            }
        }
        s = std::move(t);
        c.flags.push_back("crlf");
    }
    // A harmony-format answer (gpt-oss): the final channel is the answer.
    static const std::string final_channel = "<|channel|>final<|message|>";
    size_t fc = s.find(final_channel);
    if (fc != std::string::npos) {
        blank(s, 0, fc + final_channel.size());
        c.flags.push_back("chat_markup");
        c.notes.push_back("kept only the harmony 'final' channel");
    }
    // Role headers and begin-of-text tokens at the start.
    static const std::regex lead(
        R"(^\s*(<\|begin_of_text\|>|<s>|<\|im_start\|>\s*assistant|<\|start_header_id\|>\s*assistant\s*<\|end_header_id\|>|<\|assistant\|>|<\|start\|>assistant)(\s*(<\|im_start\|>\s*assistant|<\|start_header_id\|>\s*assistant\s*<\|end_header_id\|>|<\|assistant\|>))*)");
    std::smatch m;
    if (std::regex_search(s, m, lead)) {
        blank(s, 0, size_t(m.length(0)));
        if (std::find(c.flags.begin(), c.flags.end(), "chat_markup") == c.flags.end()) c.flags.push_back("chat_markup");
    }
    // The answer ends at the first end-of-turn token.
    size_t cut = std::string::npos;
    std::string token;
    for (const std::string& t : end_tokens()) {
        size_t p = s.find(t);
        if (p < cut) {
            cut = p;
            token = t;
        }
    }
    if (cut != std::string::npos) {
        std::string after = trim(s.substr(cut + token.size()));
        for (const std::string& t : end_tokens()) {
            for (size_t p; (p = after.find(t)) != std::string::npos;) after.erase(p, t.size());
        }
        s.erase(cut);
        c.flags.push_back("end_token");
        after = trim(after);
        c.notes.push_back("the answer ends at " + token +
                          (after.empty() ? std::string()
                                         : "; " + std::to_string(after.size()) + " characters after it were dropped"));
    }
    c.text = std::move(s);
    return c;
}

// ---- 2. reasoning ---------------------------------------------------------------

struct Region {
    size_t begin = 0, end = 0;  // in the cleaned text
    bool reasoning = false;
};

struct Reasoning {
    std::vector<Region> regions;  // covering the text in order
    bool any = false, unclosed = false, no_opening = false;
};

Reasoning split_reasoning(std::string& s) {
    static const std::regex open_re(R"(<(think|thinking|reasoning)>)", std::regex::icase);
    static const std::regex close_re(R"(</(think|thinking|reasoning)>)", std::regex::icase);
    Reasoning r;
    size_t pos = 0;
    auto push = [&](size_t b, size_t e, bool reasoning) {
        if (e > b) r.regions.push_back({b, e, reasoning});
    };
    std::smatch mo, mc;
    // A closing tag before any opening one: the opening tag was part of the
    // prompt (chat templates that start the assistant turn with <think>).
    {
        std::string head = s;
        bool has_close = std::regex_search(head, mc, close_re);
        bool has_open = std::regex_search(head, mo, open_re);
        if (has_close && (!has_open || mc.position(0) < mo.position(0))) {
            size_t ce = size_t(mc.position(0) + mc.length(0));
            push(0, size_t(mc.position(0)), true);
            blank(s, size_t(mc.position(0)), ce);
            pos = ce;
            r.any = r.no_opening = true;
        }
    }
    while (pos < s.size()) {
        std::string rest = s.substr(pos);
        if (!std::regex_search(rest, mo, open_re)) break;
        size_t ob = pos + size_t(mo.position(0)), oe = ob + size_t(mo.length(0));
        push(pos, ob, false);
        blank(s, ob, oe);
        r.any = true;
        std::string name = lower(mo[1]);
        std::string after = s.substr(oe);
        std::regex this_close("</" + name + ">", std::regex::icase);
        if (std::regex_search(after, mc, this_close)) {
            size_t cb = oe + size_t(mc.position(0)), ce = cb + size_t(mc.length(0));
            push(oe, cb, true);
            blank(s, cb, ce);
            pos = ce;
        } else {
            push(oe, s.size(), true);
            r.unclosed = true;
            pos = s.size();
        }
    }
    push(pos, s.size(), false);
    return r;
}

// ---- 3. blocks ------------------------------------------------------------------

enum class TagKind { none, cuda, python, text, other, unknown };

TagKind tag_kind(const std::string& tag) {
    static const std::set<std::string> cuda = {"cuda", "cu",  "cuh", "cpp", "c++", "cxx", "cc",
                                               "c",    "h",   "hpp", "hxx", "hh",  "cudac", "cuda-c",
                                               "cuda-cpp", "cuda_cpp", "cudacpp", "cuda-c++", "nvcc"};
    static const std::set<std::string> python = {"python", "py", "python3", "py3", "triton", "ipython",
                                                 "python-triton", "pytorch", "torch"};
    static const std::set<std::string> text = {"text", "txt", "plaintext", "plain", "code"};
    static const std::set<std::string> other = {
        "bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "output", "log", "logs",
        "json", "jsonc", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "markdown", "md", "diff", "patch",
        "makefile", "make", "cmake", "ptx", "asm", "nasm", "sql", "html", "xml", "javascript", "js",
        "typescript", "ts", "rust", "rs", "go", "java", "csv", "tsv", "dockerfile", "pycon", "mermaid", "latex", "tex"};
    if (tag.empty()) return TagKind::none;
    if (cuda.count(tag)) return TagKind::cuda;
    if (python.count(tag)) return TagKind::python;
    if (text.count(tag)) return TagKind::text;
    if (other.count(tag)) return TagKind::other;
    return TagKind::unknown;
}

std::string normalize_tag(const std::string& info) {
    std::string t = lower(trim(info));
    size_t stop = t.find_first_of(" \t,{");
    if (stop == 0 && t[0] == '{') {  // pandoc: {.python .numberLines}
        t = t.substr(1);
        stop = t.find_first_of(" \t,}");
    }
    if (stop != std::string::npos) t = t.substr(0, stop);
    if (!t.empty() && t[0] == '.') t = t.substr(1);
    if (t.rfind("language-", 0) == 0) t = t.substr(9);
    while (!t.empty() && (t.back() == '}' || t.back() == ':')) t.pop_back();
    return t;
}

int count_of(const std::string& s, const std::string& what) {
    int n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
    return n;
}

// A line that is prose in markdown (heading, bullet, quote) rather than code.
bool is_markdown_line(const std::string& line) {
    static const std::regex md(R"(^(#{1,6}\s+[A-Za-z*`]|[-*+]\s+[A-Za-z*`]|\d+[.)]\s+[A-Za-z*`]|>\s|\*\*[A-Za-z]))");
    std::string t = trim(line);
    return !t.empty() && t.back() != ';' && t.back() != '{' && std::regex_search(t, md);
}

bool is_preprocessor_line(const std::string& line) {
    static const std::regex pp(R"(^\s*#\s*(include|define|undef|if|ifdef|ifndef|else|elif|endif|pragma)\b)");
    return std::regex_search(line, pp);
}

struct RawBlock {
    std::string tag, code;
    int first_line = 0, last_line = 0;
    bool closed = true;
    std::string prose_before;
    std::string note;
};

// Fenced blocks of one region. `first_line` is the region's first line in the answer.
std::vector<RawBlock> find_fenced(const std::string& region, int first_line, std::string* prose_after) {
    static const std::regex open_re(R"(^([ \t]*)(`{3,}|~{3,})[ \t]*(.*)$)");
    std::vector<RawBlock> out;
    std::vector<std::string> lines = split_lines(region);
    std::string prose;
    size_t i = 0;
    while (i < lines.size()) {
        std::smatch m;
        const std::string& line = lines[i];
        if (!std::regex_match(line, m, open_re) ||
            (m[2].str()[0] == '`' && m[3].str().find('`') != std::string::npos)) {
            prose += line + "\n";
            ++i;
            continue;
        }
        RawBlock b;
        size_t indent = size_t(m.length(1));
        std::string fence = m[2];
        b.tag = normalize_tag(m[3]);
        bool c_family = tag_kind(b.tag) == TagKind::cuda;
        b.prose_before = prose;
        prose.clear();
        b.first_line = first_line + int(i) + 1;
        std::vector<std::string> body;
        size_t j = i + 1;
        b.closed = false;
        for (; j < lines.size(); ++j) {
            const std::string& l = lines[j];
            size_t ind = l.find_first_not_of(" \t");
            if (ind != std::string::npos && ind <= indent + 3 && l.compare(ind, fence.size(), fence) == 0) {
                size_t k = ind;
                while (k < l.size() && l[k] == fence[0]) ++k;
                bool only_fence = trim(l.substr(k)).empty();
                if (only_fence) {
                    // A fence inside an open Python docstring belongs to the docstring.
                    std::string so_far = join(body, "\n");
                    bool in_docstring =
                        !c_family && (count_of(so_far, "\"\"\"") % 2 == 1 || count_of(so_far, "'''") % 2 == 1);
                    if (!in_docstring) {
                        b.closed = true;
                        break;
                    }
                }
            }
            // Content lines lose the fence's own indentation (a block inside a list item).
            size_t strip = 0;
            while (strip < indent && strip < l.size() && (l[strip] == ' ' || l[strip] == '\t')) ++strip;
            body.push_back(l.substr(strip));
        }
        if (!b.closed) {
            // No closing fence: "}```", a closing fence glued to the end of a
            // code line, ends the block there (what follows is prose again).
            for (size_t k = 0; k < body.size(); ++k) {
                std::string t = trim(body[k]);
                if (t.size() > fence.size() && t.compare(t.size() - fence.size(), fence.size(), fence) == 0 &&
                    t[t.size() - fence.size() - 1] != fence[0]) {
                    std::string& l = body[k];
                    l = l.substr(0, l.rfind(fence));
                    j = i + 1 + k;  // the lines after it are read again, as prose
                    body.resize(k + 1);
                    b.closed = true;
                    b.note = "the closing fence is glued to the end of line " + std::to_string(first_line + int(j) + 1) +
                             "; the block ends there";
                    break;
                }
            }
        }
        b.code = join(body, "\n");
        if (!body.empty()) {
            b.first_line += 1;
            b.last_line = b.first_line + int(body.size()) - 1;
        } else {
            b.last_line = b.first_line;
        }
        out.push_back(std::move(b));
        i = j + 1;  // past the closing fence (or the end, for a block left open)
    }
    if (prose_after) *prose_after = prose;
    return out;
}

// Runs of unfenced code in a region's text (fenced blocks already blanked).
std::vector<RawBlock> find_unfenced(const std::string& region, int first_line) {
    std::vector<std::string> lines = split_lines(region);
    // Lines inside a Python string or bracket continuation never count as prose.
    std::vector<PythonString> unused;
    enum Kind { blank_line, neutral, prose, code };
    std::vector<Kind> kind(lines.size(), blank_line);
    int open_triple = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        std::string t = trim(l);
        bool inside_string = open_triple % 2 == 1;
        open_triple += count_of(l, "\"\"\"") + count_of(l, "'''");
        if (t.empty()) kind[i] = blank_line;
        else if (inside_string) kind[i] = code;
        else if (is_preprocessor_line(l)) kind[i] = code;
        else if (t[0] == '#') kind[i] = neutral;  // a markdown heading or a Python comment
        else if (looks_like_prose(l) || is_markdown_line(l)) kind[i] = prose;
        else kind[i] = code;
    }
    std::vector<RawBlock> out;
    std::string prose_text;
    size_t i = 0;
    while (i < lines.size()) {
        if (kind[i] != code) {
            prose_text += lines[i] + "\n";
            ++i;
            continue;
        }
        size_t j = i, last_code = i;
        while (j < lines.size() && kind[j] != prose) {
            if (kind[j] == code) last_code = j;
            ++j;
        }
        RawBlock b;
        std::vector<std::string> body(lines.begin() + long(i), lines.begin() + long(last_code) + 1);
        b.code = join(body, "\n");
        b.first_line = first_line + int(i);
        b.last_line = first_line + int(last_code);
        b.prose_before = prose_text;
        prose_text.clear();
        // A run that does not read as code (a stray line of symbols) is prose.
        if (guess_language(b.code) != CodeLanguage::unknown) out.push_back(std::move(b));
        else prose_text += b.code + "\n";
        for (size_t k = last_code + 1; k < j; ++k) prose_text += lines[k] + "\n";
        i = j;
    }
    return out;
}

int line_of(const std::string& s, size_t offset) {
    return 1 + int(std::count(s.begin(), s.begin() + long(std::min(offset, s.size())), '\n'));
}

// Language of a block from its tag and content; `note` says when they disagree.
CodeLanguage block_language(const std::string& tag, const std::string& code, std::string* note) {
    TagKind k = tag_kind(tag);
    CodeLanguage guess = guess_language(code);
    switch (k) {
        case TagKind::cuda:
            if (guess == CodeLanguage::python) {
                *note = "is tagged ```" + tag + " but reads as Python";
                return guess;
            }
            return CodeLanguage::cuda;
        case TagKind::python:
            // CUDA source inside Python strings (load_inline) does not make the block CUDA.
            if (guess == CodeLanguage::cuda) guess = guess_language(mask_python_strings(code));
            if (guess == CodeLanguage::cuda) {
                *note = "is tagged ```" + tag + " but reads as CUDA C++";
                return guess;
            }
            return CodeLanguage::python;
        case TagKind::other: return CodeLanguage::unknown;
        case TagKind::text:
        case TagKind::none:
        case TagKind::unknown: return guess;
    }
    return guess;
}

bool matches(const CodeBlock& b, AnswerLanguage l) {
    return (l == AnswerLanguage::cuda && b.language == CodeLanguage::cuda) ||
           (l == AnswerLanguage::triton && b.language == CodeLanguage::python);
}

// ---- 5. choice ------------------------------------------------------------------

bool defines_entry(const CodeBlock& b, const std::string& e) {
    if (b.facts.kernels.count(e)) return true;
    return b.language == CodeLanguage::python && b.facts.definitions.count(e) > 0;
}

// The word in the prose before a block that presents it as the version to
// keep ("fixed", "final", "optimized version"), or "".
std::string quoted_cue(const std::string& prose) {
    static const std::regex cue(
        R"(\b(final|finally|fix|fixed|fixes|corrected|correction|updated?|revised?|improved|optimi[sz](e|ed|ation)|complete|full|entire|whole|putting it (all )?together|combined|rewritten|rewrite|instead|better|faster|new version)\b)",
        std::regex::icase);
    std::smatch m;
    return std::regex_search(prose, m, cue) ? m[0].str() : "";
}

// Names in `a` that `b` also defines, where joining both would clash:
// CUDA redefinitions (identical #defines excepted), Python defs and classes
// that differ (imports never clash).
std::vector<std::string> clashes(const CodeBlock& a, const std::map<std::string, std::string>& defined,
                                 CodeLanguage lang) {
    std::vector<std::string> out;
    for (const auto& [name, text] : a.facts.definitions) {
        auto it = defined.find(name);
        if (it == defined.end()) continue;
        bool same = it->second == text;
        if (lang == CodeLanguage::cuda && same && text.rfind("#", 0) == 0) continue;
        if (lang == CodeLanguage::python && (same || text.rfind("import ", 0) == 0)) continue;
        out.push_back(name);
    }
    return out;
}

class Chooser {
public:
    Chooser(const ExtractOptions& o, Extraction& x) : o_(o), x_(x) {}

    void run(const std::vector<const CodeBlock*>& eligible, AnswerLanguage lang) {
        lang_ = lang;
        entries_known_ = !o_.entries.empty();
        entries_ = o_.entries;
        if (!entries_known_) {
            std::set<std::string> all;
            for (const CodeBlock* b : eligible) all.insert(b->facts.kernels.begin(), b->facts.kernels.end());
            entries_.assign(all.begin(), all.end());
        }
        std::vector<int> count(eligible.size(), 0);
        int best = 0;
        for (size_t i = 0; i < eligible.size(); ++i) {
            for (const std::string& e : entries_) count[i] += defines_entry(*eligible[i], e) ? 1 : 0;
            best = std::max(best, count[i]);
        }
        const CodeBlock* seed = nullptr;
        if (best == 0) {
            seed = pick_without_entry(eligible);
        } else {
            std::vector<const CodeBlock*> tops;
            for (size_t i = 0; i < eligible.size(); ++i)
                if (count[i] == best) tops.push_back(eligible[i]);
            seed = tops.size() == 1 ? pick_single(tops[0], eligible.size()) : pick_among(tops);
            if (!seed) return;  // ambiguous
        }
        join_needed(seed, eligible);
    }

private:
    std::string entry_words() const {
        std::vector<std::string> w;
        for (const std::string& e : entries_) w.push_back("'" + e + "'");
        return join(w, ", ");
    }

    std::string what_defines() const {
        return lang_ == AnswerLanguage::triton ? "defines " + entry_words() : "defines __global__ " + entry_words();
    }

    const CodeBlock* pick_single(const CodeBlock* b, size_t eligible) {
        x_.reason = b->describe() + (eligible == 1 ? " is the only " + language_title(lang_) + " code"
                                                   : " is the only " + language_title(lang_) + " block that " +
                                                         what_defines());
        return b;
    }

    const CodeBlock* pick_without_entry(const std::vector<const CodeBlock*>& eligible) {
        if (entries_known_) {
            x_.flags.push_back("entry_missing");
            x_.notes.push_back("no block defines " + entry_words() +
                               ": the task launches it, so compiling will report it missing");
        }
        if (eligible.size() == 1) {
            x_.reason = eligible[0]->describe() + " is the only " + language_title(lang_) + " code";
            return eligible[0];
        }
        const CodeBlock* largest = eligible[0];
        for (const CodeBlock* b : eligible)
            if (b->code_lines() >= largest->code_lines()) largest = b;
        x_.reason = largest->describe() + " is the largest of " + std::to_string(eligible.size()) + " " +
                    language_title(lang_) + " blocks, none of which " +
                    (entries_known_ ? what_defines() : std::string("defines a kernel"));
        return largest;
    }

    const CodeBlock* pick_among(const std::vector<const CodeBlock*>& tops) {
        // Entries two or more of them define: the same way, or differently.
        std::vector<std::string> differing;
        bool shared = false;
        for (const std::string& e : entries_) {
            std::set<std::string> texts;
            int definers = 0;
            for (const CodeBlock* b : tops) {
                if (!defines_entry(*b, e)) continue;
                ++definers;
                auto it = b->facts.definitions.find(e);
                texts.insert(it == b->facts.definitions.end() ? "" : it->second);
            }
            if (definers < 2) continue;
            shared = true;
            if (texts.size() > 1) differing.push_back(e);
        }
        if (differing.empty() && shared) {
            const CodeBlock* most = tops[0];
            for (const CodeBlock* b : tops)
                if (b->code_lines() >= most->code_lines()) most = b;
            x_.reason = most->describe() + ": " + block_list(tops) + " define " + entry_words() +
                        " identically; this one holds the most code";
            return most;
        }
        if (differing.empty()) {
            // Each defines different entries: start from the first, the closure joins the others.
            x_.reason = tops[0]->describe() + ": " + block_list(tops) + " each define some of " + entry_words() +
                        "; starting from the first, the blocks defining the others are joined";
            return tops[0];
        }
        const CodeBlock* last = tops.back();
        std::string cue = quoted_cue(last->prose_before);
        if (!cue.empty()) {
            x_.reason = last->describe() + ": " + block_list(tops) + " define " + join_quoted(differing) +
                        " differently, and the text before the last one presents it as a revision ('" + cue + "')";
            return last;
        }
        x_.outcome = ExtractOutcome::ambiguous;
        x_.reason = block_list(tops) + " each define " + join_quoted(differing) +
                    " differently and nothing marks one as the final version (such as 'final', 'fixed', "
                    "'corrected', 'updated' or 'optimized version' before the later block)";
        return nullptr;
    }

    static std::string join_quoted(const std::vector<std::string>& names) {
        std::vector<std::string> q;
        for (const std::string& n : names) q.push_back("'" + n + "'");
        return join(q, ", ");
    }

    // Joins the blocks the seed needs: ones defining a name it uses but does
    // not define, or an entry it lacks. Usage examples (main) are never
    // joined for a helper; blocks that would redefine something are skipped.
    void join_needed(const CodeBlock* seed, const std::vector<const CodeBlock*>& eligible) {
        std::vector<const CodeBlock*> chosen = {seed};
        std::map<std::string, std::string> defined = seed->facts.definitions;
        std::set<std::string> used = seed->facts.uses;
        std::set<std::string> missing_entries;
        for (const std::string& e : entries_)
            if (!defines_entry(*seed, e) && entries_known_) missing_entries.insert(e);
        bool changed = true;
        while (changed) {
            changed = false;
            for (const CodeBlock* b : eligible) {
                if (std::find(chosen.begin(), chosen.end(), b) != chosen.end()) continue;
                if (b->in_reasoning != seed->in_reasoning) continue;
                std::vector<std::string> provides;
                for (const std::string& e : missing_entries)
                    if (defines_entry(*b, e)) provides.push_back(e);
                bool gives_entry = !provides.empty();
                if (!gives_entry) {
                    if (b->facts.has_main) continue;
                    for (const auto& d : b->facts.definitions)
                        if (used.count(d.first) && !defined.count(d.first)) provides.push_back(d.first);
                }
                if (provides.empty()) continue;
                std::vector<std::string> clash = clashes(*b, defined, b->language);
                if (!clash.empty()) {
                    x_.notes.push_back(b->describe() + " defines " + join_quoted(provides) +
                                       ", which the chosen code uses, but was not joined: it would redefine " +
                                       join_quoted(clash));
                    continue;
                }
                chosen.push_back(b);
                for (const auto& d : b->facts.definitions) defined.insert(d);
                used.insert(b->facts.uses.begin(), b->facts.uses.end());
                for (const std::string& e : provides) missing_entries.erase(e);
                x_.notes.push_back(b->describe() + " joined: it defines " + join_quoted(provides) +
                                   (gives_entry ? ", launched by the task" : ", used by the chosen code"));
                changed = true;
            }
        }
        if (!missing_entries.empty() && !x_.has_flag("entry_missing")) {
            x_.flags.push_back("entry_missing");
            x_.notes.push_back("no block defines " +
                               join_quoted(std::vector<std::string>(missing_entries.begin(), missing_entries.end())) +
                               ", which the task launches");
        }
        std::sort(chosen.begin(), chosen.end(), [](const CodeBlock* a, const CodeBlock* b) {
            return a->first_line < b->first_line;
        });
        x_.outcome = ExtractOutcome::ok;
        x_.picked_block = seed->index;
        std::string code;
        for (const CodeBlock* b : chosen) {
            if (!code.empty()) code += "\n";
            code += b->code;
            if (code.empty() || code.back() != '\n') code += '\n';
            x_.used_blocks.push_back(b->index);
        }
        if (chosen.size() > 1) x_.flags.push_back("joined");
        x_.code = std::move(code);
        bool triton = std::any_of(chosen.begin(), chosen.end(), [](const CodeBlock* b) { return b->triton; });
        x_.language = lang_ == AnswerLanguage::triton ? (triton ? "triton" : "python") : "cuda";
        for (const CodeBlock* b : chosen) {
            if (!b->closed) {
                x_.flags.push_back("truncated");
                x_.notes.push_back(b->describe() +
                                   " has no closing fence: the answer ends inside it (cut off?); taken as it is");
            }
            if (b->source == "unfenced" && !x_.has_flag("unfenced")) x_.flags.push_back("unfenced");
            if (b->source == "python-string" && !x_.has_flag("from_python_string")) {
                x_.flags.push_back("from_python_string");
                x_.notes.push_back("the CUDA source is the string " +
                                   (b->string_name.empty() ? std::string("literal") : "'" + b->string_name + "'") +
                                   " of a Python block (a load_inline extension); kbench launches the kernel itself");
            }
            if (b->in_reasoning && !x_.has_flag("from_reasoning")) x_.flags.push_back("from_reasoning");
            for (const std::string& inc : b->facts.framework_includes) {
                if (!x_.has_flag("framework_include")) x_.flags.push_back("framework_include");
                x_.notes.push_back("the code includes <" + inc +
                                   ">: kbench compiles kernels without PyTorch and will refuse it");
            }
        }
    }

    const ExtractOptions& o_;
    Extraction& x_;
    AnswerLanguage lang_ = AnswerLanguage::cuda;
    bool entries_known_ = false;
    std::vector<std::string> entries_;
};

// A CUDA block cut in two by a stray fence (open braces at its end) is joined
// with the blocks that close them, before anything else looks at it.
void merge_split_blocks(std::vector<CodeBlock>& blocks, Extraction& x) {
    for (size_t i = 0; i + 1 < blocks.size(); ++i) {
        CodeBlock& a = blocks[i];
        if (a.language != CodeLanguage::cuda || a.facts.brace_balance <= 0) continue;
        int balance = a.facts.brace_balance;
        size_t j = i + 1;
        std::string code = a.code;
        for (; j < blocks.size() && balance > 0; ++j) {
            const CodeBlock& b = blocks[j];
            if (b.language != CodeLanguage::cuda && b.language != CodeLanguage::unknown) break;
            if (b.in_reasoning != a.in_reasoning || b.source != a.source) break;
            CodeFacts f = scan_cuda(b.code);
            balance += f.brace_balance;
            code += "\n" + b.code;
        }
        if (balance != 0) continue;
        std::string range = "blocks " + std::to_string(a.index) + "-" + std::to_string(blocks[j - 1].index);
        x.flags.push_back("split_block_merged");
        x.notes.push_back(range + " were merged: block " + std::to_string(a.index) +
                          " leaves braces open and the following block(s) close them");
        a.code = code;
        a.last_line = blocks[j - 1].last_line;
        a.closed = blocks[j - 1].closed;
        a.facts = scan_cuda(a.code);
        blocks.erase(blocks.begin() + long(i) + 1, blocks.begin() + long(j));
    }
}

}  // namespace

Extraction extract_answer(const std::string& answer, const ExtractOptions& options) {
    Extraction x;
    Cleaned c = clean(answer);
    x.flags = c.flags;
    x.notes = c.notes;
    std::string text = c.text;
    Reasoning r = split_reasoning(text);
    if (r.any) x.flags.push_back("think_stripped");
    if (r.unclosed) x.flags.push_back("reasoning_unclosed");
    if (r.no_opening) x.notes.push_back("a closing </think> with no opening tag: the text before it is reasoning");

    // Blocks, region by region: a fence never spans the end of a reasoning section.
    std::vector<CodeBlock> blocks;
    std::vector<std::string> reasoning_prose;
    bool any_fenced_code_outside = false;
    std::string trailing_prose;
    for (const Region& reg : r.regions) {
        std::string region = text.substr(reg.begin, reg.end - reg.begin);
        int base = line_of(text, reg.begin) - 1;
        std::string after;
        std::vector<RawBlock> raw = find_fenced(region, base, &after);
        for (RawBlock& rb : raw) {
            CodeBlock b;
            b.source = "fence";
            b.tag = rb.tag;
            b.code = rb.code;
            b.first_line = rb.first_line;
            b.last_line = rb.last_line;
            b.closed = rb.closed;
            b.in_reasoning = reg.reasoning;
            b.prose_before = rb.prose_before;
            std::string note;
            b.language = block_language(b.tag, b.code, &note);
            if (!note.empty()) {
                x.flags.push_back("retagged");
                x.notes.push_back("block " + std::to_string(blocks.size() + 1) + " " + note);
            }
            if (!rb.note.empty()) x.notes.push_back(rb.note);
            if (!reg.reasoning && b.language != CodeLanguage::unknown) any_fenced_code_outside = true;
            b.index = int(blocks.size()) + 1;
            blocks.push_back(std::move(b));
        }
        if (!reg.reasoning) trailing_prose += after;
    }
    // No fenced code outside reasoning: runs of bare code.
    if (!any_fenced_code_outside) {
        std::vector<CodeBlock> unfenced;
        for (const Region& reg : r.regions) {
            if (reg.reasoning) continue;
            std::string region = text.substr(reg.begin, reg.end - reg.begin);
            // Fenced non-code blocks (```bash) are not bare code: blank them.
            std::vector<std::string> lines = split_lines(region);
            static const std::regex fence_re(R"(^[ \t]*(`{3,}|~{3,}))");
            bool inside = false;
            for (std::string& l : lines) {
                bool fence = std::regex_search(l, fence_re);
                if (fence || inside) l.assign(l.size(), ' ');
                if (fence) inside = !inside;
            }
            int base = line_of(text, reg.begin) - 1;
            for (RawBlock& rb : find_unfenced(join(lines, "\n"), base + 1)) {
                CodeBlock b;
                b.source = "unfenced";
                b.code = rb.code;
                b.first_line = rb.first_line;
                b.last_line = rb.last_line;
                b.prose_before = rb.prose_before;
                b.language = guess_language(b.code);
                unfenced.push_back(std::move(b));
            }
        }
        for (CodeBlock& b : unfenced) {
            b.index = int(blocks.size()) + 1;
            blocks.push_back(std::move(b));
        }
        std::sort(blocks.begin(), blocks.end(),
                  [](const CodeBlock& a, const CodeBlock& b) { return a.first_line < b.first_line; });
        for (size_t i = 0; i < blocks.size(); ++i) blocks[i].index = int(i) + 1;
    }
    for (CodeBlock& b : blocks) {
        b.facts = scan_code(b.code, b.language);
        b.triton = b.language == CodeLanguage::python && b.facts.uses_triton;
    }
    merge_split_blocks(blocks, x);
    for (size_t i = 0; i < blocks.size(); ++i) blocks[i].index = int(i) + 1;
    x.block_count = int(blocks.size());

    // The language: asked for, or the one of the blocks that define the entry
    // (else that of the blocks defining kernels, else the most code).
    auto considered = [&](const CodeBlock& b) { return !b.in_reasoning || options.include_reasoning; };
    // CUDA inside a Python block's strings (torch.utils.cpp_extension.load_inline).
    std::vector<CodeBlock> strings;
    for (const CodeBlock& b : blocks) {
        if (b.language != CodeLanguage::python) continue;
        for (const PythonString& ps : python_strings(b.code)) {
            if (ps.text.find("__global__") == std::string::npos) continue;
            CodeBlock sb;
            sb.index = b.index;
            sb.source = "python-string";
            sb.string_name = ps.assigned_to;
            sb.language = CodeLanguage::cuda;
            sb.code = ps.text;
            if (!sb.code.empty() && sb.code[0] == '\n') sb.code.erase(0, 1);
            sb.first_line = b.first_line + ps.line - 1;
            sb.last_line = sb.first_line + int(std::count(ps.text.begin(), ps.text.end(), '\n'));
            sb.closed = b.closed;
            sb.in_reasoning = b.in_reasoning;
            sb.prose_before = b.prose_before;
            sb.facts = scan_cuda(sb.code);
            strings.push_back(std::move(sb));
        }
    }

    AnswerLanguage lang = options.language;
    if (lang == AnswerLanguage::detect) {
        int cuda_score = 0, py_score = 0;
        for (int pass = 0; pass < 3 && cuda_score == py_score; ++pass) {
            cuda_score = py_score = 0;
            auto weigh = [&](const CodeBlock& b) {
                if (!considered(b) || b.language == CodeLanguage::unknown) return;
                int w = 0;
                if (pass == 0)
                    for (const std::string& e : options.entries) w += defines_entry(b, e) ? 1 : 0;
                if (pass == 1) w = int(b.facts.kernels.size());
                if (pass == 2 && b.source != "python-string") w = b.code_lines();
                (b.language == CodeLanguage::cuda ? cuda_score : py_score) += w;
            };
            for (const CodeBlock& b : blocks) weigh(b);
            if (pass < 2)
                for (const CodeBlock& b : strings) weigh(b);
        }
        lang = py_score > cuda_score ? AnswerLanguage::triton : AnswerLanguage::cuda;
        if (cuda_score == 0 && py_score == 0) lang = AnswerLanguage::detect;
    }

    auto eligible_of = [&](bool reasoning) {
        std::vector<const CodeBlock*> e;
        for (const CodeBlock& b : blocks)
            if (b.in_reasoning == reasoning && lang != AnswerLanguage::detect && matches(b, lang) && b.code_lines() > 0)
                e.push_back(&b);
        return e;
    };
    std::vector<const CodeBlock*> eligible = eligible_of(false);
    if (eligible.empty() && options.include_reasoning) eligible = eligible_of(true);

    // CUDA from Python strings only when there is no CUDA block.
    if (eligible.empty() && lang == AnswerLanguage::cuda)
        for (const CodeBlock& sb : strings)
            if (considered(sb)) eligible.push_back(&sb);

    if (eligible.empty()) {
        x.outcome = ExtractOutcome::no_code;
        int outside = 0, inside = 0;
        std::vector<std::string> other_tags;
        std::vector<const CodeBlock*> other_lang;
        for (const CodeBlock& b : blocks) {
            if (b.in_reasoning) {
                if (b.language != CodeLanguage::unknown) ++inside;
                continue;
            }
            ++outside;
            if (b.language == CodeLanguage::unknown) other_tags.push_back(b.tag.empty() ? "(untagged)" : "```" + b.tag);
            else other_lang.push_back(&b);
        }
        std::string rest = trim(text);
        if (trim(answer).empty()) {
            x.reason = "the answer is empty";
        } else if (!other_lang.empty() && lang != AnswerLanguage::detect) {
            x.reason = "no " + language_title(lang) + " code: the answer's code is " +
                       (lang == AnswerLanguage::cuda ? "Python" : "CUDA C++") + " (" + block_list(other_lang) + ")";
        } else if (inside > 0) {
            x.reason = r.unclosed ? "the answer ends inside an unclosed reasoning section (<think> never closed): the "
                                    "model gave no final answer; its reasoning holds " +
                                        std::to_string(inside) + " draft code block(s)"
                                  : "code appears only inside the reasoning section (" + std::to_string(inside) +
                                        " block(s)), not in the final answer";
            x.notes.push_back("code in reasoning is a draft; ask for it with include_reasoning (--include-reasoning)");
        } else if (r.unclosed && outside == 0) {
            x.reason = "the answer ends inside an unclosed reasoning section (<think> never closed): the model gave "
                       "no final answer";
        } else if (!other_tags.empty()) {
            x.reason = std::to_string(other_tags.size()) + " block(s), none of them code to score (" +
                       join(other_tags, ", ") + ")";
        } else {
            x.reason = "no fenced code block and no text that reads as code";
        }
        x.blocks = std::move(blocks);
        return x;
    }

    Chooser(options, x).run(eligible, lang);
    if (x.outcome == ExtractOutcome::ok && trim(x.code).empty()) {
        x.outcome = ExtractOutcome::no_code;
        x.reason = "the chosen block is empty";
        x.code.clear();
        x.picked_block = 0;
        x.used_blocks.clear();
        x.language.clear();
    }
    // Blocks that were cut off but not chosen are worth a word too.
    for (const CodeBlock& b : blocks)
        if (!b.closed && std::find(x.used_blocks.begin(), x.used_blocks.end(), b.index) == x.used_blocks.end() &&
            !b.in_reasoning)
            x.notes.push_back(b.describe() + " has no closing fence (the answer ends inside it)");
    x.blocks = std::move(blocks);
    return x;
}

}  // namespace kb::evaluate
