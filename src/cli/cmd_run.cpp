// kbench run: a candidates file in, one result line per candidate out
// (docs/batch.md, "kbench run"). The lines are prepared on this thread
// (task resolved, code extracted; lines that cannot be scored are written at
// once), then handed to whichever GPU's batch (engine/batch.h) has room: one
// context and one batch per GPU, compile threads ahead of each device thread.
// Results are appended as they complete, so the file is always valid and a
// second run resumes where the first stopped.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "evaluate/candidates.h"
#include "evaluate/jsonl.h"
#include "evaluate/prepare.h"
#include "evaluate/results.h"
#include "evaluate/task_index.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/run_progress.h"
#include "cli/run_ray.h"
#include "cli/run_rebalance.h"
#include "cli/subcommand.h"
#include "device/no_device_advice.h"
#include "engine/batch.h"
#include "engine/context.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "util/error.h"
#include "util/files.h"
#include "util/profile.h"
#include "util/release_together.h"
#include "worker_host/isolation.h"

namespace kb::cli {

namespace {

const char* kRunUsage =
    "usage: kbench run --tasks DIR|FILE... --candidates FILE.jsonl --out RESULTS.jsonl [options]\n"
    "\n"
    "Scores every candidate of a candidates file (docs/batch.md) and appends one\n"
    "result line per candidate to --out as each finishes. Candidates already in\n"
    "--out are skipped, so running the same command again resumes an interrupted\n"
    "run. Ctrl-C stops submitting, cancels what waits, lets what runs finish and\n"
    "leaves a valid file; a second Ctrl-C exits at once (the file stays valid).\n"
    "\n"
    "options:\n"
    "  --tasks DIR|FILE      where the candidates' task names are found; repeatable,\n"
    "                        and several paths may follow one --tasks\n"
    "  --candidates FILE     the candidates JSONL file\n"
    "  --out FILE            the results JSONL file (appended; created if missing)\n"
    "  --gpus LIST|all       the GPUs to shard over, e.g. 0,1 (default: 0)\n"
    "  --compile-only        compile, do not run: no GPU needed; `kbench report` gives\n"
    "                        call accuracy\n"
    "  --isolation worker|none\n"
    "                        run candidates in a kbench-worker per GPU (default) or\n"
    "                        in this process (faster; a crashing candidate ends the run)\n"
    "  --jobs N              compile threads per GPU (default: cores / GPUs, at most 8)\n"
    "  --lanes N             candidates on each GPU at once, each in a worker of its\n"
    "                        own (1 to 16; default: 4, fewer on GPUs under 40 GB)\n"
    "  --no-contain-traps    let a candidate's trap (__trap(), a failed assert()) or bad\n"
    "                        access end its kernel and its worker's CUDA context, as\n"
    "                        CUDA does; by default traps are contained in the\n"
    "                        candidate's PTX and its comparisons run a checked copy\n"
    "                        that stops bad accesses and endless loops in the kernel\n"
    "                        (same verdicts, without the driver's recovery or a new\n"
    "                        worker: docs/isolation.md, \"Traps\")\n"
    "  --timeout S           a candidate's deadline per request, in seconds (default:\n"
    "                        kbench's computed deadline)\n"
    "  --language L          cuda, triton or detect: for answers without \"language\"\n"
    "  --include-reasoning   score code found only inside <think>...</think>\n"
    "  --no-progress         no progress display on stderr\n"
    "  --ray auto|ADDRESS    run on a Ray cluster instead: executes\n"
    "                        python3 -m kbench.ray run --address ADDRESS <the other flags>\n"
    "  --keep-pool NAME      with --ray: score on the kept Ray pool NAME, started by the\n"
    "                        first such run and left running, warm, for the next one\n"
    "                        (python3 -m kbench.ray stop --address A --pool NAME ends it)\n"
    "  --json                print the summary (and errors) as JSON on stdout\n"
    "\n"
    "exit status: 0 every candidate has a result line; 1 invalid input (a bad\n"
    "candidates or results line, a missing file, no GPU without --compile-only)\n"
    "or kbench could not score some candidates (verdict \"error\"); 2 usage error;\n"
    "130 interrupted (run the same command again to resume)\n"
    "\n"
    "examples:\n"
    "  kbench run --tasks tasks --candidates answers.jsonl --out results.jsonl\n"
    "  kbench run --tasks tasks --candidates answers.jsonl --out results.jsonl --gpus 0,1\n"
    "  kbench run --compile-only --tasks tasks --candidates answers.jsonl --out calls.jsonl\n"
    "  kbench run --ray auto --keep-pool eval --tasks tasks --candidates answers.jsonl --out results.jsonl\n"
    "  kbench report results.jsonl\n";

const Subcommand kCommand{"run", kRunUsage};

struct Options {
    std::vector<std::string> tasks;
    std::string candidates, out, gpus, isolation = "worker", ray, keep_pool;
    bool compile_only = false, json = false, include_reasoning = false, progress = true, contain_traps = true;
    unsigned jobs = 0, lanes = 0;
    double timeout_s = 0;
    evaluate::AnswerLanguage language = evaluate::AnswerLanguage::detect;
    std::string language_arg;
    // The arguments as given, without --ray and its value (for kbench.ray).
    std::vector<std::string> passthrough;
};

std::vector<int> parse_gpus(const std::string& spec, int count);

Options parse(int argc, char** argv) {
    Options o;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] == '-'))
            throw UsageError{std::string(argv[i]) + " needs a value"};
        return argv[++i];
    };
    // A whole number from 1 to `most` for the flag at argv[i].
    auto count = [&](int& i, long most) {
        std::string flag = argv[i], v = value(i);
        char* end = nullptr;
        long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end || n < 1 || n > most)
            throw UsageError{flag + " expects a number from 1 to " + std::to_string(most) + ", got '" + v + "'"};
        return unsigned(n);
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        size_t before = size_t(i);
        if (a == "--json") o.json = true;
        else if (a == "--tasks") {
            o.tasks.push_back(value(i));
            // Several paths may follow one --tasks (as a shell glob gives them).
            while (i + 1 < argc && argv[i + 1][0] != '-') o.tasks.push_back(argv[++i]);
        } else if (a == "--candidates") o.candidates = value(i);
        else if (a == "--out") o.out = value(i);
        else if (a == "--gpus") o.gpus = value(i);
        else if (a == "--compile-only") o.compile_only = true;
        else if (a == "--isolation") {
            o.isolation = value(i);
            if (o.isolation != "worker" && o.isolation != "none")
                throw UsageError{"--isolation expects worker or none, got '" + o.isolation + "'"};
        } else if (a == "--jobs") o.jobs = count(i, 256);
        else if (a == "--lanes") o.lanes = count(i, 16);
        else if (a == "--timeout") {
            std::string v = value(i);
            char* end = nullptr;
            double s = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(s > 0) || s > 86400)
                throw UsageError{"--timeout expects seconds greater than 0, got '" + v + "'"};
            o.timeout_s = s;
        } else if (a == "--language") {
            o.language_arg = value(i);
            if (!evaluate::parse_answer_language(o.language_arg, &o.language))
                throw UsageError{"--language expects cuda, triton or detect, got '" + o.language_arg + "'"};
        } else if (a == "--include-reasoning") o.include_reasoning = true;
        else if (a == "--no-progress") o.progress = false;
        else if (a == "--no-contain-traps") o.contain_traps = false;
        else if (a == "--keep-pool") o.keep_pool = value(i);
        else if (a == "--ray") {
            o.ray = value(i);
            continue;  // not passed through
        } else if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
        else throw UsageError{"unexpected argument '" + a + "'; the files are given with --tasks, --candidates and --out"};
        for (size_t k = before; k <= size_t(i); ++k) o.passthrough.push_back(argv[k]);
    }
    if (o.tasks.empty()) throw UsageError{"no --tasks given; expected the folder or files of the tasks the candidates name"};
    if (o.candidates.empty()) throw UsageError{"no --candidates given; expected the candidates JSONL file"};
    if (o.out.empty()) throw UsageError{"no --out given; expected the results JSONL file to append to"};
    if (o.compile_only && !o.gpus.empty()) throw UsageError{"--gpus does not apply to --compile-only (nothing runs on a GPU)"};
    if (o.compile_only && o.lanes) throw UsageError{"--lanes does not apply to --compile-only (nothing runs on a GPU)"};
    if (o.isolation == "none" && o.lanes > 1)
        throw UsageError{"--lanes above 1 needs --isolation worker (lanes are worker processes)"};
    if (!o.gpus.empty()) parse_gpus(o.gpus, std::numeric_limits<int>::max());  // the syntax, before any device is asked
    if (!o.keep_pool.empty() && o.ray.empty())
        throw UsageError{"--keep-pool applies with --ray only (a kept pool is Ray actors); add --ray auto or "
                         "--ray ADDRESS"};
    if (!o.keep_pool.empty() && o.ray == "local")
        throw UsageError{"--keep-pool needs a running Ray cluster (--ray auto or --ray ADDRESS): a local one stops "
                         "with the run, and its pool with it"};
    if (!o.ray.empty()) {
        for (const char* flag : {"--isolation", "--jobs", "--lanes", "--timeout", "--no-progress", "--no-contain-traps"})
            for (const std::string& p : o.passthrough)
                if (p == flag) throw UsageError{std::string(flag) + " does not apply with --ray (kbench.ray runs the candidates)"};
    }
    return o;
}

// The failure of a run that found no GPU to score on.
Failure no_device(const std::string& why) {
    // The library's advice (a compile-only context) is for its callers;
    // this command's is --compile-only.
    const std::string reason = without_compile_only_advice(why);
    return Failure("no device", "no CUDA device (" + reason +
                                    "): kbench run needs a GPU to score; use --compile-only to compile only (call "
                                    "accuracy), or run on a machine with a GPU");
}

// The GPUs of --gpus: "" (device 0), "all", or a list such as "0,1".
std::vector<int> parse_gpus(const std::string& spec, int count) {
    if (count <= 0) return {};
    std::vector<int> out;
    if (spec.empty()) return {0};
    if (spec == "all") {
        for (int i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    size_t p = 0;
    while (p <= spec.size()) {
        size_t e = spec.find(',', p);
        std::string part = spec.substr(p, e == std::string::npos ? std::string::npos : e - p);
        char* end = nullptr;
        long n = std::strtol(part.c_str(), &end, 10);
        if (part.empty() || *end || n < 0)
            throw UsageError{"--gpus expects 'all' or GPU numbers such as 0,1, got '" + spec + "'"};
        if (n >= count)
            throw Failure("no device", "--gpus names GPU " + std::to_string(n) + ", but this machine has " +
                                           std::to_string(count) + " (0 to " + std::to_string(count - 1) + ")");
        if (std::find(out.begin(), out.end(), int(n)) != out.end())
            throw UsageError{"--gpus names GPU " + std::to_string(n) + " twice"};
        out.push_back(int(n));
        if (e == std::string::npos) break;
        p = e + 1;
    }
    return out;
}

bool is_dir(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// --- signals ----------------------------------------------------------------

volatile sig_atomic_t g_signals = 0;

void on_stop_signal(int sig) {
    g_signals = g_signals + 1;
    if (g_signals >= 2) {
        // A second Ctrl-C: at once. Every line already written is whole
        // (one write() each, O_APPEND), so the file stays valid.
        static const char msg[] = "\nkbench run: stopped at once; run the same command again to resume\n";
        ssize_t ignored = ::write(2, msg, sizeof msg - 1);
        (void)ignored;
        ::_exit(128 + sig);
    }
}

struct SignalGuard {
    struct sigaction old_int {}, old_term {};
    SignalGuard() {
        g_signals = 0;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns early
        ::sigaction(SIGINT, &sa, &old_int);
        ::sigaction(SIGTERM, &sa, &old_term);
    }
    ~SignalGuard() {
        ::sigaction(SIGINT, &old_int, nullptr);
        ::sigaction(SIGTERM, &old_term, nullptr);
    }
};

// --- one GPU (or the compile-only context) ----------------------------------

struct Lane {
    int gpu = -1;  // -1: compile-only
    std::string device;
    std::unique_ptr<Context> ctx;
    std::unique_ptr<Batch> batch;
    size_t in_flight = 0;     // submitted by us, not yet collected
    size_t device_lanes = 1;  // jobs its device runs at once
    size_t leaving = 0;       // cancelled here to move to another GPU, not yet collected
    size_t arriving = 0;      // moving here, not yet submitted
};

struct Pending {
    evaluate::ResultRecord record;
    int gpu = -1;
    TaskPtr task;
    size_t lane = 0;   // the lane it was submitted to
    uint64_t job = 0;  // its id in that lane's batch
    CandidateInput in;  // what was submitted, to submit again elsewhere (cli/run_rebalance.h)
    ScoreOptions so;
    std::optional<size_t> moving_to;  // cancelled to move to this lane
};

Language language_of(const std::string& name) {
    if (name == "cuda") return Language::cuda;
    if (name == "triton") return Language::triton;
    if (name == "ptx") return Language::ptx;
    if (name == "cubin") return Language::cubin;
    if (name == "triton_binary") return Language::triton_binary;
    if (name == "python") return Language::python;
    return Language::cuda;
}

// Fills a prepared record from what the engine found.
void fill_result(evaluate::ResultRecord& r, const BatchCompletion& c, bool compile_only) {
    if (c.status != KB_OK) {
        r.verdict = "error";
        r.message = std::string("kbench could not score it (") + kb_status_string(c.status) + "): " + c.error;
        return;
    }
    const ScoreResult& s = *c.result;
    r.verdict = verdict_name(s.verdict);
    if (compile_only && s.verdict == KB_VERDICT_NONE) r.verdict = "compiled";
    r.message = s.message;
    if (s.stages.compile_ms > 0 || compile_only) r.compile_ms = s.stages.compile_ms;
    double run = s.stages.correctness_ms + s.stages.timing_ms + s.stages.recheck_ms;
    if (!compile_only && run > 0) r.run_ms = run;
    if (s.timing) {
        if (s.timing->candidate) {
            r.candidate_median_us = s.timing->candidate->stats.median;
            r.gbps = s.timing->candidate->gbps;
            r.tflops = s.timing->candidate->tflops;
        }
        if (s.timing->baseline) r.baseline_median_us = s.timing->baseline->stats.median;
    }
    if (s.speedup) r.speedup = *s.speedup;
    r.efficiency = s.efficiency;
    // The precision audit (compare/precision.h), without its per-mode
    // detail: a speedup that comes from TF32 or bf16 shows where results
    // are read.
    if (s.precision) {
        if (!r.extra.is_object()) r.extra = Json::object();
        Json p = to_json(*s.precision);
        p.erase("modes");
        r.extra["precision"] = std::move(p);
    }
    // Which build made a load_inline answer's extensions (docs/programs.md,
    // "CUDA answers: the fast `load_inline`"), and whether builder workers
    // made them all ahead of the lane.
    if (s.program && !s.program->build.empty()) {
        if (!r.extra.is_object()) r.extra = Json::object();
        r.extra["build"] = s.program->build;
        bool ahead = !s.program->builds.empty();
        for (const ProgramBuild& b : s.program->builds) ahead = ahead && b.prebuilt;
        r.extra["built_ahead"] = ahead;
    }
    // A stage run twice beside another lane's hang: the line says so.
    Json retried = retried_stages(s);
    if (!retried.empty()) {
        if (!r.extra.is_object()) r.extra = Json::object();
        r.extra["retried"] = std::move(retried);
    }
}

struct Summary {
    size_t candidates = 0, skipped = 0, written = 0, left = 0, cancelled = 0;
    size_t moved = 0;  // candidates moved to a GPU that went idle (cli/run_rebalance.h)
    std::map<std::string, size_t> verdicts;
    size_t repaired_bytes = 0;
    bool interrupted = false;
    double wall_s = 0, rate = 0;
};

int print_summary(const Options& o, const Summary& s, const std::vector<int>& gpus,
                  const std::vector<std::string>& warnings) {
    size_t pass = s.verdicts.count("pass") ? s.verdicts.at("pass") : 0;
    size_t errors = s.verdicts.count("error") ? s.verdicts.at("error") : 0;
    int rc = s.interrupted ? 130 : errors ? 1 : 0;
    if (o.json) {
        Json j = {{"out", o.out},
                  {"candidates", s.candidates},
                  {"skipped", s.skipped},
                  {"written", s.written},
                  {"left", s.left},
                  {"pass", pass},
                  {"errors", errors},
                  {"verdicts", s.verdicts},
                  {"rate_per_s", s.rate},
                  {"wall_s", s.wall_s},
                  {"interrupted", s.interrupted},
                  {"compile_only", o.compile_only},
                  {"gpus", gpus},
                  {"moved", s.moved},
                  {"isolation", o.isolation},
                  {"repaired_bytes", s.repaired_bytes},
                  {"warnings", warnings},
                  {"status", rc}};
        std::printf("%s\n", evaluate::dump_json_line(j).c_str());
    } else {
        for (const std::string& w : warnings) std::fprintf(stderr, "kbench run: warning: %s\n", w.c_str());
        std::printf("%s: %zu written, %zu skipped (already in %s), %zu left; %zu pass; %.1f/s over %.1f s\n",
                    s.interrupted ? "interrupted" : "done", s.written, s.skipped, o.out.c_str(), s.left, pass, s.rate,
                    s.wall_s);
        if (!s.verdicts.empty()) {
            std::string v;
            for (const auto& [k, n] : s.verdicts) v += (v.empty() ? "" : ", ") + k + " " + std::to_string(n);
            std::printf("verdicts: %s\n", v.c_str());
        }
        if (s.interrupted) std::printf("run the same command again to score the %zu left\n", s.left);
        if (errors)
            std::printf("%zu candidate(s) could not be scored (verdict \"error\"; their messages say why)\n", errors);
    }
    std::fflush(stdout);
    return rc;
}

int run(const Options& o) {
    // Inputs first: nothing starts before every line is known to be valid.
    require_file(o.candidates, "candidates file");
    evaluate::CandidatesFile cf = evaluate::read_candidates(o.candidates);
    if (!cf.errors.empty())
        return report_error(kCommand, o.json, 1,
                            o.candidates + ": " + std::to_string(cf.errors.size()) +
                                " invalid line(s); expected one candidate object per line (docs/batch.md)",
                            cf.errors);
    if (cf.candidates.empty())
        return report_error(kCommand, o.json, 1,
                            "candidates file " + o.candidates +
                                " holds no candidate; expected one JSON object per line (docs/batch.md)");
    if (is_dir(o.out))
        return report_error(kCommand, o.json, 1, "--out '" + o.out + "' is a directory; expected a results file");
    evaluate::TaskIndex tasks;
    for (const std::string& t : o.tasks) tasks.add(t);
    evaluate::ResultsFile done = evaluate::read_results(o.out);
    if (!done.errors.empty())
        return report_error(kCommand, o.json, 1,
                            o.out + ": " + std::to_string(done.errors.size()) +
                                " invalid line(s); expected result lines of kbench run (docs/batch.md); "
                                "fix them or give another --out",
                            done.errors);

    std::vector<const evaluate::CandidateLine*> todo;
    Summary sum;
    sum.candidates = cf.candidates.size();
    for (const evaluate::CandidateLine& c : cf.candidates) {
        if (done.done.count(c.key)) ++sum.skipped;
        else todo.push_back(&c);
    }
    std::vector<std::string> warnings = tasks.problems();

    // The contexts: one per GPU, or one compile-only.
    std::vector<int> gpus;
    std::vector<Lane> lanes;
    if (!todo.empty()) {
        ContextOptions co;
        co.isolation = o.isolation == "none" ? KB_ISOLATION_IN_PROCESS : KB_ISOLATION_WORKER;
        co.timeout_s = o.timeout_s;
        co.contain_traps = o.contain_traps;
        co.contain_comparisons = o.contain_traps;  // --no-contain-traps: nothing contained
        if (o.compile_only) {
            co.device = KB_DEVICE_NONE;
            lanes.emplace_back();
            lanes.back().ctx = std::make_unique<Context>(co, worker_isolation());
        } else {
            // Only --gpus all needs the count, and with it this process's own
            // cuInit (0.4 s on one H200 host, 12.7-14.5 s on others:
            // `bench/run_bench.py`). Otherwise each context's worker
            // finds out whether its GPU exists: this process does not wait
            // for the driver before spawning them.
            int count = std::numeric_limits<int>::max();
            if (o.gpus == "all") {
                kb_status s = kb_device_count(&count);
                if (s != KB_OK || count == 0) throw no_device(kb_last_error());
            }
            gpus = parse_gpus(o.gpus, count);
            // The GPUs' contexts start side by side: each waits for its
            // worker's CUDA context.
            std::vector<std::future<std::unique_ptr<Context>>> starting;
            {
                KB_PROFILE_SPAN("run.start_contexts");
                for (int g : gpus) {
                    co.device = g;
                    starting.push_back(std::async(std::launch::async, [co] {
                        return std::make_unique<Context>(co, worker_isolation());
                    }));
                }
                for (auto& f : starting) f.wait();
            }
            for (size_t i = 0; i < gpus.size(); ++i) {
                lanes.emplace_back();
                lanes.back().gpu = gpus[i];
                try {
                    lanes.back().ctx = starting[i].get();  // a context that could not start throws its error here
                } catch (const Error& e) {
                    if (e.status() != KB_ERR_NO_DEVICE) throw;
                    throw no_device("GPU " + std::to_string(gpus[i]) + ": " + e.what());
                }
                const Json& dev = lanes.back().ctx->info()["device"];
                if (dev.is_object()) {
                    lanes.back().device = dev.value("name", "");
                    const std::string warning = lanes.back().ctx->info().value("ceilings_warning", std::string());
                    if (!warning.empty() && std::find(warnings.begin(), warnings.end(), warning) == warnings.end())
                        warnings.push_back(warning);
                }
            }
        }
        unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::min(8u, cores / unsigned(lanes.size())));
        const size_t backlog = Batch::timing_backlog_setting();
        for (Lane& l : lanes) {
            BatchOptions bo;
            bo.compile_threads = jobs;
            bo.device_lanes = o.lanes;  // 0: Batch::default_lanes()
            const unsigned device_lanes = o.lanes ? o.lanes : Batch::default_lanes(*l.ctx);
            // Room for every compile thread to work ahead of the device, and
            // little more: what waits is cancelled on Ctrl-C. Candidates a
            // lane keeps waiting to time count as submitted: without room for
            // them, they crowd out the compiles ahead (on two H200s, 16 of 18
            // places could be kept ones).
            bo.capacity = std::max({4u, 2 * jobs + 2, device_lanes + jobs}) + unsigned(device_lanes * backlog);
            l.batch = std::make_unique<Batch>(*l.ctx, bo);
            l.device_lanes = device_lanes;
        }
    }

    evaluate::ResultWriter writer(o.out);
    sum.repaired_bytes = writer.repaired_bytes();
    if (sum.repaired_bytes && !o.json)
        std::fprintf(stderr, "kbench run: removed a cut-off last line (%zu bytes) from %s; its candidate runs again\n",
                     sum.repaired_bytes, o.out.c_str());
    if (sum.repaired_bytes)
        warnings.push_back("removed a cut-off last line (" + std::to_string(sum.repaired_bytes) + " bytes) from " + o.out);

    RunProgress progress(todo.size(), ::isatty(2) == 1, o.progress);
    SignalGuard signals;
    evaluate::PrepareOptions po;
    po.language = o.language;
    po.include_reasoning = o.include_reasoning;
    po.base_dir = o.candidates == "-" ? "" : dirname_of(o.candidates);

    std::map<uint64_t, Pending> pending;  // tag -> record
    uint64_t next_tag = 1;
    auto write = [&](const evaluate::ResultRecord& r) {
        writer.append(r);
        ++sum.written;
        ++sum.verdicts[r.verdict];
        progress.add(r.verdict == "pass");
    };
    // Submits a prepared candidate to lanes[i]; false (and the line written
    // as an error) when the batch refuses it.
    auto submit_to = [&](size_t i, uint64_t tag, Pending& p) {
        try {
            std::optional<uint64_t> job = lanes[i].batch->submit(p.task, p.in, p.so, tag, -1);
            p.job = job.value_or(0);
        } catch (const Error& e) {
            evaluate::ResultRecord r = p.record;
            r.verdict = "error";
            r.message = std::string("kbench could not submit it: ") + e.what();
            write(r);
            pending.erase(tag);
            return false;
        }
        p.lane = i;
        p.gpu = lanes[i].gpu;
        ++lanes[i].in_flight;
        return true;
    };
    // Once every candidate is submitted: moves candidates that wait on a busy
    // GPU to one that has gone idle (cli/run_rebalance.h).
    // KBENCH_RUN_MOVES=0 turns the moves off, to measure what they bring.
    const char* moves_setting = std::getenv("KBENCH_RUN_MOVES");
    const bool moves = !(moves_setting && std::string(moves_setting) == "0");
    auto rebalance = [&] {
        if (!moves || lanes.size() < 2 || g_signals) return;
        std::vector<LaneLoad> loads;
        for (const Lane& l : lanes) loads.push_back({l.in_flight, l.device_lanes, l.leaving, l.arriving});
        std::optional<LaneMove> m = plan_rebalance(loads);
        if (!m) return;
        // The newest first: the furthest from the device.
        size_t moved = 0;
        for (auto it = pending.rbegin(); it != pending.rend() && moved < m->count; ++it) {
            Pending& p = it->second;
            if (p.lane != m->from || p.moving_to || !lanes[p.lane].batch->cancel(p.job)) continue;
            p.moving_to = m->to;
            ++lanes[m->from].leaving;
            ++lanes[m->to].arriving;
            ++moved;
            ++sum.moved;
        }
    };
    // Collects every completion waiting in any lane; true if any was.
    auto collect = [&](double wait_s) {
        bool any = false;
        for (size_t i = 0; i < lanes.size(); ++i) {
            Lane& l = lanes[i];
            if (!l.in_flight) continue;
            bool idle = false;
            // Wait only on the first busy lane; the others are polled.
            std::optional<BatchCompletion> c = l.batch->next(any ? 0 : wait_s, &idle);
            while (c) {
                any = true;
                --l.in_flight;
                auto it = pending.find(c->tag);
                if (it != pending.end() && it->second.moving_to) {
                    --l.leaving;
                    const size_t to = *it->second.moving_to;
                    it->second.moving_to.reset();
                    --lanes[to].arriving;
                    // Cancelled here to run on a GPU that went idle; a job that
                    // reached this GPU's device first comes back with its result.
                    // (A refused submit writes the line as an error.)
                    if (c->status == KB_ERR_CANCELLED && !g_signals) {
                        submit_to(to, c->tag, it->second);
                        c = l.batch->next(0, &idle);
                        continue;
                    }
                }
                if (it != pending.end()) {
                    if (c->status == KB_ERR_CANCELLED) {
                        ++sum.cancelled;  // not written: a resumed run scores it
                    } else {
                        evaluate::ResultRecord& r = it->second.record;
                        fill_result(r, *c, o.compile_only);
                        if (it->second.gpu >= 0) {
                            r.gpu = it->second.gpu;
                            r.device = l.device;
                        }
                        write(r);
                    }
                    pending.erase(it);
                }
                c = l.batch->next(0, &idle);
            }
            wait_s = 0;
        }
        progress.tick();
        return any;
    };

    size_t next = 0;
    while (next < todo.size() && !g_signals) {
        const evaluate::CandidateLine& line = *todo[next];
        evaluate::PreparedCandidate pc = evaluate::prepare_candidate(line, tasks, po);
        if (!pc.ready) {
            write(pc.result);
            ++next;
            collect(0);
            continue;
        }
        // The lane with the fewest jobs in flight that has room.
        Lane* lane = nullptr;
        for (;;) {
            lane = nullptr;
            for (Lane& l : lanes)
                if (l.in_flight < l.batch->options().capacity && (!lane || l.in_flight < lane->in_flight)) lane = &l;
            if (lane || g_signals) break;
            collect(0.05);
        }
        if (!lane) break;
        CandidateInput in;
        in.code = pc.code;
        in.language = language_of(pc.language);
        in.language_given = true;
        if (!pc.launch_json.empty()) in.launch_json = pc.launch_json;
        in.label = line.key.describe();
        ScoreOptions so;
        so.compile_only = o.compile_only;
        uint64_t tag = next_tag++;
        Pending& p = pending[tag];
        p.record = std::move(pc.result);
        p.task = pc.loaded;
        p.in = std::move(in);
        p.so = so;
        submit_to(size_t(lane - lanes.data()), tag, p);
        ++next;
        collect(0);
    }
    if (g_signals) {
        sum.interrupted = true;
        for (Lane& l : lanes) l.batch->cancel_all();
        if (!o.json)
            std::fprintf(stderr, "\nkbench run: interrupted; finishing the candidates on the GPU (Ctrl-C again to "
                                 "stop at once)\n");
    }
    for (;;) {
        size_t in_flight = 0;
        for (const Lane& l : lanes) in_flight += l.in_flight;
        if (!in_flight) break;
        if (g_signals && !sum.interrupted) {
            sum.interrupted = true;
            for (Lane& l : lanes) l.batch->cancel_all();
        }
        rebalance();
        collect(0.05);
    }
    progress.finish();
    sum.wall_s = progress.elapsed_s();
    sum.rate = sum.wall_s > 0 ? double(sum.written) / sum.wall_s : 0;
    sum.left = sum.candidates - sum.skipped - sum.written;
    if (sum.left && !sum.interrupted) sum.interrupted = true;  // cannot happen without a signal; never claim done
    {
        // Stops the batches and the workers before the summary: every GPU's
        // at once (util/release_together.h).
        KB_PROFILE_SPAN("run.end_contexts");
        // Every result is written: the workers free their CUDA contexts
        // after this process has gone, not before.
        for (Lane& l : lanes)
            if (l.ctx) l.ctx->end_without_waiting();
        release_together(std::move(lanes));
    }
    return print_summary(o, sum, gpus, warnings);
}

}  // namespace

int cmd_run(int argc, char** argv) {
    return run_subcommand(kCommand, argc, argv, [&](bool) {
        Options o = parse(argc, argv);
        if (!o.ray.empty()) return report_error(kCommand, o.json, kExitFailed, exec_ray(o.ray, o.passthrough));
        return run(o);
    });
}

}  // namespace kb::cli
