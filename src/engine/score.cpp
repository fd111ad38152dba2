// kb_score: the whole verdict in one call, as an RL loop wants it.
//
//   compile -> every correctness case (perf case last) -> timing interleaved
//   with the baseline -> recheck on fresh inputs from a secret seed -> verdict
//
// The first failure ends the score; the result keeps everything learnt up to
// it (compile facts, the cases that passed, timing), so nothing computed is lost.
#include <chrono>
#include <random>

#include "engine/context.h"
#include "engine/verdict.h"
#include "util/error.h"

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// A seed the candidate cannot know or have seen: not the default, not the
// caller's, drawn from the OS.
uint64_t secret_seed(uint64_t avoid) {
    std::random_device rd;
    for (;;) {
        uint64_t s = (uint64_t(rd()) << 32) ^ rd();
        if (s != 0 && s != avoid && s != kDefaultSeed) return s;
    }
}

// Correctness runs at a case when the caller leaves it to kbench: two where a
// run is cheap (the case's buffers total at most 64 MiB), so that a race
// that is right only some of the time, or nondeterminism the task forbids,
// has a chance to show; one at larger cases (usually the perf case alone),
// where a second run would cost more than the check is worth.
unsigned default_runs(const Task& t, size_t case_index) {
    constexpr uint64_t kCheapBytes = uint64_t(64) << 20;
    uint64_t bytes = 0;
    for (const Arg& a : t.args)
        if (a.is_buffer())
            bytes += uint64_t(element_count(a.shape, t.cases[case_index].dims, a.name)) * dtype_size(a.dtype);
    return bytes <= kCheapBytes ? 2 : 1;
}

void finish(Json& res, kb_verdict v, const std::string& message, Clock::time_point t0) {
    res["verdict"] = verdict_name(v);
    res["message"] = message;
    res["elapsed_ms"] = ms_since(t0);
}

}  // namespace

Json Context::score(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts) {
    auto t0 = Clock::now();
    const Task& t = *task;
    uint64_t seed = opts.seed ? opts.seed : kDefaultSeed;
    Json res;
    res["kind"] = "score";
    res["task"] = t.name;
    res["seed"] = seed;

    // 1. Compile. A bad plan or code is the candidate's failure, not an API error.
    KernelPtr kernel;
    std::string label;
    try {
        Program p = resolve_candidate(t, in, &label);
        res["candidate"] = label;
        kernel = compile(t, p, label);
    } catch (const CompileError& e) {
        res["candidate"] = label;
        res["compile"] = {{"ok", false}, {"summary", e.what()}, {"log", e.log()}};
        finish(res, KB_VERDICT_COMPILE_ERROR, e.what(), t0);
        return res;
    } catch (const Error& e) {
        if (e.status() != KB_ERR_TASK_INVALID) throw;
        res["candidate"] = label;
        res["compile"] = {{"ok", false}, {"summary", e.what()}};
        finish(res, KB_VERDICT_LAUNCH_ERROR, std::string("the candidate's launch plan is invalid: ") + e.what(), t0);
        return res;
    }
    Json info = kernel->info();
    info["ok"] = true;
    info["log"] = kernel->image.log;
    res["compile"] = info;

    // 2. Correctness on every case, the perf case last.
    Backend& b = backend();
    TaskBinding tb = bind(task);
    Json cases = Json::array();
    for (size_t i = 0; i < t.cases.size(); ++i) {
        unsigned runs = opts.correctness_runs ? opts.correctness_runs : default_runs(t, i);
        Json r = b.compare(tb, kernel, int(i), seed, runs);
        cases.push_back(r);
        res["cases"] = cases;
        kb_verdict v = verdict_from_name(r.value("verdict", "none"));
        if (v != KB_VERDICT_PASS) {
            finish(res, v, r.value("message", ""), t0);
            return res;
        }
    }

    // 3. Timing, interleaved with the baseline.
    if (!opts.skip_timing) {
        TimeRequest tr = opts.timing;
        tr.against_baseline = true;
        Json timing = b.time(tb, kernel, tr);
        res["timing"] = timing;
        kb_verdict v = verdict_from_name(timing.value("verdict", "none"));
        if (v != KB_VERDICT_NONE && v != KB_VERDICT_PASS) {
            finish(res, v, timing.value("message", ""), t0);
            return res;
        }
        if (timing.contains("speedup")) res["speedup"] = timing["speedup"];
    }

    // 4. Recheck on fresh inputs: a kernel that caches results across calls
    //    (in a __device__ global, say) fails here.
    if (opts.recheck) {
        uint64_t secret = secret_seed(seed);
        Json r = b.compare(tb, kernel, t.perf_index, secret, 1);
        r["seed"] = "secret";  // the verdict may not leak the seed it was drawn with
        res["recheck"] = r;
        kb_verdict v = verdict_from_name(r.value("verdict", "none"));
        if (v != KB_VERDICT_PASS) {
            finish(res, v, "after timing, on fresh inputs: " + r.value("message", ""), t0);
            return res;
        }
    }

    std::string msg = "correct on all " + std::to_string(t.cases.size()) + " cases";
    if (res.contains("speedup")) {
        const Json& tm = res["timing"];
        char buf[256];
        std::snprintf(buf, sizeof buf, "; %.3fx the baseline (candidate %.2f us, baseline %.2f us, median)",
                      res["speedup"].get<double>(), tm["candidate"]["median_us"].get<double>(),
                      tm["baseline"]["median_us"].get<double>());
        msg += buf;
    }
    finish(res, KB_VERDICT_PASS, msg, t0);
    return res;
}

}  // namespace kb
