#include "worker_host/program_workers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "util/error.h"
#include "util/files.h"
#include "util/install_dirs.h"
#include "util/sha256.h"
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

std::string tail_of(const std::string& path, size_t max_bytes) {
    std::string s;
    try {
        s = read_file(path);
    } catch (const Error&) {
        return "";
    }
    if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

std::vector<std::string> strings(const Json& j) {
    std::vector<std::string> out;
    if (j.is_array())
        for (const Json& x : j)
            if (x.is_string()) out.push_back(x.get<std::string>());
    return out;
}

ProgramIntegrity integrity_from(const Json& j) {
    ProgramIntegrity i;
    if (!j.is_object()) return i;
    i.patched = strings(j.value("patched", Json::array()));
    i.threads_left = strings(j.value("threads", Json::array()));
    return i;
}

ProgramAttribution attribution_from(const Json& j) {
    ProgramAttribution a;
    if (!j.is_object()) return a;
    a.cupti = j.value("cupti", false);
    a.cupti_why = j.value("cupti_why", std::string());
    for (const Json& k : j.value("kernels", Json::array())) {
        KernelUse u;
        u.name = k.value("name", std::string());
        u.kind = k.value("kind", std::string("kernel"));
        u.launches = k.value("launches", uint64_t(0));
        u.total_us = k.value("total_us", 0.0);
        u.streams = k.value("streams", 0u);
        a.kernels.push_back(u);
    }
    const Json ops = j.value("aten_ops", Json::object());  // a local: items() must not outlive it
    for (auto& [op, n] : ops.items()) a.aten_ops[op] = n.get<uint64_t>();
    a.triton_declared = strings(j.value("triton_declared", Json::array()));
    a.cuda_declared = strings(j.value("cuda_declared", Json::array()));
    const Json launches = j.value("triton_launches", Json::object());
    for (auto& [fn, n] : launches.items()) a.triton_launches[fn] = n.get<uint64_t>();
    a.streams = j.value("streams", 0u);
    a.records_outside_calls = j.value("records_outside_calls", uint64_t(0));
    return a;
}

std::vector<int64_t> shape_from(const Json& j) {
    std::vector<int64_t> s;
    for (const Json& x : j) s.push_back(x.get<int64_t>());
    return s;
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
    s.confine = opts.confine;
    return s;
}

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
        if (!settings_.cupti_lib.empty()) {
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
        ws.hello_extra = Json{{"role", name}, {"test_cpu", settings_.test_cpu}};
        ws.hello_s = kHelloS;
        ws.canary_s = kCanaryS;
        return std::make_unique<Supervisor>(ws);
    };
    reference_ = make(ProgramRole::reference, false);
    candidate_ = make(ProgramRole::candidate, settings_.standby);
    // Start both now: a broken set-up (no torch, no device) fails here, with the
    // worker's own words, rather than at the first candidate.
    try {
        reference_->ensure_ready();
        candidate_->ensure_ready();
    } catch (const Error& e) {
        std::string log = tail_of(work_root_ + "/reference/stderr.log", 1500);
        if (log.empty()) log = tail_of(work_root_ + "/candidate/stderr.log", 1500);
        reference_.reset();
        candidate_.reset();
        remove_tree(work_root_);
        fail(e.status(), std::string(e.what()) + (log.empty() ? "" : "\nthe worker's stderr:\n" + log));
    }
}

ProgramWorkers::~ProgramWorkers() {
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
    j["reference"] = reference_->hello();
    j["candidate"] = candidate_->hello();
    j["reference_worker"] = reference_->stats();
    j["candidate_worker"] = candidate_->stats();
    return j;
}

double ProgramWorkers::reference_ms(const TaskPtr& task, int case_index) const {
    auto it = reference_ms_.find(task->hash + "/" + std::to_string(case_index));
    return it == reference_ms_.end() ? 0.0 : it->second;
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
    const std::string log = tail_of(work_root_ + "/" + program_role_name(role) + "/stderr.log", 800);
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

ProgramLoadReply ProgramWorkers::load_candidate(const TaskPtr& task, const std::string& source,
                                                const std::string& source_name, const KernelCandidate* kernel) {
    ProgramLoadReply out;
    if (contaminated_) {
        supervisor(ProgramRole::candidate).retire();
        contaminated_ = false;
    }
    Json body;
    std::vector<std::string> blobs{source};
    const std::string id = sha256_hex(kernel ? source + kernel->table.dump() + kernel->image : source);
    body["candidate"] = Json{{"id", id.substr(0, 16)}, {"source_blob", 0}, {"source_name", source_name}};
    if (kernel) {
        body["candidate"]["kernel"] = kernel->table;
        if (!kernel->image.empty()) {
            body["candidate"]["image_blob"] = 1;
            blobs.push_back(kernel->image);
        }
    }
    double deadline = settings_.timeout_s > 0 ? std::max(settings_.timeout_s, 1.0) : kLoadS;
    Outcome o = exchange(ProgramRole::candidate, wire::Msg::program_load, body, blobs, task, deadline);
    if (!o.ok()) {
        out.failure = failure_of(ProgramRole::candidate, o, deadline, "while importing");
        return out;
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(ProgramRole::candidate, wire::Msg::program_load, o);
    const Json& r = o.reply.json["result"];
    out.loaded = r.value("loaded", false);
    out.error = r.value("error", std::string());
    out.where = r.value("where", std::string());
    out.line = r.contains("line") && r["line"].is_number_integer() ? r["line"].get<int>() : 0;
    out.import_ms = r.value("import_ms", 0.0);
    for (const Json& f : r.value("findings", Json::array()))
        out.findings.push_back({f.value("rule", std::string()), "report", f.value("message", std::string()),
                                f.value("line", 0)});
    out.triton_kernels = strings(r.value("triton_kernels", Json::array()));
    out.cuda_kernels = strings(r.value("cuda_kernels", Json::array()));
    out.integrity = integrity_from(r.value("integrity", Json::object()));
    note_integrity(out.integrity);
    // A new candidate's first call at each case compiles its kernels.
    candidate_cases_seen_.clear();
    loaded_ = id;
    return out;
}

namespace {

// A number the Python worker sent: JSON has no inf or NaN, so those come as
// the strings "inf", "-inf" and "nan".
double json_number(const Json& j) {
    if (j.is_number()) return j.get<double>();
    const std::string s = j.get<std::string>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    fail(KB_ERR_WORKER, "the Python worker sent '" + s + "' where a number belongs");
}

// What names a run in both workers: its case, seeds and input mode.
Json run_key_body(const ProgramRunRequest& rq) {
    Json body;
    body["case"] = rq.case_index;
    body["seed"] = rq.seed.to_json();
    body["model_seed"] = rq.model_seed.to_json();
    body["mode"] = rq.mode;
    return body;
}

}  // namespace

ProgramRunReply ProgramWorkers::run(ProgramRole role, const TaskPtr& task, const ProgramRunRequest& rq) {
    ProgramRunReply out;
    Json body = run_key_body(rq);
    body["clone_inputs"] = rq.clone_inputs;
    body["record"] = Json{{"ops", rq.record_ops}, {"kernels", rq.record_kernels}};
    body["want_outputs"] = rq.want_outputs;
    if (rq.share_outputs) body["share_outputs"] = true;
    if (rq.keep_outputs) body["keep_outputs"] = true;
    if (rq.data_limit) body["data_limit"] = *rq.data_limit;
    if (!rq.poison_dtype.empty()) {
        body["poison_dtype"] = rq.poison_dtype;
        body["poison_bytes"] = rq.poison_bytes;
        body["poison_sizes"] = rq.poison_sizes;
    }
    const std::string case_key = task->hash + "/" + std::to_string(rq.case_index);
    double deadline = kReferenceS;
    if (role == ProgramRole::candidate) {
        uint64_t bytes = 0;
        (void)bytes;
        double ref = reference_ms(task, rq.case_index);
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
    const Json& r = o.reply.json["result"];
    const std::vector<std::string>& blobs = o.reply.blobs;
    try {
        for (const Json& in : r.value("inputs", Json::array())) {
            ProgramInput p;
            p.index = in.value("index", 0);
            p.is_tensor = in.contains("dtype");
            p.dtype = in.value("dtype", std::string());
            if (in.contains("shape")) p.shape = shape_from(in["shape"]);
            p.checksum = in.value("checksum", std::string());
            p.value = in.value("value", std::string());
            out.inputs.push_back(p);
        }
        for (const Json& n : r.value("model_state", Json::array()))
            if (n.is_string()) out.model_state.push_back(n.get<std::string>());
        for (const Json& in : r.value("inputs_after", Json::array()))
            out.inputs_after.emplace_back(in.value("index", 0), in.value("checksum", std::string()));
        if (r.contains("seed_value")) out.seed_value = r["seed_value"].get<uint64_t>();
        if (r.contains("error")) {
            const Json& e = r["error"];
            out.error = e.value("message", std::string("the model raised"));
            out.error_stage = e.value("stage", std::string("call"));
            out.error_where = e.value("where", std::string());
            out.context_lost = e.value("context_lost", false);
            // A candidate that broke its worker's CUDA context (an illegal
            // address, a trap): the next candidate gets a new worker.
            if (out.context_lost && role == ProgramRole::candidate) contaminated_ = true;
        }
        for (const Json& m : r.value("outputs", Json::array())) {
            ProgramOutputMeta meta;
            meta.label = m.value("label", std::string());
            meta.is_tensor = m.value("is_tensor", true);
            meta.type = m.value("type", std::string());
            meta.dtype = m.value("dtype", std::string());
            if (m.contains("shape")) meta.shape = shape_from(m["shape"]);
            meta.device = m.value("device", std::string());
            std::optional<SharedOutput> shared;
            if (m.contains("ipc")) {
                const Json& ipc = m["ipc"];
                SharedOutput so;
                so.handle = ipc.at("handle").get<std::string>();
                so.offset = ipc.at("offset").get<uint64_t>();
                so.bytes = ipc.at("bytes").get<uint64_t>();
                shared = so;
            }
            out.shared.push_back(shared);
            int data_index = -1;
            if (m.contains("blob") || m.contains("file")) {
                data_index = int(out.data.size());
                HostTensor t;
                t.name = meta.label;
                auto dt = parse_dtype(meta.dtype);
                if (!dt)
                    fail(KB_ERR_WORKER, "the Python worker described an output of dtype '" + meta.dtype +
                                            "', which kbench cannot compare");
                t.dtype = *dt;
                t.shape = meta.shape;
                std::string bytes;
                if (m.contains("blob")) {
                    size_t bi = m["blob"].get<size_t>();
                    if (bi >= blobs.size()) fail(KB_ERR_WORKER, "an output names a blob the reply does not carry");
                    bytes = blobs[bi];
                } else {
                    // Large outputs come as files in the worker's own folder.
                    const std::string path = m["file"].get<std::string>();
                    const std::string dir = work_root_ + "/" + program_role_name(role) + "/";
                    if (path.compare(0, dir.size(), dir) != 0)
                        fail(KB_ERR_WORKER, "the Python worker put an output outside its folder: " + path);
                    bytes = read_file(path);
                    ::unlink(path.c_str());
                }
                t.bytes.assign(bytes.begin(), bytes.end());
                out.data.push_back(std::move(t));
            }
            out.data_of.push_back(data_index);
            out.outputs.push_back(meta);
        }
        out.gpu_compare = r.value("gpu_compare", false);
        out.run_ms = r.value("run_ms", 0.0);
        if (r.contains("span_ms")) out.span_ms = r["span_ms"].get<double>();
        out.attribution = attribution_from(r.value("attribution", Json::object()));
        out.integrity = integrity_from(r.value("integrity", Json::object()));
        note_integrity(out.integrity);
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("the Python ") + program_role_name(role) +
                                " worker sent a result this library cannot read (" + e.what() + ")");
    }
    if (role == ProgramRole::reference) reference_ms_[case_key] = out.run_ms;
    else candidate_cases_seen_[case_key] = true;
    return out;
}

std::vector<GpuCompareStats> ProgramWorkers::compare_on_gpu(const TaskPtr& task, const ProgramRunRequest& rq,
                                                           const std::vector<GpuCompareItem>& items) {
    Json body = run_key_body(rq);
    body["want_outputs"] = false;
    Json list = Json::array();
    for (const GpuCompareItem& it : items)
        list.push_back(Json{{"output", it.output},
                            {"handle", it.candidate.handle},
                            {"offset", it.candidate.offset},
                            {"bytes", it.candidate.bytes},
                            {"atol", it.tolerance.atol},
                            {"rtol", it.tolerance.rtol},
                            {"equal_nan", it.tolerance.equal_nan}});
    body["compare"] = list;
    Outcome o = exchange(ProgramRole::reference, wire::Msg::program_run, body, {}, task, kReferenceS);
    const std::string case_name = task->cases[size_t(rq.case_index)].name;
    if (!o.ok()) {
        ProgramWorkerFailure f = failure_of(ProgramRole::reference, o, kReferenceS, "comparing at case '" + case_name + "'");
        fail(KB_ERR_REFERENCE_FAILED, "the reference worker failed while comparing outputs on the GPU: " + f.message);
    }
    if (!wire::reply_ok(o.reply.json)) reply_failed(ProgramRole::reference, wire::Msg::program_run, o);
    std::vector<GpuCompareStats> out;
    try {
        const Json& compared = o.reply.json["result"].at("compared");
        for (const Json& c : compared) {
            GpuCompareStats st;
            if (c.contains("error")) {
                st.error = c["error"].get<std::string>();
            } else {
                st.mismatches = c.at("mismatches").get<uint64_t>();
                st.unwritten = c.at("unwritten").get<uint64_t>();
                st.max_abs_err = json_number(c.at("max_abs_err"));
                st.max_rel_err = json_number(c.at("max_rel_err"));
                st.max_violation = json_number(c.at("max_violation"));
                st.worst_index = c.at("worst_index").get<uint64_t>();
                st.worst_bits = c.at("worst_bits").get<uint64_t>();
                st.expected_bits = c.at("expected_bits").get<uint64_t>();
            }
            out.push_back(st);
        }
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("the Python reference worker sent a comparison this library cannot read (") +
                                e.what() + ")");
    }
    if (out.size() != items.size())
        fail(KB_ERR_WORKER, "the Python reference worker compared " + std::to_string(out.size()) + " outputs of " +
                                std::to_string(items.size()));
    return out;
}

ProgramTimeReply ProgramWorkers::time(ProgramRole role, const TaskPtr& task, const ProgramTimeRequest& rq) {
    ProgramTimeReply out;
    const ProgramTimingPlan& p = rq.plan;
    Json body;
    body["case"] = p.case_index;
    body["seed"] = p.seed.to_json();
    body["warmup_seed"] = p.warmup_seed.to_json();
    body["model_seed"] = rq.model_seed.to_json();
    body["mode"] = rq.mode;
    body["warmup_calls"] = p.warmup_calls;
    body["warmup_ms"] = p.warmup_ms;
    body["empty_cache_after_warmup"] = p.empty_cache_after_warmup;
    body["trials"] = p.trials;
    body["min_trials"] = p.min_trials;
    body["discard_first"] = p.discard_first;
    body["budget_ms"] = p.budget_ms;
    body["l2_flush_bytes"] = p.l2_flush_bytes;
    body["clone_inputs"] = p.clone_inputs;
    body["events"] = true;
    body["spans"] = p.measure == "spans";
    double ref = reference_ms(task, p.case_index);
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
    const Json& r = o.reply.json["result"];
    try {
        if (r.contains("error")) {
            out.error = r["error"].value("message", std::string("the model raised"));
            out.error_where = r["error"].value("where", std::string());
            if (r["error"].value("context_lost", false) && role == ProgramRole::candidate) contaminated_ = true;
            return out;
        }
        out.event_ms = r.value("event_samples_ms", std::vector<double>());
        out.span_ms = r.value("span_samples_ms", std::vector<double>());
        out.wall_ms = r.value("wall_samples_ms", std::vector<double>());
        out.events = r.value("events", false);
        out.cupti = r.value("cupti", false);
        out.warmup_calls = r.value("warmup_calls", 0u);
        out.wall_total_ms = r.value("wall_ms", 0.0);
        out.attribution = attribution_from(r.value("attribution", Json::object()));
        out.integrity = integrity_from(r.value("integrity", Json::object()));
        note_integrity(out.integrity);
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("the Python ") + program_role_name(role) +
                                " worker sent a timing this library cannot read (" + e.what() + ")");
    }
    return out;
}

std::unique_ptr<ProgramBackend> make_program_backend(const ContextOptions& opts) {
    return std::make_unique<ProgramWorkers>(program_worker_settings(opts));
}

}  // namespace kb
