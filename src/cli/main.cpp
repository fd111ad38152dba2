// kbench — the command-line tool. It is a client of the public C API, like
// any program that embeds kbench, so it exercises exactly what users get.
//
//   kbench info                         the device and compiler kbench sees
//   kbench validate TASK|DIR...         parse and check tasks (and their references, on a GPU)
//   kbench compile TASK [CANDIDATE]     compile a task's programs, or a candidate
//   kbench score TASK CANDIDATE         compile, check every case, time, verdict
//   kbench suite DIR                    score every candidate of every task under DIR
//   kbench extract ANSWER               the code kbench would score in a model's answer (cmd_extract.cpp)
//   kbench report RESULTS               a batch run's benchmark figures (cmd_report.cpp)
//
// A task is a folder holding task.json; DIR arguments are searched for them
// recursively (tasks/<family>/<task>/), never below a task's own folder.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/validate_checks.h"
#include "emulate/oracle_plugin.h"
#include "kbench.h"
#include "util/json.h"

namespace {

const char* kUsage =
    "usage: kbench <command> [options] ...\n"
    "\n"
    "commands:\n"
    "  info                          show the device, architecture and compiler kbench uses\n"
    "  validate TASK|DIR...          check task files (a folder: every task under it); on a GPU also run\n"
    "                                each reference on every case at two seeds and reject outputs that\n"
    "                                cannot tell right from wrong\n"
    "  compile TASK [CANDIDATE]      compile the task's reference/baseline, or a candidate\n"
    "  score TASK CANDIDATE          compile, check every case, time against the baseline, verdict\n"
    "  suite [DIR]                   score every candidate (TASK/candidates/*) of every task under DIR\n"
    "                                (default: tasks) and check each verdict against the one it declares\n"
    "  extract [--task TASK] FILE|-  show the code kbench would score in a model's answer\n"
    "                                (kbench extract --help)\n"
    "  report [--by G] RESULTS.jsonl accuracy, fast_p, speedup, pass@k of a batch run's results\n"
    "                                (kbench report --help)\n"
    "\n"
    "options:\n"
    "  --json              print the result as JSON\n"
    "  --device N          CUDA device ordinal (default 0)\n"
    "  --no-device         validate and compile only, even where a GPU is present\n"
    "  --arch sm_XY        compile for this target instead of the device's\n"
    "  --ptx               emit PTX instead of a cubin\n"
    "  --no-nvcc           never fall back to nvcc when NVRTC rejects the code\n"
    "  --in-process        run candidates in this process (trusted kernels only)\n"
    "  --seed N            seed of the correctness inputs\n"
    "  --runs N            correctness runs per case (>1 checks determinism)\n"
    "  --budget-ms MS      timing budget (default 100)\n"
    "  --hot               time back-to-back launches (CUDA graph) instead of cold, L2-flushed runs\n"
    "  --skip-timing       correctness only\n"
    "  --no-recheck        skip the recheck on fresh inputs after timing\n"
    "  --launch JSON       the candidate's launch plan ({\"launch\":[...]}), overriding the task's default\n"
    "  --oracle            validate: also run each reference on the CPU (no GPU needed) on its small cases\n"
    "                      and check it against the task's float64 oracle\n"
    "  --oracles PATH      the oracle library (default: libkbench_oracles.so beside kbench)\n"
    "  --version           print kbench's version\n";

struct Args {
    std::string command;
    std::vector<std::string> positional;
    bool json = false, no_device = false, ptx = false, no_nvcc = false, in_process = false;
    bool hot = false, skip_timing = false, no_recheck = false, oracle = false;
    int device = 0;
    std::string arch, launch, oracles;
    uint64_t seed = 0;
    unsigned runs = 0;
    double budget_ms = 0;
};

[[noreturn]] void usage_error(const std::string& msg) {
    std::fprintf(stderr, "kbench: %s\n\n%s", msg.c_str(), kUsage);
    std::exit(2);
}

Args parse_args(int argc, char** argv) {
    Args a;
    auto value = [&](int& i, const char* flag) -> std::string {
        if (i + 1 >= argc) usage_error(std::string(flag) + " needs a value");
        return argv[++i];
    };
    auto number = [&](const std::string& s, const char* flag) -> double {
        char* end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end) usage_error(std::string(flag) + " expects a number, got '" + s + "'");
        return v;
    };
    for (int i = 1; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "--json") a.json = true;
        else if (s == "--no-device") a.no_device = true;
        else if (s == "--ptx") a.ptx = true;
        else if (s == "--no-nvcc") a.no_nvcc = true;
        else if (s == "--in-process") a.in_process = true;
        else if (s == "--hot") a.hot = true;
        else if (s == "--skip-timing") a.skip_timing = true;
        else if (s == "--no-recheck") a.no_recheck = true;
        else if (s == "--device") a.device = int(number(value(i, "--device"), "--device"));
        else if (s == "--arch") a.arch = value(i, "--arch");
        else if (s == "--launch") a.launch = value(i, "--launch");
        else if (s == "--oracle") a.oracle = true;
        else if (s == "--oracles") a.oracles = value(i, "--oracles");
        else if (s == "--seed") a.seed = std::strtoull(value(i, "--seed").c_str(), nullptr, 0);
        else if (s == "--runs") a.runs = unsigned(number(value(i, "--runs"), "--runs"));
        else if (s == "--budget-ms") a.budget_ms = number(value(i, "--budget-ms"), "--budget-ms");
        else if (s == "--version") { std::printf("kbench %s\n", kb_version_string()); std::exit(0); }
        else if (s == "-h" || s == "--help") { std::printf("%s", kUsage); std::exit(0); }
        else if (s.size() > 1 && s[0] == '-') usage_error("unknown option '" + s + "'");
        else if (a.command.empty()) a.command = s;
        else a.positional.push_back(s);
    }
    if (a.command.empty()) usage_error("no command given");
    return a;
}

// Owns a kb_* handle and releases it with its destroy function.
template <class T, void (*Destroy)(T*)>
struct Handle {
    T* p = nullptr;
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { Destroy(p); }
    T** out() { return &p; }
    T* get() const { return p; }
};
using Context = Handle<kb_context, kb_context_destroy>;
using Task = Handle<kb_task, kb_task_destroy>;
using Kernel = Handle<kb_kernel, kb_kernel_destroy>;
using Result = Handle<kb_result, kb_result_destroy>;

std::string error_text(kb_status s) { return std::string(kb_status_string(s)) + ": " + kb_last_error(); }

// A context on the device when there is one (and it was not declined),
// otherwise a compile-only context. `has_device` says which.
bool open_context(const Args& a, Context& ctx, bool* has_device, std::string* why_not) {
    int count = 0;
    kb_device_count(&count);
    *has_device = !a.no_device && count > 0;
    if (!*has_device) *why_not = a.no_device ? "--no-device given" : (count == 0 ? std::string(kb_last_error()) : "");
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = *has_device ? a.device : KB_DEVICE_NONE;
    o.isolation = a.in_process ? KB_ISOLATION_IN_PROCESS : KB_ISOLATION_DEFAULT;
    if (!a.arch.empty()) o.arch = a.arch.c_str();
    if (a.ptx) o.flags |= KB_CONTEXT_EMIT_PTX;
    if (a.no_nvcc) o.flags |= KB_CONTEXT_NO_NVCC_FALLBACK;
    kb_status s = kb_context_create(&o, ctx.out());
    if (s != KB_OK) {
        std::fprintf(stderr, "kbench: cannot create a context: %s\n", error_text(s).c_str());
        return false;
    }
    return true;
}

// A context (as open_context) and the task named by the first positional
// argument; prints why and returns false when either fails.
bool open_task(const Args& a, Context& ctx, Task& task, bool* has_device, std::string* why_not) {
    if (!open_context(a, ctx, has_device, why_not)) return false;
    kb_status s = kb_load_task(a.positional[0].c_str(), task.out());
    if (s != KB_OK) {
        std::fprintf(stderr, "kbench: %s\n", error_text(s).c_str());
        return false;
    }
    return true;
}

void say_no_device(const std::string& why) {
    std::printf("no CUDA device (%s): validating and compiling only; nothing is run or timed\n", why.c_str());
}

kb::Json parse(const char* text) { return kb::Json::parse(text); }

kb_candidate candidate_for(const std::string& path, const Args& a) {
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = path.c_str();
    if (!a.launch.empty()) c.launch_json = a.launch.c_str();
    return c;
}

// --- info ----------------------------------------------------------------------

int cmd_info(const Args& a) {
    Context ctx;
    bool dev = false;
    std::string why;
    if (!open_context(a, ctx, &dev, &why)) return 1;
    if (a.json) {
        std::printf("%s\n", kb_context_json(ctx.get()));
        return 0;
    }
    kb::Json j = parse(kb_context_json(ctx.get()));
    std::printf("kbench %s\n", kb_version_string());
    if (dev) {
        const auto& d = j["device"];
        std::printf("device      %s (%s, %d SMs, L2 %lld KiB, %.0f GB/s peak DRAM)\n",
                    d["name"].get<std::string>().c_str(), d["arch"].get<std::string>().c_str(), d["sm_count"].get<int>(),
                    (long long)(d["l2_bytes"].get<int64_t>() / 1024), d["peak_dram_gbps"].get<double>());
    } else {
        say_no_device(why);
    }
    std::printf("target      %s (%s)\n", j["arch"].get<std::string>().c_str(), j["emit"].get<std::string>().c_str());
    std::printf("isolation   %s\n", j["isolation"].get<std::string>().c_str());
    std::printf("nvrtc       %s\n", j["nvrtc_version"].get<std::string>().c_str());
    std::printf("cuda home   %s\n", j["cuda_home"].get<std::string>().c_str());
    return 0;
}

// --- finding tasks ---------------------------------------------------------------

bool is_dir(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
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

// The folders under `root` (itself included) that hold a task.json, sorted.
// A task's folder is not searched further: its candidates/ may hold JSON
// documents of their own.
void find_task_dirs(const std::string& root, std::vector<std::string>& out) {
    struct stat st;
    if (stat((root + "/task.json").c_str(), &st) == 0) {
        out.push_back(root);
        return;
    }
    for (const std::string& sub : list_dir(root, true)) find_task_dirs(sub, out);
}

std::string without_trailing_slash(std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

// Task files from command-line arguments: a file stays as it is, a folder
// gives every task under it. A folder without any is a usage error.
std::vector<std::string> expand_task_args(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const std::string& raw : args) {
        std::string a = without_trailing_slash(raw);
        if (!is_dir(a)) {
            out.push_back(a);
            continue;
        }
        std::vector<std::string> dirs;
        find_task_dirs(a, dirs);
        if (dirs.empty())
            usage_error("no task under '" + raw + "': a task is a folder holding task.json (e.g. tasks/elementwise/relu_f32/)");
        for (const std::string& d : dirs) out.push_back(d + "/task.json");
    }
    return out;
}

// --- validate ------------------------------------------------------------------

int cmd_validate(const Args& a) {
    if (a.positional.empty()) usage_error("validate needs at least one task file or folder of tasks");
    const std::vector<std::string> paths = expand_task_args(a.positional);
    Context ctx;
    bool dev = false;
    std::string why;
    if (!open_context(a, ctx, &dev, &why)) return 1;
    if (!dev && !a.json) say_no_device(why);
    std::unique_ptr<kb::emulate::OraclePlugin> oracles;
    if (a.oracle) {
        std::string lib = a.oracles.empty() ? kb::emulate::OraclePlugin::default_path() : a.oracles;
        if (lib.empty()) {
            std::fprintf(stderr,
                         "kbench: --oracle needs the oracle library: build kbench with its tests "
                         "(libkbench_oracles.so is built beside the kbench executable) or pass --oracles PATH\n");
            return 1;
        }
        oracles = std::make_unique<kb::emulate::OraclePlugin>(lib);
    }
    int bad = 0;
    kb::Json all = kb::Json::array();
    for (const std::string& path : paths) {
        kb::Json entry = {{"task", path}};
        Task task;
        kb_status s = kb_load_task(path.c_str(), task.out());
        if (s != KB_OK) {
            ++bad;
            entry["ok"] = false;
            entry["error"] = kb_last_error();
            if (!a.json) std::printf("INVALID  %s\n  %s\n", path.c_str(), kb_last_error());
            all.push_back(entry);
            continue;
        }
        std::vector<std::string> problems;
        // Compiling the reference and baseline is part of validity.
        for (kb_program_role role : {KB_ROLE_REFERENCE, KB_ROLE_BASELINE}) {
            Kernel k;
            s = kb_compile_task_program(ctx.get(), task.get(), role, k.out());
            if (s != KB_OK)
                problems.push_back(std::string(role == KB_ROLE_REFERENCE ? "reference" : "baseline") +
                                   " does not compile: " + kb_last_error());
        }
        kb::Json warnings = kb::Json::array();
        if (problems.empty() && dev) {
            std::string error;
            for (std::string& f : kb::cli::reference_lint_on_device(ctx.get(), task.get(), path, &warnings, &error))
                problems.push_back(std::move(f));
            if (!error.empty()) problems.push_back(error);
        }
        std::string oracle_line;
        if (oracles) {
            kb::emulate::TaskOracleCheck check = kb::emulate::check_task_with_oracle(path, *oracles);
            entry["oracle"] = kb::cli::oracle_check_json(check);
            oracle_line = kb::cli::oracle_check_summary(check);
            for (const std::string& f : check.failures) problems.push_back(f);
            if (!dev)
                for (const std::string& w : check.warnings) warnings.push_back(w);
        }
        entry["ok"] = problems.empty();
        entry["name"] = kb_task_name(task.get());
        entry["cases"] = kb_task_case_count(task.get());
        entry["references_run"] = dev && problems.empty();
        entry["warnings"] = warnings;
        if (!problems.empty()) {
            ++bad;
            entry["error"] = problems.front();
            entry["problems"] = problems;
        }
        if (!a.json) {
            std::string detail = dev ? ", references run on every case at two seeds" : ", reference compiled";
            if (!oracle_line.empty()) detail += "; " + oracle_line;
            std::printf("%s  %s (%s, %d cases%s)\n", problems.empty() ? "OK     " : "INVALID", path.c_str(),
                        kb_task_name(task.get()), kb_task_case_count(task.get()), detail.c_str());
            for (const std::string& p : problems) std::printf("  %s\n", p.c_str());
            for (const auto& w : warnings) std::printf("  warning: %s\n", w.get<std::string>().c_str());
        }
        all.push_back(entry);
    }
    if (a.json) std::printf("%s\n", all.dump(2).c_str());
    return bad ? 1 : 0;
}

// --- compile -------------------------------------------------------------------

void print_kernel(const kb::Json& k) {
    std::printf("  %-12s %s via %s in %.1f ms%s, %zu bytes\n", k["label"].get<std::string>().c_str(),
                k["image"].get<std::string>().c_str(), k["path"].get<std::string>().c_str(),
                k["compile_ms"].get<double>(), k["cache_hit"].get<bool>() ? " (cache hit)" : "",
                size_t(k["image_bytes"].get<uint64_t>()));
    for (const auto& kv : k["symbols"].items())
        std::printf("    %s -> %s\n", kv.key().c_str(), kv.value().get<std::string>().c_str());
}

int cmd_compile(const Args& a) {
    if (a.positional.empty() || a.positional.size() > 2) usage_error("compile needs TASK [CANDIDATE]");
    Context ctx;
    Task task;
    bool dev = false;
    std::string why;
    if (!open_task(a, ctx, task, &dev, &why)) return 1;
    kb_status s = KB_OK;
    kb::Json out = kb::Json::array();
    int failures = 0;
    auto report = [&](kb_status st, Kernel& k, const std::string& what) {
        if (st == KB_OK) {
            kb::Json j = parse(kb_kernel_json(k.get()));
            out.push_back(j);
            if (!a.json) print_kernel(j);
            std::string log = kb_kernel_log(k.get());
            if (!a.json && !log.empty() && log.find_first_not_of(" \n") != std::string::npos)
                std::printf("    log: %s\n", log.c_str());
        } else {
            ++failures;
            out.push_back({{"label", what}, {"ok", false}, {"status", kb_status_string(st)}, {"error", kb_last_error()}});
            if (!a.json) std::printf("  %-12s FAILED: %s\n", what.c_str(), error_text(st).c_str());
        }
    };
    if (!a.json) std::printf("task %s, target %s\n", kb_task_name(task.get()), parse(kb_context_json(ctx.get()))["arch"].get<std::string>().c_str());
    if (a.positional.size() == 1) {
        for (kb_program_role role : {KB_ROLE_REFERENCE, KB_ROLE_BASELINE}) {
            Kernel k;
            report(kb_compile_task_program(ctx.get(), task.get(), role, k.out()), k,
                   role == KB_ROLE_REFERENCE ? "reference" : "baseline");
        }
    } else {
        kb_candidate c = candidate_for(a.positional[1], a);
        Kernel k;
        report(kb_compile(ctx.get(), task.get(), &c, k.out()), k, a.positional[1]);
    }
    if (a.json) std::printf("%s\n", out.dump(2).c_str());
    return failures ? 1 : 0;
}

// --- score ---------------------------------------------------------------------

kb_score_options score_options(const Args& a) {
    kb_score_options o = KB_SCORE_OPTIONS_INIT;
    o.seed = a.seed;
    o.correctness_runs = a.runs;
    if (a.skip_timing) o.flags |= KB_SCORE_SKIP_TIMING;
    if (a.no_recheck) o.flags |= KB_SCORE_NO_RECHECK;
    o.timing.mode = a.hot ? KB_TIME_HOT : KB_TIME_COLD;
    o.timing.budget_ms = a.budget_ms;
    return o;
}

void print_score(const kb::Json& r) {
    std::printf("%s: %s\n", r["verdict"].get<std::string>().c_str(), r["message"].get<std::string>().c_str());
    if (r.contains("cases")) {
        for (const auto& c : r["cases"])
            std::printf("  case %-24s %-18s %s\n", c["case"].get<std::string>().c_str(),
                        c["verdict"].get<std::string>().c_str(), c.value("message", "").c_str());
    }
    if (r.contains("timing") && r["timing"].contains("candidate")) {
        const auto& t = r["timing"];
        auto line = [&](const char* role) {
            if (!t.contains(role)) return;
            const auto& s = t[role];
            std::printf("  %-9s median %10.2f us  (min %.2f, p90 %.2f, %zu samples, noise %.2f%%)", role,
                        s["median_us"].get<double>(), s["min_us"].get<double>(), s["p90_us"].get<double>(),
                        size_t(s["samples"].get<uint64_t>()), 100 * s["rel_noise"].get<double>());
            if (s.contains("gbps")) std::printf("  %.0f GB/s", s["gbps"].get<double>());
            if (s.contains("tflops")) std::printf("  %.2f TFLOP/s", s["tflops"].get<double>());
            std::printf("\n");
        };
        line("candidate");
        line("baseline");
        if (t.contains("speedup"))
            std::printf("  speedup   %.3fx (per-round p10..p90: %.3f..%.3f)%s\n", t["speedup"].get<double>(),
                        t["speedup_p10"].get<double>(), t["speedup_p90"].get<double>(),
                        t["throttled"].get<bool>() ? "  [GPU throttled]" : "");
    }
    if (r.contains("elapsed_ms")) std::printf("  scored in %.1f ms\n", r["elapsed_ms"].get<double>());
}

int cmd_score(const Args& a) {
    if (a.positional.size() != 2) usage_error("score needs TASK CANDIDATE");
    Context ctx;
    Task task;
    bool dev = false;
    std::string why;
    if (!open_task(a, ctx, task, &dev, &why)) return 1;
    kb_status s = KB_OK;
    kb_candidate c = candidate_for(a.positional[1], a);
    if (!dev) {
        say_no_device(why);
        Kernel k;
        s = kb_compile(ctx.get(), task.get(), &c, k.out());
        if (s != KB_OK) {
            std::printf("compile_error: %s\n", kb_last_error());
            return 1;
        }
        print_kernel(parse(kb_kernel_json(k.get())));
        return 3;  // compiled, but no verdict without a device
    }
    kb_score_options o = score_options(a);
    Result r;
    s = kb_score(ctx.get(), task.get(), &c, &o, r.out());
    if (s != KB_OK) {
        std::fprintf(stderr, "kbench: %s\n", error_text(s).c_str());
        return 1;
    }
    if (a.json) std::printf("%s\n", kb_result_json(r.get()));
    else print_score(parse(kb_result_json(r.get())));
    return kb_result_verdict(r.get()) == KB_VERDICT_PASS ? 0 : 1;
}

// --- suite ---------------------------------------------------------------------

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

int cmd_suite(const Args& a) {
    std::string root = without_trailing_slash(a.positional.empty() ? "tasks" : a.positional[0]);
    std::vector<std::string> task_dirs;
    find_task_dirs(root, task_dirs);
    if (task_dirs.empty())
        usage_error("no task under '" + root + "': a task is a folder holding task.json (e.g. tasks/elementwise/relu_f32/)");
    Context ctx;
    bool dev = false;
    std::string why;
    if (!open_context(a, ctx, &dev, &why)) return 1;
    if (!a.json) {
        if (!dev) say_no_device(why);
        else std::printf("device: %s\n", parse(kb_context_json(ctx.get()))["device"]["name"].get<std::string>().c_str());
    }
    kb::Json rows = kb::Json::array();
    int mismatches = 0, total = 0;
    if (!a.json)
        std::printf("%-24s %-24s %-20s %-20s %s\n", "task", "candidate", "expected", "got", dev ? "detail" : "compile");
    for (const std::string& task_dir : task_dirs) {
        std::string task_path = task_dir + "/task.json";
        Task task;
        kb_status s = kb_load_task(task_path.c_str(), task.out());
        if (s != KB_OK) {
            ++mismatches;
            std::printf("%-24s INVALID TASK: %s\n", task_dir.c_str(), kb_last_error());
            rows.push_back({{"task", task_dir}, {"error", kb_last_error()}});
            continue;
        }
        // A candidate is a file, or a folder holding a kbench-candidate/1 candidate.json.
        std::vector<std::pair<std::string, std::string>> candidates;  // (path, file declaring the verdict)
        for (const std::string& f : list_dir(task_dir + "/candidates", false)) candidates.emplace_back(f, f);
        for (const std::string& d : list_dir(task_dir + "/candidates", true)) {
            std::string declares = d + "/candidate.json";
            for (const std::string& f : list_dir(d, false))
                if (!declared_verdict(f).empty()) declares = f;
            candidates.emplace_back(d + "/candidate.json", declares);
        }
        std::sort(candidates.begin(), candidates.end());
        for (const auto& [cand, declares] : candidates) {
            ++total;
            std::string expected = declared_verdict(declares);
            if (expected.empty()) expected = "pass";
            std::string short_name = cand.substr(task_dir.size() + std::string("/candidates/").size());
            kb::Json row = {{"task", kb_task_name(task.get())}, {"candidate", short_name}, {"expected", expected}};
            kb_candidate c = candidate_for(cand, a);
            std::string got, detail;
            if (dev) {
                kb_score_options o = score_options(a);
                Result r;
                s = kb_score(ctx.get(), task.get(), &c, &o, r.out());
                if (s != KB_OK) {
                    got = "error";
                    detail = error_text(s);
                } else {
                    got = kb_verdict_string(kb_result_verdict(r.get()));
                    detail = kb_result_message(r.get());
                    row["result"] = parse(kb_result_json(r.get()));
                }
            } else {
                Kernel k;
                s = kb_compile(ctx.get(), task.get(), &c, k.out());
                if (s == KB_OK) {
                    kb::Json kj = parse(kb_kernel_json(k.get()));
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
            if (!a.json) {
                std::string first_line = detail.substr(0, detail.find('\n'));
                if (first_line.size() > 110) first_line = first_line.substr(0, 107) + "...";
                std::printf("%-24s %-24s %-20s %-20s %s%s\n", kb_task_name(task.get()), short_name.c_str(),
                            expected.c_str(), got.c_str(), ok ? "" : "MISMATCH: ", first_line.c_str());
            }
        }
    }
    if (a.json) {
        std::printf("%s\n", kb::Json({{"device", dev}, {"candidates", total}, {"mismatches", mismatches}, {"rows", rows}}).dump(2).c_str());
    } else {
        std::printf("\n%d candidate(s), %d as expected, %d not%s\n", total, total - mismatches, mismatches,
                    dev ? "" : " (no device: compile stage only)");
    }
    return mismatches ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    // Subcommands with options of their own parse their arguments themselves.
    if (argc > 1 && std::strcmp(argv[1], "extract") == 0) return kb::cli::cmd_extract(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "report") == 0) return kb::cli::cmd_report(argc - 1, argv + 1);
    Args a = parse_args(argc, argv);
    try {
        if (a.command == "info") return cmd_info(a);
        if (a.command == "validate") return cmd_validate(a);
        if (a.command == "compile") return cmd_compile(a);
        if (a.command == "score") return cmd_score(a);
        if (a.command == "suite") return cmd_suite(a);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kbench: %s\n", e.what());
        return 1;
    }
    usage_error("unknown command '" + a.command + "'");
}
