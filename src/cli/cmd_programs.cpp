// kbench import: KernelBench problems and TritonBench operators become tasks
// (docs/programs.md), by running kbench's importer
// (python/kbench_programs/kbench_importer.py) with the interpreter
// $KBENCH_PYTHON names (python3 by default). And the pieces `kbench score`
// needs for program candidates: a problem file turned into a task on the fly,
// and the program section of a result printed.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "util/install_dirs.h"
#include "util/json.h"

extern char** environ;

namespace kb::cli {
namespace {

const char* kImportUsage =
    "usage: kbench import kernelbench FILE|DIR [-o OUT] [--stdout] [--no-validate] [--apply-proposals]\n"
    "       kbench import tritonbench DIR|FILE [-o OUT] [--stdout] [--no-validate] [--perf PERF_DIR]\n"
    "\n"
    "Turns KernelBench problem files (class Model, get_inputs(), get_init_inputs(), size constants) or\n"
    "TritonBench operators (code, a line of 146 '#', a test function) into kbench-task/1 documents whose\n"
    "reference is the problem's Python code (docs/programs.md). The problem's own sizes become the perf\n"
    "case; smaller cases with awkward sizes are added where the sizes are module constants. With torch\n"
    "installed every case is run on the CPU, cases the reference rejects are dropped, and a problem whose\n"
    "outputs cannot tell right from wrong (an output equal to an input, near-constant, near zero) is\n"
    "flagged with input transforms that can (--apply-proposals writes them into the task).\n"
    "\n"
    "  -o OUT             folder of the tasks (OUT/<family>/<task>/task.json; default kbench-tasks)\n"
    "  --stdout           print each task on one line (the problem's code inline) instead\n"
    "  --no-validate      do not run the references (no torch needed)\n"
    "  --apply-proposals  write proposed input transforms into the tasks\n"
    "  --perf PERF_DIR    tritonbench: TritonBench's performance scripts (performance_metrics/perf_G/\n"
    "                     golden_metrics): an operator with <op>_perf.py there is timed on its inputs\n"
    "\n"
    "  --json             print one JSON document: {\"tasks\": [{\"path\", \"cases\", \"validated\", \"findings\"}],\n"
    "                     \"failed\": [{\"file\", \"message\"}], \"notices\": [...]}, or the error document\n"
    "\n"
    "The importer runs with $KBENCH_PYTHON (default python3); $KBENCH_PROGRAMS_DIR overrides where\n"
    "kbench's Python files are.\n"
    "exit status: 0 all imported, 1 some files could not be imported or the path is missing, 2 usage error\n"
    "\n"
    "examples:\n"
    "  kbench import kernelbench 23_Softmax.py -o imported      # imported/kernelbench/<task>/task.json\n"
    "  kbench import kernelbench KernelBench/level1 -o imported --no-validate\n"
    "  kbench import --json kernelbench 23_Softmax.py --stdout | jq '.tasks[0].name'\n";

std::string python() {
    const char* p = std::getenv("KBENCH_PYTHON");
    return p && *p ? p : "python3";
}

// An error of `kbench import` itself: the error document with --json, else a line on stderr.
int import_error(bool json, int code, const std::string& status, const std::string& msg) {
    if (json) print_json(error_json(code == kExitUsage ? "usage" : "failure", status, msg));
    else std::fprintf(stderr, "kbench import: %s\n%s", msg.c_str(), code == kExitUsage ? (std::string("\n") + kImportUsage).c_str() : "");
    return code;
}

}  // namespace

// Runs the importer with `args`; its stdout into *out when given, else the
// terminal's. With `json` its own errors are the error document.
int run_importer(const std::vector<std::string>& args, std::string* out, bool json) {
    std::string looked;
    std::string dir = programs_dir("kbench_importer.py", &looked);
    if (dir.empty())
        return import_error(json, kExitFailed, "not found",
                            "kbench's importer (kbench_importer.py) was not found in " + looked +
                                "; set $KBENCH_PROGRAMS_DIR to the python/kbench_programs folder of kbench's sources");
    std::vector<std::string> argv_s = {python(), "-B", dir + "/kbench_importer.py"};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argv_s) argv.push_back(&s[0]);
    argv.push_back(nullptr);
    int pipefd[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out) {
        if (::pipe(pipefd) != 0) return import_error(json, kExitFailed, "i/o error", std::string("cannot create a pipe: ") + std::strerror(errno));
        posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
        posix_spawn_file_actions_addclose(&fa, pipefd[0]);
        posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    }
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argv_s[0].c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (out) ::close(pipefd[1]);
    if (rc != 0) {
        if (out) ::close(pipefd[0]);
        return import_error(json, kExitFailed, "not found",
                            "cannot run " + argv_s[0] + ": " + std::strerror(rc) +
                                "; set $KBENCH_PYTHON to a Python 3 interpreter");
    }
    if (out) {
        char buf[65536];
        for (;;) {
            ssize_t n = ::read(pipefd[0], buf, sizeof buf);
            if (n > 0) out->append(buf, size_t(n));
            else if (n < 0 && errno == EINTR) continue;
            else break;
        }
        ::close(pipefd[0]);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int cmd_import(int argc, char** argv) {
    std::vector<std::string> args;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::printf("%s", kImportUsage);
            return 0;
        }
        if (a == "--json") json = true;  // also when given before the command
        else args.push_back(a);
    }
    if (args.size() < 2 || (args[0] != "kernelbench" && args[0] != "tritonbench"))
        return import_error(json, kExitUsage, "usage",
                            args.empty() ? "name the benchmark (kernelbench or tritonbench) and a file or folder"
                                         : "unknown benchmark or missing path in '" + args[0] + "'");
    if (json) args.push_back("--json");
    return run_importer(args, nullptr, json);
}

bool is_problem_file(const std::string& path) {
    return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0;
}

std::string task_from_problem(const std::string& path, const std::string& benchmark) {
    require_file(path, "problem");
    std::string out;
    // Validated as `kbench import` does (where the interpreter has torch):
    // the negative controls decide what strict applies (docs/tasks.md).
    int rc = run_importer({benchmark, path, "--stdout"}, &out);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    if (rc != 0 || out.empty() || out.find('\n') != std::string::npos)
        throw Failure("task invalid", "cannot turn " + path + " into a task (`kbench import " + benchmark + " " + path +
                                          "` says why)");
    return out;
}

void print_program(const Json& r) {
    if (!r.contains("program")) return;
    const Json& p = r["program"];
    std::printf("  protocol  %s (torch compute: %s)\n", p.value("protocol", "").c_str(),
                p.value("torch_compute", "").c_str());
    const Json& a = p.value("attribution", Json::object());
    if (a.value("cupti", false)) {
        const Json& share = a.value("share", Json::object());
        std::string parts;
        for (auto it = share.begin(); it != share.end(); ++it) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%s%s %.0f%%", parts.empty() ? "" : ", ", it.key().c_str(),
                          100 * it.value().get<double>());
            parts += buf;
        }
        std::printf("  kernels   %zu ran%s%s\n", a.value("kernels", Json::array()).size(), parts.empty() ? "" : ": ",
                    parts.c_str());
        size_t shown = 0;
        for (const Json& k : a.value("kernels", Json::array())) {
            if (shown++ == 8) break;
            std::printf("            %-10s %8.1f us x%-5llu %s\n", k.value("origin", "").c_str(),
                        k.value("total_us", 0.0), (unsigned long long)k.value("launches", uint64_t(0)),
                        k.value("name", "").substr(0, 90).c_str());
        }
    } else if (a.contains("cupti_why")) {
        std::printf("  kernels   not recorded: %s\n", a["cupti_why"].get<std::string>().c_str());
    }
    const Json& ops = a.value("torch_compute_ops", Json::array());
    if (!ops.empty()) {
        std::string list;
        for (const Json& o : ops) list += (list.empty() ? "" : ", ") + o.get<std::string>();
        std::printf("  torch     %s\n", list.c_str());
    }
    if (p.contains("timing")) {
        const Json& t = p["timing"];
        std::printf("  timing    %s, %s", t.value("method", "").c_str(), t.value("statistic", "").c_str());
        if (t.contains("candidate_events") && t.contains("candidate_spans"))
            std::printf(" (candidate: events %.4g ms, every stream %.4g ms)",
                        t["candidate_events"].value("median_ms", 0.0), t["candidate_spans"].value("median_ms", 0.0));
        std::printf("\n");
    }
    for (const Json& f : p.value("findings", Json::array()))
        std::printf("  %-8s  %s%s\n", f.value("severity", "").c_str(), f.value("message", "").c_str(),
                    f.contains("line") ? (" (line " + std::to_string(f["line"].get<int>()) + ")").c_str() : "");
    for (const Json& w : p.value("reference_warnings", Json::array()))
        std::printf("  warning   %s\n", w.get<std::string>().c_str());
}

}  // namespace kb::cli
