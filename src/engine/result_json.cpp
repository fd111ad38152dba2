#include "engine/result_json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "compiler/triton_launch.h"
#include "engine/verdict.h"
#include "ipc/confine.h"
#include "util/error.h"

namespace kb {
namespace {

// JSON has no NaN or infinity: write them as strings so nothing is lost.
Json number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

double number_from(const Json& j) {
    if (j.is_number()) return j.get<double>();
    if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        if (s == "nan") return NAN;
        if (s == "inf") return INFINITY;
        if (s == "-inf") return -INFINITY;
    }
    fail(KB_ERR_WORKER, "a result field is not a number: " + j.dump());
}

double number_at(const Json& j, const char* key, double fallback = 0.0) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : number_from(*it);
}

std::string string_at(const Json& j, const char* key) { return j.value(key, std::string()); }

kb_verdict verdict_at(const Json& j) { return verdict_from_name(j.value("verdict", "none")); }

Json sample_stats_json(const SampleStats& s, const char* unit) {
    std::string u = std::string("_") + unit;
    Json j;
    j["median" + u] = s.median;
    j["mean" + u] = s.mean;
    j["min" + u] = s.min;
    j["max" + u] = s.max;
    j["stdev" + u] = s.stdev;
    j["p10" + u] = s.p10;
    j["p90" + u] = s.p90;
    j["samples"] = s.count;
    j["rel_noise"] = s.rel_noise;
    return j;
}

SampleStats sample_stats_from_json(const Json& j, const char* unit) {
    std::string u = std::string("_") + unit;
    SampleStats s;
    s.median = j.value("median" + u, 0.0);
    s.mean = j.value("mean" + u, 0.0);
    s.min = j.value("min" + u, 0.0);
    s.max = j.value("max" + u, 0.0);
    s.stdev = j.value("stdev" + u, 0.0);
    s.p10 = j.value("p10" + u, 0.0);
    s.p90 = j.value("p90" + u, 0.0);
    s.count = j.value("samples", size_t(0));
    s.rel_noise = j.value("rel_noise", 0.0);
    return s;
}

// The fields a worker that did not answer adds (timeout, death).
void failure_fields(Json& j, const std::optional<double>& deadline_s, const std::string& signal,
                    const std::optional<int>& exit_code) {
    if (deadline_s) j["deadline_s"] = *deadline_s;
    if (!signal.empty()) j["signal"] = signal;
    if (exit_code) j["exit_code"] = *exit_code;
}

template <class R>
void failure_fields_from(const Json& j, R& r) {
    if (j.contains("deadline_s")) r.deadline_s = j["deadline_s"].get<double>();
    r.signal = string_at(j, "signal");
    if (j.contains("exit_code")) r.exit_code = j["exit_code"].get<int>();
}

}  // namespace

CaseInfo case_info(const Task& task, int case_index, std::optional<uint64_t> seed) {
    CaseInfo c;
    c.task = task.name;
    c.case_index = case_index;
    if (case_index >= 0 && size_t(case_index) < task.cases.size()) {
        const Case& k = task.cases[size_t(case_index)];
        c.case_name = k.name;
        c.dims = std::map<std::string, int64_t>(k.dims.begin(), k.dims.end());
    } else {
        c.case_name = std::to_string(case_index);
    }
    c.seed = seed;
    return c;
}

Json to_json(const CaseInfo& c) {
    Json j;
    j["task"] = c.task;
    j["case"] = c.case_name;
    j["case_index"] = c.case_index;
    Json dims = Json::object();
    for (const auto& kv : c.dims) dims[kv.first] = kv.second;
    j["dims"] = dims;
    if (c.seed_secret) j["seed"] = "secret";  // the verdict may not leak the seed it was drawn with
    else if (c.seed) j["seed"] = *c.seed;
    return j;
}

CaseInfo case_info_from_json(const Json& j) {
    CaseInfo c;
    c.task = string_at(j, "task");
    c.case_name = string_at(j, "case");
    c.case_index = j.value("case_index", -1);
    if (j.contains("dims"))
        for (auto& kv : j["dims"].items()) c.dims[kv.key()] = kv.value().get<int64_t>();
    if (j.contains("seed")) {
        if (j["seed"].is_string()) c.seed_secret = true;
        else c.seed = j["seed"].get<uint64_t>();
    }
    return c;
}

Json to_json(const WorkerFacts& w) {
    Json j;
    j["pid"] = w.pid;
    if (!w.outcome.empty()) {
        j["outcome"] = w.outcome;
        j["detail"] = w.detail;
        if (!w.last_words.empty()) j["last_words"] = w.last_words;
    }
    if (w.device_free_bytes) j["device_free_bytes"] = *w.device_free_bytes;
    if (w.respawns) j["respawns"] = *w.respawns;
    if (w.replaced) j["replaced"] = true;
    return j;
}

WorkerFacts worker_facts_from_json(const Json& j) {
    WorkerFacts w;
    w.pid = j.value("pid", pid_t(0));
    w.outcome = string_at(j, "outcome");
    w.detail = string_at(j, "detail");
    w.last_words = string_at(j, "last_words");
    if (j.contains("device_free_bytes")) w.device_free_bytes = j["device_free_bytes"].get<uint64_t>();
    if (j.contains("respawns")) w.respawns = j["respawns"].get<unsigned>();
    w.replaced = j.value("replaced", false);
    return w;
}

Json to_json(const ReferenceOutput& o) {
    Json j;
    j["name"] = o.name;
    j["dtype"] = dtype_name(o.dtype);
    j["elements"] = o.elements;
    j["min"] = number(o.min);
    j["max"] = number(o.max);
    j["mean"] = number(o.mean);
    j["std"] = number(o.std);
    j["nan"] = o.nan;
    j["inf"] = o.inf;
    j["sampled"] = o.sampled;
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(o.digest));
    j["digest"] = digest;
    Json warnings = Json::array(), findings = Json::array();
    for (const ReferenceOutput::Finding& f : o.findings) {
        warnings.push_back(f.message);
        findings.push_back({{"kind", f.kind}, {"message", f.message}});
    }
    j["warnings"] = warnings;
    j["findings"] = findings;
    return j;
}

ReferenceOutput reference_output_from_json(const Json& j) {
    ReferenceOutput o;
    o.name = string_at(j, "name");
    o.dtype = parse_dtype(string_at(j, "dtype")).value_or(DType::f32);
    o.elements = j.value("elements", uint64_t(0));
    o.min = number_at(j, "min");
    o.max = number_at(j, "max");
    o.mean = number_at(j, "mean");
    o.std = number_at(j, "std");
    o.nan = j.value("nan", uint64_t(0));
    o.inf = j.value("inf", uint64_t(0));
    o.sampled = j.value("sampled", false);
    o.digest = std::strtoull(string_at(j, "digest").c_str(), nullptr, 16);
    for (const Json& f : j.value("findings", Json::array()))
        o.findings.push_back({string_at(f, "kind"), string_at(f, "message")});
    return o;
}

Json to_json(const OutputReport& r) {
    Json j;
    j["name"] = r.name;
    j["dtype"] = dtype_name(r.dtype);
    j["ok"] = r.ok();
    j["elements"] = r.elements;
    j["mismatches"] = r.mismatches;
    j["unwritten"] = r.unwritten;
    j["max_abs_err"] = number(r.max_abs_err);
    j["max_rel_err"] = number(r.max_rel_err);
    j["max_violation"] = number(r.max_violation);
    if (r.exact) {
        j["comparison"] = "exact";
    } else {
        j["comparison"] = "allclose";
        j["atol"] = r.tolerance.atol;
        j["rtol"] = r.tolerance.rtol;
        j["equal_nan"] = r.tolerance.equal_nan;
    }
    if (r.elements) {
        j["worst"] = {{"index", r.worst_index}, {"flat_index", r.worst_flat}, {"got", number(r.worst_got)},
                      {"expected", number(r.worst_expected)}};
    }
    j["compared_on"] = r.compared_on;
    if (!r.reference_on_gpu.empty()) j["reference_on_gpu"] = r.reference_on_gpu;
    return j;
}

OutputReport output_report_from_json(const Json& j) {
    OutputReport r;
    r.name = string_at(j, "name");
    r.dtype = parse_dtype(string_at(j, "dtype")).value_or(DType::f32);
    r.elements = j.value("elements", uint64_t(0));
    r.mismatches = j.value("mismatches", uint64_t(0));
    r.unwritten = j.value("unwritten", uint64_t(0));
    r.max_abs_err = number_at(j, "max_abs_err");
    r.max_rel_err = number_at(j, "max_rel_err");
    r.max_violation = number_at(j, "max_violation");
    r.exact = j.value("comparison", "") == "exact";
    if (!r.exact) {
        r.tolerance.atol = j.value("atol", 0.0);
        r.tolerance.rtol = j.value("rtol", 0.0);
        r.tolerance.equal_nan = j.value("equal_nan", true);
    } else {
        r.tolerance = Tolerance{0.0, 0.0, true};
    }
    if (j.contains("worst")) {
        const Json& w = j["worst"];
        r.worst_index = w.value("index", std::vector<int64_t>());
        r.worst_flat = w.value("flat_index", uint64_t(0));
        r.worst_got = number_at(w, "got");
        r.worst_expected = number_at(w, "expected");
    }
    r.compared_on = j.value("compared_on", std::string("host"));
    r.reference_on_gpu = j.value("reference_on_gpu", std::string());
    return r;
}

Json to_json(const GuardBreachReport& b) {
    return {{"buffer", b.buffer}, {"bytes_changed", b.bytes_changed}, {"first_offset", b.first_offset}};
}

Json to_json(const TimedProgram& t) {
    Json s = sample_stats_json(t.stats, "us");
    if (t.gbps) s["gbps"] = *t.gbps;
    if (t.tflops) s["tflops"] = *t.tflops;
    s["kernel"] = t.kernel;
    return s;
}

namespace {

TimedProgram timed_program_from_json(const Json& j) {
    TimedProgram t;
    t.kernel = string_at(j, "kernel");
    t.stats = sample_stats_from_json(j, "us");
    if (j.contains("gbps")) t.gbps = j["gbps"].get<double>();
    if (j.contains("tflops")) t.tflops = j["tflops"].get<double>();
    return t;
}

}  // namespace

Json to_json(const ReferenceResult& r) {
    Json j = to_json(r.where);
    j["kind"] = "reference";
    j["verdict"] = verdict_name(KB_VERDICT_NONE);
    j["run_ms"] = r.run_ms;
    Json outs = Json::array();
    for (const ReferenceOutput& o : r.outputs) outs.push_back(to_json(o));
    j["outputs"] = outs;
    j["warnings"] = r.warnings;
    j["message"] = r.message;
    if (r.worker) j["worker"] = to_json(*r.worker);
    return j;
}

ReferenceResult reference_result_from_json(const Json& j) {
    ReferenceResult r;
    r.where = case_info_from_json(j);
    r.run_ms = j.value("run_ms", 0.0);
    for (const Json& o : j.value("outputs", Json::array())) r.outputs.push_back(reference_output_from_json(o));
    r.warnings = j.value("warnings", std::vector<std::string>());
    r.message = string_at(j, "message");
    if (j.contains("worker")) r.worker = worker_facts_from_json(j["worker"]);
    return r;
}

Json to_json(const CompareResult& r) {
    Json j = to_json(r.where);
    j["kind"] = "compare";
    j["kernel"] = r.kernel;
    j["verdict"] = verdict_name(r.verdict);
    j["message"] = r.message;
    if (r.observed) {
        Json outs = Json::array();
        for (const OutputReport& o : r.outputs) outs.push_back(to_json(o));
        j["outputs"] = outs;
        j["inputs_unchanged"] = r.inputs_unchanged;
        if (!r.inputs_modified.empty()) j["inputs_modified"] = r.inputs_modified;
        j["guards_intact"] = r.guards_intact;
        if (!r.guard_breaches.empty()) {
            Json b = Json::array();
            for (const GuardBreachReport& x : r.guard_breaches) b.push_back(to_json(x));
            j["guard_breaches"] = b;
        }
    }
    if (r.failed_run) j["failed_run"] = r.failed_run;
    if (r.runs > 1) {
        j["runs"] = r.runs;
        if (r.deterministic) j["deterministic"] = *r.deterministic;
    }
    if (r.context_lost) j["context_lost"] = true;
    failure_fields(j, r.deadline_s, r.signal, r.exit_code);
    j["run_ms"] = r.run_ms;
    if (r.worker) j["worker"] = to_json(*r.worker);
    if (!r.retried.empty()) j["retried"] = r.retried;
    return j;
}

CompareResult compare_result_from_json(const Json& j) {
    CompareResult r;
    r.where = case_info_from_json(j);
    r.kernel = string_at(j, "kernel");
    r.verdict = verdict_at(j);
    r.message = string_at(j, "message");
    r.observed = j.contains("outputs");
    for (const Json& o : j.value("outputs", Json::array())) r.outputs.push_back(output_report_from_json(o));
    r.inputs_unchanged = j.value("inputs_unchanged", true);
    r.inputs_modified = j.value("inputs_modified", std::vector<std::string>());
    r.guards_intact = j.value("guards_intact", true);
    for (const Json& b : j.value("guard_breaches", Json::array()))
        r.guard_breaches.push_back({string_at(b, "buffer"), b.value("bytes_changed", uint64_t(0)),
                                    b.value("first_offset", int64_t(0))});
    r.failed_run = j.value("failed_run", 0u);
    r.runs = j.value("runs", 1u);
    if (j.contains("deterministic")) r.deterministic = j["deterministic"].get<bool>();
    r.context_lost = j.value("context_lost", false);
    failure_fields_from(j, r);
    r.run_ms = j.value("run_ms", 0.0);
    if (j.contains("worker")) r.worker = worker_facts_from_json(j["worker"]);
    r.retried = string_at(j, "retried");
    return r;
}

Json to_json(const TimeResult& r) {
    Json j = to_json(r.where);
    j["kind"] = "time";
    j["mode"] = r.hot ? "hot" : "cold";
    j["verdict"] = verdict_name(r.verdict);
    j["message"] = r.message;
    if (r.candidate) j["candidate"] = to_json(*r.candidate);
    if (r.baseline) j["baseline"] = to_json(*r.baseline);
    if (r.speedup) {
        j["speedup"] = *r.speedup;
        if (r.speedup_p10) j["speedup_p10"] = *r.speedup_p10;
        if (r.speedup_p90) j["speedup_p90"] = *r.speedup_p90;
    }
    if (!r.failed()) {
        if (r.launches_per_sample > 1) j["launches_per_sample"] = r.launches_per_sample;
        j["sm_clock_start_mhz"] = r.sm_clock_start_mhz;
        j["sm_clock_end_mhz"] = r.sm_clock_end_mhz;
        j["sm_clock_rated_mhz"] = r.sm_clock_rated_mhz;
        j["throttled"] = r.throttled;
        j["stop_reason"] = r.stop_reason;
        j["wall_ms"] = r.wall_ms;
    } else {
        j["run_ms"] = r.run_ms;
    }
    if (r.context_lost) j["context_lost"] = true;
    failure_fields(j, r.deadline_s, r.signal, r.exit_code);
    if (r.worker) j["worker"] = to_json(*r.worker);
    if (!r.retried.empty()) j["retried"] = r.retried;
    return j;
}

TimeResult time_result_from_json(const Json& j) {
    TimeResult r;
    r.where = case_info_from_json(j);
    r.hot = j.value("mode", "cold") == "hot";
    r.verdict = verdict_at(j);
    r.message = string_at(j, "message");
    if (j.contains("candidate")) r.candidate = timed_program_from_json(j["candidate"]);
    if (j.contains("baseline")) r.baseline = timed_program_from_json(j["baseline"]);
    if (j.contains("speedup")) r.speedup = j["speedup"].get<double>();
    if (j.contains("speedup_p10")) r.speedup_p10 = j["speedup_p10"].get<double>();
    if (j.contains("speedup_p90")) r.speedup_p90 = j["speedup_p90"].get<double>();
    r.launches_per_sample = j.value("launches_per_sample", 1u);
    r.sm_clock_start_mhz = j.value("sm_clock_start_mhz", 0.0);
    r.sm_clock_end_mhz = j.value("sm_clock_end_mhz", 0.0);
    r.sm_clock_rated_mhz = j.value("sm_clock_rated_mhz", 0.0);
    r.throttled = j.value("throttled", false);
    r.stop_reason = string_at(j, "stop_reason");
    r.wall_ms = j.value("wall_ms", 0.0);
    r.run_ms = j.value("run_ms", 0.0);
    r.context_lost = j.value("context_lost", false);
    failure_fields_from(j, r);
    if (j.contains("worker")) r.worker = worker_facts_from_json(j["worker"]);
    r.retried = string_at(j, "retried");
    return r;
}

Json kernel_json(const Kernel& k) {
    const CompiledImage& image = k.image;
    Json j;
    j["label"] = k.label;
    j["language"] = language_name(k.program.language);
    j["path"] = image.path;
    // A program of built-in steps only has no image at all.
    j["image"] = image.bytes.empty() ? "none" : image_kind_name(image.kind);
    j["arch"] = image.arch;
    j["image_bytes"] = image.bytes.size();
    j["compile_ms"] = image.compile_ms;
    if (image.nvrtc_ms > 0) j["nvrtc_ms"] = image.nvrtc_ms;
    if (image.nvcc_ms > 0) j["nvcc_ms"] = image.nvcc_ms;
    if (!image.fallback_reason.empty()) j["fallback_reason"] = image.fallback_reason;
    j["cache_hit"] = image.cache_hit;
    // Built for comparisons only: the checked copies alone (compiler/compile_types.h).
    if (image.checked_only) j["checked_only"] = true;
    // Optimised less, for comparisons only (CompilerConfig::comparisons_fast_compile).
    if (image.fast_compiled) j["fast_compile"] = "mid";
    Json syms = Json::object();
    for (const auto& kv : image.symbols) syms[kv.first] = kv.second;
    j["symbols"] = syms;
    j["entries"] = image.entries;
    j["plan"] = launch_plan_to_json(k.program);
    if (!k.variants.empty()) {
        // Triton: each binary, the specialisation it serves, and its launch.
        Json vs = Json::array();
        for (const TritonVariant& v : k.variants) {
            Json one;
            one["step"] = v.step;
            one["key"] = v.key;
            one["cache_hit"] = v.image.cache_hit;
            one["compile_ms"] = v.image.compile_ms;
            one["image_bytes"] = v.image.bytes.size();
            try {
                one["launch"] =
                    derive_triton_launch(v.image.triton_metadata, v.image.triton_signature, v.image.triton_ptx_entry)
                        .to_json();
            } catch (const Error& e) {
                one["launch_error"] = e.what();
            }
            vs.push_back(std::move(one));
        }
        j["triton_variants"] = std::move(vs);
    }
    j["id"] = k.id;
    return j;
}

Json to_json(const CompileFacts& c) {
    Json j;
    if (c.ok && c.kernel) {
        j = kernel_json(*c.kernel);
        j["ok"] = true;
        j["log"] = c.kernel->image.log;
    } else if (c.ok) {
        // A program candidate: nothing compiled by the C core (its import is
        // under "program").
        j["ok"] = true;
    } else {
        j["ok"] = false;
        j["summary"] = c.summary;
        if (!c.log.empty()) j["log"] = c.log;
    }
    return j;
}

Json to_json(const TuneResult& r) {
    Json list = Json::array();
    for (const TunedConfig& c : r.configs) {
        Json j;
        j["config"] = c.label;
        j["choice"] = c.choice;
        j["verdict"] = verdict_name(c.verdict);
        if (c.ok) {
            j["median_us"] = c.median_us;
            j["rel_noise"] = c.rel_noise;
        } else {
            j["message"] = c.message;
        }
        list.push_back(std::move(j));
    }
    Json out;
    out["configs"] = std::move(list);
    out["chosen"] = r.chosen >= 0 ? Json(r.chosen) : Json();
    if (r.chosen >= 0) out["chosen_config"] = r.configs[size_t(r.chosen)].label;
    out["elapsed_ms"] = r.elapsed_ms;
    return out;
}

Json retried_stages(const ScoreResult& r) {
    Json out = Json::array();
    for (const CompareResult& c : r.cases)
        if (!c.retried.empty()) out.push_back("correctness at case '" + c.where.case_name + "': " + c.retried);
    if (r.timing && !r.timing->retried.empty()) out.push_back("timing: " + r.timing->retried);
    if (r.recheck && !r.recheck->retried.empty()) out.push_back("recheck: " + r.recheck->retried);
    return out;
}

Json to_json(const ScoreResult& r) {
    Json j;
    j["kind"] = "score";
    j["task"] = r.task;
    j["seed"] = r.seed;
    j["candidate"] = r.candidate;
    j["compile"] = to_json(r.compile);
    if (r.tuning) j["tuning"] = to_json(*r.tuning);
    if (!r.cases.empty()) {
        Json cases = Json::array();
        for (const CompareResult& c : r.cases) cases.push_back(to_json(c));
        j["cases"] = cases;
    }
    if (r.timing) j["timing"] = to_json(*r.timing);
    if (r.speedup) j["speedup"] = *r.speedup;
    if (r.efficiency) j["efficiency"] = *r.efficiency;
    if (r.recheck) j["recheck"] = to_json(*r.recheck);
    if (r.precision) j["precision"] = to_json(*r.precision);
    // The stages that ran twice, one line each, as `kbench run` and
    // kbench.ray report them.
    if (Json retried = retried_stages(r); !retried.empty()) j["retried_stages"] = std::move(retried);
    j["verdict"] = verdict_name(r.verdict);
    j["message"] = r.message;
    j["stages"] = {{"compile_ms", r.stages.compile_ms},
                   {"correctness_ms", r.stages.correctness_ms},
                   {"timing_ms", r.stages.timing_ms},
                   {"recheck_ms", r.stages.recheck_ms},
                   {"queue_ms", r.stages.queue_ms}};
    j["elapsed_ms"] = r.elapsed_ms;
    if (r.program) j["program"] = to_json(*r.program);
    // What confined the process that ran the candidate's Python (ipc/confine.h):
    // a program candidate's worker where it was confined; kernels run in kbench-worker.
    j["sandbox"] = sandbox_summary(r.program && r.program->confined);
    return j;
}

Json to_json(const PrecisionAudit& a) {
    Json j;
    j["verdict"] = a.verdict;
    if (!a.mode.empty()) {
        j["mode"] = a.mode;
        j["err_full"] = number(a.err_full);
        j["err_reduced"] = number(a.err_reduced);
        j["floor"] = number(a.floor);
    }
    if (!a.why.empty()) j["why"] = a.why;
    j["case"] = a.case_name;
    Json modes = Json::array();
    for (const PrecisionProbe& p : a.probes) {
        Json m{{"mode", p.mode}};
        if (p.same_bits) m["same_bits"] = true;
        if (!p.skipped.empty()) m["skipped"] = p.skipped;
        if (!p.same_bits && p.skipped.empty()) {
            Json outs = Json::array();
            for (const PrecisionOutputError& o : p.outputs)
                outs.push_back({{"output", o.output},
                                {"scale", number(o.scale)},
                                {"max_abs_err_full", number(o.err_full)},
                                {"max_abs_err_reduced", number(o.err_reduced)}});
            m["outputs"] = outs;
        }
        modes.push_back(m);
    }
    j["modes"] = modes;
    return j;
}

Json to_json(const ProgramAttribution& a) {
    Json j;
    j["cupti"] = a.cupti;
    if (!a.cupti_why.empty()) j["cupti_why"] = a.cupti_why;
    Json ks = Json::array();
    for (const KernelUse& k : a.kernels)
        ks.push_back({{"name", k.name}, {"kind", k.kind}, {"origin", k.origin}, {"launches", k.launches},
                      {"total_us", number(k.total_us)}, {"streams", k.streams}});
    j["kernels"] = ks;
    Json share = Json::object();
    for (const auto& [origin, f] : a.share) share[origin] = number(f);
    j["share"] = share;
    Json ops = Json::object();
    for (const auto& [op, n] : a.aten_ops) ops[op] = n;
    j["aten_ops"] = ops;
    j["torch_compute_ops"] = a.torch_compute_ops;
    j["triton_declared"] = a.triton_declared;
    j["cuda_declared"] = a.cuda_declared;
    Json launches = Json::object();
    for (const auto& [fn, n] : a.triton_launches) launches[fn] = n;
    j["triton_launches"] = launches;
    j["decoy"] = a.decoy;
    j["streams"] = a.streams;
    j["records_outside_calls"] = a.records_outside_calls;
    return j;
}

Json to_json(const ProgramFacts& p) {
    Json j;
    j["protocol"] = p.protocol;
    j["style"] = p.style;
    j["torch_compute"] = p.torch_compute;
    if (!p.kernel_language.empty()) j["kernel"] = p.kernel_language;
    j["import_ms"] = p.import_ms;
    if (p.warm_ms > 0) j["warm_ms"] = p.warm_ms;
    if (p.prebuild) {
        Json pre = {{"ms", p.prebuild->ms}, {"built", p.prebuild->built}, {"failed", p.prebuild->failed}};
        if (!p.prebuild->stopped.empty()) pre["stopped"] = p.prebuild->stopped;
        j["prebuild"] = std::move(pre);
    }
    if (!p.build.empty()) {
        j["build"] = p.build;
        if (!p.build_fallbacks.empty()) j["build_fallbacks"] = p.build_fallbacks;
        Json builds = Json::array();
        for (const ProgramBuild& b : p.builds) {
            Json steps = Json::object();
            for (const auto& [unit, ms] : b.steps) steps[unit] = ms;
            Json one = {{"name", b.name}, {"build", b.how}, {"split", b.split},
                        {"bindings_apart", b.bindings_apart}, {"ms", b.ms}, {"compile_ms", b.compile_ms},
                        {"link_ms", b.link_ms}, {"steps_ms", steps}};
            if (b.prebuilt) {
                one["prebuilt"] = true;
                one["built_ms"] = b.built_ms;
            }
            if (!b.linker.empty()) one["linker"] = b.linker;
            if (!b.host_compiler.empty()) one["host_compiler"] = b.host_compiler;
            if (!b.linker_why.empty()) one["linker_why"] = b.linker_why;
            if (!b.host_compiler_why.empty()) one["host_compiler_why"] = b.host_compiler_why;
            builds.push_back(std::move(one));
        }
        j["builds"] = builds;
    }
    j["triton_kernels"] = p.triton_kernels;
    j["cuda_kernels"] = p.cuda_kernels;
    Json fs = Json::array();
    for (const ProgramFinding& f : p.findings) {
        Json x{{"rule", f.rule}, {"severity", f.severity}, {"message", f.message}};
        if (f.line) x["line"] = f.line;
        fs.push_back(x);
    }
    j["findings"] = fs;
    j["attribution"] = to_json(p.attribution);
    if (p.timing) {
        const ProgramTiming& t = *p.timing;
        Json tj;
        tj["method"] = t.method;
        tj["statistic"] = t.statistic;
        if (t.candidate_ms) tj["candidate"] = sample_stats_json(*t.candidate_ms, "ms");
        if (t.reference_ms) tj["reference"] = sample_stats_json(*t.reference_ms, "ms");
        if (t.candidate_events_ms) tj["candidate_events"] = sample_stats_json(*t.candidate_events_ms, "ms");
        if (t.candidate_spans_ms) tj["candidate_spans"] = sample_stats_json(*t.candidate_spans_ms, "ms");
        if (t.candidate_walls_ms) tj["candidate_walls"] = sample_stats_json(*t.candidate_walls_ms, "ms");
        if (t.speedup) tj["speedup"] = number(*t.speedup);
        tj["excessive_speedup"] = t.excessive_speedup;
        tj["rounds"] = t.rounds;
        tj["settled_early"] = t.settled_early;
        tj["round_speedups"] = Json::array();
        tj["round_ms"] = Json::array();
        for (const ProgramRound& r : t.round_ms) {
            tj["round_speedups"].push_back(r.reference_ms / r.candidate_ms);  // a round is kept only where candidate_ms > 0
            tj["round_ms"].push_back({{"candidate", number(r.candidate_ms)}, {"reference", number(r.reference_ms)},
                                      {"reference_reused", r.reference_reused}});
        }
        tj["reference_rounds_reused"] = t.reference_rounds_reused;
        tj["warmup_calls"] = t.warmup_calls;
        j["timing"] = tj;
    }
    j["reference_warnings"] = p.reference_warnings;
    return j;
}

}  // namespace kb
