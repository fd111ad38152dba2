#include "engine/local_backend.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/verdict.h"
#include "task/output_lint.h"
#include "util/error.h"

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Outputs above this many elements are compared on the GPU.
constexpr uint64_t kGpuCompareThreshold = uint64_t(1) << 20;
// Reference statistics look at no more than this many (evenly strided) elements.
constexpr uint64_t kStatsSample = uint64_t(1) << 20;

Json case_json(const Task& t, int case_index, uint64_t seed) {
    const Case& c = t.cases[size_t(case_index)];
    Json dims = Json::object();
    for (const auto& kv : c.dims) dims[kv.first] = kv.second;
    return {{"task", t.name}, {"case", c.name}, {"case_index", case_index}, {"dims", dims}, {"seed", seed}};
}

// Statistics of a reference output, and warnings when the output cannot tell
// right from wrong (task/output_lint.h): a kernel writing zeros, or one
// constant, would pass. `kbench validate` turns them into failures across
// cases and seeds; here they are warnings.
Json reference_output_summary(const HostTensor& t, const Task& task, int case_index, const Arg& arg) {
    const OutputSummary s =
        summarize_output(task, task.cases[size_t(case_index)], arg, t.bytes.data(), t.count(), kStatsSample);
    Json j;
    j["name"] = t.name;
    j["dtype"] = dtype_name(t.dtype);
    j["elements"] = t.count();
    j["min"] = s.min;
    j["max"] = s.max;
    j["mean"] = s.mean;
    j["std"] = s.std;
    j["nan"] = s.nan;
    j["inf"] = s.inf;
    j["sampled"] = s.sampled;
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(s.digest));
    j["digest"] = digest;
    Json warnings = Json::array(), findings = Json::array();
    for (const OutputFinding& f : s.findings) {
        warnings.push_back(f.message);
        findings.push_back({{"kind", finding_kind_name(f.kind)}, {"message", f.message}});
    }
    j["warnings"] = warnings;
    j["findings"] = findings;
    return j;
}

void set_verdict(Json& res, kb_verdict v, const std::string& message) {
    res["verdict"] = verdict_name(v);
    res["message"] = message;
}

}  // namespace

LocalBackend::LocalBackend(int device_ordinal) : dev_(device_ordinal) {}

Json LocalBackend::device_info() {
    Json j = dev_.props().to_json();
    j["isolation"] = "in_process";
    return j;
}

CaseBuffers& LocalBackend::buffers(const TaskPtr& task, int case_index) {
    std::string key = task->hash + "/" + std::to_string(case_index);
    for (auto it = buffers_.begin(); it != buffers_.end(); ++it) {
        if (it->key == key) {
            buffers_.splice(buffers_.begin(), buffers_, it);
            return *buffers_.front().buffers;
        }
    }
    // Two sets at a time: the case in hand and, usually, the perf case.
    while (buffers_.size() >= 2) buffers_.pop_back();
    buffers_.push_front({key, task, std::make_unique<CaseBuffers>(dev_, *task, case_index)});
    return *buffers_.front().buffers;
}

std::shared_ptr<const ReferenceRun> LocalBackend::reference_outputs(const TaskBinding& tb, int case_index,
                                                                    uint64_t seed, bool cache) {
    const Task& task = *tb.task;
    std::string key = ReferenceCache::key(task.hash, case_index, seed);
    if (auto hit = references_.find(key)) return hit;

    dev_.make_current();
    CaseBuffers& bufs = buffers(tb.task, case_index);
    const Program& prog = tb.reference->program;
    const std::string where = "the task's reference at case '" + task.cases[size_t(case_index)].name + "'";
    auto run = std::make_shared<ReferenceRun>();
    try {
        bufs.prepare(seed);
        bufs.reset_scratch(prog, "reference");
        auto mod = modules_.get(dev_, *tb.reference);
        BoundPlan plan = bind_plan(dev_, *mod, prog, bufs, "reference", &builtins_);
        auto t0 = Clock::now();
        plan.enqueue(dev_);
        CUresult r = dev_.sync_raw();
        run->run_ms = ms_since(t0);
        if (r != CUDA_SUCCESS) throw fault_from_cuda(r, where);
    } catch (const KernelFault& f) {
        fail(dev_.lost() ? KB_ERR_CONTEXT_LOST : KB_ERR_REFERENCE_FAILED,
             std::string("the task is broken: ") + f.what());
    }
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output()) run->outputs.push_back(bufs.download(int(i)));
    // The results now live on the host only.
    bufs.scrub("reference");

    Json summary = case_json(task, case_index, seed);
    summary["kind"] = "reference";
    summary["verdict"] = verdict_name(KB_VERDICT_NONE);
    summary["run_ms"] = run->run_ms;
    Json outs = Json::array();
    Json warnings = Json::array();
    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i) {
        if (!task.args[i].is_output()) continue;
        Json o = reference_output_summary(run->outputs[k++], task, case_index, task.args[i]);
        for (const auto& w : o["warnings"]) warnings.push_back(w);
        outs.push_back(o);
    }
    summary["outputs"] = outs;
    summary["warnings"] = warnings;
    summary["message"] = warnings.empty() ? "reference ran; outputs look discriminating"
                                          : warnings[0].get<std::string>();
    run->summary = summary;
    if (cache) references_.put(key, run);
    return run;
}

Json LocalBackend::run_reference(const TaskBinding& tb, int case_index, uint64_t seed) {
    return reference_outputs(tb, case_index, seed)->summary;
}

std::vector<HostTensor> LocalBackend::inputs(const TaskBinding& tb, int case_index, uint64_t seed) {
    dev_.make_current();
    CaseBuffers& bufs = buffers(tb.task, case_index);
    bufs.prepare(seed);
    std::vector<HostTensor> out;
    for (size_t i = 0; i < tb.task->args.size(); ++i)
        if (tb.task->args[i].is_input()) out.push_back(bufs.download(int(i)));
    return out;
}

OutputReport LocalBackend::compare_output(CaseBuffers& bufs, int arg_index, const HostTensor& ref) {
    const Arg& arg = bufs.task().args[size_t(arg_index)];
    uint64_t n = bufs.count(arg_index);
    if (n <= kGpuCompareThreshold) return compare_host(bufs.download(arg_index), ref, arg);

    // Large: the reference goes up to a staging buffer only now, after the
    // candidate has finished, and is scrubbed again right after.
    if (!staging_ || staging_.bytes() < ref.bytes.size()) staging_ = dev_.alloc(ref.bytes.size());
    dev_.upload(staging_.data(), ref.bytes.data(), ref.bytes.size());
    CompareStats s = dev_.compare(bufs.arg(arg_index).data(), staging_.data(), n, arg.dtype, tolerance_for(arg));
    dev_.poison(staging_.data(), n, arg.dtype);
    OutputReport r;
    r.name = arg.name;
    r.dtype = arg.dtype;
    r.exact = !dtype_is_float(arg.dtype);
    r.tolerance = tolerance_for(arg);
    r.elements = n;
    r.mismatches = s.mismatches;
    r.unwritten = s.unwritten;
    r.max_abs_err = s.max_abs_err;
    r.max_rel_err = s.max_rel_err;
    r.max_violation = s.max_violation;
    r.worst_flat = s.worst_index;
    r.compared_on = "gpu";
    uint64_t bits = 0;
    size_t size = dtype_size(arg.dtype);
    dev_.download(&bits, bufs.arg(arg_index).data() + r.worst_flat * size, size);
    describe_worst(r, ref, load_as_double(&bits, arg.dtype, 0));
    return r;
}

Json LocalBackend::compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                           unsigned runs) {
    const Task& task = *tb.task;
    auto t0 = Clock::now();
    dev_.make_current();
    dev_.throw_if_lost();
    auto ref = reference_outputs(tb, case_index, seed);
    const std::string case_name = task.cases[size_t(case_index)].name;

    Json res = case_json(task, case_index, seed);
    res["kind"] = "compare";
    res["kernel"] = kernel->label;
    CaseBuffers& bufs = buffers(tb.task, case_index);
    std::vector<HostTensor> first_outputs;
    bool deterministic = true;
    runs = std::max(1u, runs);
    for (unsigned run = 0; run < runs; ++run) {
        bufs.prepare(seed);
        bufs.reset_scratch(kernel->program, "candidate");
        bufs.arm_guards();
        std::vector<uint64_t> before = bufs.input_checksums();
        try {
            auto mod = modules_.get(dev_, *kernel);
            BoundPlan plan = bind_plan(dev_, *mod, kernel->program, bufs, "candidate", &builtins_);
            plan.enqueue(dev_);
            CUresult r = dev_.sync_raw();
            if (r != CUDA_SUCCESS) throw fault_from_cuda(r, "the run at case '" + case_name + "'");
        } catch (const KernelFault& f) {
            set_verdict(res, f.verdict(), f.what());
            if (dev_.lost()) res["context_lost"] = true;
            res["run_ms"] = ms_since(t0);
            return res;
        }

        std::vector<uint64_t> after = bufs.input_checksums();
        std::vector<std::string> modified;
        for (size_t i = 0, k = 0; i < task.args.size(); ++i)
            if (task.args[i].role == Role::in) {
                if (before[k] != after[k]) modified.push_back(task.args[i].name);
                ++k;
            }
        auto breaches = bufs.check_guards();

        // Run 0 is always judged. A later run on the same inputs is judged too
        // when its outputs differ from run 0's (or it broke a guard or an
        // input): a race that is right only some of the time must fail, not
        // merely be reported as nondeterministic.
        bool judge = run == 0 || !modified.empty() || !breaches.empty();
        if (run > 0) {
            size_t k = 0;
            bool same = true;
            for (size_t i = 0; i < task.args.size(); ++i) {
                if (!task.args[i].is_output()) continue;
                if (bufs.download(int(i)).bytes != first_outputs[k++].bytes) same = false;
            }
            if (!same || judge) deterministic = false;
            judge = judge || !same;
        }
        if (judge) {
            Json cur;
            Json outs = Json::array();
            std::string first_bad;
            kb_verdict v = KB_VERDICT_PASS;
            uint64_t unwritten = 0, wrong = 0;
            size_t k = 0;
            for (size_t i = 0; i < task.args.size(); ++i) {
                if (!task.args[i].is_output()) continue;
                OutputReport rep = compare_output(bufs, int(i), ref->outputs[k++]);
                outs.push_back(rep.to_json());
                if (!rep.ok() && first_bad.empty()) first_bad = rep.describe();
                unwritten += rep.unwritten;
                wrong += rep.mismatches;
            }
            cur["outputs"] = outs;
            cur["inputs_unchanged"] = modified.empty();
            cur["guards_intact"] = breaches.empty();
            std::string msg;
            if (!breaches.empty()) {
                const auto& b = breaches.front();
                v = KB_VERDICT_OUT_OF_BOUNDS_WRITE;
                msg = "the kernel wrote outside buffer '" + b.buffer + "' (" + std::to_string(b.report.bad_bytes) +
                      " guard bytes changed, the first at byte offset " + std::to_string(b.report.first_bad_offset) +
                      " from its start) at case '" + case_name + "'; check index bounds";
                Json bj = Json::array();
                for (const auto& x : breaches)
                    bj.push_back({{"buffer", x.buffer}, {"bytes_changed", x.report.bad_bytes},
                                  {"first_offset", x.report.first_bad_offset}});
                cur["guard_breaches"] = bj;
            } else if (!modified.empty()) {
                v = KB_VERDICT_INPUT_MODIFIED;
                std::string names;
                for (const auto& m : modified) names += (names.empty() ? "'" : ", '") + m + "'";
                msg = "the kernel modified input buffer(s) " + names + " at case '" + case_name +
                      "'; inputs declared `in` must be left unchanged";
                cur["inputs_modified"] = modified;
            } else if (unwritten > 0) {
                v = KB_VERDICT_OUTPUT_NOT_WRITTEN;
                msg = first_bad + " at case '" + case_name + "'";
            } else if (wrong > 0) {
                v = KB_VERDICT_WRONG_ANSWER;
                msg = first_bad + " at case '" + case_name + "'";
            } else {
                msg = "all outputs match at case '" + case_name + "'";
            }
            if (run == 0 || v != KB_VERDICT_PASS) {
                for (auto it = cur.begin(); it != cur.end(); ++it) res[it.key()] = it.value();
                if (run > 0) {
                    msg = "on run " + std::to_string(run + 1) + " of " + std::to_string(runs) +
                          " on the same inputs (the first run passed): " + msg;
                    res["failed_run"] = run + 1;
                }
                set_verdict(res, v, msg);
            }
            if (v != KB_VERDICT_PASS) break;  // a failed run needs no determinism check
            if (run == 0 && runs > 1)
                for (size_t i = 0; i < task.args.size(); ++i)
                    if (task.args[i].is_output()) first_outputs.push_back(bufs.download(int(i)));
        }
    }
    if (runs > 1) {
        res["runs"] = runs;
        res["deterministic"] = deterministic;
        if (!deterministic && res["verdict"] == "pass") {
            if (task.policy.deterministic)
                set_verdict(res, KB_VERDICT_NONDETERMINISTIC,
                            "repeated runs on the same inputs at case '" + case_name +
                                "' gave different outputs, and the task requires bit-identical results (a race, "
                                "or atomics whose order varies)");
            else
                res["message"] = res["message"].get<std::string>() +
                                 " (note: repeated runs gave different bits; the task allows that)";
        }
    }
    res["run_ms"] = ms_since(t0);
    return res;
}

Json LocalBackend::time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) {
    const Task& task = *tb.task;
    dev_.make_current();
    dev_.throw_if_lost();
    int case_index = req.case_index < 0 ? task.perf_index : req.case_index;
    const Case& c = task.cases[size_t(case_index)];
    CaseBuffers& bufs = buffers(tb.task, case_index);
    // Timing inputs come from their own seed; correctness is checked elsewhere.
    const uint64_t kTimingSeed = 0x74696d65;  // "time"
    bufs.prepare(kTimingSeed);

    Json res = case_json(task, case_index, kTimingSeed);
    res["kind"] = "time";
    res["mode"] = req.timing.hot ? "hot" : "cold";
    res["verdict"] = verdict_name(KB_VERDICT_NONE);

    struct Timed {
        std::string role;
        KernelPtr kernel;
        BoundPlan plan;
    };
    std::vector<Timed> timed;
    if (kernel) timed.push_back({"candidate", kernel, {}});
    if (!kernel || req.against_baseline) timed.push_back({"baseline", tb.baseline, {}});

    TimingRun run;
    try {
        std::vector<std::function<void()>> plans;
        for (Timed& t : timed) {
            // The role doubles as the scratch key: candidate and baseline keep their own scratch.
            bufs.reset_scratch(t.kernel->program, t.role);
            auto mod = modules_.get(dev_, *t.kernel);
            t.plan = bind_plan(dev_, *mod, t.kernel->program, bufs, t.role, &builtins_);
        }
        for (Timed& t : timed) plans.push_back([this, &t] { t.plan.enqueue(dev_); });
        run = measure_plans(dev_, plans, req.timing);
    } catch (const KernelFault& f) {
        set_verdict(res, f.verdict(), std::string("while timing: ") + f.what());
        if (dev_.lost()) res["context_lost"] = true;
        return res;
    }

    double flops = task.flops ? double(task.flops->eval(c.dims)) : 0.0;
    double bytes = task.bytes ? double(task.bytes->eval(c.dims)) : 0.0;
    for (size_t i = 0; i < timed.size(); ++i) {
        Json s = run.stats[i].to_json("us");
        double sec = run.stats[i].median * 1e-6;
        if (bytes > 0 && sec > 0) s["gbps"] = bytes / sec / 1e9;
        if (flops > 0 && sec > 0) s["tflops"] = flops / sec / 1e12;
        s["kernel"] = timed[i].kernel->label;
        res[timed[i].role] = s;
    }
    if (timed.size() == 2 && run.stats[0].median > 0) {
        std::vector<double> ratios;
        for (double r : run.round_ratios) ratios.push_back(1.0 / r);  // baseline / candidate per round
        SampleStats rs = summarize(ratios);
        res["speedup"] = run.stats[1].median / run.stats[0].median;
        res["speedup_p10"] = rs.p10;
        res["speedup_p90"] = rs.p90;
    }
    if (run.hot_launches_per_sample > 1) res["launches_per_sample"] = run.hot_launches_per_sample;
    res["sm_clock_start_mhz"] = run.sm_clock_start_mhz;
    res["sm_clock_end_mhz"] = run.sm_clock_end_mhz;
    res["sm_clock_rated_mhz"] = dev_.props().clock_rate_khz / 1000.0;
    res["throttled"] = run.throttled;
    res["stop_reason"] = run.stop_reason;
    res["wall_ms"] = run.wall_ms;
    std::string msg;
    if (kernel) {
        msg = "candidate median " + std::to_string(run.stats[0].median) + " us";
        if (timed.size() == 2)
            msg += ", baseline " + std::to_string(run.stats[1].median) + " us, speedup " +
                   std::to_string(res["speedup"].get<double>()) + "x";
    } else {
        msg = "baseline median " + std::to_string(run.stats[0].median) + " us";
    }
    if (run.throttled) msg += " (the GPU was throttling: clocks fell during the run)";
    res["message"] = msg;
    return res;
}

}  // namespace kb
