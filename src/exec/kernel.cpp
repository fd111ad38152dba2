#include "exec/kernel.h"

#include "util/sha256.h"

namespace kb {
KernelPtr finish_kernel(Kernel k) {
    Sha256 h;
    h.field(k.image.kind == ImageKind::cubin ? "cubin" : "ptx").field(k.image.bytes);
    for (const auto& kv : k.image.symbols) h.field(kv.first).field(kv.second);
    for (const TritonVariant& v : k.variants)
        h.field(std::to_string(v.step)).field(v.key).field(v.image.bytes).field(v.image.triton_metadata);
    h.field(language_name(k.program.language));
    h.field(launch_plan_to_json(k.program).dump());
    k.id = h.hex();
    return std::make_shared<const Kernel>(std::move(k));
}

}  // namespace kb
