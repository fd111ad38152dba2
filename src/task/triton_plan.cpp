// Triton launch entries in the task model (docs/triton.md): the constexpr
// environment a grid is evaluated in, config choices for tuning, and the
// structured comments that let a bare `.py` file carry its own launch.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "task/task_json.h"

namespace kb {

using namespace taskjson;

DimValues TritonConfig::env(const DimValues& dims) const {
    DimValues e = dims;
    for (const auto& kv : constexprs) e[kv.first] = kv.second.eval(dims);
    return e;
}

std::string TritonConfig::label() const {
    std::string s;
    for (const auto& kv : constexprs) s += kv.first + "=" + kv.second.text() + " ";
    s += "w" + std::to_string(num_warps) + " s" + std::to_string(num_stages);
    if (num_ctas > 1) s += " c" + std::to_string(num_ctas);
    return s;
}

bool Program::has_triton_configs() const {
    for (const LaunchStep& s : launch)
        if (!s.triton_configs.empty()) return true;
    return false;
}

Program Program::with_triton_configs(const std::vector<int>& choice) const {
    Program p = *this;
    for (size_t i = 0; i < p.launch.size(); ++i) {
        LaunchStep& s = p.launch[i];
        int c = i < choice.size() ? choice[i] : -1;
        if (s.triton && c >= 0 && size_t(c) < s.triton_configs.size()) s.triton = s.triton_configs[size_t(c)];
        s.triton_configs.clear();
    }
    return p;
}

namespace {

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

// Splits at top-level separators (outside (), [] and {}).
std::vector<std::string> split_top(const std::string& s, char sep) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (depth == 0 && (sep == ' ' ? (c == ' ' || c == '\t') : c == sep)) {
            if (!trim(cur).empty() || sep != ' ') out.push_back(trim(cur));
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!trim(cur).empty() || (sep != ' ' && !out.empty())) out.push_back(trim(cur));
    return out;
}

std::string strip_brackets(const std::string& v) {
    std::string t = trim(v);
    if (t.size() >= 2 && t.front() == '[' && t.back() == ']') return trim(t.substr(1, t.size() - 2));
    return t;
}

Json value_json(const std::string& v) {
    bool digits = !v.empty() && v.size() <= 18 && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (digits) return Json(std::stoll(v));
    return Json(v);
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

struct Param {
    std::string name;
    bool constexpr_ = false;
};

// The parameters of `def kernel(...)` in Python source ("" when not found).
std::vector<Param> def_params(const std::string& source, const std::string& kernel, bool* found) {
    *found = false;
    size_t at = 0;
    while ((at = source.find("def ", at)) != std::string::npos) {
        size_t p = at + 4;
        while (p < source.size() && source[p] == ' ') ++p;
        size_t e = p;
        while (e < source.size() && (std::isalnum(static_cast<unsigned char>(source[e])) || source[e] == '_')) ++e;
        bool line_start = at == 0 || source[at - 1] == '\n';
        if (!line_start || source.compare(p, e - p, kernel) != 0 || e - p != kernel.size()) {
            at = e;
            continue;
        }
        while (e < source.size() && source[e] == ' ') ++e;
        if (e >= source.size() || source[e] != '(') return {};
        int depth = 0;
        size_t close = e;
        for (; close < source.size(); ++close) {
            if (source[close] == '(' || source[close] == '[') ++depth;
            if (source[close] == ')' || source[close] == ']') {
                if (--depth == 0) break;
            }
        }
        std::string inside = source.substr(e + 1, close - e - 1);
        for (char& c : inside)
            if (c == '\n') c = ' ';
        std::vector<Param> params;
        for (const std::string& part : split_top(inside, ',')) {
            if (part.empty() || part == "*" || part == "/") continue;
            std::string decl = part.substr(0, part.find('='));
            size_t colon = decl.find(':');
            Param pr;
            pr.name = trim(decl.substr(0, colon));
            pr.constexpr_ = colon != std::string::npos && decl.find("constexpr", colon) != std::string::npos;
            params.push_back(pr);
        }
        *found = true;
        return params;
    }
    return {};
}

}  // namespace

Json triton_plan_from_comments(const std::string& source, const std::string& source_name, const Task& task) {
    static const std::string kMark = "# kbench:";
    Json launch = Json::array();
    std::istringstream in(source);
    std::string line;
    int line_no = 0;
    std::vector<int> entry_lines;
    while (std::getline(in, line)) {
        ++line_no;
        std::string t = trim(line);
        if (t.compare(0, kMark.size(), kMark) != 0) continue;
        const std::string where = source_name + ":" + std::to_string(line_no);
        std::vector<std::string> words = split_top(trim(t.substr(kMark.size())), ' ');
        if (words.empty() || (words[0] != "launch" && words[0] != "config"))
            fail_at(where, "a `# kbench:` comment that is neither `launch` nor `config`",
                    "expected `# kbench: launch kernel=NAME grid=EXPR [NAME=VALUE ...] [num_warps=N] [args=a,b,...]` "
                    "or `# kbench: config NAME=VALUE ... num_warps=N`");
        const bool is_launch = words[0] == "launch";
        if (!is_launch && launch.empty())
            fail_at(where, "a `# kbench: config` line before any `# kbench: launch` line",
                    "expected the configs of an entry after its launch line");
        Json entry = Json::object();
        Json constexprs = Json::object();
        for (size_t i = 1; i < words.size(); ++i) {
            size_t eq = words[i].find('=');
            if (eq == std::string::npos || eq == 0)
                fail_at(where, "'" + words[i] + "' is not NAME=VALUE",
                        "expected space-separated NAME=VALUE pairs (spaces are allowed inside brackets only)");
            std::string key = words[i].substr(0, eq), value = trim(words[i].substr(eq + 1));
            if (value.empty()) fail_at(where, "'" + key + "' has no value", "expected NAME=VALUE");
            if (key == "kernel" || key == "grid" || key == "args") {
                if (!is_launch) fail_at(where, "'" + key + "' in a config line", "expected it on the launch line");
                if (key == "kernel") {
                    entry["kernel"] = value;
                } else {
                    Json list = Json::array();
                    for (const std::string& x : split_top(strip_brackets(value), ',')) {
                        if (x.empty()) fail_at(where, "an empty element in '" + key + "'", "expected a, b, ...");
                        list.push_back(key == "grid" ? value_json(x) : Json(x));
                    }
                    entry[key] = list;
                }
            } else if (key == "num_warps" || key == "num_stages" || key == "num_ctas") {
                Json v = value_json(value);
                if (!v.is_number_integer()) fail_at(where, "'" + key + "=" + value + "'", "expected an integer");
                entry[key] = v;
            } else if (is_identifier(key)) {
                constexprs[key] = value_json(value);
            } else {
                fail_at(where, "'" + key + "' is not a name", "expected a constexpr name, or kernel, grid, args, "
                                                              "num_warps, num_stages, num_ctas");
            }
        }
        if (!constexprs.empty()) entry["constexprs"] = constexprs;
        if (!is_launch) {
            Json& last = launch.back();
            if (!last.contains("configs")) last["configs"] = Json::array();
            last["configs"].push_back(entry);
            continue;
        }
        if (!entry.contains("kernel"))
            fail_at(where, "the launch line names no kernel", "expected kernel=NAME (a @triton.jit function)");
        if (!entry.contains("grid"))
            fail_at(where, "the launch line has no grid",
                    "expected grid=EXPR or grid=[EXPR, EXPR] over the task's dims and the line's constexprs");
        launch.push_back(entry);
        entry_lines.push_back(line_no);
    }
    if (launch.empty()) return Json();

    // Arguments not given: the task's list for Triton kernels, else the
    // kernel's own parameter names where they are all task arguments.
    const std::vector<std::string>& listed = task.triton_args;
    for (size_t i = 0; i < launch.size(); ++i) {
        Json& entry = launch[i];
        if (entry.contains("args")) continue;
        const std::string where = source_name + ":" + std::to_string(entry_lines[i]);
        if (!listed.empty()) {
            entry["args"] = listed;
            continue;
        }
        const std::string kernel = entry["kernel"].get<std::string>();
        bool found = false;
        std::vector<Param> params = def_params(source, kernel, &found);
        if (!found)
            fail_at(where, "kernel '" + kernel + "' is not defined in " + source_name,
                    "expected kernel= to name a @triton.jit function of the file");
        std::vector<std::string> names, missing;
        std::string all;
        for (const Arg& a : task.args) all += (all.empty() ? "" : ",") + a.name;
        for (const Param& p : params) {
            if (p.constexpr_) continue;
            if (task.arg_index(p.name) < 0) missing.push_back(p.name);
            names.push_back(p.name);
        }
        if (!missing.empty())
            fail_at(where, "no args= given, the task lists no candidate.triton_args, and kernel '" + kernel +
                               "' has parameters that are not task arguments (" + join(missing) + ")",
                    "expected args=" + all + " (the task's arguments in the kernel's parameter order), or "
                    "parameters named like the task's arguments");
        entry["args"] = names;
    }
    return launch;
}

}  // namespace kb
