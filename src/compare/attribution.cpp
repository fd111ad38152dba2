#include "compare/attribution.h"
#include <algorithm>
#include <cctype>
#include <set>

namespace kb {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `name` holds `word` as a whole identifier, or as <length><word> (a mangled name).
bool names(const std::string& name, const std::string& word) {
    if (word.empty()) return false;
    if (name == word) return true;
    if (name.find(std::to_string(word.size()) + word) != std::string::npos) return true;
    for (size_t at = name.find(word); at != std::string::npos; at = name.find(word, at + 1)) {
        bool left = at == 0 || !is_word_char(name[at - 1]);
        size_t end = at + word.size();
        bool right = end == name.size() || !is_word_char(name[end]);
        if (left && right) return true;
    }
    return false;
}

// The operator's name without the "aten." namespace and the overload.
std::string op_base(const std::string& op) {
    std::string s = op;
    if (s.rfind("aten.", 0) == 0) s = s.substr(5);
    else if (s.rfind("aten::", 0) == 0) s = s.substr(6);
    size_t dot = s.find('.');
    if (dot != std::string::npos) s = s.substr(0, dot);
    return s;
}

}  // namespace

std::string kernel_origin(const std::string& name, const std::string& kind, const std::vector<std::string>& declared) {
    if (kind == "memcpy" || kind == "memset") return "memory";
    for (const std::string& d : declared)
        if (names(name, d)) return "candidate";
    const std::string n = lower(name);
    if (has(n, "cudnn") || has(n, "fprop") || has(n, "dgrad") || has(n, "wgrad") || has(n, "implicit_convolve") ||
        has(n, "winograd") || has(n, "conv2d_") || has(n, "convolve"))
        return "cudnn";
    if (has(n, "cublas") || has(n, "gemm") || has(n, "gemv") || has(n, "nvjet") || has(n, "cutlass") ||
        has(n, "xmma"))
        return "cublas";
    if (has(n, "at::") || has(n, "at6native") || has(n, "2at4cuda") || has(n, "c10") || has(n, "pytorch") ||
        has(n, "at_cuda_detail") || has(n, "elementwise_kernel") || has(n, "reduce_kernel") || has(n, "flash_fwd") ||
        has(n, "fmha") || has(n, "cunn_") || has(n, "cub::") || has(n, "3cub"))
        return "torch";
    if (n.rfind("triton_", 0) == 0 || has(n, "triton")) return "triton";
    return "other";
}

bool aten_op_computes(const std::string& op) {
    static const std::set<std::string> kNoCompute = {
        // allocation and fills
        "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
        "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "fill", "zero_", "zero", "arange",
        "scalar_tensor", "lift_fresh", "lift_fresh_copy", "resize_", "set_", "record_stream",
        // random fills: making inputs (a TritonBench test function's torch.randn), not computing results
        "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm", "normal", "normal_",
        "uniform_", "random_", "bernoulli", "bernoulli_", "exponential_",
        // copies and layout
        "copy_", "copy", "clone", "contiguous", "_to_copy", "to", "_copy_from", "_copy_from_and_resize", "cat",
        "stack", "detach", "detach_", "alias", "_unsafe_view",
        // views
        "view", "view_as", "reshape", "_reshape_alias", "as_strided", "expand", "expand_as", "t", "transpose",
        "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "select", "slice", "narrow", "split",
        "split_with_sizes", "chunk", "unbind", "movedim", "view_as_real", "view_as_complex", "unfold",
        // metadata and scalars
        "is_same_size", "size", "stride", "numel", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
        "_local_scalar_dense", "item", "is_nonzero", "equal", "dim", "is_contiguous",
    };
    return kNoCompute.count(op_base(op)) == 0;
}

void merge_attribution(ProgramAttribution& into, const ProgramAttribution& a) {
    into.cupti = into.cupti || a.cupti;
    if (into.cupti_why.empty()) into.cupti_why = a.cupti_why;
    for (const KernelUse& k : a.kernels) {
        auto it = std::find_if(into.kernels.begin(), into.kernels.end(),
                               [&](const KernelUse& x) { return x.name == k.name && x.kind == k.kind; });
        if (it == into.kernels.end()) {
            into.kernels.push_back(k);
        } else {
            it->launches += k.launches;
            it->total_us += k.total_us;
            it->streams = std::max(it->streams, k.streams);
        }
    }
    for (const auto& [op, n] : a.aten_ops) into.aten_ops[op] += n;
    for (const auto& [fn, n] : a.triton_launches) into.triton_launches[fn] += n;
    if (into.triton_declared.empty()) into.triton_declared = a.triton_declared;
    if (into.cuda_declared.empty()) into.cuda_declared = a.cuda_declared;
    into.streams = std::max(into.streams, a.streams);
    into.records_outside_calls += a.records_outside_calls;
}

void attribute(ProgramAttribution& a) {
    std::vector<std::string> declared = a.triton_declared;
    declared.insert(declared.end(), a.cuda_declared.begin(), a.cuda_declared.end());
    double total = 0;
    std::map<std::string, double> by_origin;
    for (KernelUse& k : a.kernels) {
        k.origin = kernel_origin(k.name, k.kind, declared);
        total += k.total_us;
        by_origin[k.origin] += k.total_us;
    }
    a.share.clear();
    if (total > 0)
        for (auto& [origin, us] : by_origin) a.share[origin] = us / total;
    a.torch_compute_ops.clear();
    for (const auto& [op, calls] : a.aten_ops)
        if (calls > 0 && aten_op_computes(op)) a.torch_compute_ops.push_back(op_base(op));
    std::sort(a.torch_compute_ops.begin(), a.torch_compute_ops.end());
    a.torch_compute_ops.erase(std::unique(a.torch_compute_ops.begin(), a.torch_compute_ops.end()),
                              a.torch_compute_ops.end());
    // A decoy declares kernels and none of them ran. With CUPTI the records
    // say so for every language; without it only Triton launches are counted.
    a.decoy = false;
    if (!declared.empty()) {
        bool ran = by_origin.count("candidate") != 0;
        uint64_t launches = 0;
        for (const auto& [name, n] : a.triton_launches) launches += n;
        if (a.cupti) a.decoy = !ran && launches == 0;
        else if (a.cuda_declared.empty()) a.decoy = launches == 0;
    }
}

}  // namespace kb
