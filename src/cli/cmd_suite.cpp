// kbench suite: score every example candidate of every task under a folder
// and hold each verdict to the one the candidate declares.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>

#include "cli/cli.h"
#include "cli/commands.h"

namespace kb::cli {
namespace {

// The verdict a candidate file declares in its leading comment, as
// "expect: wrong_answer" (also "expected verdict: ..."); "" when none.
std::string declared_verdict(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    static const std::regex re(R"(expect(?:ed)?(?:\s+verdict)?\s*[:=]\s*([a-z_]+))", std::regex::icase);
    for (int i = 0; i < 30 && std::getline(in, line); ++i) {
        std::smatch m;
        if (std::regex_search(line, m, re)) return m[1];
    }
    return "";
}

struct SuiteTask {
    std::string dir;
    // (candidate path, file declaring the verdict)
    std::vector<std::pair<std::string, std::string>> candidates;
};

// Every task under DIR (find_task_dirs) with its candidates: a file in its
// candidates/, or a folder there holding a kbench-candidate/1 candidate.json. Throws Failure
// when DIR is missing, is not a folder, or holds no task or no candidate:
// an empty suite proves nothing and must not pass.
std::vector<SuiteTask> discover(const std::string& root) {
    struct stat st;
    if (::stat(root.c_str(), &st) != 0) {
        int err = errno;
        throw Failure("i/o error", "suite folder '" + root + "': " + std::strerror(err));
    }
    if (!S_ISDIR(st.st_mode))
        throw Failure("i/o error", "suite folder '" + root + "' is a file; expected a folder of tasks (DIR/NAME/task.json)");
    std::vector<SuiteTask> tasks;
    size_t candidates = 0;
    for (const std::string& dir : find_task_dirs(root)) {
        SuiteTask t;
        t.dir = dir;
        for (const std::string& f : list_dir(dir + "/candidates", false)) t.candidates.emplace_back(f, f);
        for (const std::string& d : list_dir(dir + "/candidates", true)) {
            std::string declares = d + "/candidate.json";
            for (const std::string& f : list_dir(d, false))
                if (!declared_verdict(f).empty()) declares = f;
            t.candidates.emplace_back(d + "/candidate.json", declares);
        }
        std::sort(t.candidates.begin(), t.candidates.end());
        candidates += t.candidates.size();
        tasks.push_back(std::move(t));
    }
    if (tasks.empty())
        throw Failure("i/o error", "empty suite: no task under '" + root +
                                       "' (a task is a folder holding task.json, e.g. tasks/elementwise/relu_f32/, "
                                       "with its candidates in candidates/)");
    if (candidates == 0)
        throw Failure("i/o error", "empty suite: " + std::to_string(tasks.size()) + " task(s) under '" + root +
                                       "' but no candidates (files, or folders holding candidate.json, in each task's candidates/)");
    return tasks;
}

int run_suite(const Args& a) {
    if (a.positional.size() > 1) throw BadUsage("suite takes at most one folder");
    std::string root = a.positional.empty() ? "tasks" : a.positional[0];
    std::vector<SuiteTask> tasks = discover(root);
    kb_score_options so = score_options(a);
    OpenedContext oc;
    open_context(a, oc);
    const bool dev = oc.device;
    if (!dev) say_no_device(oc.no_device_reason, "candidates are compiled, not run; only compile verdicts are checked");
    if (!a.json()) {
        if (dev) std::printf("device: %s\n", parse(kb_context_json(oc.ctx.get()))["device"]["name"].get<std::string>().c_str());
        std::printf("%-24s %-24s %-20s %-20s %s\n", "task", "candidate", "expected", "got", dev ? "detail" : "compile");
    }
    Json rows = Json::array();
    int mismatches = 0, total = 0;
    for (const SuiteTask& st : tasks) {
        std::string task_path = st.dir + "/task.json";
        TaskHandle task;
        kb_status s = kb_load_task(task_path.c_str(), task.out());
        if (s != KB_OK) {
            ++mismatches;
            if (!a.json()) std::printf("%-24s INVALID TASK: %s\n", st.dir.c_str(), kb_last_error());
            rows.push_back({{"task", st.dir}, {"ok", false}, {"error", kb_last_error()}});
            continue;
        }
        for (const auto& [cand, declares] : st.candidates) {
            ++total;
            std::string expected = declared_verdict(declares);
            if (expected.empty()) expected = "pass";
            std::string short_name = cand.substr(st.dir.size() + std::string("/candidates/").size());
            Json row = {{"task", kb_task_name(task.get())}, {"candidate", short_name}, {"expected", expected}};
            kb_candidate c = candidate_for(cand, a);
            std::string got, detail;
            if (dev) {
                ResultHandle r;
                s = kb_score(oc.ctx.get(), task.get(), &c, &so, r.out());
                if (s != KB_OK) {
                    got = "error";
                    detail = error_text(s);
                } else {
                    got = kb_verdict_string(kb_result_verdict(r.get()));
                    detail = kb_result_message(r.get());
                    row["result"] = parse(kb_result_json(r.get()));
                }
            } else {
                KernelHandle k;
                s = kb_compile(oc.ctx.get(), task.get(), &c, k.out());
                if (s == KB_OK) {
                    Json kj = parse(kb_kernel_json(k.get()));
                    got = "compiled";
                    char buf[128];
                    std::snprintf(buf, sizeof buf, "%s via %s, %.1f ms", kj["image"].get<std::string>().c_str(),
                                  kj["path"].get<std::string>().c_str(), kj["compile_ms"].get<double>());
                    detail = buf;
                } else {
                    got = s == KB_ERR_COMPILE ? "compile_error" : "error";
                    detail = kb_last_error();
                }
            }
            // Without a device only the compile stage can be held to the expectation.
            bool ok = dev ? got == expected : (expected == "compile_error" ? got == "compile_error" : got == "compiled");
            if (!ok) ++mismatches;
            row["got"] = got;
            row["ok"] = ok;
            row["detail"] = detail;
            rows.push_back(row);
            if (!a.json()) {
                std::string first_line = detail.substr(0, detail.find('\n'));
                if (first_line.size() > 110) first_line = first_line.substr(0, 107) + "...";
                std::printf("%-24s %-24s %-20s %-20s %s%s\n", kb_task_name(task.get()), short_name.c_str(),
                            expected.c_str(), got.c_str(), ok ? "" : "MISMATCH: ", first_line.c_str());
            }
        }
    }
    if (a.json()) {
        print_json({{"device", dev}, {"candidates", total}, {"mismatches", mismatches}, {"rows", rows}});
    } else {
        std::printf("\n%d candidate(s), %d as expected, %d not%s\n", total, total - mismatches, mismatches,
                    dev ? "" : " (no device: compile stage only)");
    }
    return mismatches ? kExitFailed : kExitOk;
}

}  // namespace

extern const Command kSuiteCommand = {
    "suite",
    "suite [DIR]",
    "score every candidate of every task under DIR (default: tasks) against its declared verdict",
    "Scores every candidate of every task under DIR (a task is a folder holding\n"
    "task.json, e.g. tasks/elementwise/relu_f32/; its candidates are the files in\n"
    "its candidates/ folder, or folders there holding a candidate.json) and\n"
    "checks each verdict against the one the candidate\n"
    "declares in a leading comment (\"expect: wrong_answer\"; none means pass).\n"
    "Without a GPU only the compile stage is checked. Exit 1 when a verdict\n"
    "differs, a task is invalid, or DIR is missing or holds no candidate.\n"
    "--json prints {\"device\", \"candidates\", \"mismatches\", \"rows\": [...]}.",
    {"--json", "--device", "--no-device", "--arch", "--ptx", "--no-nvcc", "--in-process", "--seed", "--runs",
     "--budget-ms", "--hot", "--skip-timing", "--no-recheck"},
    "  kbench suite                     # the built-in tasks/ folder\n"
    "  kbench suite --skip-timing my_tasks/\n",
    run_suite,
};

}  // namespace kb::cli
