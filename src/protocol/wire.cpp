#include "protocol/wire.h"

#include "util/error.h"
#include "ipc/frame.h"

namespace kb::wire {
namespace {

size_t add_blob(std::vector<std::string>* blobs, std::string data) {
    blobs->push_back(std::move(data));
    return blobs->size() - 1;
}

// Reads a field with a message that names it when it is missing or mistyped:
// a peer of another build is the likely cause, and the message should say so.
template <class T>
T field(const Json& j, const char* name) {
    if (!j.is_object() || !j.contains(name))
        throw ProtocolError(std::string("the field \"") + name + "\" is missing from a worker message");
    try {
        return j.at(name).get<T>();
    } catch (const std::exception& e) {
        throw ProtocolError(std::string("the field \"") + name + "\" of a worker message has the wrong type: " + e.what());
    }
}

}  // namespace

const std::string& blob_at(const Json& j, const char* name, const std::vector<std::string>& blobs) {
    size_t i = field<size_t>(j, name);
    if (i >= blobs.size())
        throw ProtocolError(std::string("the field \"") + name + "\" names blob " + std::to_string(i) + " of " +
                            std::to_string(blobs.size()));
    return blobs[i];
}

Language language_from_name(const std::string& name) {
    for (Language l : {Language::cuda, Language::ptx, Language::cubin, Language::triton, Language::triton_binary})
        if (name == language_name(l)) return l;
    throw ProtocolError("unknown language '" + name + "' in a worker message");
}

namespace {

// What the launch plan passes to each kernel (compiler/kernel_params.h).
Json expectations_to_json(const LaunchExpectations& e) {
    Json kernels = Json::object();
    for (const auto& kv : e.kernels) {
        Json steps = Json::array();
        for (const KernelSpec& s : kv.second) {
            Json params = Json::array();
            for (const ParamSpec& p : s.params)
                params.push_back({{"arg", p.arg}, {"buffer", p.buffer}, {"read_only", p.read_only}, {"dtype", dtype_name(p.dtype)}});
            steps.push_back({{"where", s.where}, {"params", params}, {"max_block_threads", s.max_block_threads}});
        }
        kernels[kv.first] = steps;
    }
    return {{"plan_from_task", e.plan_from_task}, {"kernels", kernels}};
}

LaunchExpectations expectations_from_json(const Json& j) {
    LaunchExpectations e;
    e.plan_from_task = field<bool>(j, "plan_from_task");
    const Json kernels = field<Json>(j, "kernels");
    for (const auto& kv : kernels.items()) {
        for (const Json& step : kv.value()) {
            KernelSpec s;
            s.where = field<std::string>(step, "where");
            s.max_block_threads = step.value("max_block_threads", int64_t(0));
            const Json params = field<Json>(step, "params");
            for (const Json& p : params) {
                ParamSpec ps;
                ps.arg = field<std::string>(p, "arg");
                ps.buffer = field<bool>(p, "buffer");
                ps.read_only = field<bool>(p, "read_only");
                std::string dt = field<std::string>(p, "dtype");
                auto d = parse_dtype(dt);
                if (!d) throw ProtocolError("unknown dtype '" + dt + "' in a worker message");
                ps.dtype = *d;
                s.params.push_back(ps);
            }
            e.kernels[kv.key()].push_back(std::move(s));
        }
    }
    return e;
}

}  // namespace

Json triton_spec_to_json(const TritonCompileSpec& t) {
    Json args = Json::array();
    for (const TritonArg& a : t.args) args.push_back(Json::array({a.name, a.type, a.spec}));
    Json constexprs = Json::array();
    for (const auto& kv : t.constexprs) constexprs.push_back(Json::array({kv.first, kv.second}));
    return {{"kernel", t.kernel},       {"args", args},           {"constexprs", constexprs},
            {"num_warps", t.num_warps}, {"num_stages", t.num_stages}, {"num_ctas", t.num_ctas}};
}

TritonCompileSpec triton_spec_from_json(const Json& j) {
    TritonCompileSpec t;
    t.kernel = field<std::string>(j, "kernel");
    for (const Json& a : field<Json>(j, "args")) {
        if (!a.is_array() || a.size() != 3) throw ProtocolError("a Triton argument is not [name, type, spec]");
        t.args.push_back({a[0].get<std::string>(), a[1].get<std::string>(), a[2].get<std::string>()});
    }
    for (const Json& c : field<Json>(j, "constexprs")) {
        if (!c.is_array() || c.size() != 2) throw ProtocolError("a Triton constexpr is not [name, value]");
        t.constexprs.emplace_back(c[0].get<std::string>(), c[1].get<int64_t>());
    }
    t.num_warps = field<int>(j, "num_warps");
    t.num_stages = field<int>(j, "num_stages");
    t.num_ctas = field<int>(j, "num_ctas");
    return t;
}

Json compiler_config_to_json(const CompilerConfig& c) {
    return {{"cuda_home", c.cuda_home},
            {"cache_dir", c.cache_dir},
            {"timeout_s", c.timeout_s},
            {"memory_bytes", c.process_limits.memory_bytes},
            {"cpu_s", c.process_limits.cpu_s},
            {"file_bytes", c.process_limits.file_bytes},
            {"contain_traps", c.contain_traps},
            {"contain_comparisons", c.contain_comparisons},
            {"comparisons_fast_compile", c.comparisons_fast_compile}};
}

CompilerConfig compiler_config_from_json(const Json& j) {
    CompilerConfig c;
    c.cuda_home = field<std::string>(j, "cuda_home");
    c.cache_dir = field<std::string>(j, "cache_dir");
    c.timeout_s = field<double>(j, "timeout_s");
    c.process_limits.memory_bytes = field<uint64_t>(j, "memory_bytes");
    c.process_limits.cpu_s = field<double>(j, "cpu_s");
    c.process_limits.file_bytes = field<uint64_t>(j, "file_bytes");
    c.contain_traps = j.value("contain_traps", false);
    c.contain_comparisons = j.value("contain_comparisons", false);
    c.comparisons_fast_compile = j.value("comparisons_fast_compile", true);
    return c;
}

Json compile_request_to_json(const CompileRequest& r, std::vector<std::string>* blobs) {
    Json policy = {{"std", r.policy.std},
                   {"fast_math", r.policy.fast_math},
                   {"deterministic", r.policy.deterministic},
                   {"defines", r.policy.defines},
                   {"max_registers", r.policy.max_registers}};
    Json headers = Json::array();
    for (const SourceFile& h : r.headers) headers.push_back({{"name", h.name}, {"blob", add_blob(blobs, h.text)}});
    return {{"language", language_name(r.language)},
            {"code_blob", add_blob(blobs, r.code)},
            {"headers", headers},
            {"source_name", r.source_name},
            {"kernel_names", r.kernel_names},
            {"policy", policy},
            {"arch", r.arch},
            {"emit_ptx", r.emit_ptx},
            {"allow_nvcc_fallback", r.allow_nvcc_fallback},
            {"force_nvcc", r.force_nvcc},
            {"comparisons_only", r.comparisons_only},
            {"triton_metadata", r.triton_metadata},
            {"expect", expectations_to_json(r.expect)},
            {"triton", triton_spec_to_json(r.triton)}};
}

CompileRequest compile_request_from_json(const Json& j, const std::vector<std::string>& blobs) {
    CompileRequest r;
    r.language = language_from_name(field<std::string>(j, "language"));
    r.code = blob_at(j, "code_blob", blobs);
    r.source_name = field<std::string>(j, "source_name");
    const Json& headers = field<Json>(j, "headers");
    if (!headers.is_array()) throw ProtocolError("\"headers\" of a compile request is not an array");
    for (const Json& h : headers) r.headers.push_back({field<std::string>(h, "name"), blob_at(h, "blob", blobs)});
    r.kernel_names = field<std::vector<std::string>>(j, "kernel_names");
    const Json& p = field<Json>(j, "policy");
    r.policy.std = field<std::string>(p, "std");
    r.policy.fast_math = field<bool>(p, "fast_math");
    r.policy.deterministic = field<bool>(p, "deterministic");
    r.policy.defines = field<std::vector<std::string>>(p, "defines");
    r.policy.max_registers = field<int>(p, "max_registers");
    r.arch = field<std::string>(j, "arch");
    r.emit_ptx = field<bool>(j, "emit_ptx");
    r.allow_nvcc_fallback = field<bool>(j, "allow_nvcc_fallback");
    r.force_nvcc = field<bool>(j, "force_nvcc");
    r.comparisons_only = j.value("comparisons_only", false);
    r.triton_metadata = field<std::string>(j, "triton_metadata");
    r.expect = expectations_from_json(field<Json>(j, "expect"));
    r.triton = triton_spec_from_json(field<Json>(j, "triton"));
    return r;
}

Json image_to_json(const CompiledImage& img, std::vector<std::string>* blobs) {
    Json symbols = Json::object();
    for (const auto& kv : img.symbols) symbols[kv.first] = kv.second;
    Json signature = Json::array();
    for (const TritonSignatureEntry& e : img.triton_signature) signature.push_back(Json::array({e.name, e.type, e.arg}));
    return {{"kind", img.kind == ImageKind::cubin ? "cubin" : "ptx"},
            {"bytes_blob", add_blob(blobs, img.bytes)},
            {"symbols", symbols},
            {"entries", img.entries},
            {"log_blob", add_blob(blobs, img.log)},
            {"path", img.path},
            {"arch", img.arch},
            {"compile_ms", img.compile_ms},
            {"nvrtc_ms", img.nvrtc_ms},
            {"nvcc_ms", img.nvcc_ms},
            {"cache_hit", img.cache_hit},
            {"hash", img.hash},
            {"fallback_reason", img.fallback_reason},
            {"trap_flag", img.trap_flag},
            {"checked_arm", img.checked_arm},
            {"checked_only", img.checked_only},
            {"fast_compiled", img.fast_compiled},
            {"triton_metadata", img.triton_metadata},
            {"triton_signature", signature},
            {"triton_ptx_entry", img.triton_ptx_entry},
            {"triton_key", img.triton_key}};
}

CompiledImage image_from_json(const Json& j, const std::vector<std::string>& blobs) {
    CompiledImage img;
    std::string kind = field<std::string>(j, "kind");
    if (kind != "cubin" && kind != "ptx") throw ProtocolError("unknown image kind '" + kind + "' in a worker message");
    img.kind = kind == "cubin" ? ImageKind::cubin : ImageKind::ptx;
    img.bytes = blob_at(j, "bytes_blob", blobs);
    const Json& symbols = field<Json>(j, "symbols");
    if (!symbols.is_object()) throw ProtocolError("\"symbols\" of an image is not an object");
    for (auto it = symbols.begin(); it != symbols.end(); ++it) img.symbols[it.key()] = it.value().get<std::string>();
    img.entries = field<std::vector<std::string>>(j, "entries");
    img.log = blob_at(j, "log_blob", blobs);
    img.path = field<std::string>(j, "path");
    img.arch = field<std::string>(j, "arch");
    img.compile_ms = field<double>(j, "compile_ms");
    img.nvrtc_ms = field<double>(j, "nvrtc_ms");
    img.nvcc_ms = field<double>(j, "nvcc_ms");
    img.cache_hit = field<bool>(j, "cache_hit");
    img.trap_flag = j.value("trap_flag", "");
    img.checked_arm = j.value("checked_arm", "");
    img.checked_only = j.value("checked_only", false);
    img.fast_compiled = j.value("fast_compiled", false);
    img.hash = field<std::string>(j, "hash");
    img.fallback_reason = field<std::string>(j, "fallback_reason");
    img.triton_metadata = field<std::string>(j, "triton_metadata");
    for (const Json& e : field<Json>(j, "triton_signature")) {
        if (!e.is_array() || e.size() != 3) throw ProtocolError("a Triton signature entry is not [name, type, arg]");
        img.triton_signature.push_back({e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<int>()});
    }
    img.triton_ptx_entry = field<std::string>(j, "triton_ptx_entry");
    img.triton_key = field<std::string>(j, "triton_key");
    return img;
}

Json time_request_to_json(const TimeRequest& r) {
    const TimingOptions& t = r.timing;
    return {{"case_index", r.case_index},
            {"against_baseline", r.against_baseline},
            {"timing",
             {{"hot", t.hot},
              {"budget_ms", t.budget_ms},
              {"warmup_ms", t.warmup_ms},
              {"min_samples", t.min_samples},
              {"max_samples", t.max_samples},
              {"target_rel_noise", t.target_rel_noise}}}};
}

TimeRequest time_request_from_json(const Json& j) {
    TimeRequest r;
    r.case_index = field<int>(j, "case_index");
    r.against_baseline = field<bool>(j, "against_baseline");
    const Json& t = field<Json>(j, "timing");
    r.timing.hot = field<bool>(t, "hot");
    r.timing.budget_ms = field<double>(t, "budget_ms");
    r.timing.warmup_ms = field<double>(t, "warmup_ms");
    r.timing.min_samples = field<unsigned>(t, "min_samples");
    r.timing.max_samples = field<unsigned>(t, "max_samples");
    r.timing.target_rel_noise = field<double>(t, "target_rel_noise");
    return r;
}

Json kernel_to_json(const Kernel& k, std::vector<std::string>* blobs) {
    // The image's log stays on the host: the worker never reports it.
    CompiledImage img = k.image;
    img.log.clear();
    Json variants = Json::array();
    for (const TritonVariant& v : k.variants) {
        CompiledImage vi = v.image;
        vi.log.clear();
        variants.push_back({{"step", v.step}, {"key", v.key}, {"image", image_to_json(vi, blobs)}});
    }
    return {{"id", k.id},
            {"label", k.label},
            {"language", language_name(k.program.language)},
            {"source_name", k.program.source_name},
            {"plan", launch_plan_to_json(k.program)},
            {"image", image_to_json(img, blobs)},
            {"variants", variants}};
}

KernelPtr kernel_from_json(const Json& j, const std::vector<std::string>& blobs, const Task& task) {
    Kernel k;
    k.id = field<std::string>(j, "id");
    k.label = field<std::string>(j, "label");
    Language language = language_from_name(field<std::string>(j, "language"));
    // The plan was validated on the host against this same task; parsing it
    // again here cannot disagree unless the peer is another build.
    try {
        // Built-in steps are allowed here: the host let them only into a task's baseline;
        // the host's limits (the caller's) already decided.
        k.program = parse_launch_plan(field<Json>(j, "plan"), task, "plan of kernel '" + k.label + "'", true, language,
                                      Limits::trusted());
    } catch (const Error& e) {
        throw ProtocolError(std::string("the worker could not re-read a launch plan the host accepted: ") + e.what());
    }
    k.program.language = language;
    k.program.source_name = field<std::string>(j, "source_name");
    k.image = image_from_json(field<Json>(j, "image"), blobs);
    for (const Json& v : field<Json>(j, "variants"))
        k.variants.push_back({field<size_t>(v, "step"), field<std::string>(v, "key"),
                              image_from_json(field<Json>(v, "image"), blobs)});
    // The host's id is kept (not recomputed): it is the key both sides use.
    return std::make_shared<const Kernel>(std::move(k));
}

Json reference_digest_to_json(const ReferenceDigest& d, std::vector<std::string>* blobs) {
    Json outputs = Json::array();
    for (const std::vector<uint8_t>& o : d.host_outputs) {
        if (o.empty()) {
            outputs.push_back(Json::object());  // compared on the GPU: the rerun stands in
            continue;
        }
        outputs.push_back({{"blob", blobs->size()}});
        blobs->emplace_back(reinterpret_cast<const char*>(o.data()), o.size());
    }
    return {{"run_ms", d.run_ms}, {"checksums", d.device_checksums}, {"outputs", std::move(outputs)}};
}

ReferenceDigest reference_digest_from_json(const Json& j, const std::vector<std::string>& blobs) {
    ReferenceDigest d;
    d.run_ms = field<double>(j, "run_ms");
    d.device_checksums = field<std::vector<uint64_t>>(j, "checksums");
    const Json& outputs = field<Json>(j, "outputs");
    if (!outputs.is_array()) throw ProtocolError("\"outputs\" of a reference digest is not an array");
    for (const Json& o : outputs) {
        if (!o.is_object()) throw ProtocolError("an output of a reference digest is not an object");
        if (!o.contains("blob")) {
            d.host_outputs.emplace_back();
            continue;
        }
        const std::string& b = blob_at(o, "blob", blobs);
        d.host_outputs.emplace_back(b.begin(), b.end());
    }
    return d;
}

}  // namespace kb::wire
