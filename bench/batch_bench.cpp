// RL-loop throughput (issue 12): verdicts per second through the batch API
// on one GPU, worker isolation on, distinct candidates (every one compiles,
// down to the assembly of its own PTX: no cache hits), against kb_score one
// at a time on the same stream.
//
//   kbench_batch_bench [N=120] [tasks=elementwise/vector_add_f32,softmax/softmax_f32,reductions/sum_f32] [lanes=0]
//                      [rates|mixed|single|correctness]
//
// lanes: kb_batch_options.device_lanes of the batches (0: the library's
// default); the correctness-only batch is also run with one lane, for the
// figure before lanes. `rates`: stop after the batch rates (a lane count
// compared with another in one device call). `mixed`: only the mixed streams,
// counting wrong verdicts instead of stopping at the first. `single`: only
// the kb_score latencies (no batch, no lanes past the first), so that a
// KBENCH_PROFILE or KBENCH_TRACE of the run holds nothing else.
// `correctness`: only the correctness-only batch (its lanes warmed by a
// correctness-only batch too), for a profile of that work alone.
//
// Measures, each on a fresh context:
//   context_create_ms        creating a context with worker isolation
//   single_timed_ms          kb_score latency, timed (median over N/4)
//   single_correctness_ms    kb_score latency, correctness only (median over N/4)
//   warm_lanes_timed_per_s   the warm-up batch that starts every lane's worker
//   batch_timed_per_s        N distinct candidates through a batch, timed
//   batch_correctness_per_s  the same, correctness only
//   compile_error_ms         kb_score of a candidate that does not compile (median)
//   cache_hit_compile_ms     kb_compile of a source compiled before (median)
//   mixed_per_s              a correctness-only stream with 10% crashing and 2%
//                            hanging candidates (kbench's computed deadlines),
//                            and its ratio to the clean correctness-only rate;
//                            mixed_*_1s the same with a fixed 1 s deadline
// Every verdict is checked against what the candidate must get. Prints one
// JSON object; exits 77 without a device.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "bench_util.h"

using namespace bench;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string part; std::getline(ss, part, sep);)
        if (!part.empty()) out.push_back(part);
    return out;
}

struct Job {
    kb_task* task;
    std::string code;
    kb_verdict expect;
};

kb_context* make_context(double timeout_s, double* create_ms) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    o.timeout_s = timeout_s;
    kb_context* ctx = nullptr;
    double t0 = now_ms();
    kb_status s = kb_context_create(&o, &ctx);
    if (create_ms) *create_ms = now_ms() - t0;
    if (s != KB_OK) die("context", s);
    return ctx;
}

kb_score_options score_options(bool timed) {
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    if (!timed) so.flags = KB_SCORE_SKIP_TIMING;
    return so;
}

// `mixed` mode counts wrong verdicts instead of stopping at the first: it is
// how a shorter run limit is tried, and a crash reported as a timeout is
// what such a limit risks.
bool g_count_mismatches = false;
std::map<std::string, int> g_mismatches;  // "got/expected" -> count

void expect(kb_verdict got, kb_verdict want, const char* where, const std::string& message) {
    if (got == want) return;
    std::fprintf(stderr, "%s: verdict %s, expected %s: %s\n", where, kb_verdict_string(got), kb_verdict_string(want),
                 message.c_str());
    if (!g_count_mismatches) std::exit(1);
    ++g_mismatches[std::string(kb_verdict_string(got)) + "/" + kb_verdict_string(want)];
}

// kb_score one at a time; returns the latencies (ms).
// kb_score on each job in turn: each call's milliseconds. `stages`, if
// given, gets the median of each stage the results report ("<stage>_median").
std::vector<double> score_each(kb_context* ctx, const std::vector<Job>& jobs, bool timed, kb::Json* stages = nullptr) {
    std::vector<double> ms;
    std::map<std::string, std::vector<double>> by_stage;
    kb_score_options so = score_options(timed);
    for (const Job& j : jobs) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = j.code.c_str();
        kb_result* r = nullptr;
        double t = now_ms();
        kb_status s = kb_score(ctx, j.task, &c, &so, &r);
        ms.push_back(now_ms() - t);
        if (s != KB_OK) die("kb_score", s);
        expect(kb_result_verdict(r), j.expect, "kb_score", kb_result_message(r));
        if (stages) {
            kb::Json doc = kb::Json::parse(kb_result_json(r));
            for (auto& [k, v] : doc["stages"].items())
                if (v.is_number()) by_stage[k].push_back(v.get<double>());
        }
        kb_result_destroy(r);
    }
    if (stages)
        for (auto& [k, v] : by_stage) (*stages)[k + "_median"] = median(v);
    return ms;
}

// Every job through one batch; returns verdicts per second, and the batch's
// per-stage means in `stages`.
unsigned g_lanes = 0;

// Per verdict, each job's correctness stage (ms): how long a crash or a hang
// held its lane, and whether the candidates beside it were slowed.
using StageByVerdict = std::map<std::string, std::vector<double>>;

kb::Json summary_of(StageByVerdict& by) {
    kb::Json j = kb::Json::object();
    for (auto& [verdict, ms] : by) {
        std::sort(ms.begin(), ms.end());
        j[verdict] = {{"n", ms.size()}, {"median_ms", ms[ms.size() / 2]}, {"max_ms", ms.back()},
                      {"min_ms", ms.front()}};
    }
    return j;
}

double run_batch(kb_context* ctx, const std::vector<Job>& jobs, bool timed, kb::Json* stages, unsigned lanes,
                 StageByVerdict* by_verdict = nullptr) {
    kb_batch* b = nullptr;
    kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
    bo.device_lanes = lanes;
    kb_status s = kb_batch_create(ctx, &bo, &b);
    if (s != KB_OK) die("kb_batch_create", s);
    kb_score_options so = score_options(timed);
    double t0 = now_ms();
    size_t submitted = 0, collected = 0;
    std::map<std::string, double> stage_sum;
    auto collect = [&](double timeout_s) {
        kb_batch_job* job = nullptr;
        kb_status st = kb_batch_next(b, timeout_s, &job);
        if (st == KB_ERR_TIMEOUT || st == KB_ERR_NOT_FOUND) return false;
        if (st != KB_OK) die("kb_batch_next", st);
        const Job& j = jobs[kb_batch_job_tag(job)];
        kb_result* r = nullptr;
        st = kb_batch_job_take_result(job, &r);
        if (st != KB_OK) die("a batch job", st);
        expect(kb_result_verdict(r), j.expect, "batch", kb_result_message(r));
        kb::Json doc = kb::Json::parse(kb_result_json(r));
        for (auto& [k, v] : doc["stages"].items()) stage_sum[k] += v.get<double>();
        if (by_verdict)
            (*by_verdict)[kb_verdict_string(kb_result_verdict(r))].push_back(
                doc["stages"].value("correctness_ms", 0.0));
        kb_result_destroy(r);
        kb_batch_job_destroy(job);
        ++collected;
        return true;
    };
    while (submitted < jobs.size()) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = jobs[submitted].code.c_str();
        s = kb_batch_submit(b, jobs[submitted].task, &c, &so, submitted, 0, nullptr);
        if (s == KB_ERR_TIMEOUT) {  // full: collect one, then try again
            collect(-1);
            continue;
        }
        if (s != KB_OK) die("kb_batch_submit", s);
        ++submitted;
        while (collect(0)) {
        }
    }
    while (collected < jobs.size() && collect(-1)) {
    }
    double elapsed_s = (now_ms() - t0) / 1000.0;
    kb_batch_destroy(b);
    if (collected != jobs.size()) {
        std::fprintf(stderr, "batch: %zu of %zu jobs reported\n", collected, jobs.size());
        std::exit(1);
    }
    if (stages) {
        for (auto& [k, v] : stage_sum) (*stages)[k + "_mean"] = v / double(jobs.size());
    }
    return double(jobs.size()) / elapsed_s;
}

}  // namespace

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 120;
    std::string task_list =
        argc > 2 ? argv[2] : "elementwise/vector_add_f32,softmax/softmax_f32,reductions/sum_f32";
    g_lanes = argc > 3 ? unsigned(std::atoi(argv[3])) : 0;
    int devices = 0;
    kb_device_count(&devices);
    if (devices == 0) {
        std::printf("{\"skipped\": \"no CUDA device\"}\n");
        return 77;
    }
    kb::Json out;
    out["n"] = n;
    out["tasks"] = task_list;
    out["device_lanes_asked"] = g_lanes;

    std::vector<kb_task*> tasks;
    std::vector<std::string> bodies;
    for (const std::string& name : split(task_list, ',')) {
        std::string dir = source_dir() + "/tasks/" + name;
        kb_task* t = nullptr;
        kb_status s = kb_load_task((dir + "/task.json").c_str(), &t);
        if (s != KB_OK) die(name.c_str(), s);
        tasks.push_back(t);
        bodies.push_back(read_file(dir + "/candidates/correct.cu"));
    }
    // Distinct candidates, down to their PTX: an empty kernel of a name of
    // its own. A comment alone would make each source new for kbench's compile
    // cache but leave the PTX the same, and on a host
    // with a GPU NVRTC's cubin would come back from a cache of the CUDA stack
    // (a correct softmax: 14 ms to a cubin, against 70 ms for the PTX's own
    // assembly; bench/nvrtc_cache_probe.cpp measures it), a hit a stream of different
    // answers never gets. KBENCH_BENCH_SAME_PTX=1 makes the comment-only
    // sources, to measure that cache's effect.
    const bool same_ptx = std::getenv("KBENCH_BENCH_SAME_PTX") && std::string(std::getenv("KBENCH_BENCH_SAME_PTX")) == "1";
    out["candidates_distinct_ptx"] = !same_ptx;
    // The run's own number too: the CUDA stack's cache outlives the process.
    const std::string run_tag = std::to_string(static_cast<long long>(now_ms()));
    int serial = 0;
    auto clean_jobs = [&](int count) {
        std::vector<Job> jobs;
        for (int i = 0; i < count; ++i) {
            size_t t = size_t(i) % tasks.size();
            const std::string id = std::to_string(serial++);
            std::string code = "// candidate " + id + "\n" + bodies[t];
            if (!same_ptx) code += "\n__global__ void kbench_bench_distinct_" + run_tag + "_" + id + "() {}\n";
            jobs.push_back({tasks[t], code, KB_VERDICT_PASS});
        }
        return jobs;
    };

    const std::string mode = argc > 4 ? argv[4] : "";
    g_count_mismatches = mode == "mixed";
    double create_ms = 0;
    kb_context* ctx = make_context(0, &create_ms);
    out["context_create_ms"] = create_ms;
    // What the context contains (the library's default: correctness-only
    // builds; $KBENCH_CONTAIN_TRAPS=0 or 1 for none or every build).
    out["containment"] = kb::Json::parse(kb_context_json(ctx)).value("containment", "");
    // Warm: every task's reference compiled and run once, so the figures
    // below are steady state (an RL loop scores thousands per context).
    score_each(ctx, clean_jobs(int(tasks.size())), true);
    // And every lane started: a batch's lanes past the first start their
    // workers (and run the references there) on first use. Warming them here
    // keeps three workers' start-up out of the timed batch below; this warm
    // batch's own rate is reported apart.
    // (0 lanes asks for the library's default, 4: docs/c-api.md.)
    const int warm_jobs = int(tasks.size()) * int(g_lanes ? g_lanes : 4) * 2;
    if (mode == "correctness") {
        out["warm_lanes_correctness_per_s"] = run_batch(ctx, clean_jobs(warm_jobs), false, nullptr, g_lanes);
        kb::Json stages;
        out["batch_correctness_per_s"] = run_batch(ctx, clean_jobs(n), false, &stages, g_lanes);
        out["batch_correctness_stages_ms"] = stages;
        std::printf("%s\n", out.dump().c_str());
        kb_context_destroy(ctx);
        return 0;
    }
    if (mode != "single")
        out["warm_lanes_timed_per_s"] = run_batch(ctx, clean_jobs(warm_jobs), true, nullptr, g_lanes);

    if (mode != "mixed") {  // `mixed`: the mixed streams alone
    int single = std::max(4, n / 4);
    kb::Json single_timed_stages, single_correctness_stages;
    out["single_timed_ms"] = median(score_each(ctx, clean_jobs(single), true, &single_timed_stages));
    out["single_correctness_ms"] = median(score_each(ctx, clean_jobs(single), false, &single_correctness_stages));
    out["single_timed_stages_ms"] = single_timed_stages;
    out["single_correctness_stages_ms"] = single_correctness_stages;
    if (mode == "single") {
        std::printf("%s\n", out.dump().c_str());
        kb_context_destroy(ctx);
        return 0;
    }

    kb::Json timed_stages, correctness_stages;
    out["batch_timed_per_s"] = run_batch(ctx, clean_jobs(n), true, &timed_stages, g_lanes);
    out["batch_correctness_per_s"] = run_batch(ctx, clean_jobs(n), false, &correctness_stages, g_lanes);
    out["batch_correctness_one_lane_per_s"] = run_batch(ctx, clean_jobs(n), false, nullptr, 1);
    out["batch_timed_stages_ms"] = timed_stages;
    out["batch_correctness_stages_ms"] = correctness_stages;
    if (argc > 4 && std::string(argv[4]) == "rates") {
        std::printf("%s\n", out.dump().c_str());
        kb_context_destroy(ctx);
        return 0;
    }

    // A compile error, distinct each time.
    {
        std::vector<Job> bad;
        for (int i = 0; i < std::max(4, n / 10); ++i)
            bad.push_back({tasks[0], "// broken " + std::to_string(i) + "\n__global__ void k(float* x) { x[0] = ; }\n",
                           KB_VERDICT_COMPILE_ERROR});
        out["compile_error_ms"] = median(score_each(ctx, bad, true));
    }
    // A cache hit: the same source compiled again.
    {
        std::vector<double> hit;
        kb_candidate c = KB_CANDIDATE_INIT;
        std::string code = "// cached\n" + bodies[0];
        c.code = code.c_str();
        for (int i = 0; i < 21; ++i) {
            kb_kernel* k = nullptr;
            double t = now_ms();
            kb_status s = kb_compile(ctx, tasks[0], &c, &k);
            if (i > 0) hit.push_back(now_ms() - t);
            if (s != KB_OK) die("kb_compile", s);
            kb_kernel_destroy(k);
        }
        out["cache_hit_compile_ms"] = median(hit);
    }
    // Measurement cost (issue 12): a kernel of a few microseconds (vector_add
    // at its 100003-element case) timed to 1 % relative noise in a 10 ms
    // budget, cold (per-launch events around an L2 flush) and hot (a CUDA
    // graph of back-to-back launches), five times each; and the defaults.
    {
        kb_candidate c = KB_CANDIDATE_INIT;
        std::string code = "// timed\n" + bodies[0];
        c.code = code.c_str();
        kb_kernel* k = nullptr;
        if (kb_compile(ctx, tasks[0], &c, &k) != KB_OK) die("kb_compile (timing cost)", KB_ERR_INTERNAL);
        kb::Json cost = kb::Json::object();
        struct Setting {
            const char* name;
            kb_time_mode mode;
            bool defaults;
        };
        for (const Setting& st : {Setting{"cold_10ms", KB_TIME_COLD, false}, Setting{"hot_10ms", KB_TIME_HOT, false},
                                  Setting{"cold_defaults", KB_TIME_COLD, true}, Setting{"hot_defaults", KB_TIME_HOT, true}}) {
            kb_time_options to = KB_TIME_OPTIONS_INIT;
            to.mode = st.mode;
            to.case_index = 2;
            if (!st.defaults) {
                to.budget_ms = 10;
                to.warmup_ms = 1;
                to.target_rel_noise = 0.01;
            }
            kb::Json runs = kb::Json::array();
            for (int i = 0; i < 5; ++i) {
                kb_result* r = nullptr;
                double t = now_ms();
                kb_status s = kb_time(ctx, tasks[0], k, &to, &r);
                double call_ms = now_ms() - t;
                if (s != KB_OK) die("kb_time", s);
                kb::Json doc = kb::Json::parse(kb_result_json(r));
                kb::Json cand = doc.value("candidate", kb::Json::object());
                kb::Json stats = cand.value("stats", cand);
                runs.push_back({{"mode", doc.value("mode", "")},
                                {"median_us", stats.value("median_us", 0.0)},
                                {"rel_noise", stats.value("rel_noise", 0.0)},
                                {"samples", stats.value("samples", 0)},
                                {"stop_reason", doc.value("stop_reason", "")},
                                {"wall_ms", doc.value("wall_ms", 0.0)},
                                {"call_ms", call_ms},
                                {"launches_per_sample", doc.value("launches_per_sample", 1)}});
                kb_result_destroy(r);
            }
            cost[st.name] = runs;
        }
        kb_kernel_destroy(k);
        out["timing_cost"] = cost;
    }
    }
    kb_context_destroy(ctx);

    // The mixed stream: 10% crash, 2% hang, on a context with kbench's
    // computed deadlines (a hang is stopped by the worker's own watchdog,
    // DeadlinePolicy::kernel), then on one with a fixed 1 s deadline (the
    // figure measured before that watchdog existed).
    std::string crash = read_file(source_dir() + "/tests/adversarial/kernels/illegal_address.cu");
    std::string hang = read_file(source_dir() + "/tests/adversarial/kernels/infinite_loop.cu");
    for (double timeout_s : {0.0, 1.0}) {
        const std::string suffix = timeout_s > 0 ? "_1s" : "";
        kb_context* mctx = make_context(timeout_s, nullptr);
        score_each(mctx, clean_jobs(int(tasks.size())), false);  // warm, as above
        run_batch(mctx, clean_jobs(warm_jobs), false, nullptr, g_lanes);
        std::vector<Job> clean = clean_jobs(n);
        StageByVerdict clean_by, mixed_by;
        double clean_rate = run_batch(mctx, clean, false, nullptr, g_lanes, &clean_by);
        std::vector<Job> mixed = clean_jobs(n);
        int crashes = 0, hangs = 0;
        for (int i = 0; i < n; ++i) {
            // vector_add_f32 (task 0) takes these kernels' signature.
            if (i % 50 == 7) {
                mixed[size_t(i)] = {tasks[0], "// hang " + std::to_string(i) + "\n" + hang, KB_VERDICT_TIMEOUT};
                ++hangs;
            } else if (i % 10 == 3) {
                mixed[size_t(i)] = {tasks[0], "// crash " + std::to_string(i) + "\n" + crash, KB_VERDICT_RUNTIME_ERROR};
                ++crashes;
            }
        }
        double mixed_rate = run_batch(mctx, mixed, false, nullptr, g_lanes, &mixed_by);
        out["mixed_clean_correctness" + suffix] = summary_of(clean_by);
        out["mixed_correctness" + suffix] = summary_of(mixed_by);
        out["mixed_clean_per_s" + suffix] = clean_rate;
        out["mixed_per_s" + suffix] = mixed_rate;
        out["mixed_ratio" + suffix] = mixed_rate / clean_rate;
        out["mixed_crashes" + suffix] = crashes;
        out["mixed_hangs" + suffix] = hangs;
        kb_context_destroy(mctx);
    }
    for (kb_task* t : tasks) kb_task_destroy(t);
    if (g_count_mismatches) out["mismatches"] = g_mismatches;
    std::printf("%s\n", out.dump().c_str());
    return 0;
}
