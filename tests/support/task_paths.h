// The built-in tasks by name, for tests: tasks/<family>/<name>/task.json.
// Tests name tasks (and their candidates) by the task's folder name, so a
// task can move between families without touching every test.
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb::test {

inline bool is_directory(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Sorted sub-folders of `dir` (hidden ones and `_`-prefixed ones skipped).
inline std::vector<std::string> subfolders(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string n = e->d_name;
            if (n.empty() || n[0] == '.' || n[0] == '_') continue;
            if (is_directory(dir + "/" + n)) out.push_back(n);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Every folder under `root` that holds a task.json (not below another task's
// folder: a task's candidates/ may hold documents of their own), sorted.
inline void find_task_dirs(const std::string& root, std::vector<std::string>& out) {
    struct stat st;
    if (stat((root + "/task.json").c_str(), &st) == 0) {
        out.push_back(root);
        return;
    }
    for (const std::string& sub : subfolders(root)) find_task_dirs(root + "/" + sub, out);
}

inline std::vector<std::string> builtin_task_dirs() {
    std::vector<std::string> out;
    find_task_dirs(std::string(KB_SOURCE_DIR) + "/tasks", out);
    std::sort(out.begin(), out.end());
    return out;
}

// The folder of the built-in task `name` (the folder's name is the task's
// name). Throws std::runtime_error when there is none, or more than one.
inline std::string builtin_task_dir(const std::string& name) {
    std::string found;
    for (const std::string& d : builtin_task_dirs()) {
        if (d.size() > name.size() && d.compare(d.size() - name.size(), name.size(), name) == 0 &&
            d[d.size() - name.size() - 1] == '/') {
            if (!found.empty()) throw std::runtime_error("two built-in tasks are named '" + name + "'");
            found = d;
        }
    }
    if (found.empty()) throw std::runtime_error("no built-in task '" + name + "' under tasks/");
    return found;
}

inline std::string builtin_task_file(const std::string& name) { return builtin_task_dir(name) + "/task.json"; }

// A file of a built-in task's candidates/ folder.
inline std::string builtin_candidate_file(const std::string& task, const std::string& file) {
    return builtin_task_dir(task) + "/candidates/" + file;
}

}  // namespace kb::test
