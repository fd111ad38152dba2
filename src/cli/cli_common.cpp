// Helpers every subcommand uses: contexts, tasks, paths, candidates, output.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/cli.h"

namespace kb::cli {

std::string error_text(kb_status s) { return std::string(kb_status_string(s)) + ": " + kb_last_error(); }

void fail_with(kb_status s) { throw Failure(kb_status_string(s), kb_last_error()); }

namespace {

// The first clause of the library's explanation, for a one-line notice:
// "no CUDA driver: libcuda.so.1 could not be loaded (...); install ..." ->
// "no CUDA driver".
std::string short_reason(const std::string& detail) {
    std::string r = detail.substr(0, detail.find_first_of(":;\n("));
    while (!r.empty() && r.back() == ' ') r.pop_back();
    if (r.size() > 60) r = r.substr(0, 57) + "...";
    return r.empty() ? "none found" : r;
}

}  // namespace

void open_context(const Args& a, OpenedContext& out) {
    int count = 0;
    kb_status s = kb_device_count(&count);
    std::string why_none = s == KB_OK && count == 0 ? short_reason(kb_last_error()) : "";
    out.device = !a.has("--no-device") && count > 0;
    if (!out.device) out.no_device_reason = a.has("--no-device") ? "--no-device" : why_none;
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = out.device ? int(a.number("--device", 0)) : KB_DEVICE_NONE;
    o.isolation = a.has("--in-process") ? KB_ISOLATION_IN_PROCESS : KB_ISOLATION_DEFAULT;
    std::string arch = a.value("--arch");
    if (!arch.empty()) o.arch = arch.c_str();
    if (a.has("--ptx")) o.flags |= KB_CONTEXT_EMIT_PTX;
    if (a.has("--no-nvcc")) o.flags |= KB_CONTEXT_NO_NVCC_FALLBACK;
    s = kb_context_create(&o, out.ctx.out());
    if (s != KB_OK) throw Failure(kb_status_string(s), std::string("cannot create a context: ") + kb_last_error());
}

void say_no_device(const std::string& why, const std::string& what) {
    std::fprintf(stderr, "kbench: no CUDA device (%s): %s\n", why.c_str(), what.c_str());
}

void require_file(const std::string& path, const std::string& what, const std::string& hint_in_dir) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        int err = errno;
        throw Failure("i/o error", what + " '" + path + "': " + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        std::string msg = what + " '" + path + "' is a directory; expected a file";
        if (!hint_in_dir.empty()) {
            std::string inside = path + (path.back() == '/' ? "" : "/") + hint_in_dir;
            if (::access(inside.c_str(), R_OK) == 0) msg += ": did you mean '" + inside + "'?";
        }
        throw Failure("i/o error", msg);
    }
    if (::access(path.c_str(), R_OK) != 0) {
        int err = errno;
        throw Failure("i/o error", what + " '" + path + "': " + std::strerror(err));
    }
}

void load_task(const std::string& path, TaskHandle& task) {
    require_file(path, "task", "task.json");
    kb_status s = kb_load_task(path.c_str(), task.out());
    if (s != KB_OK) fail_with(s);
}

std::vector<std::string> list_dir(const std::string& dir, bool dirs) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string name = e->d_name;
            if (name[0] == '.') continue;
            struct stat st;
            std::string path = dir + "/" + name;
            if (stat(path.c_str(), &st) != 0) continue;
            if (S_ISDIR(st.st_mode) == dirs) out.push_back(path);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {

void collect_task_dirs(const std::string& root, std::vector<std::string>& out) {
    struct stat st;
    if (::stat((root + "/task.json").c_str(), &st) == 0) {
        out.push_back(root);
        return;
    }
    for (const std::string& sub : list_dir(root, true)) collect_task_dirs(sub, out);
}

std::string without_trailing_slash(std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

}  // namespace

std::vector<std::string> find_task_dirs(const std::string& root) {
    std::vector<std::string> out;
    collect_task_dirs(without_trailing_slash(root), out);
    return out;
}

std::vector<std::string> expand_task_args(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const std::string& raw : args) {
        std::string a = without_trailing_slash(raw);
        struct stat st;
        if (::stat(a.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
            out.push_back(a);  // a file, or a missing path that validate reports
            continue;
        }
        std::vector<std::string> dirs = find_task_dirs(a);
        if (dirs.empty())
            throw Failure("i/o error", "no task under '" + raw +
                                           "': a task is a folder holding task.json (e.g. tasks/elementwise/relu_f32/)");
        for (const std::string& d : dirs) out.push_back(d + "/task.json");
    }
    return out;
}

kb_candidate candidate_for(const std::string& path, const Args& a) {
    // The path is kept alive by the caller's Args (positional); the launch
    // plan by the options map.
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = path.c_str();
    auto it = a.options.find("--launch");
    if (it != a.options.end()) c.launch_json = it->second.c_str();
    return c;
}

kb_score_options score_options(const Args& a) {
    kb_score_options o = KB_SCORE_OPTIONS_INIT;
    o.seed = a.unsigned_number("--seed", 0);
    o.correctness_runs = unsigned(a.unsigned_number("--runs", 0));
    if (a.has("--skip-timing")) o.flags |= KB_SCORE_SKIP_TIMING;
    if (a.has("--no-recheck")) o.flags |= KB_SCORE_NO_RECHECK;
    o.timing.mode = a.has("--hot") ? KB_TIME_HOT : KB_TIME_COLD;
    o.timing.budget_ms = a.number("--budget-ms", 0);
    if (o.timing.budget_ms < 0) throw BadUsage("--budget-ms must not be negative");
    // Program candidates (docs/programs.md); the strings live in `a`, which
    // outlives the score call. The library checks the names.
    auto protocol = a.options.find("--protocol");
    if (protocol != a.options.end()) o.protocol = protocol->second.c_str();
    auto torch_compute = a.options.find("--torch-compute");
    if (torch_compute != a.options.end()) o.torch_compute = torch_compute->second.c_str();
    return o;
}

Json parse(const char* text) {
    // The library's documents are its own JSON; a parse failure is a bug.
    return Json::parse(text ? text : "null");
}

void print_json(const Json& j) {
    std::string text = j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
}

Json error_json(const std::string& kind, const std::string& status, const std::string& message) {
    Json e = {{"kind", kind}, {"status", status.empty() ? kind : status}, {"message", message}};
    return Json{{"error", e}};
}

}  // namespace kb::cli
