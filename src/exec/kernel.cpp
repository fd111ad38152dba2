#include "exec/kernel.h"

#include "util/sha256.h"

namespace kb {
namespace {

Json dims3(const Expr (&e)[3]) {
    Json a = Json::array();
    for (const Expr& x : e) a.push_back(x.text());
    return a;
}

Json shape_json(const std::vector<Expr>& shape) {
    Json a = Json::array();
    for (const Expr& x : shape) a.push_back(x.text());
    return a;
}

}  // namespace

Json plan_to_json(const Program& p) {
    Json launch = Json::array();
    for (const LaunchStep& s : p.launch) {
        Json j;
        if (s.kind == LaunchStep::Kind::zero) {
            j["zero"] = s.target;
        } else {
            j["kernel"] = s.kernel;
            j["grid"] = dims3(s.grid);
            j["block"] = dims3(s.block);
            j["shared_mem"] = s.shared_mem_bytes.text();
            Json args = Json::array();
            for (const LaunchArg& a : s.args) {
                if (a.kind == LaunchArg::Kind::named) {
                    args.push_back(a.name);
                } else {
                    Json v;
                    if (a.is_float) v["value"] = a.float_value;
                    else v["value"] = a.value.text();
                    v["dtype"] = dtype_name(a.dtype);
                    args.push_back(v);
                }
            }
            j["args"] = args;
        }
        launch.push_back(j);
    }
    Json scratch = Json::array();
    for (const Scratch& s : p.scratch)
        scratch.push_back({{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"shape", shape_json(s.shape)}, {"zero", s.zero}});
    return {{"launch", launch}, {"scratch", scratch}};
}

Json Kernel::info() const {
    Json j;
    j["label"] = label;
    j["language"] = language_name(program.language);
    j["path"] = image.path;
    j["image"] = image.kind == ImageKind::cubin ? "cubin" : "ptx";
    j["arch"] = image.arch;
    j["image_bytes"] = image.bytes.size();
    j["compile_ms"] = image.compile_ms;
    if (image.nvrtc_ms > 0) j["nvrtc_ms"] = image.nvrtc_ms;
    if (image.nvcc_ms > 0) j["nvcc_ms"] = image.nvcc_ms;
    j["cache_hit"] = image.cache_hit;
    Json syms = Json::object();
    for (const auto& kv : image.symbols) syms[kv.first] = kv.second;
    j["symbols"] = syms;
    j["entries"] = image.entries;
    j["plan"] = plan_to_json(program);
    j["id"] = id;
    return j;
}

KernelPtr finish_kernel(Kernel k) {
    Sha256 h;
    h.field(k.image.kind == ImageKind::cubin ? "cubin" : "ptx").field(k.image.bytes);
    for (const auto& kv : k.image.symbols) h.field(kv.first).field(kv.second);
    h.field(plan_to_json(k.program).dump());
    k.id = h.hex();
    return std::make_shared<const Kernel>(std::move(k));
}

}  // namespace kb
