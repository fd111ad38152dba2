// The tasks a candidates file may refer to (`--tasks DIR|FILE...`): task names to
// files and families, and the task facts answer extraction needs.
//
// A folder is searched one and two levels deep, so both layouts work:
// tasks/<task>/task.json and tasks/<family>/<task>/task.json (the family is
// the folder between the root and the task's folder).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "task/task.h"

namespace kb::evaluate {

struct TaskEntry {
    std::string name;    // the task's declared "name"
    std::string path;    // its task.json
    std::string family;  // "" when the layout has none
};

class TaskIndex {
public:
    // Adds a task file, a folder holding task.json, or a folder of task
    // folders (one or two levels). Throws kb::Error(KB_ERR_IO) when the path
    // does not exist. Files that cannot be read as JSON with a "name" are
    // listed in problems() rather than thrown, so one broken task does not
    // stop a run over the others.
    void add(const std::string& path);

    // Resolves a candidate line's "task": a name in the index first, else the
    // path of a task file or folder (relative to base_dir, then to the current
    // directory). nullopt with *why naming the nearest known task.
    std::optional<TaskEntry> resolve(const std::string& ref, const std::string& base_dir, std::string* why) const;

    // Loads a task once and keeps it; thread-safe. Throws kb::Error from the loader.
    TaskPtr load(const TaskEntry& e) const;

    const std::vector<TaskEntry>& entries() const { return entries_; }
    const std::vector<std::string>& problems() const { return problems_; }

private:
    void add_file(const std::string& file, const std::string& family);

    std::vector<TaskEntry> entries_;  // one per name
    std::vector<TaskEntry> files_;    // every task file found, duplicate names included
    std::map<std::string, size_t> by_name_;
    std::map<std::string, std::vector<std::string>> duplicates_;  // name -> every file declaring it
    std::vector<std::string> problems_;
    mutable std::mutex mu_;
    mutable std::map<std::string, TaskPtr> loaded_;
};

// The names extraction looks for: the kernels of the task's default
// candidate plan (entry_base_name form); empty when the task has no default
// plan (candidates bring their own). A task whose reference is Python: the
// class its program candidates define (ModelNew), or TritonBench's functions.
std::vector<std::string> task_entries(const Task& t);

}  // namespace kb::evaluate
