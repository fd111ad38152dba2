#include "worker_host/worker_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "compiler/compiler.h"
#include "device/cuda_driver.h"
#include "device/no_device_advice.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "exec/fault.h"
#include "util/error.h"
#include "protocol/wire.h"
#include "worker_host/worker_locate.h"
#include "util/profile.h"

namespace kb {
namespace {

std::string secs(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

std::string case_name(const Task& t, int case_index) {
    if (case_index >= 0 && size_t(case_index) < t.cases.size()) return t.cases[size_t(case_index)].name;
    return std::to_string(case_index);
}

std::string ref_key(const Task& t, int case_index) { return t.hash + "/" + std::to_string(case_index); }
// A reference run's key: its case and seed ("<task hash>/<case>/<seed>").
std::string run_key(const Task& t, int case_index, uint64_t seed) {
    return ref_key(t, case_index) + "/" + std::to_string(seed);
}

// kbench's own failure to talk to its worker: not the candidate's verdict.
[[noreturn]] void garbled(const Outcome& o, wire::Msg type, const Supervisor& sup) {
    fail(KB_ERR_WORKER, "the kbench worker (pid " + std::to_string(o.pid) + ") broke the protocol answering a " +
                            wire::msg_name(uint16_t(type)) + ": " + o.detail +
                            "; it was killed and the next call starts a fresh one. This is a kbench bug, or a "
                            "kbench-worker from another build (" + sup.settings().spawn.executable + ")");
}

// A failed reply's status, seen from the host: a lost CUDA context is the
// worker's, already replaced, so the caller's context is fine; what failed
// is the task's reference (the only trusted code that runs there).
kb_status host_status(const Json& reply) {
    kb_status s = wire::reply_status(reply);
    return s == KB_ERR_CONTEXT_LOST ? KB_ERR_REFERENCE_FAILED : s;
}

// A worker's result document as a typed result; a document this library
// cannot read is kbench's own failure (a worker from another build).
template <class Parse>
auto parse_reply(const Json& j, Parse parse) -> decltype(parse(j)) {
    try {
        return parse(j);
    } catch (const std::exception& e) {
        fail(KB_ERR_WORKER, std::string("a kbench worker sent a result this library cannot read (") + e.what() +
                                "); is the kbench-worker from another build?");
    }
}

}  // namespace

namespace {

// What the failed request's result says, whichever request it was.
struct Failure {
    kb_verdict verdict = KB_VERDICT_RUNTIME_ERROR;
    std::string message;
    std::optional<double> deadline_s;
    std::string signal;
    std::optional<int> exit_code;
    double run_ms = 0;
    WorkerFacts worker;
};

Failure failure(bool timing, const Task& task, int case_index, const Outcome& o, const Deadline& d) {
    Failure f;
    std::string where = (timing ? "while timing at case '" : "at case '") + case_name(task, case_index) + "'";
    if (o.kind == Outcome::Kind::timeout) {
        f.verdict = KB_VERDICT_TIMEOUT;
        f.message = "the kernel did not finish within " + secs(d.seconds) + " " + where + " (deadline: " + d.why +
                    "); kbench killed its worker process and goes on with a fresh one. " + kHangAdvice;
        f.deadline_s = d.seconds;
    } else {
        f.verdict = KB_VERDICT_RUNTIME_ERROR;
        f.message = "the worker process running the kernel " + where + " " + o.detail;
        if (!o.last_words.empty()) f.message += " while " + o.last_words;
        f.message += ". A kernel's fault is normally reported as a CUDA error; a dead process means the kernel broke "
                     "the CUDA driver or kbench itself (report it with the kernel if it happens again). kbench goes "
                     "on with a fresh worker";
        if (o.term_signal) f.signal = signal_description(o.term_signal);
        if (o.exit_code >= 0) f.exit_code = o.exit_code;
    }
    f.run_ms = o.elapsed_s * 1000.0;
    f.worker.pid = o.pid;
    f.worker.outcome = outcome_kind_name(o.kind);
    f.worker.detail = o.detail;
    f.worker.last_words = o.last_words;
    f.worker.replaced = true;
    return f;
}

template <class Result>
void apply(Result& r, Failure f) {
    r.verdict = f.verdict;
    r.message = std::move(f.message);
    r.deadline_s = f.deadline_s;
    r.signal = std::move(f.signal);
    r.exit_code = f.exit_code;
    r.run_ms = f.run_ms;
    r.worker = std::move(f.worker);
}

}  // namespace

CompareResult compare_failure(const Task& task, int case_index, uint64_t seed, const std::string& kernel_label,
                              const Outcome& o, const Deadline& d) {
    CompareResult r;
    r.where = case_info(task, case_index, seed);
    r.kernel = kernel_label;
    apply(r, failure(false, task, case_index, o, d));
    return r;
}

TimeResult time_failure(const Task& task, int case_index, const Outcome& o, const Deadline& d) {
    TimeResult r;
    r.where = case_info(task, case_index, std::nullopt);  // timing inputs are not the caller's seed
    apply(r, failure(true, task, case_index, o, d));
    return r;
}

Json worker_failure_result(const char* kind, const Task& task, int case_index, uint64_t seed,
                           const std::string& kernel_label, const Outcome& o, const Deadline& d) {
    if (std::string(kind) == "time") {
        Json j = to_json(time_failure(task, case_index, o, d));
        j["kernel"] = kernel_label;
        return j;
    }
    return to_json(compare_failure(task, case_index, seed, kernel_label, o, d));
}

WorkerBackend::WorkerBackend(WorkerSettings settings, DeadlinePolicy deadlines)
    : sup_(std::move(settings)), deadlines_(deadlines) {
    sup_.ensure_ready();
}

Json WorkerBackend::device_info() {
    sup_.ensure_ready();
    Json j = sup_.hello().value("device", Json());
    if (!j.is_object()) j = Json::object();
    // The worker sees its GPU alone, as its device 0 (ipc/worker_environment.h):
    // the host's ordinal is the one its callers know.
    if (sup_.settings().spawn.device >= 0) j["ordinal"] = sup_.settings().spawn.device;
    j["isolation"] = "worker";
    j["worker"] = {{"path", sup_.settings().spawn.executable},
                   {"pid", sup_.pid()},
                   {"protocol", wire::kProtocolVersion},
                   {"standby", sup_.settings().standby}};
    return j;
}

void WorkerBackend::inject_fault_once(const std::string& request, const std::string& fault) { faults_[request] = fault; }

WorkerFacts WorkerBackend::worker_facts(const Outcome& o) const {
    WorkerFacts w;
    w.pid = o.pid;
    if (o.reply.json.contains("free_bytes")) w.device_free_bytes = o.reply.json["free_bytes"].get<uint64_t>();
    w.respawns = sup_.respawns();
    w.replaced = o.reply.json.value("device_lost", false);
    return w;
}

template <class MakeDeadline>
Outcome WorkerBackend::exchange(wire::Msg type, const Json& body, const TaskBinding& tb, const KernelPtr& kernel,
                                MakeDeadline make_deadline, Deadline* used, const std::vector<std::string>& first_blobs) {
    Json outputs_for = Json::array();  // references a retry asks to be run with their outputs
    for (int attempt = 0;; ++attempt) {
        // A respawn happens here, before the request is built: what the
        // worker holds is known only once the worker is.
        sup_.ensure_ready();
        const Task& task = *tb.task;
        *used = make_deadline(kernel && !sup_.has("kernel:" + kernel->id));
        Json req = body;
        if (!outputs_for.empty()) req["gpu_outputs_for"] = outputs_for;
        std::vector<std::string> blobs = first_blobs;
        std::vector<std::string> sent;
        Json t = {{"hash", task.hash}};
        if (!sup_.has("task:" + task.hash)) {
            t["json"] = task.normalized_json;
            sent.push_back("task:" + task.hash);
        }
        req["task"] = t;
        Json kernels = Json::array();
        for (const auto& [field, k] : {std::pair<const char*, const KernelPtr*>{"reference", &tb.reference},
                                       {"baseline", &tb.baseline},
                                       {"kernel", &kernel}}) {
            if (!*k) {
                req[field] = nullptr;
                continue;
            }
            req[field] = (*k)->id;
            std::string key = "kernel:" + (*k)->id;
            if (sup_.has(key) || std::find(sent.begin(), sent.end(), key) != sent.end()) continue;
            kernels.push_back(wire::kernel_to_json(**k, &blobs));
            sent.push_back(key);
        }
        if (!kernels.empty()) req["kernels"] = kernels;
        auto fault = faults_.find(wire::msg_name(uint16_t(type)));
        if (fault != faults_.end()) {
            req["test_fault"] = fault->second;
            faults_.erase(fault);
        }
        Outcome o = [&] { KB_PROFILE_SPAN("host.worker_call"); return sup_.call(type, req, blobs, used->seconds); }();
        if (o.ok()) {
            const Json& r = o.reply.json;
            if (!wire::reply_ok(r) && r.contains("missing") && attempt == 0) {
                bool not_reproduced = false;
                for (const Json& m : r["missing"]) {
                    if (!m.is_string()) continue;
                    const std::string key = m.get<std::string>();
                    sup_.forget(key);
                    if (key.rfind("ref:", 0) == 0) {
                        const std::string ref = key.substr(4);
                        drop_digest(ref);
                        if (not_reproduced_.size() >= 65536) not_reproduced_.clear();
                        not_reproduced_.insert(ref);
                        outputs_for.push_back(ref);
                        not_reproduced = true;
                    }
                }
                // A reference held without its large outputs (from a digest,
                // or run without copying them) that did not reproduce on the
                // device: a reference that is not bitwise deterministic, or
                // one a candidate tampered with in this worker. The request
                // goes to a fresh worker, which runs the reference before any
                // candidate, copying its outputs, and the digest to no worker
                // again.
                if (not_reproduced) sup_.retire();
                continue;
            }
            for (const std::string& key : sent) sup_.remember(key);
        }
        return o;
    }
}

ReferenceResult WorkerBackend::reference_request(const TaskBinding& tb, int case_index, uint64_t seed,
                                                 bool statistics) {
    const Task& task = *tb.task;
    Deadline d;
    Json body{{"case_index", case_index}, {"seed", seed}, {"digest", true}};
    // An older worker ignores the field and sends the statistics anyway.
    if (!statistics) body["statistics"] = false;
    const std::string key = run_key(task, case_index, seed);
    if (not_reproduced_.count(key)) body["gpu_outputs_for"] = Json::array({key});
    Outcome o = exchange(wire::Msg::run_reference, body, tb, nullptr,
                         [&](bool) { return deadlines_.reference(); }, &d);
    const std::string where = "the task's reference at case '" + case_name(task, case_index) + "'";
    switch (o.kind) {
        case Outcome::Kind::reply: break;
        case Outcome::Kind::timeout:
            fail(KB_ERR_REFERENCE_FAILED, where + " did not finish within " + secs(d.seconds) +
                                              " (its worker was killed): the task is broken, or its reference is "
                                              "far too slow for this GPU");
        case Outcome::Kind::died:
            fail(KB_ERR_REFERENCE_FAILED, "the worker running " + where + " " + o.detail +
                                              (o.last_words.empty() ? "" : " while " + o.last_words) +
                                              ": the task is broken");
        case Outcome::Kind::garbled: garbled(o, wire::Msg::run_reference, sup_);
    }
    const Json& r = o.reply.json;
    bool lost = r.value("device_lost", false);
    if (lost) sup_.retire();
    if (!wire::reply_ok(r)) fail(host_status(r), wire::reply_error(r));
    ReferenceResult result = parse_reply(r.at("result"), reference_result_from_json);
    reference_ms_[ref_key(task, case_index)] = result.run_ms;
    if (!lost) sup_.remember("ref:" + key);
    ++references_run_;
    if (!lost && r["result"].contains("digest"))
        keep_digest(key, r["result"]["digest"], o.reply.blobs);
    result.worker = worker_facts(o);
    return result;
}

void WorkerBackend::ensure_reference(const TaskBinding& tb, int case_index, uint64_t seed) {
    // Its own request, before the candidate's: a reference that hangs or
    // crashes is then reported as the task's failure, and its run time sets
    // the candidate's deadline.
    if (holds_reference(*tb.task, case_index, seed)) return;
    const std::string key = run_key(*tb.task, case_index, seed);
    // Run by a worker since replaced, which left its digest: this worker
    // holds it from that, without running it.
    if (digests_.count(key)) {
        KB_PROFILE_SPAN("host.reference_installed");
        if (install_reference(tb, case_index, seed, key)) return;
    }
    // Run before by a worker since replaced, or never: the trace tells the
    // two apart (bench/trace_lanes.py).
    {
        KB_PROFILE_SPAN(ran_before_.count(key) ? "host.reference_again" : "host.reference_first");
        reference_request(tb, case_index, seed, false);
    }
    // Bounded like Supervisor::remember: forgetting only blurs the trace.
    if (ran_before_.size() >= 65536) ran_before_.clear();
    ran_before_.insert(key);
}

bool WorkerBackend::install_reference(const TaskBinding& tb, int case_index, uint64_t seed, const std::string& key) {
    const HeldDigest& held = digests_.at(key);
    Json body{{"case_index", case_index}, {"seed", seed}, {"digest", held.doc}};
    // The task alone: the worker needs no kernel to hold a reference.
    TaskBinding task_only{tb.task, nullptr, nullptr};
    Deadline d;
    Outcome o = exchange(wire::Msg::install_reference, body, task_only, nullptr,
                         [&](bool) { return deadlines_.reference(); }, &d, held.blobs);
    if (o.ok() && wire::reply_ok(o.reply.json)) {
        sup_.remember("ref:" + key);
        ++references_installed_;
        return true;
    }
    // A worker that refuses the digest (another build's) or fails on it runs
    // the reference instead; a worker lost meanwhile is replaced by the next
    // request, as after any failure.
    drop_digest(key);
    return false;
}

void WorkerBackend::keep_digest(const std::string& key, const Json& doc, const std::vector<std::string>& blobs) {
    size_t bytes = 0;
    for (const std::string& b : blobs) bytes += b.size();
    if (bytes > kDigestBytes / 4) return;  // one huge output would crowd out the rest
    drop_digest(key);
    if (digest_bytes_ + bytes > kDigestBytes) {
        digests_.clear();
        digest_bytes_ = 0;
    }
    digests_[key] = HeldDigest{doc, blobs};
    digest_bytes_ += bytes;
}

void WorkerBackend::spoil_digests_for_tests() {
    for (auto& [key, held] : digests_)
        for (Json& c : held.doc["checksums"]) c = c.get<uint64_t>() ^ 0x5a5a5a5a5a5a5a5aull;
}

void WorkerBackend::drop_digest(const std::string& key) {
    auto it = digests_.find(key);
    if (it == digests_.end()) return;
    for (const std::string& b : it->second.blobs) digest_bytes_ -= b.size();
    digests_.erase(it);
}

ReferenceResult WorkerBackend::run_reference(const TaskBinding& tb, int case_index, uint64_t seed) {
    return reference_request(tb, case_index, seed, true);
}

const Json* WorkerBackend::candidate_reply(wire::Msg type, const Outcome& o, const TaskBinding& tb, int case_index,
                                           const KernelPtr& kernel) {
    switch (o.kind) {
        case Outcome::Kind::reply: break;
        case Outcome::Kind::timeout:
        case Outcome::Kind::died:
            if (!kernel)
                fail(KB_ERR_REFERENCE_FAILED, "timing the task's baseline alone at case '" +
                                                  case_name(*tb.task, case_index) + "': its worker " + o.detail +
                                                  ": the task's baseline is broken");
            return nullptr;
        case Outcome::Kind::garbled: garbled(o, type, sup_);
    }
    const Json& r = o.reply.json;
    // After a sticky CUDA error the worker's context is unusable: replace it
    // now, whatever the verdict says.
    if (r.value("device_lost", false)) sup_.retire();
    if (!wire::reply_ok(r)) fail(host_status(r), wire::reply_error(r));
    return &r.at("result");
}

CompareResult WorkerBackend::compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                     unsigned runs) {
    return compare_request(tb, kernel, case_index, seed, runs, false);
}

CompareResult WorkerBackend::recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) {
    return compare_request(tb, kernel, case_index, seed, 1, true);
}

CompareResult WorkerBackend::compare_request(const TaskBinding& tb, const KernelPtr& kernel, int case_index,
                                             uint64_t seed, unsigned runs, bool timed_build) {
    { KB_PROFILE_SPAN("host.ensure_reference"); ensure_reference(tb, case_index, seed); }
    double ref_ms = reference_ms_[ref_key(*tb.task, case_index)];
    uint64_t bytes = case_buffer_bytes(*tb.task, case_index);
    Deadline d;
    Deadline limit = deadlines_.kernel(ref_ms);
    Deadline loops = deadlines_.checked_loops(ref_ms);
    Json body{{"case_index", case_index}, {"seed", seed}, {"runs", runs},
              {"kernel_limit_s", limit.seconds}, {"kernel_limit_why", limit.why},
              {"kernel_loop_limit_s", loops.seconds}, {"kernel_loop_limit_why", loops.why}};
    if (timed_build) body["timed_build"] = true;
    Outcome o = exchange(wire::Msg::compare, body, tb, kernel,
                         [&](bool new_kernel) { return deadlines_.compare(ref_ms, bytes, runs, new_kernel); }, &d);
    const Json* reply = candidate_reply(wire::Msg::compare, o, tb, case_index, kernel);
    if (!reply) return compare_failure(*tb.task, case_index, seed, kernel->label, o, d);
    CompareResult r = [&] { KB_PROFILE_SPAN("host.parse_compare"); return parse_reply(*reply, compare_result_from_json); }();
    r.worker = worker_facts(o);
    // The worker's own watchdog stopped a run, or the checked build's loops
    // stopped themselves: that limit is this request's deadline.
    if (r.verdict == KB_VERDICT_TIMEOUT)
        r.deadline_s = r.context_lost || timed_build ? limit.seconds : loops.seconds;
    return r;
}

std::vector<CompareResult> WorkerBackend::compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                                        const std::vector<CaseRuns>& cases, uint64_t seed) {
    // A deadline the caller fixed (kb_context_options.timeout_s) is one
    // request's: each case keeps a request of its own.
    if (deadlines_.timeout_s > 0) return Backend::compare_cases(tb, kernel, cases, seed);
    std::vector<CompareResult> out;
    for (size_t next = 0; next < cases.size();) {
        // The first case's reference runs now if this worker lacks it (its
        // failure is the task's; its time sets the limits). The cases after
        // it join the request while this worker holds their references, so
        // a candidate that fails early costs no reference it did not need
        // (a fresh worker, after a crash, holds none).
        {
            KB_PROFILE_SPAN("host.ensure_reference");
            ensure_reference(tb, cases[next].case_index, seed);
        }
        size_t end = next + 1;
        while (end < cases.size() && holds_reference(*tb.task, cases[end].case_index, seed)) ++end;
        if (end - next == 1) {
            out.push_back(compare(tb, kernel, cases[next].case_index, seed, cases[next].runs));
        } else {
            std::vector<CaseRuns> group(cases.begin() + std::ptrdiff_t(next), cases.begin() + std::ptrdiff_t(end));
            for (CompareResult& r : compare_in_one_request(tb, kernel, group, seed)) out.push_back(std::move(r));
        }
        if (out.back().verdict != KB_VERDICT_PASS) break;
        next = end;
    }
    return out;
}

bool WorkerBackend::holds_reference(const Task& task, int case_index, uint64_t seed) const {
    return sup_.has("ref:" + run_key(task, case_index, seed));
}

std::vector<CompareResult> WorkerBackend::compare_in_one_request(const TaskBinding& tb, const KernelPtr& kernel,
                                                                 const std::vector<CaseRuns>& cases, uint64_t seed) {
    const Task& task = *tb.task;
    Json list = Json::array();
    std::vector<Deadline> limits, loop_limits;
    std::vector<DeadlinePolicy::CaseCost> costs;
    for (const CaseRuns& c : cases) {
        const double ref_ms = reference_ms_[ref_key(task, c.case_index)];
        limits.push_back(deadlines_.kernel(ref_ms));
        costs.push_back({ref_ms, case_buffer_bytes(task, c.case_index), c.runs});
        loop_limits.push_back(deadlines_.checked_loops(ref_ms));
        list.push_back({{"case_index", c.case_index},
                        {"runs", c.runs},
                        {"kernel_limit_s", limits.back().seconds},
                        {"kernel_limit_why", limits.back().why},
                        {"kernel_loop_limit_s", loop_limits.back().seconds},
                        {"kernel_loop_limit_why", loop_limits.back().why}});
    }
    Deadline d;
    Outcome o = exchange(wire::Msg::compare_cases, Json{{"seed", seed}, {"cases", std::move(list)}}, tb, kernel,
                         [&](bool new_kernel) { return deadlines_.compare_cases(costs, new_kernel); }, &d);
    const Json* reply = candidate_reply(wire::Msg::compare_cases, o, tb, cases.front().case_index, kernel);
    if (!reply) {
        // The worker died or missed the deadline, and nothing says at which
        // case: each case again in a request of its own (on a fresh worker),
        // so the failure is told at its case. Should every case pass then,
        // the failure stands, at the first case, in the words of the first try.
        KB_PROFILE_SPAN("host.compare_cases_one_by_one");
        std::vector<CompareResult> again = Backend::compare_cases(tb, kernel, cases, seed);
        if (!again.empty() && again.back().verdict != KB_VERDICT_PASS) return again;
        return {compare_failure(task, cases.front().case_index, seed, kernel->label, o, d)};
    }
    const Json results = reply->value("results", Json());
    if (!results.is_array() || results.empty() || results.size() > cases.size()) {
        sup_.retire();
        fail(KB_ERR_WORKER, "the kbench worker (pid " + std::to_string(o.pid) + ") answered compare_cases for " +
                                std::to_string(cases.size()) + " cases with " +
                                (results.is_array() ? std::to_string(results.size()) + " results" : "no result list") +
                                "; it was replaced. This is a kbench bug, or a kbench-worker from another build");
    }
    std::vector<CompareResult> out;
    for (size_t k = 0; k < results.size(); ++k) {
        CompareResult r = parse_reply(results[k], compare_result_from_json);
        r.worker = worker_facts(o);
        // The worker's own watchdog stopped a run, or the checked build's
        // loops stopped themselves: that limit is this case's deadline.
        if (r.verdict == KB_VERDICT_TIMEOUT)
            r.deadline_s = r.context_lost ? limits[k].seconds : loop_limits[k].seconds;
        out.push_back(std::move(r));
    }
    return out;
}

TimeResult WorkerBackend::time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) {
    const Task& task = *tb.task;
    int ci = req.case_index < 0 ? task.perf_index : req.case_index;
    // The reference's time at the timed case sets the deadline; learn it once.
    if (!reference_ms_.count(ref_key(task, ci))) ensure_reference(tb, ci, kDefaultSeed);
    double ref_ms = reference_ms_[ref_key(task, ci)];
    uint64_t bytes = case_buffer_bytes(task, ci);
    Deadline d;
    Outcome o = exchange(wire::Msg::time, Json{{"request", wire::time_request_to_json(req)}}, tb, kernel,
                         [&](bool new_kernel) { return deadlines_.time(ref_ms, bytes, req, new_kernel); }, &d);
    const Json* reply = candidate_reply(wire::Msg::time, o, tb, ci, kernel);
    if (!reply) return time_failure(task, ci, o, d);
    TimeResult r = parse_reply(*reply, time_result_from_json);
    r.worker = worker_facts(o);
    return r;
}

WorkerSettings worker_settings(const ContextOptions& opts, int device) {
    WorkerSettings s;
    s.spawn.executable = find_worker_executable(opts.worker_path);
    s.spawn.device = device;
    const char* hooks = std::getenv("KBENCH_WORKER_TEST_HOOKS");
    s.spawn.test_hooks = hooks && std::string(hooks) == "1";
    // A standby holds a second CUDA context (some hundreds of MiB of device
    // memory) so that a crash costs no start-up; KBENCH_WORKER_STANDBY=0 gives
    // the memory back at that price.
    const char* standby = std::getenv("KBENCH_WORKER_STANDBY");
    const std::string setting = standby ? standby : "";
    s.standby = device >= 0 && setting != "0";
    // Where the comparisons run checked builds, a candidate's fault or
    // endless loop keeps the worker, and a lane starts its standby only once
    // it has lost one (to what containment does not cover: a hang past the
    // checks, nvcc's or Triton's images). CUDA contexts are created one at a
    // time across the machine (about 0.2 s each on two H200s' host), so each
    // standby delayed every other worker's start and run: on two H200s, a
    // 500-answer `kbench run` scores 41.6-43.1 answers per second with them
    // and 43.9-46.8 without (`bench/run_bench.py`).
    // KBENCH_WORKER_STANDBY=1 keeps one from the start regardless.
    CompilerConfig cc;
    cc.contain_traps = opts.contain_traps;
    cc.contain_comparisons = opts.contain_comparisons;
    s.standby_after_loss = setting != "1" && Compiler::faults_contained(cc);
    return s;
}

namespace {

// KB_ERR_NO_DEVICE when this process sees no driver or no such device.
void check_device_here(int device) {
    std::string why;
    const CudaDriver* drv = CudaDriver::try_get(&why);
    if (!drv) fail(KB_ERR_NO_DEVICE, why);
    int count = 0;
    cuda_check(drv->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (device >= count)
        fail(KB_ERR_NO_DEVICE,
             with_compile_only_advice("CUDA device " + std::to_string(device) + " does not exist: " +
                                      std::to_string(count) + " device(s) visible" +
                                      (count ? " (ordinals 0.." + std::to_string(count - 1) + ")" : std::string())));
}

}  // namespace

std::unique_ptr<Backend> make_worker_backend(const ContextOptions& opts) {
    DeadlinePolicy deadlines;
    deadlines.timeout_s = opts.timeout_s;
    // Measuring knobs (docs/isolation.md): what a shorter or longer floor
    // does to a stream with hangs.
    auto floor_from_env = [](const char* name, double fallback) {
        const char* v = std::getenv(name);
        if (!v || !*v) return fallback;
        char* end = nullptr;
        double s = std::strtod(v, &end);
        if (end == v || *end != 0 || !(s > 0)) {
            char dflt[32];
            std::snprintf(dflt, sizeof dflt, "%g", fallback);
            fail(KB_ERR_INVALID_ARGUMENT, std::string("$") + name + " is '" + v +
                                              "', not a positive number of seconds: unset it for the " + dflt +
                                              " s floor");
        }
        return s;
    };
    deadlines.kernel_floor_s = floor_from_env("KBENCH_KERNEL_FLOOR_S", DeadlinePolicy::kKernelFloorS);
    deadlines.checked_loop_floor_s =
        floor_from_env("KBENCH_CHECKED_LOOP_FLOOR_S", DeadlinePolicy::kCheckedLoopFloorS);
    if (opts.device < 0)
        fail(KB_ERR_NO_DEVICE, with_compile_only_advice("CUDA device " + std::to_string(opts.device) +
                                                        " does not exist: device ordinals start at 0"));
    // The worker itself answers whether the driver and the device exist: its
    // hello refuses with KB_ERR_NO_DEVICE, and the supervisor passes that on.
    // Asking here as well would cost a cuInit in this process before the
    // worker is even spawned, on the path of every context's start: 0.4-0.45 s
    // on one H200 host, 12.7-14.5 s on some two-H200 hosts, where the
    // workers' whole start takes 0.4-0.5 s (bench/context_starts.c). Only when there is no
    // worker to ask does this process look, so that a machine without a GPU
    // still hears KB_ERR_NO_DEVICE, as an in-process context would say,
    // rather than that the worker is missing.
    WorkerSettings settings;
    try {
        settings = worker_settings(opts, opts.device);
    } catch (const Error& e) {
        if (e.status() == KB_ERR_WORKER) check_device_here(opts.device);
        throw;
    }
    return std::make_unique<WorkerBackend>(std::move(settings), deadlines);
}

}  // namespace kb
