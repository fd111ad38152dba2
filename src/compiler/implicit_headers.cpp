#include "compiler/implicit_headers.h"

namespace kb {

std::vector<std::string> implicit_headers(const LaunchExpectations& expect,
                                          const std::unordered_set<std::string>& identifiers,
                                          const std::vector<IncludeDirective>& includes) {
    bool f16 = false, bf16 = false;
    for (const auto& kv : expect.kernels)
        for (const KernelSpec& s : kv.second)
            for (const ParamSpec& p : s.params) {
                f16 = f16 || p.dtype == DType::f16;
                bf16 = bf16 || p.dtype == DType::bf16;
            }
    for (const char* id : {"half", "__half", "half2", "__half2", "__half_raw", "__half2_raw", "__float2half",
                           "__half2float", "__float2half_rn", "__floats2half2_rn", "__float22half2_rn"})
        f16 = f16 || identifiers.count(id);
    for (const char* id : {"nv_bfloat16", "__nv_bfloat16", "nv_bfloat162", "__nv_bfloat162", "__nv_bfloat16_raw",
                           "__float2bfloat16", "__bfloat162float", "__float2bfloat16_rn", "__floats2bfloat162_rn"})
        bf16 = bf16 || identifiers.count(id);
    auto included = [&](const std::string& name) {
        for (const IncludeDirective& inc : includes)
            if (inc.name == name) return true;
        return false;
    };
    std::vector<std::string> out;
    if (f16 && !included("cuda_fp16.h")) out.push_back("cuda_fp16.h");
    if (bf16 && !included("cuda_bf16.h")) out.push_back("cuda_bf16.h");
    return out;
}

}  // namespace kb
