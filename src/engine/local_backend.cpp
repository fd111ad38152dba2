#include "engine/local_backend.h"

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "compare/judge.h"
#include "compiler/trap_containment.h"
#include "engine/reference_output.h"
#include "engine/verdict.h"
#include "exec/run_guarded.h"
#include "util/error.h"
#include "util/clock.h"
#include "util/profile.h"

namespace kb {
namespace {

using Clock = SteadyClock;

// Timing inputs come from their own seed; correctness is checked elsewhere.
constexpr uint64_t kTimingSeed = 0x74696d65;  // "time"

}  // namespace

LocalBackend::LocalBackend(int device_ordinal) : dev_(device_ordinal), comparer_(dev_) {
    const char* rerun = std::getenv("KBENCH_REFERENCE_RERUN");
    rerun_enabled_ = !(rerun && std::string(rerun) == "0");
}

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
    KB_PROFILE_SPAN("local.buffers_miss");
    // Every case of the tasks in hand stays allocated (a score visits each,
    // then the perf case again for timing and the recheck): allocating,
    // arming and freeing them per visit cost more than the runs of small
    // kernels. Bounded by bytes and count; the least recently used go first.
    // The count is no tighter than the bytes for a batch over a few tasks:
    // with 8 sets, a batch over the bench's three tasks (20 cases) frees and
    // makes a set at up to half its compares, each with an input checksum
    // waiting for the device (`kbench_batch_bench`). The count still
    // bounds what the bytes do not see (scratch, guard zones).
    constexpr size_t kMaxSets = 64;
    constexpr uint64_t kMaxBytes = uint64_t(2) << 30;
    const uint64_t bytes = case_buffer_bytes(*task, case_index);
    uint64_t held = 0;
    for (const BufferEntry& e : buffers_) held += e.bytes;
    while (!buffers_.empty() && (buffers_.size() >= kMaxSets || held + bytes > kMaxBytes)) {
        held -= buffers_.back().bytes;
        buffers_.pop_back();
    }
    std::unique_ptr<CaseBuffers> made;
    try {
        made = std::make_unique<CaseBuffers>(dev_, *task, case_index);
    } catch (const Error& e) {
        // Sets kept for later cases may be what fills the device: free them
        // and try once more before the case counts as too large.
        if (e.status() != KB_ERR_OUT_OF_MEMORY || buffers_.empty()) throw;
        buffers_.clear();
        made = std::make_unique<CaseBuffers>(dev_, *task, case_index);
    }
    ++buffer_sets_made_;
    buffers_.push_front({key, task, std::move(made), bytes});
    return *buffers_.front().buffers;
}

std::shared_ptr<const ReferenceRun> LocalBackend::reference_outputs(const TaskBinding& tb, int case_index,
                                                                    uint64_t seed, bool cache, bool gpu_outputs) {
    KB_PROFILE_SPAN("local.reference_outputs");
    const Task& task = *tb.task;
    std::string key = ReferenceCache::key(task.hash, case_index, seed);
    if (auto hit = references_.find(key)) {
        if (hit->gpu_outputs_held || !gpu_outputs) return hit;
        // Held without the outputs asked for (a digest, or an earlier run
        // here): run it again, copying them.
        references_.erase(key);
    }

    dev_.make_current();
    CaseBuffers& bufs = buffers(tb.task, case_index);
    const std::string where = "the task's reference at case '" + task.cases[size_t(case_index)].name + "'";
    KB_PROFILE_SPAN("local.reference_run_miss");
    auto run = std::make_shared<ReferenceRun>();
    try {
        BoundPlan plan = bind_reference(tb, bufs, seed);
        auto t0 = Clock::now();
        plan.enqueue(dev_);
        CUresult r = dev_.sync_raw();
        run->run_ms = ms_since(t0);
        if (r != CUDA_SUCCESS) throw fault_from_cuda(r, where);
    } catch (const KernelFault& f) {
        fail(dev_.lost() ? KB_ERR_CONTEXT_LOST : KB_ERR_REFERENCE_FAILED,
             std::string("the task is broken: ") + f.what());
    }
    // What a rerun on the device must reproduce to stand in for these outputs.
    run->device_checksums = dev_.post_run_checks(gpu_compared_outputs(bufs), {}).checksums;
    // Every comparison will run it again on the device for the large outputs
    // (rerun_for): a host copy would only be read if a rerun differed.
    run->gpu_outputs_held = keep_gpu_outputs_ || gpu_outputs || !rerun_enabled_ || run->device_checksums.empty() ||
                            !rerun_pays(bufs, *run);
    for (size_t i = 0; i < task.args.size(); ++i) {
        if (!task.args[i].is_output()) continue;
        run->outputs.push_back(!run->gpu_outputs_held && compared_on_gpu(bufs.count(int(i))) ? bufs.tensor_of(int(i))
                                                                                             : bufs.download(int(i)));
    }
    // The results now live on the host only.
    bufs.scrub("reference");
    if (cache) references_.put(key, run);
    return run;
}

BoundPlan LocalBackend::bind_reference(const TaskBinding& tb, CaseBuffers& bufs, uint64_t seed) {
    const Program& prog = tb.reference->program;
    bufs.prepare(seed);
    bufs.reset_scratch(prog, "reference");
    auto mod = modules_.get(dev_, *tb.reference);
    return bind_plan(dev_, *mod, prog, bufs, "reference", &builtins_);
}

std::vector<Device::Range> LocalBackend::gpu_compared_outputs(CaseBuffers& bufs) const {
    std::vector<Device::Range> out;
    const Task& task = bufs.task();
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output() && compared_on_gpu(bufs.count(int(i))))
            out.push_back({bufs.arg(int(i)).data(), bufs.arg(int(i)).bytes()});
    return out;
}

bool LocalBackend::rerun_pays(CaseBuffers& bufs, const ReferenceRun& ref) const {
    // Worth it when running the reference again costs less than uploading its
    // outputs: at about 20 GB/s (pinned, PCIe 5) against the reference's own
    // measured run (regenerating the inputs runs at device-memory speed, tens
    // of times faster than the upload). A slow reference (a naive GEMM at a
    // large size) keeps the upload.
    constexpr double kUploadBytesPerMs = 20e6;
    size_t upload_bytes = 0;
    for (const Device::Range& r : gpu_compared_outputs(bufs)) upload_bytes += r.bytes;
    return ref.run_ms < double(upload_bytes) / kUploadBytesPerMs;
}

std::optional<ReferenceRerun> LocalBackend::rerun_for(const TaskBinding& tb, CaseBuffers& bufs, uint64_t seed,
                                                      const ReferenceRun& ref) {
    if (!rerun_enabled_ || ref.rerun_differs || ref.device_checksums.empty() || !rerun_pays(bufs, ref))
        return std::nullopt;
    ReferenceRerun rr;
    rr.run = [this, &tb, &bufs, seed, &ref] {
        KB_PROFILE_SPAN("local.reference_rerun");
        bool same = false;
        try {
            bind_reference(tb, bufs, seed).enqueue(dev_);
            same = dev_.post_run_checks(gpu_compared_outputs(bufs), {}).checksums == ref.device_checksums;
        } catch (const KernelFault&) {
            same = false;
        }
        if (!same) ref.rerun_differs = true;
        if (!same && !ref.gpu_outputs_held) {
            // No host copy to upload instead: the rerun's results off the
            // device, and the request again with the reference run here.
            if (!dev_.lost()) bufs.scrub("reference");
            give_up_digest(*tb.task, bufs.case_index(), seed,
                           ref.from_digest ? "run again did not reproduce the checksums of the run an earlier worker made"
                                           : "run again did not reproduce the checksums of its first run");
        }
        return same;
    };
    rr.scrub = [&bufs] { bufs.scrub("reference"); };
    return rr;
}

void LocalBackend::give_up_digest(const Task& task, int case_index, uint64_t seed, const std::string& why) {
    const std::string key = ReferenceCache::key(task.hash, case_index, seed);
    forget_reference(key);
    throw ReferenceNotReproduced(key, "the reference at case '" + task.cases[size_t(case_index)].name + "' " + why);
}

void LocalBackend::pin_for_upload(const ReferenceRun& run) {
    // Outputs big enough to be compared on the GPU, where the reference is not
    // run again on the device, are uploaded for every candidate: pinned, that
    // copy runs several times faster. But pinning costs too (35 ms a time in
    // a `kbench run` profile), and many references are compared
    // once: a task seen once, a worker replaced after a crash. So the pages
    // are locked at the second upload, when the reference has shown it is in
    // use.
    constexpr size_t kPinBytes = size_t(4) << 20;
    if (++run.comparisons != 2) return;
    for (const HostTensor& t : run.outputs)
        if (t.bytes.size() >= kPinBytes)
            if (HostPin p = dev_.pin(const_cast<uint8_t*>(t.bytes.data()), t.bytes.size()))
                run.pins.push_back(std::move(p));
}

std::optional<ReferenceDigest> LocalBackend::reference_digest(const TaskBinding& tb, int case_index, uint64_t seed) {
    const Task& task = *tb.task;
    auto run = references_.find(ReferenceCache::key(task.hash, case_index, seed));
    if (!run || run->from_digest) return std::nullopt;
    dev_.make_current();
    CaseBuffers& bufs = buffers(tb.task, case_index);
    // Large outputs are left out, so a comparison must be able to rerun the
    // reference in their place, as rerun_for decides.
    if (!run->device_checksums.empty() && (!rerun_enabled_ || run->rerun_differs || !rerun_pays(bufs, *run)))
        return std::nullopt;
    ReferenceDigest d;
    d.run_ms = run->run_ms;
    d.device_checksums = run->device_checksums;
    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i) {
        if (!task.args[i].is_output()) continue;
        const HostTensor& out = run->outputs.at(k++);
        d.host_outputs.push_back(compared_on_gpu(bufs.count(int(i))) ? std::vector<uint8_t>() : out.bytes);
    }
    return d;
}

void LocalBackend::install_reference(const TaskBinding& tb, int case_index, uint64_t seed, ReferenceDigest digest) {
    const Task& task = *tb.task;
    const std::string where = "the reference digest for task '" + task.name + "' at case '" +
                              task.cases[size_t(case_index)].name + "'";
    dev_.make_current();
    CaseBuffers& bufs = buffers(tb.task, case_index);
    auto run = std::make_shared<ReferenceRun>();
    run->run_ms = digest.run_ms;
    run->device_checksums = std::move(digest.device_checksums);
    run->from_digest = true;
    run->gpu_outputs_held = false;
    size_t k = 0, on_gpu = 0;
    for (size_t i = 0; i < task.args.size(); ++i) {
        if (!task.args[i].is_output()) continue;
        if (k >= digest.host_outputs.size())
            fail(KB_ERR_WORKER, where + " has " + std::to_string(digest.host_outputs.size()) +
                                    " outputs, fewer than the task: a host of another build?");
        HostTensor t = bufs.tensor_of(int(i));
        std::vector<uint8_t>& bytes = digest.host_outputs[k++];
        if (compared_on_gpu(bufs.count(int(i)))) {
            ++on_gpu;
            if (!bytes.empty()) fail(KB_ERR_WORKER, where + " carries the bytes of '" + t.name + "', a large output");
        } else {
            const size_t want = bufs.count(int(i)) * dtype_size(t.dtype);
            if (bytes.size() != want)
                fail(KB_ERR_WORKER, where + " carries " + std::to_string(bytes.size()) + " bytes of '" + t.name +
                                        "', not " + std::to_string(want));
            t.bytes = std::move(bytes);
        }
        run->outputs.push_back(std::move(t));
    }
    if (k != digest.host_outputs.size() || on_gpu != run->device_checksums.size())
        fail(KB_ERR_WORKER, where + " does not match the task's outputs (" + std::to_string(digest.host_outputs.size()) +
                                " outputs, " + std::to_string(run->device_checksums.size()) + " checksums)");
    references_.put(ReferenceCache::key(task.hash, case_index, seed), run);
}

ReferenceResult LocalBackend::reference_run_time(const TaskBinding& tb, int case_index, uint64_t seed,
                                                 bool gpu_outputs) {
    auto run = reference_outputs(tb, case_index, seed, true, gpu_outputs);
    ReferenceResult r;
    r.where = case_info(*tb.task, case_index, seed);
    r.run_ms = run->run_ms;
    r.message = "reference ran; its outputs are kept for the comparisons (no statistics were asked for)";
    return r;
}

ReferenceResult LocalBackend::run_reference(const TaskBinding& tb, int case_index, uint64_t seed) {
    const Task& task = *tb.task;
    // The statistics read every output, those compared on the GPU too.
    auto run = reference_outputs(tb, case_index, seed, true, true);
    ReferenceResult r;
    r.where = case_info(task, case_index, seed);
    r.run_ms = run->run_ms;
    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i) {
        if (!task.args[i].is_output()) continue;
        ReferenceOutput o = reference_output(run->outputs[k++], task, case_index, task.args[i]);
        for (const ReferenceOutput::Finding& f : o.findings) r.warnings.push_back(f.message);
        r.outputs.push_back(std::move(o));
    }
    r.message = r.warnings.empty() ? "reference ran; outputs look discriminating" : r.warnings[0];
    return r;
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

CompareResult LocalBackend::compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                    unsigned runs) {
    KernelLimit checked;
    checked.checked_build = true;
    return compare(tb, kernel, case_index, seed, runs, checked);
}

CompareResult LocalBackend::recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) {
    return compare(tb, kernel, case_index, seed, 1, KernelLimit{});
}

CompareResult LocalBackend::compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                    unsigned runs, const KernelLimit& limit) {
    KB_PROFILE_SPAN("local.compare");
    const Task& task = *tb.task;
    auto t0 = Clock::now();
    dev_.make_current();
    dev_.throw_if_lost();
    auto ref = reference_outputs(tb, case_index, seed);
    CaseBuffers& bufs = buffers(tb.task, case_index);
    // Large outputs are compared against the reference run again on the
    // device where that is cheaper than uploading them; else uploaded, from
    // pinned pages once the reference is in use.
    std::optional<ReferenceRerun> rerun = rerun_for(tb, bufs, seed, *ref);
    if (!rerun && !ref->gpu_outputs_held && !gpu_compared_outputs(bufs).empty())
        // Nothing to upload for the outputs compared on the GPU (a rerun
        // failed for this reference once already): run it here.
        give_up_digest(task, case_index, seed,
                       ref->from_digest ? "held from an earlier worker's digest cannot be run again here"
                                        : "held without its large outputs cannot be run again here");
    if (!rerun) pin_for_upload(*ref);
    JudgeRules rules{task.cases[size_t(case_index)].name, task.policy.deterministic};

    // Run, observe, and stop at the first run the judge fails. A later run's
    // outputs are compared only when they differ from the first run's (or it
    // broke a guard or an input): identical bits need no second comparison.
    std::vector<RunObservation> seen;
    std::vector<HostTensor> first_outputs;
    // Outputs compared on the host come back with the run's checks, under
    // its one synchronisation; larger ones stay on the device.
    const std::vector<int> read_back = OutputComparer::compared_on_host(bufs);
    auto output_of = [&bufs](GuardedRun& g, int i) {
        auto it = g.outputs.find(i);
        return it != g.outputs.end() ? std::move(it->second) : bufs.download(i);
    };
    runs = std::max(1u, runs);
    for (unsigned run = 0; run < runs; ++run) {
        KB_PROFILE_SPAN("local.compare.run");
        GuardedRun g = run_guarded(dev_, modules_, bufs, *kernel, seed, "candidate", &builtins_, limit, read_back);
        RunObservation obs = observation_of(g);
        if (!obs.fault) {
            if (run > 0) {
                size_t k = 0;
                for (size_t i = 0; i < task.args.size() && obs.identical_to_first; ++i) {
                    if (!task.args[i].is_output()) continue;
                    auto it = g.outputs.find(int(i));
                    if (it != g.outputs.end()) obs.identical_to_first = it->second.bytes == first_outputs[k].bytes;
                    else obs.identical_to_first = bufs.download(int(i)).bytes == first_outputs[k].bytes;
                    ++k;
                }
            }
            KB_PROFILE_SPAN("local.compare.outputs");
            if (run == 0 || needs_comparison(obs))
                obs.outputs = comparer_.compare_all(bufs, ref->outputs, rerun && !ref->rerun_differs ? &*rerun : nullptr,
                                                    g.outputs);
        }
        seen.push_back(std::move(obs));
        if (judge_run(seen.back(), rules).verdict != KB_VERDICT_PASS) break;
        if (run == 0 && runs > 1)
            for (size_t i = 0; i < task.args.size(); ++i)
                if (task.args[i].is_output()) first_outputs.push_back(output_of(g, int(i)));
    }
    Judgement j = judge_runs(seen, rules);

    CompareResult res;
    res.where = case_info(task, case_index, seed);
    res.kernel = kernel->label;
    res.verdict = j.verdict;
    res.message = j.message;
    const RunObservation& judged = seen[j.judged_run];
    res.observed = !judged.fault;
    if (res.observed) {
        res.outputs = judged.outputs;
        res.inputs_modified = judged.inputs_modified;
        res.inputs_unchanged = judged.inputs_modified.empty();
        res.guard_breaches = judged.breaches;
        res.guards_intact = judged.breaches.empty();
    }
    res.runs = runs;
    res.deterministic = j.deterministic;
    res.failed_run = j.failed_run;
    res.context_lost = j.context_lost;
    res.run_ms = ms_since(t0);
    return res;
}

void LocalBackend::launch_external(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x) {
    dev_.throw_if_lost();
    external_.launch(*kernel, task, x);
}

TimeResult LocalBackend::time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) {
    KB_PROFILE_SPAN("local.time");
    const Task& task = *tb.task;
    dev_.make_current();
    dev_.throw_if_lost();
    int case_index = req.case_index < 0 ? task.perf_index : req.case_index;
    const Case& c = task.cases[size_t(case_index)];
    CaseBuffers& bufs = buffers(tb.task, case_index);
    bufs.prepare(kTimingSeed);

    TimeResult res;
    res.where = case_info(task, case_index, kTimingSeed);
    res.hot = req.timing.hot;

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
        CUdeviceptr trap_flag = 0;  // the candidate's contained traps (compiler/trap_containment.h)
        for (Timed& t : timed) {
            // The role doubles as the scratch key: candidate and baseline keep their own scratch.
            bufs.reset_scratch(t.kernel->program, t.role);
            auto mod = modules_.get(dev_, *t.kernel);
            t.plan = bind_plan(dev_, *mod, t.kernel->program, bufs, t.role, &builtins_);
            if (t.role == "candidate") trap_flag = mod->trap_flag();
        }
        for (Timed& t : timed) plans.push_back([this, &t] { t.plan.enqueue(dev_); });
        if (trap_flag) dev_.fill_bytes(trap_flag, sizeof(TrapFlag), 0);
        {
            KB_PROFILE_SPAN("local.time.measure");
            run = measure_plans(dev_, plans, req.timing);
        }
        if (trap_flag) {
            // A thread that trapped while timed ended early: its time is not the kernel's.
            TrapFlag t;
            dev_.download(&t, trap_flag, sizeof t);
            if (t.kind != kTrapNone) throw KernelFault(KB_VERDICT_RUNTIME_ERROR, describe_contained_trap(t, c.name));
        }
    } catch (const KernelFault& f) {
        res.verdict = f.verdict();
        res.message = std::string("while timing: ") + f.what();
        res.context_lost = dev_.lost();
        return res;
    }

    double flops = task.flops ? double(task.flops->eval(c.dims)) : 0.0;
    double bytes = task.bytes ? double(task.bytes->eval(c.dims)) : 0.0;
    for (size_t i = 0; i < timed.size(); ++i) {
        TimedProgram p;
        p.kernel = timed[i].kernel->label;
        p.stats = run.stats[i];
        double sec = run.stats[i].median * 1e-6;
        if (bytes > 0 && sec > 0) p.gbps = bytes / sec / 1e9;
        if (flops > 0 && sec > 0) p.tflops = flops / sec / 1e12;
        (timed[i].role == "candidate" ? res.candidate : res.baseline) = p;
    }
    if (timed.size() == 2 && run.stats[0].median > 0) {
        std::vector<double> ratios;
        for (double r : run.round_ratios) ratios.push_back(1.0 / r);  // baseline / candidate per round
        SampleStats rs = summarize(ratios);
        res.speedup = run.stats[1].median / run.stats[0].median;
        res.speedup_p10 = rs.p10;
        res.speedup_p90 = rs.p90;
    }
    res.launches_per_sample = run.hot_launches_per_sample;
    res.sm_clock_start_mhz = run.sm_clock_start_mhz;
    res.sm_clock_end_mhz = run.sm_clock_end_mhz;
    res.sm_clock_rated_mhz = dev_.props().clock_rate_khz / 1000.0;
    res.throttled = run.throttled;
    res.stop_reason = run.stop_reason;
    res.wall_ms = run.wall_ms;
    std::string msg;
    if (kernel) {
        msg = "candidate median " + std::to_string(run.stats[0].median) + " us";
        if (res.speedup)
            msg += ", baseline " + std::to_string(run.stats[1].median) + " us, speedup " + std::to_string(*res.speedup) +
                   "x";
    } else {
        msg = "baseline median " + std::to_string(run.stats[0].median) + " us";
    }
    if (run.throttled) msg += " (the GPU was throttling: clocks fell during the run)";
    res.message = msg;
    return res;
}

}  // namespace kb
