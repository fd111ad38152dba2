#include "exec/kernel.h"

#include "util/sha256.h"

namespace kb {
Json Kernel::info() const {
    Json j;
    j["label"] = label;
    j["language"] = language_name(program.language);
    j["path"] = image.path;
    // A program of built-in steps only has no image at all.
    j["image"] = image.bytes.empty() ? "none" : image.kind == ImageKind::cubin ? "cubin" : "ptx";
    j["arch"] = image.arch;
    j["image_bytes"] = image.bytes.size();
    j["compile_ms"] = image.compile_ms;
    if (image.nvrtc_ms > 0) j["nvrtc_ms"] = image.nvrtc_ms;
    if (image.nvcc_ms > 0) j["nvcc_ms"] = image.nvcc_ms;
    if (!image.fallback_reason.empty()) j["fallback_reason"] = image.fallback_reason;
    j["cache_hit"] = image.cache_hit;
    Json syms = Json::object();
    for (const auto& kv : image.symbols) syms[kv.first] = kv.second;
    j["symbols"] = syms;
    j["entries"] = image.entries;
    j["plan"] = launch_plan_to_json(program);
    j["id"] = id;
    return j;
}

KernelPtr finish_kernel(Kernel k) {
    Sha256 h;
    h.field(k.image.kind == ImageKind::cubin ? "cubin" : "ptx").field(k.image.bytes);
    for (const auto& kv : k.image.symbols) h.field(kv.first).field(kv.second);
    h.field(launch_plan_to_json(k.program).dump());
    k.id = h.hex();
    return std::make_shared<const Kernel>(std::move(k));
}

}  // namespace kb
