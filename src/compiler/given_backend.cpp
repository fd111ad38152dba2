#include "compiler/given_backend.h"

#include "compiler/arch.h"
#include "compiler/image_entries.h"
#include "util/json.h"

namespace kb {

CompiledImage GivenImageBackend::compile(const CompileRequest& rq) {
    Arch arch = parse_arch(rq.arch);
    CompiledImage img;
    img.path = "given";
    img.arch = rq.arch;
    img.bytes = rq.code;
    if (rq.language == Language::ptx) {
        img.kind = ImageKind::ptx;
        std::string why = ptx_problem(rq.code);
        if (!why.empty()) throw CompileError(rq.source_name + ": not PTX: " + why, why + "\n");
        while (!img.bytes.empty() && img.bytes.back() == '\0') img.bytes.pop_back();
        img.entries = ptx_entries(img.bytes);
    } else {  // cubin, triton_binary
        img.kind = ImageKind::cubin;
        std::string why = cubin_problem(rq.code);
        if (!why.empty()) throw CompileError(rq.source_name + ": not a loadable cubin: " + why, why + "\n");
        img.entries = cubin_entries(rq.code);
        int sm = cubin_sm(rq.code);
        if (sm > 0) {
            img.arch = "sm_" + std::to_string(sm);
            // A cubin runs on its own major architecture, at the same or a
            // higher minor version.
            bool loads = sm / 10 == arch.sm / 10 && sm <= arch.sm;
            if (!loads) {
                std::string msg = rq.source_name + ": the cubin was built for sm_" + std::to_string(sm) +
                                  " and cannot run on " + rq.arch + "; build it for " + rq.arch +
                                  " or hand kbench PTX instead";
                if (!rq.emit_ptx) throw CompileError(msg, msg + "\n");
                img.log += "kbench: warning: " + msg + "\n";
            }
        }
        if (rq.language == Language::triton_binary && !rq.triton_metadata.empty()) {
            img.triton_metadata = rq.triton_metadata;
            TritonKernelInfo t = parse_triton_metadata(rq.triton_metadata);
            bool found = false;
            for (const std::string& e : img.entries) found = found || e == t.name;
            if (!found) {
                std::string msg = rq.source_name + ": Triton metadata names kernel '" + t.name +
                                  "', which is not in the cubin";
                throw CompileError(msg, msg + "\n");
            }
        }
    }
    // A Triton cubin's entry takes more than the plan passes: Triton's
    // launcher appends its global and profile scratch pointers (and drops
    // constexprs), so the plan's arguments are not checked against it.
    const bool check_params = rq.language != Language::triton_binary;
    img.symbols =
        resolve_kernel_names(rq.kernel_names, img.entries, {}, rq.source_name, check_params ? &rq.expect : nullptr);
    return img;
}

TritonKernelInfo parse_triton_metadata(const std::string& json) {
    Json j;
    try {
        j = Json::parse(json);
    } catch (const std::exception& e) {
        fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: not valid JSON: ") + e.what());
    }
    if (!j.is_object()) fail(KB_ERR_INVALID_ARGUMENT, "Triton metadata: expected a JSON object");
    TritonKernelInfo t;
    auto it = j.find("name");
    if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
        fail(KB_ERR_INVALID_ARGUMENT, "Triton metadata: \"name\" (the kernel's symbol) is required and must be a string");
    t.name = it->get<std::string>();
    auto integer = [&](const char* key, int min, bool required, int& out) {
        auto f = j.find(key);
        if (f == j.end()) {
            if (required) fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: \"") + key + "\" is required");
            return;
        }
        if (!f->is_number_integer() || f->get<long long>() < min || f->get<long long>() > (1 << 30))
            fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: \"") + key + "\" must be an integer >= " +
                                              std::to_string(min));
        out = f->get<int>();
    };
    integer("num_warps", 1, true, t.num_warps);
    integer("shared", 0, true, t.shared);
    integer("num_ctas", 1, false, t.num_ctas);
    return t;
}

}  // namespace kb
