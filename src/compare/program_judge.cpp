#include "compare/program_judge.h"

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

std::string shape_text(const std::vector<int64_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

std::string list_text(const std::vector<std::string>& v, size_t max = 6) {
    std::string t;
    for (size_t i = 0; i < v.size() && i < max; ++i) t += (i ? ", " : "") + v[i];
    if (v.size() > max) t += ", ... (" + std::to_string(v.size()) + " in all)";
    return t;
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

std::vector<std::string> output_mismatches(const std::vector<ProgramOutputMeta>& reference,
                                           const std::vector<ProgramOutputMeta>& candidate, const ProgramRules& rules) {
    std::vector<std::string> out;
    if (reference.size() != candidate.size()) {
        out.push_back("the candidate returned " + std::to_string(candidate.size()) + " output" +
                      (candidate.size() == 1 ? "" : "s") + ", the reference returns " +
                      std::to_string(reference.size()));
        return out;
    }
    for (size_t i = 0; i < reference.size(); ++i) {
        const ProgramOutputMeta& r = reference[i];
        const ProgramOutputMeta& c = candidate[i];
        const std::string label = r.label.empty() ? "output " + std::to_string(i) : r.label;
        if (c.label != r.label && !c.label.empty() && !r.label.empty()) {
            out.push_back("the candidate's output " + std::to_string(i) + " is " + c.label + ", the reference's is " +
                          r.label + " (a different structure)");
            continue;
        }
        if (!c.is_tensor && !c.type.empty()) {
            out.push_back(label + " is a " + c.type + ", expected a tensor of " + r.dtype + " " + shape_text(r.shape));
            continue;
        }
        if (c.shape != r.shape) {
            out.push_back(label + " has shape " + shape_text(c.shape) + ", expected " + shape_text(r.shape));
            continue;
        }
        if (rules.check_dtype && c.dtype != r.dtype)
            out.push_back(label + " has dtype " + c.dtype + ", expected " + r.dtype);
        if (rules.check_device && c.device != r.device && r.is_tensor)
            out.push_back(label + " is on " + c.device + ", expected " + r.device);
    }
    return out;
}

Judgement judge_program_run(const ProgramRunObservation& run, const ProgramRules& rules) {
    const std::string at = " at case '" + rules.case_name + "'";
    Judgement j;
    if (run.error) {
        j.verdict = KB_VERDICT_RUNTIME_ERROR;
        const std::string stage = run.error_stage == "definition"     ? "the candidate's definitions are incomplete"
                                  : run.error_stage == "construction" ? "constructing the candidate's model failed"
                                                                      : "the candidate raised";
        j.message = stage + at + ": " + *run.error;
        j.context_lost = run.context_lost;
        return j;
    }
    std::vector<std::string> mm = output_mismatches(run.reference_outputs, run.candidate_outputs, rules);
    if (!mm.empty()) {
        j.verdict = KB_VERDICT_WRONG_ANSWER;
        j.message = list_text(mm, 3) + at;
        return j;
    }
    if (rules.check_inputs && !run.inputs_modified.empty()) {
        j.verdict = KB_VERDICT_INPUT_MODIFIED;
        j.message = "the candidate modified its input(s) " + list_text(run.inputs_modified) + at +
                    " (their checksums changed over the call); a model must leave its inputs as it found them";
        return j;
    }
    RunObservation obs;
    obs.outputs = run.outputs;
    JudgeRules jr;
    jr.case_name = rules.case_name;
    Judgement v = judge_run(obs, jr);
    if (v.verdict == KB_VERDICT_OUTPUT_NOT_WRITTEN)
        v.message += " (the output's memory still holds the pattern kbench filled free device memory with: the "
                     "candidate allocated it and never wrote it)";
    return v;
}

std::vector<ProgramFinding> program_findings(const ProgramAttribution& a, const ProgramIntegrity& integrity,
                                             const ProgramPolicyRules& rules) {
    std::vector<ProgramFinding> out;
    auto sev = [&](bool fails) { return fails && rules.enforce ? "fail" : "report"; };
    if (!integrity.patched.empty())
        out.push_back({"patched", sev(true),
                       "the candidate replaced " + list_text(integrity.patched) +
                           ": functions a measurement relies on must stay as the worker found them",
                       0});
    if (!integrity.threads_left.empty())
        out.push_back({"thread_left_running", sev(true),
                       "the candidate left " + std::to_string(integrity.threads_left.size()) +
                           " thread(s) running after its call (" + list_text(integrity.threads_left) +
                           "): work after the call returns escapes timing and checking",
                       0});
    std::vector<std::string> declared = a.triton_declared;
    declared.insert(declared.end(), a.cuda_declared.begin(), a.cuda_declared.end());
    if (a.decoy)
        out.push_back({"decoy", sev(rules.torch_compute != "allow"),
                       "the candidate defines " + list_text(declared) + " but none of them ran" +
                           (a.torch_compute_ops.empty() ? "" : "; the work was done by torch (" +
                                                                   list_text(a.torch_compute_ops) + ")"),
                       0});
    if (!a.torch_compute_ops.empty()) {
        std::string share;
        double s = 0;
        for (const char* o : {"torch", "cublas", "cudnn"}) {
            auto it = a.share.find(o);
            if (it != a.share.end()) s += it->second;
        }
        if (a.cupti) share = " (" + std::to_string(int(s * 100 + 0.5)) + "% of its kernel time in torch, cuBLAS or cuDNN)";
        const bool fails = rules.torch_compute == "forbid";
        out.push_back({"torch_compute", sev(fails),
                       "the candidate computes with torch: " + list_text(a.torch_compute_ops) + share +
                           (fails ? "; this task forbids torch compute in candidates" : ""),
                       0});
    }
    if (a.streams > 1)
        out.push_back({"several_streams", "report",
                       "its work ran on " + std::to_string(a.streams) +
                           " streams; the time of each call counts every kernel on every stream",
                       0});
    if (a.records_outside_calls > 0)
        out.push_back({"work_outside_calls", "report",
                       std::to_string(a.records_outside_calls) +
                           " device operations were recorded outside the candidate's calls",
                       0});
    std::stable_sort(out.begin(), out.end(),
                     [](const ProgramFinding& x, const ProgramFinding& y) { return x.severity == "fail" && y.severity != "fail"; });
    return out;
}

Judgement judge_policy(const std::vector<ProgramFinding>& findings) {
    Judgement j;
    for (const ProgramFinding& f : findings)
        if (f.severity == "fail") {
            j.verdict = KB_VERDICT_POLICY_VIOLATION;
            j.message = f.message;
            return j;
        }
    return j;
}

}  // namespace kb
