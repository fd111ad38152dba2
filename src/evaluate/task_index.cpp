#include "evaluate/task_index.h"

#include <algorithm>
#include <filesystem>

#include "evaluate/code_scan.h"
#include "evaluate/jsonl.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::evaluate {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sorted_subdirs(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_directory(ec) && e.path().filename().string()[0] != '.') out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

void TaskIndex::add(const std::string& path) {
    std::error_code ec;
    fs::path p(path);
    if (!fs::exists(p, ec)) fail(KB_ERR_IO, "--tasks " + path + ": no such file or folder; expected a task file or a folder of tasks");
    if (fs::is_regular_file(p, ec)) {
        add_file(path, "");
        return;
    }
    if (fs::is_regular_file(p / "task.json", ec)) {
        add_file((p / "task.json").string(), "");
        return;
    }
    size_t before = entries_.size() + problems_.size();
    for (const fs::path& d : sorted_subdirs(p)) {
        if (fs::is_regular_file(d / "task.json", ec)) {
            add_file((d / "task.json").string(), "");
            continue;
        }
        for (const fs::path& t : sorted_subdirs(d))
            if (fs::is_regular_file(t / "task.json", ec)) add_file((t / "task.json").string(), d.filename().string());
    }
    if (entries_.size() + problems_.size() == before)
        problems_.push_back(path + ": no task.json in it or in its subfolders (one or two levels down)");
}

void TaskIndex::add_file(const std::string& file, const std::string& family) {
    std::string text;
    try {
        text = read_file(file);
    } catch (const Error& e) {
        problems_.push_back(e.what());
        return;
    }
    std::string why;
    std::optional<Json> doc = parse_json_line(text, &why);
    if (!doc || !doc->is_object() || !doc->contains("name") || !(*doc)["name"].is_string()) {
        problems_.push_back(file + ": " + (doc ? std::string("no \"name\" string") : why) + "; expected a kbench-task/1 document");
        return;
    }
    TaskEntry e{(*doc)["name"].get<std::string>(), file, family};
    files_.push_back(e);
    auto it = by_name_.find(e.name);
    if (it != by_name_.end()) {
        std::error_code ec;
        if (fs::equivalent(entries_[it->second].path, file, ec)) return;  // the same file given twice
        auto& list = duplicates_[e.name];
        if (list.empty()) list.push_back(entries_[it->second].path);
        list.push_back(file);
        return;
    }
    by_name_[e.name] = entries_.size();
    entries_.push_back(std::move(e));
}

std::optional<TaskEntry> TaskIndex::resolve(const std::string& ref, const std::string& base_dir, std::string* why) const {
    auto dup = duplicates_.find(ref);
    if (dup != duplicates_.end()) {
        std::string files;
        for (const std::string& f : dup->second) files += (files.empty() ? "" : ", ") + f;
        *why = "task '" + ref + "' is declared by several files (" + files + "); expected a task file's path to say which";
        return std::nullopt;
    }
    auto it = by_name_.find(ref);
    if (it != by_name_.end()) return entries_[it->second];
    // A path: to a file or to a task's folder.
    std::error_code ec;
    for (const std::string& dir : {base_dir, std::string()}) {
        fs::path p = dir.empty() || fs::path(ref).is_absolute() ? fs::path(ref) : fs::path(dir) / ref;
        if (fs::is_directory(p, ec)) p /= "task.json";
        if (!fs::is_regular_file(p, ec)) continue;
        for (const TaskEntry& e : files_)
            if (fs::equivalent(e.path, p, ec)) return e;
        std::string text;
        try {
            text = read_file(p.string());
        } catch (const Error& e) {
            *why = e.what();
            return std::nullopt;
        }
        std::string perr;
        std::optional<Json> doc = parse_json_line(text, &perr);
        std::string name = doc && doc->is_object() && doc->contains("name") && (*doc)["name"].is_string()
                               ? (*doc)["name"].get<std::string>()
                               : p.parent_path().filename().string();
        return TaskEntry{name, p.string(), ""};
    }
    if (entries_.empty()) {
        *why = "no task file or folder '" + ref + "' (and no tasks indexed to look a name up in); expected a task "
               "file's path, a folder holding task.json, or a task name with --tasks DIR";
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (const TaskEntry& e : entries_) names.push_back(e.name);
    std::string near = nearest_key(ref, names);
    *why = "no task named '" + ref + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") + " among the " +
           std::to_string(entries_.size()) + " task(s) under --tasks, and no such task file; expected a task name or "
           "a task file's path";
    return std::nullopt;
}

TaskPtr TaskIndex::load(const TaskEntry& e) const {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = loaded_.find(e.path);
        if (it != loaded_.end()) return it->second;
    }
    TaskPtr t = load_task(e.path);
    std::lock_guard<std::mutex> lock(mu_);
    return loaded_.emplace(e.path, t).first->second;
}

std::vector<std::string> task_entries(const Task& t) {
    std::vector<std::string> out;
    if (t.python) {
        // A program candidate defines the class (KernelBench) or the
        // functions (TritonBench) the task's candidates define.
        if (t.python->style == "tritonbench") return t.python->candidate_functions;
        out.push_back(t.python->candidate_entry.empty() ? "ModelNew" : t.python->candidate_entry);
        return out;
    }
    if (!t.candidate_default) return out;
    for (const std::string& k : t.candidate_default->kernel_names()) {
        std::string base = entry_base_name(k);
        if (!base.empty() && std::find(out.begin(), out.end(), base) == out.end()) out.push_back(base);
    }
    return out;
}

}  // namespace kb::evaluate
