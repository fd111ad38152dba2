// kbench sweep: a candidate and the task's baseline timed over a range of
// sizes, one task dim (or several: M,N,K) overridden per point, with TFLOP/s
// or GB/s from the task's cost; a table, a JSON file of the points and a plot
// (PNG and SVG, drawn by python/kbench_programs/kbench_sweep_plot.py with
// matplotlib, in the style of Triton's perf_report). docs/sweep.md.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/subcommand.h"
#include "cli/sweep_range.h"
#include "util/install_dirs.h"

extern char** environ;

namespace kb::cli {

namespace {

const char* kSweepUsage =
    "usage: kbench sweep TASK CANDIDATE --dim NAMES=RANGE [options]\n"
    "\n"
    "Times CANDIDATE and the task's baseline on the task's perf case at each size\n"
    "of RANGE, the dims NAMES set to that size (the other dims as the perf case\n"
    "has them); checks the candidate's output at each size first (--no-check\n"
    "skips that). Prints a table of TFLOP/s (or GB/s, from the task's \"cost\")\n"
    "per size and provider, and writes NAME.json (the points), NAME.png and\n"
    "NAME.svg (the plot, matplotlib, like Triton's perf_report) to --out-dir.\n"
    "\n"
    "RANGE: A..B:STEP (A, A+STEP, ... up to B), A..B (A, 2A, 4A, ... up to B),\n"
    "       A..B:xF (times F each step), or A,B,C (these sizes); at most 64 sizes.\n"
    "NAMES: one dim, or several joined by commas that all take each size (M,N,K).\n"
    "\n"
    "options:\n"
    "  --dim NAMES=RANGE    the dims to sweep and their sizes (required)\n"
    "  --out-dir DIR        where NAME.json/.png/.svg go (default: the current folder)\n"
    "  --name NAME          their base name (default: TASK_sweep)\n"
    "  --metric M           tflops, gbps or us (default: tflops when the task counts\n"
    "                       flops, else gbps when it counts bytes, else us)\n"
    "  --no-check           do not check the candidate's output at each size\n"
    "  --no-plot            write the JSON only (no matplotlib needed)\n"
    "  --budget-ms MS       sampling time per size (default 200)\n"
    "  --device N           the GPU (default 0)\n"
    "  --dry-run            load every size's task and compile the candidate; time\n"
    "                       nothing (needs no GPU)\n"
    "  --json               print the points as JSON (valid JSON on errors too)\n"
    "\n"
    "exit status: 0 every size timed (and correct) and the plot written;\n"
    "             1 a size failed, no GPU, invalid input, or no plot (matplotlib\n"
    "             missing); 2 usage error\n"
    "\n"
    "examples:\n"
    "  kbench sweep tasks/gemm/gemm_f16 my_matmul.py --dim M,N,K=1024..8192:1024\n"
    "  kbench sweep tasks/elementwise/vector_add_f32 add.cu --dim n=1048576..268435456:x4 --metric gbps\n"
    "  kbench sweep tasks/gemm/gemm_f16 k.cu --dim M,N,K=256..4096 --dry-run --json\n";

const Subcommand kCommand{"sweep", kSweepUsage};

struct Options {
    std::string task, candidate, out_dir = ".", name, metric;
    DimSweep sweep;
    bool json = false, check = true, plot = true, dry_run = false;
    double budget_ms = 200;
    int device = 0;
};

Options parse_options(int argc, char** argv) {
    Options o;
    bool have_dim = false;
    std::vector<std::string> pos;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc) throw UsageError{std::string(argv[i]) + " needs a value"};
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--json") o.json = true;
        else if (a == "--dim") {
            if (have_dim) throw UsageError{"--dim is given twice; name several dims in one: --dim M,N,K=..."};
            try {
                o.sweep = parse_dim_sweep(value(i));
            } catch (const std::invalid_argument& e) {
                throw UsageError{e.what()};
            }
            have_dim = true;
        } else if (a == "--out-dir") o.out_dir = value(i);
        else if (a == "--name") o.name = value(i);
        else if (a == "--metric") {
            o.metric = value(i);
            if (o.metric != "tflops" && o.metric != "gbps" && o.metric != "us")
                throw UsageError{"--metric expects tflops, gbps or us, got '" + o.metric + "'"};
        } else if (a == "--no-check") o.check = false;
        else if (a == "--no-plot") o.plot = false;
        else if (a == "--dry-run") o.dry_run = true;
        else if (a == "--budget-ms" || a == "--device") {
            std::string v = value(i);
            char* end = nullptr;
            double d = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(d >= 0) || (a == "--device" && d != std::floor(d)))
                throw UsageError{a + " expects a non-negative number, got '" + v + "'"};
            if (a == "--device") o.device = int(d);
            else o.budget_ms = d;
        } else if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
        else pos.push_back(a);
    }
    if (pos.size() != 2) throw UsageError{"sweep needs TASK CANDIDATE (got " + std::to_string(pos.size()) + " argument(s))"};
    if (!have_dim) throw UsageError{"--dim NAMES=RANGE is required, e.g. --dim N=1024..16384:1024"};
    o.task = pos[0];
    o.candidate = pos[1];
    return o;
}

bool is_dir(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string dims_label(const DimSweep& s) {
    std::string l;
    for (const std::string& d : s.dims) l += (l.empty() ? "" : ",") + d;
    return l;
}

// The metric from the task's cost: flops counted -> tflops, bytes -> gbps.
std::string default_metric(const Json& doc) {
    auto cost = doc.find("cost");
    if (cost == doc.end() || !cost->is_object()) return "us";
    auto flops = cost->find("flops");
    if (flops != cost->end() && !(flops->is_string() && flops->get<std::string>() == "0") &&
        !(flops->is_number() && flops->get<double>() == 0))
        return "tflops";
    if (cost->contains("bytes")) return "gbps";
    return "us";
}

std::string metric_unit(const std::string& m) { return m == "tflops" ? "TFLOP/s" : m == "gbps" ? "GB/s" : "us (median)"; }

Json provider_point(const Json& stats, const std::string& metric) {
    Json p = {{"median_us", stats.value("median_us", 0.0)}};
    if (stats.contains("tflops")) p["tflops"] = stats["tflops"];
    if (stats.contains("gbps")) p["gbps"] = stats["gbps"];
    p["value"] = metric == "us" ? stats.value("median_us", 0.0) : stats.value(metric, std::nan(""));
    return p;
}

std::string plot_script(std::string* looked) {
    std::string dir = programs_dir("kbench_sweep_plot.py", looked);
    return dir.empty() ? "" : dir + "/kbench_sweep_plot.py";
}

// Runs the plot script on the points file; its stdout and stderr go to ours
// (stderr: the script prints only errors there). "" when it worked, else why.
std::string draw_plot(const std::string& data, const std::string& prefix) {
    std::string looked;
    std::string script = plot_script(&looked);
    if (script.empty())
        return "the plot script (kbench_sweep_plot.py) was not found in " + looked +
               "; set $KBENCH_PROGRAMS_DIR to kbench's python/kbench_programs folder";
    const char* py = std::getenv("KBENCH_PYTHON");
    std::vector<std::string> args = {py && *py ? py : "python3", "-B", script, data, prefix};
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(&s[0]);
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);  // nothing of the script's on our stdout (--json)
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return "cannot run " + args[0] + ": " + std::strerror(rc) + "; set $KBENCH_PYTHON to a Python 3 with matplotlib";
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        return "matplotlib is not installed for " + args[0] + " (pip install matplotlib); the points are in " + data;
    return "the plot script failed (see above); the points are in " + data;
}

int run_sweep(const Options& o) {
    std::string task_path = o.task;
    if (is_dir(task_path)) task_path += "/task.json";
    TaskHandle base;
    load_task(task_path, base);
    const Json doc = parse(kb_task_json(base.get()));
    const std::string task_name = doc["name"].get<std::string>();
    for (const std::string& d : o.sweep.dims)
        if (!doc.contains("dims") || !doc["dims"].contains(d)) {
            std::string known;
            if (doc.contains("dims"))
                for (const auto& kv : doc["dims"].items()) known += (known.empty() ? "" : ", ") + kv.key();
            throw Failure("task invalid", "--dim: task " + task_name + " has no dim '" + d + "'; its dims are " + known);
        }
    const bool has_baseline = doc.contains("baseline") && !doc["baseline"].is_null();
    // The baseline's name in the table and the plot: cuBLAS for a cublas_gemm step.
    const std::string baseline_label = !has_baseline                                         ? ""
                                       : doc["baseline"].dump().find("cublas_gemm") != std::string::npos ? "cuBLAS"
                                                                                                          : "baseline";
    const std::string metric = o.metric.empty() ? default_metric(doc) : o.metric;
    require_file(o.candidate, "candidate");

    int count = 0;
    kb_device_count(&count);
    if (!o.dry_run && count == 0) {
        std::string why = kb_last_error();
        throw Failure("no device", "no CUDA device (" + why.substr(0, why.find('\n')) +
                                       "): a sweep times kernels on a GPU; --dry-run checks the sizes and compiles without one");
    }
    kb_context_options co = KB_CONTEXT_OPTIONS_INIT;
    co.device = o.dry_run ? KB_DEVICE_NONE : o.device;
    ContextHandle ctx;
    kb_status s = kb_context_create(&co, ctx.out());
    if (s != KB_OK) throw Failure(kb_status_string(s), std::string("cannot create a context: ") + kb_last_error());
    std::string device_name;
    if (!o.dry_run) device_name = parse(kb_context_json(ctx.get()))["device"].value("name", "");

    kb_candidate cand = KB_CANDIDATE_INIT;
    cand.path = o.candidate.c_str();
    const std::string label = o.candidate.substr(o.candidate.find_last_of('/') + 1);
    cand.label = label.c_str();

    Json points = Json::array();
    bool all_ok = true;
    if (!o.json && !o.dry_run)
        std::printf("%s on %s: %s by %s\n%10s %14s %14s %9s  %s\n", task_name.c_str(), device_name.c_str(),
                    metric_unit(metric).c_str(), dims_label(o.sweep).c_str(), dims_label(o.sweep).c_str(), label.c_str(),
                    has_baseline ? baseline_label.c_str() : "-", "speedup", "");
    for (int64_t size : o.sweep.sizes) {
        Json d = doc;
        for (const std::string& name : o.sweep.dims) d["perf_case"]["dims"][name] = size;
        Json point = {{"size", size}};
        TaskHandle task;
        std::string text = d.dump();
        s = kb_load_task(text.c_str(), task.out());
        if (s != KB_OK) {
            point["error"] = std::string("the task does not load at this size: ") + kb_last_error();
        } else {
            KernelHandle k;
            s = kb_compile(ctx.get(), task.get(), &cand, k.out());
            if (s != KB_OK) {
                std::string log = kb_last_error();
                point["error"] = std::string(s == KB_ERR_COMPILE ? "compile_error: " : "") + log.substr(0, log.find('\n'));
            } else if (o.dry_run) {
                point["compiled"] = true;
            } else {
                const int perf = kb_task_perf_case(task.get());
                bool correct = true;
                if (o.check) {
                    ResultHandle r;
                    s = kb_compare(ctx.get(), task.get(), k.get(), perf, 0, r.out());
                    if (s != KB_OK) fail_with(s);
                    Json c = parse(kb_result_json(r.get()));
                    point["verdict"] = c.value("verdict", "");
                    correct = point["verdict"] == "pass";
                    if (!correct) point["error"] = c.value("verdict", "") + ": " + c.value("message", "");
                }
                if (correct) {
                    kb_time_options t = KB_TIME_OPTIONS_INIT;
                    t.against_baseline = has_baseline ? 1 : 0;
                    t.budget_ms = o.budget_ms;
                    ResultHandle r;
                    s = kb_time(ctx.get(), task.get(), k.get(), &t, r.out());
                    if (s != KB_OK) fail_with(s);
                    Json tj = parse(kb_result_json(r.get()));
                    if (tj.value("verdict", "none") != "none" || !tj.contains("candidate")) {
                        point["error"] = tj.value("verdict", "") + ": " + tj.value("message", "");
                    } else {
                        point["candidate"] = provider_point(tj["candidate"], metric);
                        if (tj.contains("baseline")) point["baseline"] = provider_point(tj["baseline"], metric);
                        if (tj.contains("speedup")) point["speedup"] = tj["speedup"];
                    }
                }
            }
        }
        if (point.contains("error")) all_ok = false;
        if (!o.json && !o.dry_run) {
            if (point.contains("error")) {
                std::printf("%10lld  %s\n", (long long)size, point["error"].get<std::string>().c_str());
            } else {
                auto v = [&](const char* who) -> std::string {
                    if (!point.contains(who)) return "-";
                    char buf[32];
                    std::snprintf(buf, sizeof buf, metric == "us" ? "%.2f" : "%.1f", point[who]["value"].get<double>());
                    return buf;
                };
                std::printf("%10lld %14s %14s %8.2fx\n", (long long)size, v("candidate").c_str(), v("baseline").c_str(),
                            point.value("speedup", std::nan("")));
            }
            std::fflush(stdout);
        }
        points.push_back(point);
    }

    Json out = {{"task", task_name},
                {"candidate", label},
                {"baseline", baseline_label},
                {"dims", o.sweep.dims},
                {"sizes", o.sweep.sizes},
                {"metric", metric},
                {"unit", metric_unit(metric)},
                {"device", device_name},
                {"points", points}};
    if (o.dry_run) {
        out["dry_run"] = true;
        if (o.json) print_json(out);
        else {
            std::string sizes;
            for (int64_t v : o.sweep.sizes) sizes += (sizes.empty() ? "" : " ") + std::to_string(v);
            std::printf("dry run: %s, %s = %s: %s; nothing timed\n", task_name.c_str(), dims_label(o.sweep).c_str(),
                        sizes.c_str(), all_ok ? "every size loads and the candidate compiles" : "some sizes failed");
            for (const Json& p : points)
                if (p.contains("error"))
                    std::printf("  %lld: %s\n", (long long)p["size"].get<int64_t>(), p["error"].get<std::string>().c_str());
        }
        return all_ok ? kExitOk : kExitFailed;
    }

    const std::string name = o.name.empty() ? task_name + "_sweep" : o.name;
    const std::string prefix = o.out_dir + "/" + name;
    const std::string data = prefix + ".json";
    try {
        if (!is_dir(o.out_dir) && ::mkdir(o.out_dir.c_str(), 0755) != 0)
            throw Failure("i/o error", "--out-dir " + o.out_dir + ": " + std::strerror(errno));
        FILE* f = std::fopen(data.c_str(), "w");
        if (!f) throw Failure("i/o error", data + ": " + std::strerror(errno));
        std::string text = out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    } catch (const Failure& e) {
        if (o.json) {
            // The error document, with the points measured before the write failed.
            Json doc = error_json("failure", e.status, e.what());
            doc["sweep"] = out;
            print_json(doc);
            return kExitFailed;
        }
        throw;
    }
    out["data_file"] = data;
    std::string plot_error;
    if (o.plot) {
        plot_error = draw_plot(data, prefix);
        if (plot_error.empty()) out["plot"] = {{"png", prefix + ".png"}, {"svg", prefix + ".svg"}};
        else out["plot_error"] = plot_error;
    }
    if (o.json) print_json(out);
    else {
        std::printf("points: %s\n", data.c_str());
        if (o.plot && plot_error.empty()) std::printf("plot:   %s.png, %s.svg\n", prefix.c_str(), prefix.c_str());
        if (!plot_error.empty()) std::fprintf(stderr, "kbench sweep: no plot: %s\n", plot_error.c_str());
    }
    return all_ok && plot_error.empty() ? kExitOk : kExitFailed;
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
    return run_subcommand(kCommand, argc, argv, [&](bool) { return run_sweep(parse_options(argc, argv)); });
}

}  // namespace kb::cli
