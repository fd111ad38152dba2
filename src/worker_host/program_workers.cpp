#include "worker_host/program_workers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "util/error.h"
#include "util/files.h"
#include "util/install_dirs.h"
#include "util/sha256.h"
#include "ipc/confine.h"
#include "ipc/worker_process.h"
#include "protocol/program_wire.h"
#include "worker_host/deadlines.h"

#ifndef KB_GPU_COMPARE_LIB_BUILD
#define KB_GPU_COMPARE_LIB_BUILD ""
#endif
#ifndef KB_CUPTI_LIB_BUILD
#define KB_CUPTI_LIB_BUILD ""
#endif

namespace kb {
namespace {

// Deadlines of the Python workers' requests. A worker's start imports torch
// and creates a CUDA context (seconds on a cold machine); a candidate's import
// may build a CUDA extension with nvcc (KernelBench's load_inline: about a
// minute); a first call at a case JIT-compiles its Triton kernels.
constexpr double kHelloS = 180;
constexpr double kLoadS = 300;
constexpr double kReferenceS = 600;  // the problem's own code, inputs made on the CPU for the kernelbench protocol
constexpr double kFirstCallS = 120;
constexpr double kCanaryS = 30;
// A builder's import of one candidate, its builds included: past it the
// lane imports the candidate itself, under its own deadline. A builder's
// hang is no verdict (it has no device, so a module that waits for one
// hangs there only), so this bounds what a hanging import costs before the
// lane's: 120 s, over twice the slowest build ahead seen, a cold context's
// first CUDA answer with its precompiled headers (52.3 s on an H100,
// bench/kernelbench/program_bench.py with
// PROGRAM_CANDIDATES=bench/kernelbench/cuda_candidates).
constexpr double kPrebuildS = 120;

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

bool is_file(const std::string& p) {
    struct stat st;
    return !p.empty() && ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string secs(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f s", s);
    return buf;
}

}  // namespace

std::string locate_program_worker_script() {
    std::string e = env("KBENCH_PROGRAM_WORKER");
    if (!e.empty()) {
        if (!is_file(e))
            fail(KB_ERR_NOT_FOUND, "$KBENCH_PROGRAM_WORKER names '" + e + "', which is not a file; point it at "
                                   "python/kbench_programs/kbench_program_worker.py");
        return e;
    }
    std::string looked;
    std::string dir = programs_dir("kbench_program_worker.py", &looked);
    if (!dir.empty()) return join_path(dir, "kbench_program_worker.py");
    fail(KB_ERR_NOT_FOUND, "kbench's Python program worker (kbench_program_worker.py) was not found in " + looked +
                               "; set $KBENCH_PROGRAM_WORKER to python/kbench_programs/kbench_program_worker.py");
}

namespace {

// A native library of the Python workers: installed beside them
// (libexec/kbench/python/native), else where this build made it.
std::string locate_native_library(const char* env_name, const std::string& name, const std::string& build) {
    std::string e = env(env_name);
    if (!e.empty()) return e;
    std::string dir = programs_dir("native/" + name);
    if (!dir.empty()) return join_path(dir, "native/" + name);
    return is_file(build) ? build : "";
}

}  // namespace

std::string locate_cupti_library() {
    return locate_native_library("KBENCH_CUPTI_LIB", "libkbench_cupti.so", KB_CUPTI_LIB_BUILD);
}

std::string locate_gpu_compare_library() {
    return locate_native_library("KBENCH_GPU_COMPARE_LIB", "libkbench_gpu_compare.so", KB_GPU_COMPARE_LIB_BUILD);
}

ProgramWorkerSettings program_worker_settings(const ContextOptions& opts) {
    ProgramWorkerSettings s;
    s.python = env("KBENCH_PYTHON");
    if (s.python.empty()) s.python = "python3";
    s.script = locate_program_worker_script();
    s.cupti_lib = locate_cupti_library();
    s.gpu_compare_lib = locate_gpu_compare_library();
    s.device = opts.device;
    s.test_hooks = env("KBENCH_WORKER_TEST_HOOKS") == "1";
    s.test_cpu = s.test_hooks && env("KBENCH_PROGRAM_TEST_CPU") == "1";
    if (s.test_cpu) s.device = -1;
    s.standby = env("KBENCH_WORKER_STANDBY") != "0";
    s.timeout_s = opts.timeout_s;
    s.confine = confine_python_worker(opts.confine, s.device);
    s.load_inline_cache = load_inline_cache_dir();
    return s;
}

std::string load_inline_cache_dir() {
    std::string dir = env("KBENCH_LOAD_INLINE_CACHE");
    if (dir.empty()) {
        std::string base = env("XDG_CACHE_HOME");
        if (base.empty() && !env("HOME").empty()) base = env("HOME") + "/.cache";
        if (base.empty()) return "";
        dir = base + "/kbench/load-inline";
    }
    try {
        make_dirs(dir);
    } catch (const Error&) {
        return "";
    }
    return dir;
}

const std::string& prebuilt_root() {
    // Removed when the process exits (a candidate's own folder goes when its
    // score ends: ProgramCandidate).
    struct Root {
        std::string path;
        Root() {
            try {
                path = make_temp_dir("kbench-prebuilt-");
            } catch (const Error&) {
                path.clear();  // no builds ahead: each candidate worker builds its own
            }
        }
        ~Root() {
            if (!path.empty()) remove_tree(path);
        }
    };
    static Root root;
    return root.path;
}

namespace {

// The builder of the shared load_inline cache (kbench_program_worker.py
// --build-pch): started once per process and cache folder, before the first
// candidate worker, confined with write access to that folder alone. It runs
// no candidate, so what candidates read there no candidate wrote; a worker
// that finds a header missing waits while the builder holds its lock, else
// builds one in its own folder. It exits when done, or with the host.
void start_load_inline_builder(const ProgramWorkerSettings& s) {
    static std::mutex mutex;
    static std::set<std::string> started;
    // Never destroyed: a builder outlives the context that started it; the
    // ones that ended are reaped at the next start.
    static auto* builders = new std::vector<std::unique_ptr<WorkerProcess>>();
    std::lock_guard<std::mutex> lock(mutex);
    builders->erase(std::remove_if(builders->begin(), builders->end(),
                                   [](const std::unique_ptr<WorkerProcess>& w) { return w->reap(0); }),
                    builders->end());
    if (s.load_inline_cache.empty() || !started.insert(s.load_inline_cache).second) return;
    const std::string work = make_temp_dir("kbench-load-inline-builder-");
    SpawnOptions o;
    o.command = {s.python, "-B", s.script};
    o.device = -1;
    o.extra_args = {"--work-dir", work, "--build-pch", s.load_inline_cache};
    o.what = "kbench load_inline builder";
    o.stderr_file = work + "/stderr.log";
    o.confine = s.confine;
    try {
        builders->push_back(WorkerProcess::spawn(o));
    } catch (const Error&) {
        // No builder: each candidate worker builds what it needs itself.
    }
}

}  // namespace

ProgramWorkers::ProgramWorkers(ProgramWorkerSettings settings) : settings_(std::move(settings)) {
    work_root_ = make_temp_dir("kbench-programs-");
    auto make = [&](ProgramRole role, bool standby) {
        const std::string name = program_role_name(role);
        const std::string dir = work_root_ + "/" + name;
        make_dirs(dir);
        WorkerSettings ws;
        ws.spawn.command = {settings_.python, "-B", settings_.script};
        ws.spawn.device = settings_.device;
        ws.spawn.test_hooks = settings_.test_hooks;
        ws.spawn.extra_args = {"--role", name, "--work-dir", dir};
        if (role != ProgramRole::reference && !settings_.load_inline_cache.empty()) {
            ws.spawn.extra_args.push_back("--load-inline-cache");
            ws.spawn.extra_args.push_back(settings_.load_inline_cache);
        }
        // The libraries builders made ahead, which the host writes there.
        if (role == ProgramRole::candidate && !prebuilt_root().empty()) {
            ws.spawn.extra_args.push_back("--prebuilt-dir");
            ws.spawn.extra_args.push_back(prebuilt_root());
        }
        if (role == ProgramRole::builder) {
            // No device: nothing it runs can reach the GPU or slow the lanes'
            // GPU phases.
            ws.spawn.device = -1;
        } else if (!settings_.cupti_lib.empty()) {
            ws.spawn.extra_args.push_back("--cupti-lib");
            ws.spawn.extra_args.push_back(settings_.cupti_lib);
        }
        // Both roles: the reference compares with it, and both checksum
        // their inputs with it (the two checksums must be of one kind).
        if (!settings_.gpu_compare_lib.empty()) {
            ws.spawn.extra_args.push_back("--gpu-compare-lib");
            ws.spawn.extra_args.push_back(settings_.gpu_compare_lib);
        }
        ws.spawn.what = "kbench Python " + name + " worker";
        ws.spawn.fix = "kbench runs it with the interpreter $KBENCH_PYTHON names (else python3 on PATH): install "
                       "torch there, or point $KBENCH_PYTHON at one that has it";
        ws.spawn.stderr_file = dir + "/stderr.log";
        ws.spawn.confine = settings_.confine;
        ws.standby = standby;
        ws.hello_extra = Json{{"role", name}, {"test_cpu", settings_.test_cpu}, {"cache_share", settings_.cache_share}};
        // A builder, and a candidate worker that sees no device (a
        // compile-only run), build load_inline answers for the context's
        // architecture: torch finds none on a device there.
        if ((role == ProgramRole::builder || role == ProgramRole::candidate) && !settings_.cuda_arch_list.empty())
            ws.hello_extra["cuda_arch_list"] = settings_.cuda_arch_list;
        ws.hello_s = kHelloS;
        ws.canary_s = kCanaryS;
        return std::make_unique<Supervisor>(ws);
    };
    // Candidates on a device build load_inline answers: the shared headers first.
    if ((settings_.candidate || settings_.builder) && settings_.device >= 0) start_load_inline_builder(settings_);
    if (settings_.reference) reference_ = make(ProgramRole::reference, false);
    if (settings_.candidate) candidate_ = make(ProgramRole::candidate, settings_.standby);
    if (settings_.builder) builder_ = make(ProgramRole::builder, false);
    // Start them now: a broken set-up (no torch, no device) fails here, with
    // the worker's own words, rather than at the first candidate.
    try {
        if (reference_) reference_->ensure_ready();
        if (candidate_) candidate_->ensure_ready();
        if (builder_) builder_->ensure_ready();
    } catch (const Error& e) {
        std::string log;
        for (const char* role : {"reference", "candidate", "builder"})
            if (log.empty()) log = tail_of_file(work_root_ + "/" + role + "/stderr.log", 1500);
        reference_.reset();
        candidate_.reset();
        builder_.reset();
        remove_tree(work_root_);
        fail(e.status(), std::string(e.what()) + (log.empty() ? "" : "\nthe worker's stderr:\n" + log));
    }
}

ProgramWorkers::~ProgramWorkers() {
    builder_.reset();
    candidate_.reset();
    reference_.reset();
    if (!work_root_.empty()) remove_tree(work_root_);
}

void ProgramWorkers::inject_fault_once(const std::string& request, const std::string& fault) { faults_[request] = fault; }

Json ProgramWorkers::info() {
    Json j;
    j["python"] = settings_.python;
    j["script"] = settings_.script;
    j["cupti_lib"] = settings_.cupti_lib;
    if (reference_) {
        j["reference"] = reference_->hello();
        j["reference_worker"] = reference_->stats();
    }
    if (candidate_) {
        j["candidate"] = candidate_->hello();
        j["candidate_worker"] = candidate_->stats();
    }
    return j;
}

Supervisor& ProgramWorkers::supervisor(ProgramRole role) {
    Supervisor* s = role == ProgramRole::reference ? reference_.get()
                    : role == ProgramRole::candidate ? candidate_.get()
                                                     : builder_.get();
    if (!s)
        fail(KB_ERR_INTERNAL, std::string("a request for the Python ") + program_role_name(role) +
                                  " worker reached workers started without that role");
    return *s;
}

Outcome ProgramWorkers::exchange(ProgramRole role, wire::Msg type, Json body, std::vector<std::string> blobs,
                                 const TaskPtr& task, double deadline_s) {
    Supervisor& sup = supervisor(role);
    const std::string key = "task:" + task->hash;
    auto it = faults_.find(wire::msg_name(uint16_t(type)));
    if (it != faults_.end() && role == ProgramRole::candidate) {
        body["test_fault"] = it->second;
        faults_.erase(it);
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        sup.ensure_ready();
        Json b = body;
        std::vector<std::string> bl = blobs;
        b["task"] = Json{{"hash", task->hash}};
        if (!sup.has(key)) {
            b["task"]["json_blob"] = bl.size();
            bl.push_back(task->normalized_json);
        }
        Outcome o = sup.call(type, b, bl, deadline_s);
        if (!o.ok()) return o;
        sup.remember(key);
        const Json& r = o.reply.json;
        if (wire::reply_ok(r) && r["result"].is_object() && r["result"].contains("missing")) {
            sup.forget(key);
            continue;
        }
        return o;
    }
    fail(KB_ERR_WORKER, "the Python " + std::string(program_role_name(role)) +
                            " worker keeps dropping the task it was sent; this is a kbench bug");
}

ProgramWorkerFailure ProgramWorkers::failure_of(ProgramRole role, const Outcome& o, double deadline_s,
                                                const std::string& doing) {
    ProgramWorkerFailure f;
    Supervisor& sup = supervisor(role);
    f.worker.pid = o.pid;
    f.worker.respawns = sup.respawns();
    f.worker.replaced = true;
    f.worker.outcome = outcome_kind_name(o.kind);
    f.worker.detail = o.detail;
    f.worker.last_words = o.last_words;
    const std::string log = tail_of_file(work_root_ + "/" + program_role_name(role) + "/stderr.log", 800);
    if (o.kind == Outcome::Kind::timeout) {
        f.verdict = KB_VERDICT_TIMEOUT;
        f.deadline_s = deadline_s;
        f.message = "the candidate did not finish " + doing + " within " + secs(deadline_s) +
                    "; kbench killed its Python worker and goes on with a fresh one. Look for a loop that never ends, "
                    "a kernel that spins, or an import that waits" +
                    (settings_.timeout_s > 0 ? "" : " (kb_context_options.timeout_s sets this deadline)");
    } else {
        f.verdict = KB_VERDICT_RUNTIME_ERROR;
        if (o.term_signal) f.signal = signal_description(o.term_signal);
        if (o.kind == Outcome::Kind::died && o.exit_code >= 0 && !o.term_signal) f.exit_code = o.exit_code;
        f.message = "the candidate's Python worker " + o.detail + " " + doing +
                    (o.last_words.empty() ? "" : " (while " + o.last_words + ")") +
                    (o.term_signal ? "" : ": a candidate must not end its process (os._exit, sys.exit in a thread, "
                                          "signals)") +
                    (log.empty() ? "" : "; its stderr ends: " + log);
    }
    return f;
}

void ProgramWorkers::reply_failed(ProgramRole role, wire::Msg type, const Outcome& o) {
    const Json& r = o.reply.json;
    kb_status s = wire::reply_status(r);
    fail(role == ProgramRole::reference && s != KB_ERR_WORKER ? KB_ERR_REFERENCE_FAILED : s,
         "the Python " + std::string(program_role_name(role)) + " worker refused a " + wire::msg_name(uint16_t(type)) +
             ": " + wire::reply_error(r));
}

ProgramRunReply ProgramWorkers::read_run_reply(ProgramRole role, const Json& result,
                                               const std::vector<std::string>& blobs) {
    const std::string dir = work_root_ + "/" + program_role_name(role) + "/";
    return wire::program_run_reply(result, blobs, [&](const std::string& path) {
        if (path.compare(0, dir.size(), dir) != 0)
            fail(KB_ERR_WORKER, "the Python worker put an output outside its folder: " + path);
        std::string bytes = read_file(path);
        ::unlink(path.c_str());
        return bytes;
    });
}

std::optional<ProgramPrebuild> ProgramWorkers::prebuild(const std::string& source, const std::string& source_name,
                                                        const TaskPtr& task) {
    if (!builder_ || prebuilt_root().empty()) return std::nullopt;
    ProgramPrebuild out;
    if (builder_contaminated_) {
        builder_->retire();
        builder_contaminated_ = false;
    }
    const double deadline = std::min(settings_.timeout_s > 0 ? std::max(settings_.timeout_s, 1.0) : kLoadS, kPrebuildS);
    Outcome o;
    if (task) {
        o = exchange(ProgramRole::builder, wire::Msg::program_prebuild, wire::program_prebuild_body(source_name),
                     {source}, task, deadline);
    } else {
        builder_->ensure_ready();
        o = builder_->call(wire::Msg::program_prebuild, wire::program_prebuild_body(source_name), {source}, deadline);
    }
    if (!o.ok()) {
        out.failure = failure_of(ProgramRole::builder, o, deadline, "while building ahead");
        return out;
    }
    // What the builder says came from a process that ran the candidate: a
    // refusal or a malformed reply costs the builds ahead, never the score.
    std::vector<int> blob_of;
    ProgramIntegrity integrity;
    try {
        if (!wire::reply_ok(o.reply.json)) {
            out.stopped = "the builder refused the request: " + wire::reply_error(o.reply.json);
            builder_contaminated_ = true;
            return out;
        }
        out = wire::program_prebuild_reply(o.reply.json["result"], o.reply.blobs.size(), &blob_of, &integrity);
    } catch (const Error& e) {
        builder_contaminated_ = true;
        ProgramPrebuild none;
        none.stopped = e.what();
        return none;
    }
    if (tainted(integrity)) builder_contaminated_ = true;
    if (out.calls.empty()) return out;
    std::string tmpl = prebuilt_root() + "/candidate-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
        out.calls.clear();
        out.stopped = "kbench could not make a folder for the libraries built ahead under " + prebuilt_root();
        return out;
    }
    out.folder = buf.data();
    for (size_t i = 0; i < out.calls.size(); ++i) {
        if (blob_of[i] < 0) continue;
        out.calls[i].path = out.folder + "/" + out.calls[i].key + ".so";
        write_file_atomic(out.calls[i].path, o.reply.blobs[size_t(blob_of[i])]);
    }
    return out;
}

ProgramLoadReply ProgramWorkers::load_candidate(const TaskPtr& task, const std::string& source,
                                                const std::string& source_name, const KernelCandidate* kernel,
                                                const std::vector<ProgramRunRequest>& warm,
                                                const ProgramPrebuild* prebuilt) {
    ProgramLoadReply out;
    if (contaminated_) {
        supervisor(ProgramRole::candidate).retire();
        contaminated_ = false;
    }
    std::vector<std::string> blobs{source};
    const std::string id = sha256_hex(kernel ? source + kernel->table.dump() + kernel->image : source);
    Json body = wire::program_load_body(id.substr(0, 16), source_name, kernel, &blobs, warm, prebuilt);
    double deadline = settings_.timeout_s > 0 ? std::max(settings_.timeout_s, 1.0) : kLoadS;
    Outcome o = exchange(ProgramRole::candidate, wire::Msg::program_load, body, blobs, task, deadline);
    if (!o.ok()) {
        out.failure = failure_of(ProgramRole::candidate, o, deadline, "while importing");
        return out;
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(ProgramRole::candidate, wire::Msg::program_load, o);
    out = wire::program_load_reply(o.reply.json["result"]);
    note_integrity(out.integrity);
    // A new candidate's first call at each case compiles its kernels, unless
    // the warm-up after the import compiled them.
    candidate_cases_seen_.clear();
    loaded_ = id;
    return out;
}

ProgramRunReply ProgramWorkers::run(ProgramRole role, const TaskPtr& task, const ProgramRunRequest& rq) {
    ProgramRunReply out;
    Json body = wire::program_run_body(rq);
    const std::string case_key = task->hash + "/" + std::to_string(rq.case_index);
    double deadline = kReferenceS;
    if (role == ProgramRole::candidate) {
        const double ref = rq.reference_ms;
        deadline = std::max(10.0, 20.0 * ref / 1000.0) + 2.0 * ref / 1000.0 + 5.0;
        if (!candidate_cases_seen_.count(case_key)) deadline += kFirstCallS;
        if (settings_.timeout_s > 0) deadline = settings_.timeout_s;
    }
    Outcome o = exchange(role, wire::Msg::program_run, body, {}, task, deadline);
    const std::string case_name = task->cases[size_t(rq.case_index)].name;
    if (!o.ok()) {
        out.failure = failure_of(role, o, deadline, "at case '" + case_name + "'");
        return out;
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(role, wire::Msg::program_run, o);
    out = read_run_reply(role, o.reply.json["result"], o.reply.blobs);
    // A candidate that broke its worker's CUDA context (an illegal address,
    // a trap): the next candidate gets a new worker.
    if (out.context_lost && role == ProgramRole::candidate) contaminated_ = true;
    note_integrity(out.integrity);
    if (role == ProgramRole::candidate) candidate_cases_seen_[case_key] = true;
    return out;
}

void ProgramWorkers::release_outputs() {
    // No worker in use, nothing exported: no request (one would start a worker).
    if (!candidate_ || candidate_->pid() == 0) return;
    (void)candidate_->call(wire::Msg::program_release, Json::object(), {}, 10.0);
}

void ProgramWorkers::release_timing_inputs(ProgramRole role) {
    auto& w = role == ProgramRole::reference ? reference_ : candidate_;
    if (!w || w->pid() == 0) return;
    (void)w->call(wire::Msg::program_release, Json{{"timing_inputs", true}}, {}, 10.0);
}

void ProgramWorkers::release_caches(ProgramRole role) {
    auto& w = role == ProgramRole::reference ? reference_ : candidate_;
    if (!w || w->pid() == 0) return;
    (void)w->call(wire::Msg::program_release, Json{{"caches", true}}, {}, 10.0);
}

std::vector<GpuCompareStats> ProgramWorkers::compare_on_gpu(const TaskPtr& task, const ProgramRunRequest& rq,
                                                           const std::vector<GpuCompareItem>& items) {
    Json body = wire::program_compare_body(rq, items);
    Outcome o = exchange(ProgramRole::reference, wire::Msg::program_run, body, {}, task, kReferenceS);
    const std::string case_name = task->cases[size_t(rq.case_index)].name;
    if (!o.ok()) {
        ProgramWorkerFailure f = failure_of(ProgramRole::reference, o, kReferenceS, "comparing at case '" + case_name + "'");
        fail(KB_ERR_REFERENCE_FAILED, "the reference worker failed while comparing outputs on the GPU: " + f.message);
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(ProgramRole::reference, wire::Msg::program_run, o);
    std::vector<GpuCompareStats> out = wire::program_compare_reply(o.reply.json["result"], items.size());
    return out;
}

std::optional<std::vector<PrecisionProbe>> ProgramWorkers::audit_precision(const TaskPtr& task,
                                                                           const ProgramRunRequest& rq,
                                                                           const std::vector<PrecisionItem>& items,
                                                                           const std::vector<std::string>& modes) {
    std::vector<std::string> blobs;
    Json body = wire::program_precision_body(rq, items, modes, &blobs);
    Outcome o = exchange(ProgramRole::reference, wire::Msg::program_run, body, blobs, task, kReferenceS);
    const std::string case_name = task->cases[size_t(rq.case_index)].name;
    if (!o.ok()) {
        ProgramWorkerFailure f =
            failure_of(ProgramRole::reference, o, kReferenceS, "auditing precision at case '" + case_name + "'");
        fail(KB_ERR_REFERENCE_FAILED, "the reference worker failed while auditing precision: " + f.message);
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(ProgramRole::reference, wire::Msg::program_run, o);
    return wire::program_precision_reply(o.reply.json["result"]);
}

ProgramTimeReply ProgramWorkers::time(ProgramRole role, const TaskPtr& task, const ProgramTimeRequest& rq) {
    ProgramTimeReply out;
    const ProgramTimingPlan& p = rq.plan;
    Json body = wire::program_time_body(rq);
    const double ref = rq.reference_ms;
    double per_call_s = std::max(0.05, 20.0 * ref / 1000.0);
    double deadline = 30.0 + 3.0 * (p.budget_ms + p.warmup_ms) / 1000.0 +
                      per_call_s * double(p.warmup_calls + p.trials + p.discard_first);
    if (role == ProgramRole::candidate && settings_.timeout_s > 0) deadline = settings_.timeout_s;
    Outcome o = exchange(role, wire::Msg::program_time, body, {}, task, deadline);
    if (!o.ok()) {
        out.failure = failure_of(role, o, deadline, "while timing");
        return out;
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(role, wire::Msg::program_time, o);
    out = wire::program_time_reply(o.reply.json["result"]);
    if (!out.error && o.reply.json["result"].contains("last"))
        out.last = std::make_shared<ProgramRunReply>(read_run_reply(role, o.reply.json["result"]["last"], o.reply.blobs));
    if (out.error && out.context_lost && role == ProgramRole::candidate) contaminated_ = true;
    note_integrity(out.integrity);
    return out;
}

std::string torch_arch_list(const std::string& arch) {
    // "sm_90" -> "9.0+PTX", "sm_90a" -> "9.0a+PTX": torch's own list for one
    // visible device of that capability (cpp_extension._get_cuda_arch_flags).
    size_t i = arch.find('_');
    std::string digits, suffix;
    for (size_t k = i == std::string::npos ? 0 : i + 1; k < arch.size(); ++k)
        (std::isdigit(static_cast<unsigned char>(arch[k])) && suffix.empty() ? digits : suffix) += arch[k];
    if (digits.size() < 2) return "";
    return digits.substr(0, digits.size() - 1) + "." + digits.back() + suffix + "+PTX";
}

std::unique_ptr<PythonWorkers> make_python_workers(const ContextOptions& opts, ProgramRole role, unsigned sharing) {
    ProgramWorkerSettings s = program_worker_settings(opts);
    // Input caches of at most 10% of the device among all workers: inputs
    // made on the device (strict) cost milliseconds to make again, while a
    // cache that holds them keeps gigabytes from the GPU phase of another
    // lane (4 lanes at KernelBench's sizes ran out of memory with 30%:
    // `MEM_TRACE=1 PROGRAM_LANES=4 bash bench/run_device.sh programs`).
    s.cache_share = 0.10 / double(std::max(2u, sharing));
    s.reference = role == ProgramRole::reference;
    s.candidate = role == ProgramRole::candidate;
    s.builder = role == ProgramRole::builder;
    s.cuda_arch_list = torch_arch_list(opts.arch);
    return std::make_unique<ProgramWorkers>(std::move(s));
}

}  // namespace kb
