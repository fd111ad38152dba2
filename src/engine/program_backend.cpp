// The program backend's verbs (engine/program_backend.h): each stage of a
// program candidate's score as requests to the lane's candidate worker and
// the context's reference worker, judged by the one judge (compare/judge.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

#include "compare/comparator.h"
#include "compare/judge.h"
#include "engine/program_backend.h"
#include "engine/kernel_program.h"
#include "engine/secret_seed.h"
#include "engine/reference_output.h"
#include "engine/program_protocol.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/files.h"
#include "util/profile.h"
#include "util/sha256.h"

namespace kb {
namespace {

using Clock = SteadyClock;

// Reference outputs up to this size (in all) also come to the host.
constexpr uint64_t kHostOutputBytes = uint64_t(64) << 20;
// Candidate outputs on the host up to this size (in all) go to the reference
// worker for the precision audit, within one frame's blob limit (ipc/frame.h).
constexpr uint64_t kHostAuditBytes = uint64_t(256) << 20;

std::string reference_key(const Task& t, const ProgramRunRequest& rq) {
    return t.hash + "/" + std::to_string(rq.case_index) + "/" + rq.seed.key() + "/" + rq.mode + "/" +
           rq.model_seed.key();
}

// An output's size in bytes, from its description (its bytes may have
// stayed on the device).
uint64_t output_bytes(const ProgramOutputMeta& m) {
    auto dt = parse_dtype(m.dtype);
    if (!m.is_tensor && m.dtype.empty()) return 0;
    uint64_t n = dt ? dtype_size(*dt) : 0;
    for (int64_t d : m.shape) n *= uint64_t(std::max<int64_t>(d, 0));
    return n;
}

// The poison pattern's dtype: the reference's first floating output (the
// pattern is per dtype), how much free memory to fill (twice the outputs), and
// the size of each output: torch's caching allocator serves an allocation of
// under 1 MiB from its small pool, never from one large poisoned block, and
// picks the best-fitting free block, so the worker also leaves poisoned free
// blocks of exactly the sizes an unwritten output would be allocated at.
// The device memory a candidate's run at a case takes: its inputs and their
// copy, its outputs and the poison (twice the outputs) beside them.
uint64_t run_footprint(const ProgramRunReply& ref) {
    uint64_t in_bytes = 0, out_bytes = 0;
    for (const ProgramInput& in : ref.inputs)
        if (in.is_tensor)
            if (auto dt = parse_dtype(in.dtype)) {
                uint64_t n = dtype_size(*dt);
                for (int64_t d : in.shape) n *= uint64_t(std::max<int64_t>(d, 0));
                in_bytes += n;
            }
    for (const ProgramOutputMeta& m : ref.outputs) out_bytes += output_bytes(m);
    return 2 * in_bytes + 4 * out_bytes;
}

// Holds `bytes` of the gate for a scope (none: 0).
struct GateHold {
    ProgramReferences::Gate& gate;
    uint64_t bytes;
    GateHold(ProgramReferences::Gate& g, uint64_t b) : gate(g), bytes(b) {
        if (!bytes) return;
        KB_PROFILE_SPAN("engine.wait_memory_gate");  // runs at KernelBench's sizes take turns here
        gate.acquire(bytes);
    }
    ~GateHold() {
        if (bytes) gate.release(bytes);
    }
    GateHold(const GateHold&) = delete;
    GateHold& operator=(const GateHold&) = delete;
};

// What the candidate worker poisons before a run (poison_free_memory in
// kbench_program_worker.py): a block of each output's exact size, where an
// output allocated as the reference's lands, and one block more for
// allocations of other sizes: twice the outputs' bytes, at most 1 GiB more
// than them. Each block is fresh device memory (the worker empties torch's
// cache first), and mapping it costs more than filling it: at a 6 GiB
// output, twice the bytes (18 GiB of blocks with the exact one) took 31 ms
// a run on an H100 (bench/kernelbench/worker_costs.py, poison, a8c87b9).
void poison_plan(const ProgramRunReply& ref, ProgramRunRequest& rq) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < ref.outputs.size(); ++i) {
        const ProgramOutputMeta& m = ref.outputs[i];
        if (rq.poison_dtype.empty() && (m.dtype == "f32" || m.dtype == "f16" || m.dtype == "bf16" || m.dtype == "f64"))
            rq.poison_dtype = m.dtype;
        uint64_t n = output_bytes(m);
        bytes += n;
        if (n) rq.poison_sizes.push_back(n);
    }
    if (rq.poison_dtype.empty()) rq.poison_dtype = "f32";
    rq.poison_bytes = std::max<uint64_t>(bytes + std::min<uint64_t>(bytes, uint64_t(1) << 30), uint64_t(16) << 20);
}

std::string input_label(const ProgramInput& in, const Task& t) {
    std::string name;
    if (t.python && in.index >= 0 && size_t(in.index) < t.python->inputs.size()) {
        const Json& d = t.python->inputs[size_t(in.index)];
        if (d.is_object()) name = d.value("name", std::string());
    }
    return "input " + std::to_string(in.index) + (name.empty() ? "" : " (" + name + ")");
}

void merge(ProgramIntegrity& into, const ProgramIntegrity& a) {
    for (const std::string& p : a.patched)
        if (std::find(into.patched.begin(), into.patched.end(), p) == into.patched.end()) into.patched.push_back(p);
    for (const std::string& t : a.threads_left) into.threads_left.push_back(t);
}

CompareResult failure_result(const Task& t, int case_index, std::optional<uint64_t> seed, const std::string& label,
                             const ProgramWorkerFailure& f) {
    CompareResult r;
    r.where = case_info(t, case_index, seed);
    r.kernel = label;
    r.verdict = f.verdict;
    r.message = f.message;
    r.deadline_s = f.deadline_s;
    r.signal = f.signal;
    r.exit_code = f.exit_code;
    r.worker = f.worker;
    return r;
}

// The verdict of one candidate run against the reference's, as a CompareResult.
CompareResult judge_run_against(const Task& t, const ProgramProtocol& p, const ProgramRunRequest& rq,
                                const ProgramRunReply& ref, const ProgramRunReply& cand, const std::string& label,
                                const std::vector<std::optional<OutputReport>>& gpu) {
    CompareResult r;
    r.where = case_info(t, rq.case_index, cand.seed_value ? cand.seed_value : ref.seed_value);
    r.kernel = label;
    r.run_ms = cand.run_ms;
    ProgramRules rules;
    rules.case_name = t.cases[size_t(rq.case_index)].name;
    rules.check_dtype = p.check_dtype;
    rules.check_device = p.check_device;
    rules.check_inputs = p.check_inputs;
    ProgramRunObservation obs;
    obs.reference_outputs = ref.outputs;
    obs.candidate_outputs = cand.outputs;
    if (cand.error) {
        obs.error = *cand.error + (cand.error_where.empty() ? "" : "\n" + cand.error_where);
        obs.error_stage = cand.error_stage;
        obs.context_lost = cand.context_lost;
    } else {
        // Both processes made the inputs from the same seed: different bytes
        // mean the candidate's process does not make what the reference saw
        // (it changed torch's generators, or the problem is not reproducible).
        std::vector<std::string> differ;
        for (size_t i = 0; i < ref.inputs.size() && i < cand.inputs.size(); ++i) {
            const std::string &rs = ref.inputs[i].checksum, &cs = cand.inputs[i].checksum;
            // A GPU-kind checksum ("g...", libkbench_gpu_compare) beside a
            // torch-kind one: the workers were set up differently, which is
            // kbench's fault, not the candidate's.
            if (!rs.empty() && !cs.empty() && (rs[0] == 'g') != (cs[0] == 'g'))
                fail(KB_ERR_WORKER, "the reference and candidate workers checksum inputs differently (one with "
                                    "libkbench_gpu_compare, one with torch) at case '" + rules.case_name +
                                    "': both must load the library, or neither ($KBENCH_GPU_COMPARE_LIB)");
            if (rs != cs) differ.push_back(input_label(ref.inputs[i], t));
        }
        if (!differ.empty()) {
            r.verdict = KB_VERDICT_WRONG_ANSWER;
            r.message = "the candidate's process made different inputs from the same seed at case '" + rules.case_name +
                        "' (" + differ.front() + "): it changed how torch draws random numbers";
            return r;
        }
        for (const auto& [index, sum] : cand.inputs_after)
            for (const ProgramInput& in : cand.inputs)
                if (in.index == index && in.checksum != sum) obs.inputs_modified.push_back(input_label(in, t));
        if (output_mismatches(ref.outputs, cand.outputs, rules).empty()) {
            // The values, by the C core's comparator, output by output: on the
            // GPU where both workers shared them (gpu[k]), else on the host.
            for (size_t k = 0; k < ref.outputs.size() && k < cand.outputs.size(); ++k) {
                if (!ref.outputs[k].is_tensor && ref.outputs[k].dtype.empty()) continue;
                if (k < gpu.size() && gpu[k]) {
                    obs.outputs.push_back(*gpu[k]);
                    continue;
                }
                const int ri = k < ref.data_of.size() ? ref.data_of[k] : -1;
                const int ci = k < cand.data_of.size() ? cand.data_of[k] : -1;
                if (ri < 0 || ci < 0) {
                    fail(KB_ERR_INTERNAL, "output " + ref.outputs[k].label + " of case '" + rules.case_name +
                                              "' reached the host from " + (ri < 0 ? "neither worker" : "one worker"));
                }
                const HostTensor& rt = ref.data[size_t(ri)];
                const HostTensor& ct = cand.data[size_t(ci)];
                Arg a;
                a.name = ref.outputs[k].label;
                a.role = Role::out;
                a.dtype = rt.dtype;
                a.tolerance = program_tolerance(p, t, rt.dtype);
                if (ct.bytes.size() / dtype_size(ct.dtype) != rt.count()) {
                    obs.error = "output " + a.name + " holds " + std::to_string(ct.count()) + " elements, expected " +
                                std::to_string(rt.count());
                    obs.error_stage = "call";
                    break;
                }
                OutputReport rep = compare_host(ct, rt, a);
                rep.compared_on = "host";
                obs.outputs.push_back(rep);
            }
        }
    }
    Judgement j = judge_program_run(obs, rules);
    r.verdict = j.verdict;
    r.message = j.message;
    r.context_lost = j.context_lost;
    r.observed = !cand.error;
    r.outputs = obs.outputs;
    r.inputs_modified = obs.inputs_modified;
    r.inputs_unchanged = obs.inputs_modified.empty();
    return r;
}

std::vector<double> samples_of(const ProgramTimeReply& r, const std::string& measure, std::string* method) {
    if (measure == "events" && r.events) {
        *method = "cuda_events";
        return r.event_ms;
    }
    if (r.cupti && !r.span_ms.empty()) {
        *method = "cupti_spans";
        return r.span_ms;
    }
    *method = "host_wall";
    return r.wall_ms;
}

double statistic(const SampleStats& s, const std::string& which) { return which == "mean" ? s.mean : s.median; }

SampleStats to_us(SampleStats s) {
    for (double* v : {&s.median, &s.mean, &s.min, &s.max, &s.stdev, &s.p10, &s.p90, &s.mad}) *v *= 1000.0;
    return s;
}

}  // namespace

const char* program_role_name(ProgramRole r) {
    return r == ProgramRole::reference ? "reference" : r == ProgramRole::candidate ? "candidate" : "builder";
}

const ProgramCandidate* program_candidate(const Kernel& k) {
    return dynamic_cast<const ProgramCandidate*>(k.host_program.get());
}

KernelPtr make_program_kernel(const std::string& label, ProgramCandidate candidate) {
    Kernel k;
    k.label = label;
    k.program.language = Language::python;
    k.program.source_name = candidate.source_name;
    Sha256 h;
    h.field("python").field(candidate.source).field(candidate.source_name);
    if (candidate.kernel) h.field(candidate.kernel->table.dump()).field(candidate.kernel->image);
    k.id = h.hex();
    k.host_program = std::make_shared<const ProgramCandidate>(std::move(candidate));
    return std::make_shared<const Kernel>(std::move(k));
}

namespace {

const ProgramCandidate& candidate_of(const KernelPtr& kernel) {
    const ProgramCandidate* pc = kernel ? program_candidate(*kernel) : nullptr;
    if (!pc)
        fail(KB_ERR_INTERNAL, "the program backend was handed " + (kernel ? kernel->label : std::string("no kernel")) +
                                  ", which is not a program candidate");
    return *pc;
}

// The policy's verdict over what some runs showed, into `obs` (findings,
// and the verdict where it fails), with `prefix` saying when.
void judge_policy_into(ProgramObservation& obs, const ProgramAttribution& raw, const ProgramIntegrity& integrity,
                       const ProgramPolicyRules& rules, const std::string& prefix) {
    ProgramAttribution a = raw;
    attribute(a);
    std::vector<ProgramFinding> found = program_findings(a, integrity, rules);
    obs.findings.insert(obs.findings.end(), found.begin(), found.end());
    Judgement j = judge_policy(found);
    if (j.verdict != KB_VERDICT_PASS) {
        obs.policy = j.verdict;
        obs.policy_message = prefix + j.message;
    }
}

// Adds the device work CUPTI recorded in a run's or a timing's call windows
// into `w`, by name (the worker names copies and fills "[memcpy]", "[memset]").
void add_work(CallWork& w, const ProgramAttribution& a) {
    for (const KernelUse& k : a.kernels) {
        w.launches[k.name] += double(k.launches);
        w.ms[k.name] += k.total_us / 1000.0;
    }
}

// Replaced functions and threads left running decide at once where the
// protocol enforces its rules: every later observation is suspect.
std::optional<Judgement> tampered(const ProgramIntegrity& i, const ProgramProtocol& p, const ProgramPolicyRules& pr) {
    if (!p.enforce_policy || (i.patched.empty() && i.threads_left.empty())) return std::nullopt;
    Judgement j = judge_policy(program_findings(ProgramAttribution{}, i, pr));
    if (j.verdict == KB_VERDICT_PASS) return std::nullopt;
    return j;
}

}  // namespace

PythonWorkers& ProgramBackend::candidate() {
    if (!candidate_) candidate_ = start_candidate_();
    return *candidate_;
}

Json ProgramBackend::device_info() {
    Json j;
    j["reference"] = refs_.info();
    if (candidate_) j["candidate"] = candidate_->info();
    return j;
}

LoadResult ProgramBackend::load(const TaskBinding& tb, const KernelPtr& kernel) {
    const ProgramCandidate& pc = candidate_of(kernel);
    KB_PROFILE_SPAN("engine.program_load");
    const auto t0 = Clock::now();
    LoadResult out;
    auto obs = std::make_shared<ProgramObservation>();
    loaded_.clear();
    timed_wall_ms_.reset();
    timed_work_.reset();
    load_integrity_ = {};
    // The warm-up: one run per case of the correctness plan (its first seed,
    // whose inputs the worker then holds for that run). On real inputs for
    // the cases whose reference already ran here (so that their device
    // memory is known) and whose run takes at most a 2 x sharing-th of the
    // correctness runs' budget: the warm-ups of every lane at once then fit
    // in half of it beside those runs, without taking from the gate, which a
    // lane in its correctness phase waits on while it holds the GPU phase (a
    // load that held it would hold timing back behind an import). The other
    // cases, a KernelBench problem's own sizes among them, warm on inputs of
    // their shapes that hold no memory (torch's meta device): otherwise
    // their Triton kernels compiled inside the first run at those sizes,
    // holding the gate and the GPU phase for 100-200 ms a kernel. A call that
    // needs real data there (a value read back, weights on the device)
    // fails quietly and compiles at its run, as without a warm-up.
    std::vector<ProgramRunRequest> warm;
    const uint64_t warm_limit = refs_.gate().capacity() / (2 * uint64_t(sharing_));
    if (pc.protocol.warm) {
        std::vector<int> seen;
        // Where the recheck is the perf case's only run (perf_at_recheck),
        // that case warms too, at the public seed: the recheck's is secret.
        std::vector<ProgramRunPlan> runs = pc.protocol.correctness;
        if (pc.protocol.perf_at_recheck && !runs.empty()) runs.push_back({tb.task->perf_index, runs.front().seed});
        for (const ProgramRunPlan& r : runs) {
            if (std::find(seen.begin(), seen.end(), r.case_index) != seen.end()) continue;
            seen.push_back(r.case_index);
            ProgramRunRequest rq;
            rq.case_index = r.case_index;
            rq.seed = r.seed;
            rq.model_seed = pc.protocol.model_seed;
            rq.mode = pc.protocol.input_mode;
            auto ref = refs_.cache().find(reference_key(*tb.task, rq));
            rq.warm_on_meta = !ref || (warm_limit && run_footprint(*ref) > warm_limit);
            warm.push_back(rq);
        }
    }
    ProgramLoadReply load =
        candidate().load_candidate(tb.task, pc.source, pc.source_name, pc.kernel ? &*pc.kernel : nullptr, warm,
                                   pc.prebuilt.get());
    out.load_ms = ms_since(t0);
    obs->import_ms = load.import_ms;
    obs->warm_ms = load.warm_ms;
    obs->build = load.build;
    obs->build_fallbacks = load.build_fallbacks;
    obs->builds = load.builds;
    obs->triton_kernels = load.triton_kernels;
    obs->cuda_kernels = load.cuda_kernels;
    obs->findings = load.findings;  // the source scan's
    out.program = obs;
    if (load.failure) {
        out.verdict = load.failure->verdict;
        out.message = "importing the candidate: " + load.failure->message;
        out.worker = load.failure->worker;
        return out;
    }
    if (!load.loaded) {
        // torch and triton are the workers' to have, not the candidate's:
        // without them nothing can be checked, and the candidate is not to blame.
        for (const char* module : {"torch", "triton"})
            if (load.error.find("No module named '" + std::string(module) + "'") != std::string::npos)
                fail(KB_ERR_NOT_FOUND, "kbench's Python candidate worker has no " + std::string(module) +
                                           ", so it cannot import program candidates: install torch (and triton) "
                                           "for the interpreter $KBENCH_PYTHON names (python3 by default; "
                                           "docs/programs.md, \"Environment\")");
        out.verdict = KB_VERDICT_COMPILE_ERROR;
        out.message = "the candidate does not import: " + load.error +
                      (load.line ? " (line " + std::to_string(load.line) + ")" : "");
        out.log = load.error + (load.where.empty() ? "" : "\n" + load.where);
        return out;
    }
    if (auto j = tampered(load.integrity, pc.protocol, pc.policy)) {
        obs->findings = program_findings(ProgramAttribution{}, load.integrity, pc.policy);
        out.verdict = j->verdict;
        out.message = "while importing: " + j->message;
        return out;
    }
    load_integrity_ = load.integrity;
    loaded_ = kernel->id;
    return out;
}

std::string ProgramBackend::ensure_loaded(const TaskBinding& tb, const KernelPtr& kernel) {
    if (loaded_ == kernel->id) return "";
    LoadResult again = load(tb, kernel);
    return again.verdict == KB_VERDICT_PASS ? "" : again.message;
}

std::shared_ptr<ProgramRunReply> ProgramBackend::reference_reply(const Task& t, const TaskPtr& task,
                                                               const ProgramRunRequest& r) {
    auto run = std::make_shared<ProgramRunReply>(
        refs_.with_worker([&](PythonWorkers& w) { return w.run(ProgramRole::reference, task, r); }));
    if (run->failure)
        fail(KB_ERR_REFERENCE_FAILED, "the reference worker failed at case '" + t.cases[size_t(r.case_index)].name +
                                          "': " + run->failure->message);
    if (run->error)
        fail(KB_ERR_REFERENCE_FAILED, "the reference failed at case '" + t.cases[size_t(r.case_index)].name +
                                          "': " + *run->error + "\n" + run->error_where);
    return run;
}

void ProgramBackend::note_warnings(const Task& t, const ProgramProtocol& p, const ProgramRunRequest& rq,
                                   const ProgramRunReply& reply, std::vector<std::string>* warnings) {
    if (!warnings) return;
    for (const HostTensor& out : reply.data) {
        Arg a;
        a.name = out.name;
        a.dtype = out.dtype;
        a.tolerance = program_tolerance(p, t, a.dtype);
        for (const ReferenceOutput::Finding& f : reference_output(out, t, rq.case_index, a).findings)
            if (std::find(warnings->begin(), warnings->end(), f.message) == warnings->end())
                warnings->push_back(f.message);
    }
}

std::shared_ptr<const ProgramRunReply> ProgramBackend::reference(const Task& t, const TaskPtr& task,
                                                                 const ProgramProtocol& p, const ProgramRunRequest& rq,
                                                                 std::vector<std::string>* warnings) {
    const std::string key = reference_key(t, rq);
    std::shared_ptr<const ProgramRunReply> reply = refs_.cache().find(key);
    if (!reply) {
        ProgramRunRequest r = rq;
        r.clone_inputs = false;  // the reference's own inputs: nothing else sees them
        r.record_ops = r.record_kernels = false;
        // Kept on the device for GPU comparisons where the reference worker
        // can (a device and libkbench_gpu_compare); bytes come to the host
        // only for small outputs (the checks of outputs that cannot tell
        // right from wrong read them) or where the worker cannot compare.
        r.keep_outputs = true;
        r.data_limit = kHostOutputBytes;
        auto run = reference_reply(t, task, r);
        refs_.cache().put(key, run);
        reply = run;
    }
    // Warnings of outputs that cannot tell right from wrong, once per case.
    note_warnings(t, p, rq, *reply, warnings);
    return reply;
}

std::shared_ptr<const ProgramRunReply> ProgramBackend::planned_reference(const Task& t, const ProgramProtocol& p,
                                                                         const ProgramRunRequest& base) {
    for (const ProgramRunPlan& run : p.correctness) {
        if (run.case_index != base.case_index) continue;
        ProgramRunRequest rq = base;
        rq.seed = run.seed;
        if (std::shared_ptr<const ProgramRunReply> r = refs_.cache().find(reference_key(t, rq))) return r;
    }
    return nullptr;
}

namespace {

// The candidate's outputs that the reference worker can compare on the GPU
// with the reference's of `ref`'s shapes: exported by the candidate worker,
// of the reference's dtype and size, where the reference's are on the device.
std::vector<GpuCompareItem> gpu_items(const Task& t, const ProgramProtocol& p, const ProgramRunReply& ref,
                                      const ProgramRunReply& cand) {
    std::vector<GpuCompareItem> items;
    if (!ref.gpu_compare || cand.error) return items;
    for (size_t i = 0; i < cand.outputs.size() && i < ref.outputs.size(); ++i) {
        const ProgramOutputMeta& rm = ref.outputs[i];
        const ProgramOutputMeta& cm = cand.outputs[i];
        if (!rm.is_tensor && rm.dtype.empty()) continue;
        if (i < cand.shared.size() && cand.shared[i] && cm.dtype == rm.dtype && output_bytes(cm) == output_bytes(rm)) {
            GpuCompareItem it;
            it.output = i;
            it.candidate = *cand.shared[i];
            it.tolerance = program_tolerance(p, t, *parse_dtype(rm.dtype));
            items.push_back(it);
        }
    }
    return items;
}

// Whether a run's outputs are what its plan said (dtype, size, on the
// device) at every item the reference worker compared as it ran.
bool as_planned(const ProgramRunReply& plan, const ProgramRunReply& got, const std::vector<GpuCompareItem>& items) {
    if (got.compared.size() != items.size() || got.outputs.size() != plan.outputs.size()) return false;
    for (const GpuCompareItem& it : items) {
        const ProgramOutputMeta& a = plan.outputs[it.output];
        const ProgramOutputMeta& b = got.outputs[it.output];
        if (a.dtype != b.dtype || output_bytes(a) != output_bytes(b) || b.device.compare(0, 4, "cuda") != 0)
            return false;
    }
    return true;
}

}  // namespace

CompareResult ProgramBackend::run_case(const TaskPtr& task, const Kernel& k, const ProgramRunRequest& base,
                                       bool recheck, ProgramObservation& obs, bool audit) {
    const Task& t = *task;
    const ProgramCandidate& pc = *program_candidate(k);
    const ProgramProtocol& p = pc.protocol;
    // A run the host has not seen yet (a recheck seed's first use, a
    // further trial's seed): where the reference's run at the same case on
    // another seed says what its outputs look like, the candidate runs
    // first, and the reference then runs and compares in one request
    // (compare_inline). Asked for its description first, the reference ran
    // once for it and, where its kept budget had no room for the outputs,
    // once more at the compare.
    std::shared_ptr<const ProgramRunReply> ref = refs_.cache().find(reference_key(t, base));
    std::shared_ptr<const ProgramRunReply> plan = ref ? nullptr : planned_reference(t, p, base);
    if (plan && !plan->gpu_compare) plan = nullptr;
    if (!plan) ref = reference(t, task, p, base, &obs.reference_warnings);
    const ProgramRunReply& shape = plan ? *plan : *ref;
    // A kernel's signature must fit what the problem makes and returns
    // (checked on every run: a program candidate may have cached the reply).
    if (pc.kernel) check_kernel_signature(t, base.case_index, shape);
    GateHold held(refs_.gate(), run_footprint(shape));
    ProgramRunRequest rq = base;
    rq.clone_inputs = p.clone_inputs;
    // torch's ops are recorded in correctness runs, and on the recheck where
    // it is the perf case's only run (perf_at_recheck).
    rq.record_ops = p.record_ops && (!recheck || p.perf_at_recheck);
    // Kernels are recorded on the recheck too: without CUPTI's records only
    // the launch counter of the candidate's own module speaks, and a
    // TritonBench recheck launches through the performance script's import.
    rq.record_kernels = p.record_kernels;
    rq.reference_ms = shape.run_ms;
    poison_plan(shape, rq);
    rq.share_outputs = shape.gpu_compare;
    ProgramRunReply cand = candidate().run(ProgramRole::candidate, task, rq);
    obs.later_builds.insert(obs.later_builds.end(), cand.builds.begin(), cand.builds.end());
    obs.build_fallbacks.insert(obs.build_fallbacks.end(), cand.build_fallbacks.begin(), cand.build_fallbacks.end());
    if (cand.failure)
        return failure_result(t, rq.case_index, ref ? ref->seed_value : std::nullopt, k.label, *cand.failure);
    merge_attribution(obs.attribution, cand.attribution);
    merge(run_integrity_, cand.integrity);
    if (auto j = tampered(cand.integrity, p, pc.policy)) {
        CompareResult r;
        r.where = case_info(t, rq.case_index, cand.seed_value);
        r.kernel = k.label;
        r.verdict = j->verdict;
        r.message = j->message + " (at case '" + t.cases[size_t(rq.case_index)].name + "')";
        r.run_ms = cand.run_ms;
        return r;
    }
    // The plan's run, compared as it ran where its outputs are what the plan
    // said. Otherwise (the candidate failed or shared no output of the
    // reference's kind, outputs of other shapes, or a worker that kept this
    // run though the host had not seen it) the reference is asked for its
    // description first, as for any run.
    std::vector<GpuCompareItem> items;
    std::vector<GpuCompareStats> stats;
    if (plan) items = gpu_items(t, p, *plan, cand);
    if (!items.empty()) {
        ProgramRunRequest once = base;
        once.clone_inputs = false;
        once.record_ops = once.record_kernels = false;
        once.keep_outputs = true;
        once.data_limit = kHostOutputBytes;
        once.compare_inline = items;
        std::shared_ptr<ProgramRunReply> got = reference_reply(t, task, once);
        if (as_planned(*plan, *got, items)) {
            stats = std::move(got->compared);
            got->compared.clear();
            refs_.cache().put(reference_key(t, base), got);
            note_warnings(t, p, base, *got, &obs.reference_warnings);
            ref = got;
        }
    }
    const bool compared = ref && plan;
    if (!ref) ref = reference(t, task, p, base, &obs.reference_warnings);
    CompareResult r = compare_outputs(task, p, base, rq, ref, cand, k.label, compared ? &items : nullptr,
                                      compared ? &stats : nullptr);
    // Before the release: the audit reads the outputs the candidate exported.
    if (audit && p.precision_audit) obs.precision = audit_precision(task, base, *ref, cand, r);
    if (rq.share_outputs) candidate().release_outputs();
    return r;
}

std::optional<PrecisionAudit> ProgramBackend::audit_precision(const TaskPtr& task, const ProgramRunRequest& base,
                                                              const ProgramRunReply& ref, const ProgramRunReply& cand,
                                                              const CompareResult& judged) {
    const Task& t = *task;
    // Values to audit: a run that returned outputs of the reference's kinds
    // and shapes, every element written (a wrong answer is audited too: a
    // reduced precision may be why it is wrong).
    if (cand.error || judged.outputs.empty() ||
        (judged.verdict != KB_VERDICT_PASS && judged.verdict != KB_VERDICT_WRONG_ANSWER))
        return std::nullopt;
    for (const OutputReport& o : judged.outputs)
        if (o.unwritten) return std::nullopt;
    std::vector<PrecisionItem> items;
    uint64_t host_bytes = 0;  // sent to the reference worker in the request's frame
    for (size_t k = 0; k < ref.outputs.size() && k < cand.outputs.size(); ++k) {
        const ProgramOutputMeta& rm = ref.outputs[k];
        auto dt = parse_dtype(rm.dtype);
        if (!dt || !dtype_is_float(*dt) || cand.outputs[k].dtype != rm.dtype ||
            output_bytes(cand.outputs[k]) != output_bytes(rm))
            continue;
        PrecisionItem it;
        it.output = k;
        if (k < cand.shared.size() && cand.shared[k] && ref.gpu_compare) {
            it.shared = *cand.shared[k];
        } else if (k < cand.data_of.size() && cand.data_of[k] >= 0 &&
                   host_bytes + cand.data[size_t(cand.data_of[k])].bytes.size() <= kHostAuditBytes) {
            it.data = &cand.data[size_t(cand.data_of[k])];
            host_bytes += it.data->bytes.size();
        } else {
            continue;
        }
        items.push_back(it);
    }
    if (items.empty()) return std::nullopt;
    const std::string case_name = t.cases[size_t(base.case_index)].name;
    try {
        auto probes = refs_.with_worker(
            [&](PythonWorkers& w) { return w.audit_precision(task, base, items, precision_modes()); });
        if (!probes) return std::nullopt;
        for (PrecisionProbe& pr : *probes)
            for (PrecisionOutputError& o : pr.outputs)
                if (o.index < ref.outputs.size()) o.output = ref.outputs[o.index].label;
        return judge_precision(std::move(*probes), case_name);
    } catch (const Error& e) {
        // The audit is reported, never judged: its failure is a note, and
        // the score goes on (a reference worker that died restarts on its
        // next request).
        PrecisionAudit a;
        a.verdict = "unknown";
        a.case_name = case_name;
        std::string why = e.what();
        a.why = "the audit did not run: " + why.substr(0, why.find('\n'));
        return a;
    }
}

CompareResult ProgramBackend::compare_outputs(const TaskPtr& task, const ProgramProtocol& p,
                                              const ProgramRunRequest& base, const ProgramRunRequest& rq,
                                              const std::shared_ptr<const ProgramRunReply>& ref,
                                              ProgramRunReply& cand, const std::string& label,
                                              const std::vector<GpuCompareItem>* compared_items,
                                              const std::vector<GpuCompareStats>* compared) {
    const Task& t = *task;
    // Outputs both workers hold on the device are compared there; the rest
    // on the host, with the reference's bytes fetched if its reply left them
    // out (large outputs stay on the device).
    std::vector<std::optional<OutputReport>> gpu(cand.outputs.size());
    std::shared_ptr<const ProgramRunReply> ref_host = ref;
    if (!cand.error) {
        const std::vector<GpuCompareItem> items = compared_items ? *compared_items : gpu_items(t, p, *ref, cand);
        std::vector<bool> on_gpu(cand.outputs.size(), false);
        for (const GpuCompareItem& it : items) on_gpu[it.output] = true;
        bool need_ref_data = false;
        for (size_t i = 0; i < cand.outputs.size() && i < ref->outputs.size(); ++i) {
            const ProgramOutputMeta& rm = ref->outputs[i];
            if (!rm.is_tensor && rm.dtype.empty()) continue;
            const bool shared = i < cand.shared.size() && cand.shared[i];
            if (!on_gpu[i] && !shared && (i >= ref->data_of.size() || ref->data_of[i] < 0)) need_ref_data = true;
        }
        if (!items.empty()) {
            const std::vector<GpuCompareStats> stats =
                compared ? *compared
                         : refs_.with_worker([&](PythonWorkers& w) { return w.compare_on_gpu(task, base, items); });
            for (size_t i = 0; i < items.size(); ++i) {
                const ProgramOutputMeta& rm = ref->outputs[items[i].output];
                const GpuCompareStats& st = stats[i];
                if (st.error) {
                    cand.error = "output " + rm.label + " could not be compared on the GPU: " + *st.error;
                    cand.error_stage = "call";
                    break;
                }
                OutputReport r;
                r.name = rm.label;
                r.dtype = *parse_dtype(rm.dtype);
                r.exact = !dtype_is_float(r.dtype);
                r.tolerance = items[i].tolerance;
                r.elements = output_bytes(rm) / dtype_size(r.dtype);
                r.mismatches = st.mismatches;
                r.unwritten = st.unwritten;
                r.max_abs_err = st.max_abs_err;
                r.max_rel_err = st.max_rel_err;
                r.max_violation = st.max_violation;
                r.worst_flat = st.worst_index;
                HostTensor shape_only;
                shape_only.shape = rm.shape;
                r.worst_index = shape_only.unflatten(st.worst_index);
                uint64_t got = st.worst_bits, expected = st.expected_bits;
                r.worst_got = load_as_double(&got, r.dtype, 0);
                r.worst_expected = load_as_double(&expected, r.dtype, 0);
                r.compared_on = "gpu";
                gpu[items[i].output] = r;
            }
        }
        if (need_ref_data && !cand.error) {
            // Rare: an output the candidate could not share (not on the
            // device) against a large reference output kept on it.
            ProgramRunRequest full = base;
            full.clone_inputs = false;
            full.record_ops = full.record_kernels = false;
            ref_host = reference_reply(t, task, full);
        }
    }
    return judge_run_against(t, p, rq, *ref_host, cand, label, gpu);
}

std::vector<CompareResult> ProgramBackend::compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                                         const std::vector<CaseRuns>& cases, uint64_t seed) {
    (void)cases;  // the protocol's plan names the cases and seeds
    (void)seed;
    const ProgramCandidate& pc = candidate_of(kernel);
    const ProgramProtocol& p = pc.protocol;
    const Task& t = *tb.task;
    auto obs = std::make_shared<ProgramObservation>();
    std::vector<CompareResult> out;
    if (std::string why = ensure_loaded(tb, kernel); !why.empty()) {
        CompareResult r;
        r.where = case_info(t, t.perf_index, std::nullopt);
        r.kernel = kernel->label;
        r.verdict = KB_VERDICT_RUNTIME_ERROR;
        r.message = "the candidate did not load again for its correctness runs: " + why;
        out.push_back(r);
        return out;
    }
    run_integrity_ = load_integrity_;
    bool audited = false;  // the precision audit: the first run at the problem's own sizes
    for (const ProgramRunPlan& run : p.correctness) {
        ProgramRunRequest rq;
        rq.case_index = run.case_index;
        rq.seed = run.seed;
        rq.model_seed = p.model_seed;
        rq.mode = p.input_mode;
        try {
            const bool audit = !audited && run.case_index == t.perf_index;
            audited = audited || audit;
            out.push_back(run_case(tb.task, *kernel, rq, false, *obs, audit));
        } catch (const Error& e) {
            // A case the import added (other sizes) that the problem's own
            // code rejects says nothing about the candidate: the import
            // drops such cases when it can run the reference (validation),
            // and a task imported without it meets them here. The problem's
            // own sizes failing stays kbench's error.
            if (e.status() != KB_ERR_REFERENCE_FAILED || run.case_index == t.perf_index) throw;
            std::string why = e.what();
            why = why.substr(0, why.find('\n'));
            const std::string note = "case '" + t.cases[size_t(run.case_index)].name +
                                     "' left out: the reference rejects its sizes (" + why + ")";
            if (std::find(obs->reference_warnings.begin(), obs->reference_warnings.end(), note) ==
                obs->reference_warnings.end())
                obs->reference_warnings.push_back(note);
            continue;
        }
        if (out.back().verdict != KB_VERDICT_PASS) break;
    }
    if (out.empty()) fail(KB_ERR_INTERNAL, "the protocol '" + p.name + "' planned no correctness run");
    // The policy over what the runs showed: it decides only where every run passed.
    judge_policy_into(*obs, obs->attribution, run_integrity_, pc.policy, "");
    if (out.back().verdict != KB_VERDICT_PASS) obs->policy = KB_VERDICT_PASS;
    out.back().program = obs;
    return out;
}

CompareResult ProgramBackend::compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                      unsigned runs) {
    (void)runs;  // a program's repeated runs are the protocol's (correctness_runs)
    const ProgramCandidate& pc = candidate_of(kernel);
    if (std::string why = ensure_loaded(tb, kernel); !why.empty()) fail(KB_ERR_WORKER, why);
    ProgramRunRequest rq;
    rq.case_index = case_index;
    rq.seed = SeedSpec::plain(seed);
    rq.model_seed = pc.protocol.model_seed;
    rq.mode = pc.protocol.input_mode;
    auto obs = std::make_shared<ProgramObservation>();
    run_integrity_ = {};
    CompareResult r = run_case(tb.task, *kernel, rq, false, *obs);
    judge_policy_into(*obs, obs->attribution, run_integrity_, pc.policy, "");
    r.program = obs;
    return r;
}

CompareResult ProgramBackend::recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) {
    const ProgramCandidate& pc = candidate_of(kernel);
    const Task& t = *tb.task;
    auto obs = std::make_shared<ProgramObservation>();
    CompareResult rc;
    if (std::string why = ensure_loaded(tb, kernel); !why.empty()) {
        rc.where = case_info(t, case_index, std::nullopt);
        rc.kernel = kernel->label;
        rc.verdict = KB_VERDICT_RUNTIME_ERROR;
        rc.message = "the candidate did not load again for its recheck: " + why;
    } else {
        ProgramRunRequest rq;
        rq.case_index = case_index;
        rq.seed = SeedSpec::plain(seed);
        rq.model_seed = pc.protocol.model_seed;
        rq.mode = pc.protocol.input_mode;
        run_integrity_ = {};
        rc = run_case(tb.task, *kernel, rq, true, *obs, pc.protocol.perf_at_recheck);
        judge_policy_into(*obs, obs->attribution, run_integrity_, pc.policy, "on the recheck: ");
        // The recheck's call is the timed call on inputs it had not seen:
        // timed calls far faster than it replayed their outputs.
        std::optional<ProgramFinding> replay;
        // On a GPU without CUPTI no rule applies: wall times of a call that
        // shares the GPU with other lanes stretch with their time slices.
        if (rc.verdict == KB_VERDICT_PASS && case_index == pc.protocol.time.case_index) {
            const ProgramAttribution& a = obs->attribution;
            if (timed_work_ && a.cupti) {
                CallWork fresh;
                add_work(fresh, a);
                replay = timed_replay(*timed_work_, fresh, pc.policy.enforce);
            } else if (timed_wall_ms_ && !a.cupti && a.cupti_why.empty()) {
                replay = timed_replay(*timed_wall_ms_, rc.run_ms, pc.policy.enforce);
            }
        }
        if (replay) {
            obs->findings.push_back(*replay);
            Judgement j = judge_policy({*replay});
            if (j.verdict != KB_VERDICT_PASS && obs->policy == KB_VERDICT_PASS) {
                obs->policy = j.verdict;
                obs->policy_message = "while timing: " + j.message;
            }
        }
    }
    rc.where.seed = std::nullopt;
    rc.where.seed_secret = true;
    rc.program = obs;
    return rc;
}

TimeResult ProgramBackend::time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) {
    (void)req;  // the protocol's timing plan (made from the score's timing options at prepare)
    const ProgramCandidate& pc = candidate_of(kernel);
    const ProgramProtocol& p = pc.protocol;
    const Task& t = *tb.task;
    const TaskPtr& task = tb.task;
    const auto t0 = Clock::now();
    auto obs = std::make_shared<ProgramObservation>();
    timed_wall_ms_.reset();
    timed_work_.reset();
    TimeResult tr;
    tr.where = case_info(t, p.time.case_index, std::nullopt);
    tr.program = obs;
    if (std::string why = ensure_loaded(tb, kernel); !why.empty()) {
        tr.verdict = KB_VERDICT_RUNTIME_ERROR;
        tr.message = "while timing: the candidate did not load again: " + why;
        return tr;
    }
    // When the timing ends, however it ends, each side's worker drops the
    // inputs it kept across the rounds: the next lane's GPU phase needs the
    // memory, and the recheck makes inputs of its own.
    bool reference_timed = false;
    struct ReleaseTiming {
        std::function<void()> f;
        ~ReleaseTiming() {
            try {
                f();
            } catch (const std::exception&) {
                // best effort: a worker that fails here fails its next request
            }
        }
    } release_timing{[&] {
        candidate().release_timing_inputs(ProgramRole::candidate);
        if (reference_timed)
            refs_.with_worker([](PythonWorkers& w) { w.release_timing_inputs(ProgramRole::reference); });
    }};
    ProgramTimeRequest tq;
    tq.plan = p.time;
    tq.model_seed = p.model_seed;
    tq.mode = p.input_mode;
    ProgramRunRequest at;  // the reference's run at the timing inputs
    at.case_index = p.time.case_index;
    at.seed = p.time.seed;
    at.model_seed = p.model_seed;
    at.mode = p.input_mode;
    std::shared_ptr<const ProgramRunReply> timed_ref;
    if (p.check_timed_outputs) {
        timed_ref = reference(t, task, p, at, &obs->reference_warnings);
        tq.check_outputs = true;
        tq.share_outputs = timed_ref->gpu_compare;
    }
    if (auto ref = refs_.cache().find(reference_key(t, at))) tq.reference_ms = ref->run_ms;
    // The reference's rounds come from the last candidate timed at this
    // plan when they are at most $KBENCH_PROGRAM_REFERENCE_REUSE_S seconds
    // old (default 30; 0 times the reference beside every candidate).
    static const double reuse_s = [] {
        const char* v = std::getenv("KBENCH_PROGRAM_REFERENCE_REUSE_S");
        return v ? std::max(0.0, std::atof(v)) : 30.0;
    }();
    std::string timing_key;
    {
        ProgramRunRequest at;
        at.case_index = p.time.case_index;
        at.seed = p.time.seed;
        at.model_seed = p.model_seed;
        at.mode = p.input_mode;
        timing_key = reference_key(t, at) + "/" + p.time.warmup_seed.to_json().dump() + "/" +
                     std::to_string(p.time.trials) + "/" + std::to_string(p.time.budget_ms) + "/" +
                     std::to_string(p.time.warmup_calls) + "/" + p.time.measure;
    }
    unsigned reused_rounds = 0;
    // Device work of the timed calls (CUPTI's records in their windows),
    // summed over the samples: where every round recorded it.
    CallWork device_work;
    size_t device_samples = 0;
    bool device_every_round = true;
    std::vector<double> cand_s, ref_s, cand_events, cand_spans, cand_walls, round_ratios;
    std::string method, ref_method;
    auto timing = std::make_shared<ProgramTiming>();
    timing->statistic = p.time.statistic;
    ProgramIntegrity integrity;
    for (unsigned round = 0; round < p.time.rounds; ++round) {
        if (round == 1) {
            // Compiled, cached and clocked up by the first round's warm-up:
            // later rounds take one call to bring each side's working set
            // back after the other side ran, on the timed inputs (seen in
            // the first round already), which the worker keeps between
            // rounds: no other inputs are made.
            tq.plan.warmup_calls = std::min(tq.plan.warmup_calls, 1u);
            tq.plan.warmup_ms = 0;
            tq.plan.warmup_seed = tq.plan.seed;
        }
        ProgramTimeReply c = candidate().time(ProgramRole::candidate, task, tq);
        if (c.failure || c.error) {
            tr.verdict = c.failure ? c.failure->verdict : KB_VERDICT_RUNTIME_ERROR;
            tr.message = "while timing: " + (c.failure ? c.failure->message : *c.error + "\n" + c.error_where);
            if (c.failure) {
                tr.deadline_s = c.failure->deadline_s;
                tr.signal = c.failure->signal;
                tr.exit_code = c.failure->exit_code;
                tr.worker = c.failure->worker;
            }
            tr.wall_ms = ms_since(t0);
            return tr;
        }
        if (timed_ref) {
            // What the timed calls computed, judged as a run at the timing
            // inputs: the numbers below are only a candidate's if its timed
            // calls did the work.
            CompareResult cr = c.last ? compare_outputs(task, p, at, at, timed_ref, *c.last, kernel->label)
                                      : CompareResult{};
            if (!c.last) {
                cr.verdict = KB_VERDICT_RUNTIME_ERROR;
                cr.message = "the candidate's worker returned no outputs of its timed calls";
            }
            if (tq.share_outputs) candidate().release_outputs();
            if (cr.verdict != KB_VERDICT_PASS) {
                tr.verdict = cr.verdict;
                const std::string at_case = " (case '" + t.cases[size_t(at.case_index)].name + "'): ";
                tr.message = cr.verdict == KB_VERDICT_INPUT_MODIFIED
                                 ? "while timing: the timed calls changed the inputs they share" + at_case + cr.message
                                 : "while timing: the last timed call's outputs are not the reference's at the "
                                   "timing inputs" + at_case + cr.message;
                tr.wall_ms = ms_since(t0);
                return tr;
            }
        }
        ProgramTimeReply r;
        bool reused = false;
        if (auto kept = refs_.timed_round(timing_key, round, reuse_s)) {
            r = std::move(*kept);
            ++reused_rounds;
            reused = true;
        } else {
            reference_timed = true;
            r = refs_.with_worker([&](PythonWorkers& w) { return w.time(ProgramRole::reference, task, tq); });
            if (r.failure || r.error)
                fail(KB_ERR_REFERENCE_FAILED, "the reference failed while timing: " +
                                                  (r.failure ? r.failure->message : *r.error + "\n" + r.error_where));
            refs_.keep_timed_round(timing_key, round, r);
        }
        std::vector<double> cs = samples_of(c, p.time.measure, &method);
        std::vector<double> rs = samples_of(r, p.time.measure, &ref_method);
        if (!cs.empty() && !rs.empty()) {
            double sc = statistic(summarize(cs), p.time.statistic), sr = statistic(summarize(rs), p.time.statistic);
            if (sc > 0) {
                round_ratios.push_back(sr / sc);
                timing->round_ms.push_back({sc, sr, reused});
            }
        }
        cand_s.insert(cand_s.end(), cs.begin(), cs.end());
        ref_s.insert(ref_s.end(), rs.begin(), rs.end());
        cand_events.insert(cand_events.end(), c.event_ms.begin(), c.event_ms.end());
        cand_spans.insert(cand_spans.end(), c.span_ms.begin(), c.span_ms.end());
        cand_walls.insert(cand_walls.end(), c.wall_ms.begin(), c.wall_ms.end());
        if (c.cupti && c.attribution.cupti) {
            add_work(device_work, c.attribution);
            device_samples += c.wall_ms.size();
        } else {
            device_every_round = false;
        }
        timing->warmup_calls += c.warmup_calls;
        merge(integrity, c.integrity);
        ++timing->rounds;
        if (round + 1 < p.time.rounds && program_timing_settled(p.time, cand_s, ref_s, round_ratios)) {
            timing->settled_early = true;
            break;
        }
    }
    tr.wall_ms = ms_since(t0);
    timing->method = method;
    timing->reference_rounds_reused = reused_rounds;
    if (!cand_s.empty() && !ref_s.empty()) {
        timing->candidate_ms = summarize(cand_s);
        timing->reference_ms = summarize(ref_s);
        if (!cand_events.empty()) timing->candidate_events_ms = summarize(cand_events);
        if (!cand_spans.empty()) timing->candidate_spans_ms = summarize(cand_spans);
        if (!cand_walls.empty()) {
            timing->candidate_walls_ms = summarize(cand_walls);
            timed_wall_ms_ = timing->candidate_walls_ms->median;
        }
        if (device_every_round && device_samples) {
            for (auto& [name, n] : device_work.launches) n /= double(device_samples);
            for (auto& [name, ms] : device_work.ms) ms /= double(device_samples);
            timed_work_ = device_work;
        }
        double c = statistic(*timing->candidate_ms, p.time.statistic);
        double r = statistic(*timing->reference_ms, p.time.statistic);
        if (c > 0) timing->speedup = r / c;
        if (p.excessive_speedup && timing->speedup && *timing->speedup > *p.excessive_speedup)
            timing->excessive_speedup = true;
        tr.candidate = TimedProgram{kernel->label, to_us(*timing->candidate_ms), {}, {}};
        tr.baseline = TimedProgram{"reference (PyTorch)", to_us(*timing->reference_ms), {}, {}};
        tr.speedup = timing->speedup;
        if (!round_ratios.empty()) {
            std::sort(round_ratios.begin(), round_ratios.end());
            tr.speedup_p10 = quantile_sorted(round_ratios, 0.1);
            tr.speedup_p90 = quantile_sorted(round_ratios, 0.9);
        }
        tr.stop_reason = timing->settled_early ? "noise" : p.time.budget_ms > 0 ? "budget or trials" : "trials";
    }
    obs->timing = timing;
    judge_policy_into(*obs, ProgramAttribution{}, integrity, pc.policy, "while timing: ");
    return tr;
}

ReferenceResult ProgramBackend::run_reference(const TaskBinding& tb, int case_index, uint64_t seed) {
    const Task& t = *tb.task;
    if (!t.python) fail(KB_ERR_INTERNAL, "the program backend was asked for a CUDA task's reference");
    ProgramProtocolOptions po;
    const ProgramProtocol p = make_program_protocol(t, po);
    ProgramRunRequest rq;
    rq.case_index = case_index;
    rq.seed = SeedSpec::plain(seed);
    rq.model_seed = p.model_seed;
    rq.mode = p.input_mode;
    ReferenceResult r;
    std::shared_ptr<const ProgramRunReply> run = reference(t, tb.task, p, rq, &r.warnings);
    r.where = case_info(t, case_index, run->seed_value ? run->seed_value : std::optional<uint64_t>(seed));
    r.run_ms = run->run_ms;
    for (const HostTensor& out : run->data) {
        Arg a;
        a.name = out.name;
        a.dtype = out.dtype;
        a.tolerance = program_tolerance(p, t, a.dtype);
        r.outputs.push_back(reference_output(out, t, case_index, a));
    }
    r.message = "the reference ran at case '" + t.cases[size_t(case_index)].name + "'";
    return r;
}

}  // namespace kb
