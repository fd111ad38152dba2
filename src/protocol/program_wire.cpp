#include "protocol/program_wire.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "util/error.h"

namespace kb::wire {
namespace {

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
// A load_inline record (kbench_load_inline.py): `steps` is a list of
// {"tool", "unit", "ms"}; a step without a unit is named by its tool. A
// field the record lacks (a build that failed, torch's own) reads as 0.
ProgramBuild build_from(const Json& b) {
    auto ms = [](const Json& o, const char* key) {
        return o.contains(key) && o[key].is_number() ? o[key].get<double>() : 0.0;
    };
    auto text = [](const Json& o, const char* key) {
        return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
    };
    ProgramBuild out;
    out.name = b.value("name", std::string());
    out.how = b.value("build", std::string());
    out.split = b.value("split", false);
    const Json bind = b.value("bindings", Json());
    out.bindings_apart = bind.is_object() && bind.value("apart", false);
    out.ms = ms(b, "ms");
    out.compile_ms = ms(b, "compile_ms");
    out.link_ms = ms(b, "link_ms");
    out.linker = text(b, "linker");
    out.host_compiler = text(b, "host_compiler");
    out.linker_why = text(b, "linker_why");
    out.prebuilt = b.value("prebuilt", false);
    out.built_ms = ms(b, "built_ms");
    out.host_compiler_why = text(b, "host_compiler_why");
    for (const Json& st : b.value("steps", Json::array())) {
        if (!st.is_object()) continue;
        std::string unit = st.value("unit", std::string());
        if (unit.empty()) unit = st.value("tool", std::string("step"));
        out.steps.emplace_back(unit, ms(st, "ms"));
    }
    return out;
}

Json run_key_body(const ProgramRunRequest& rq) {
    Json body;
    body["case"] = rq.case_index;
    body["seed"] = rq.seed.to_json();
    body["model_seed"] = rq.model_seed.to_json();
    body["mode"] = rq.mode;
    return body;
}

// Candidate outputs for the reference worker to compare with its own.
Json compare_list(const std::vector<GpuCompareItem>& items) {
    Json list = Json::array();
    for (const GpuCompareItem& it : items)
        list.push_back(Json{{"output", it.output},
                            {"handle", it.candidate.handle},
                            {"offset", it.candidate.offset},
                            {"bytes", it.candidate.bytes},
                            {"atol", it.tolerance.atol},
                            {"rtol", it.tolerance.rtol},
                            {"equal_nan", it.tolerance.equal_nan}});
    return list;
}

}  // namespace

Json program_load_body(const std::string& id, const std::string& source_name, const KernelCandidate* kernel,
                       std::vector<std::string>* blobs, const std::vector<ProgramRunRequest>& warm,
                       const ProgramPrebuild* prebuilt) {
    Json body;
    body["candidate"] = Json{{"id", id}, {"source_blob", 0}, {"source_name", source_name}};
    if (prebuilt && !prebuilt->calls.empty()) {
        Json calls = Json::array();
        for (const ProgramPrebuilt& c : prebuilt->calls)
            calls.push_back(c.error.empty() ? Json{{"key", c.key}, {"module", c.module}, {"path", c.path},
                                                   {"record", c.record}}
                                            : Json{{"key", c.key}, {"error", c.error}});
        body["candidate"]["prebuilt"] = std::move(calls);
    }
    if (!warm.empty()) {
        body["warm"] = Json::array();
        for (const ProgramRunRequest& rq : warm) {
            Json w = run_key_body(rq);
            if (rq.warm_on_meta) w["meta"] = true;
            body["warm"].push_back(std::move(w));
        }
    }
    if (kernel) {
        body["candidate"]["kernel"] = kernel->table;
        if (!kernel->image.empty()) {
            body["candidate"]["image_blob"] = 1;
            blobs->push_back(kernel->image);
        }
    }
    return body;
}

// A reply's `load_inline` list: each build, and why each that torch built
// went to torch's build.
void read_builds(const Json& r, std::vector<ProgramBuild>* builds, std::vector<std::string>* fallbacks) {
    for (const Json& b : r.value("load_inline", Json::array())) {
        if (!b.is_object()) continue;
        builds->push_back(build_from(b));
        if (b.value("build", std::string()) == "torch" && b.contains("why") && b["why"].is_string())
            fallbacks->push_back(b.value("name", std::string("extension")) + ": " + b["why"].get<std::string>());
    }
}

ProgramLoadReply program_load_reply(const Json& r) {
    ProgramLoadReply out;
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
    out.warmed = r.value("warmed", 0);
    out.warm_ms = r.value("warm_ms", 0.0);
    read_builds(r, &out.builds, &out.build_fallbacks);
    out.build = build_paths(out.builds);
    out.integrity = integrity_from(r.value("integrity", Json::object()));
    return out;
}

Json program_prebuild_body(const std::string& source_name) { return Json{{"source_name", source_name}}; }

namespace {

bool is_key(const std::string& k) {
    return k.size() == 32 && std::all_of(k.begin(), k.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

bool is_identifier(const std::string& n) {
    if (n.empty() || n.size() > 200 || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    return std::all_of(n.begin(), n.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

ProgramPrebuild program_prebuild_reply(const Json& r, size_t blobs, std::vector<int>* blob_of,
                                       ProgramIntegrity* integrity) {
    ProgramPrebuild out;
    blob_of->clear();
    const Json stopped = r.value("stopped", Json());
    if (stopped.is_string()) out.stopped = stopped.get<std::string>();
    for (const Json& m : r.value("modules", Json::array())) {
        if (!m.is_object()) continue;
        ProgramPrebuilt c;
        c.key = m.value("key", std::string());
        c.module = m.value("module", std::string());
        const int blob = m.contains("blob") && m["blob"].is_number_integer() ? m["blob"].get<int>() : -1;
        if (!is_key(c.key) || !is_identifier(c.module) || blob < 0 || size_t(blob) >= blobs)
            fail(KB_ERR_WORKER, "the Python builder worker sent a library with a malformed key, module name or blob");
        c.record = m.value("record", Json::object());
        if (!c.record.is_object()) c.record = Json::object();
        out.calls.push_back(std::move(c));
        blob_of->push_back(blob);
    }
    for (const Json& f : r.value("failed", Json::array())) {
        if (!f.is_object()) continue;
        ProgramPrebuilt c;
        c.key = f.value("key", std::string());
        c.error = f.value("error", std::string());
        if (!is_key(c.key) || c.error.empty())
            fail(KB_ERR_WORKER, "the Python builder worker sent a failed build with a malformed key or no error");
        out.calls.push_back(std::move(c));
        blob_of->push_back(-1);
    }
    *integrity = integrity_from(r.value("integrity", Json::object()));
    return out;
}

Json program_run_body(const ProgramRunRequest& rq) {
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
    if (!rq.compare_inline.empty()) body["compare"] = compare_list(rq.compare_inline);
    return body;
}

ProgramRunReply program_run_reply(const Json& r, const std::vector<std::string>& blobs,
                                  const std::function<std::string(const std::string& path)>& read_output) {
    ProgramRunReply out;
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
        read_builds(r, &out.builds, &out.build_fallbacks);
        for (const Json& in : r.value("inputs_after", Json::array()))
            out.inputs_after.emplace_back(in.value("index", 0), in.value("checksum", std::string()));
        if (r.contains("seed_value")) out.seed_value = r["seed_value"].get<uint64_t>();
        if (r.contains("error")) {
            const Json& e = r["error"];
            out.error = e.value("message", std::string("the model raised"));
            out.error_stage = e.value("stage", std::string("call"));
            out.error_where = e.value("where", std::string());
            out.context_lost = e.value("context_lost", false);
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
                    bytes = read_output(m["file"].get<std::string>());
                }
                t.bytes.assign(bytes.begin(), bytes.end());
                out.data.push_back(std::move(t));
            }
            out.data_of.push_back(data_index);
            out.outputs.push_back(meta);
        }
        out.gpu_compare = r.value("gpu_compare", false);
        if (r.contains("compared")) out.compared = program_compare_reply(r, r["compared"].size());
        out.run_ms = r.value("run_ms", 0.0);
        if (r.contains("span_ms")) out.span_ms = r["span_ms"].get<double>();
        out.attribution = attribution_from(r.value("attribution", Json::object()));
        out.integrity = integrity_from(r.value("integrity", Json::object()));
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("a Python worker sent a result this library cannot read (") + e.what() + ")");
    }
    return out;
}

Json program_compare_body(const ProgramRunRequest& rq, const std::vector<GpuCompareItem>& items) {
    Json body = run_key_body(rq);
    body["want_outputs"] = false;
    body["compare"] = compare_list(items);
    return body;
}

std::vector<GpuCompareStats> program_compare_reply(const Json& result, size_t items) {
    std::vector<GpuCompareStats> out;
    try {
        const Json& compared = result.at("compared");
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
    if (out.size() != items)
        fail(KB_ERR_WORKER, "the Python reference worker compared " + std::to_string(out.size()) + " outputs of " +
                                std::to_string(items));
    return out;
}

Json program_precision_body(const ProgramRunRequest& rq, const std::vector<PrecisionItem>& items,
                            const std::vector<std::string>& modes, std::vector<std::string>* blobs) {
    Json body = run_key_body(rq);
    body["want_outputs"] = false;
    Json outputs = Json::array();
    for (const PrecisionItem& it : items) {
        Json o{{"output", it.output}};
        if (it.shared) {
            o["handle"] = it.shared->handle;
            o["offset"] = it.shared->offset;
            o["bytes"] = it.shared->bytes;
        } else if (it.data) {
            o["blob"] = blobs->size();
            o["dtype"] = dtype_name(it.data->dtype);
            o["shape"] = it.data->shape;
            blobs->push_back(std::string(it.data->bytes.begin(), it.data->bytes.end()));
        } else {
            continue;
        }
        outputs.push_back(o);
    }
    body["precision"] = Json{{"modes", modes}, {"outputs", outputs}};
    return body;
}

std::optional<std::vector<PrecisionProbe>> program_precision_reply(const Json& result) {
    if (!result.is_object() || !result.contains("precision")) return std::nullopt;
    std::vector<PrecisionProbe> out;
    try {
        for (const Json& m : result.at("precision")) {
            PrecisionProbe p;
            p.mode = m.at("mode").get<std::string>();
            p.same_bits = m.value("same_bits", false);
            p.skipped = m.value("skipped", std::string());
            for (const Json& o : m.value("outputs", Json::array())) {
                PrecisionOutputError e;
                e.index = o.at("output").get<size_t>();
                e.output = "output " + std::to_string(e.index);
                const std::string dt = o.value("dtype", std::string("f32"));
                auto parsed = parse_dtype(dt);
                if (!parsed) fail(KB_ERR_WORKER, "the Python reference worker audited an output of dtype '" + dt + "'");
                e.dtype = *parsed;
                e.scale = json_number(o.at("scale"));
                e.err_full = json_number(o.at("err_full"));
                e.err_reduced = json_number(o.at("err_reduced"));
                p.outputs.push_back(e);
            }
            out.push_back(p);
        }
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("the Python reference worker sent a precision audit this library cannot "
                                        "read (") + e.what() + ")");
    }
    return out;
}

Json program_time_body(const ProgramTimeRequest& rq) {
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
    body["target_rel_noise"] = p.target_rel_noise;
    body["measure"] = p.measure;
    body["l2_flush_bytes"] = p.l2_flush_bytes;
    body["clone_inputs"] = p.clone_inputs;
    body["alias_inputs"] = p.alias_inputs;
    body["events"] = true;
    body["spans"] = p.measure == "spans";
    if (rq.check_outputs) body["check_outputs"] = true;
    if (rq.share_outputs) body["share_outputs"] = true;
    return body;
}

ProgramTimeReply program_time_reply(const Json& r) {
    ProgramTimeReply out;
    try {
        if (r.contains("error")) {
            out.error = r["error"].value("message", std::string("the model raised"));
            out.error_where = r["error"].value("where", std::string());
            out.context_lost = r["error"].value("context_lost", false);
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
    } catch (const nlohmann::json::exception& e) {
        fail(KB_ERR_WORKER, std::string("a Python worker sent a timing this library cannot read (") + e.what() + ")");
    }
    return out;
}

}  // namespace kb::wire
