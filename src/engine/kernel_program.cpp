#include "engine/kernel_program.h"

#include "util/error.h"
#include "util/files.h"
#include "util/text.h"

namespace kb {
namespace {

[[noreturn]] void task_invalid(const Task& t, const std::string& what) {
    fail(KB_ERR_TASK_INVALID, "task '" + t.name + "': " + what);
}

// Evaluates an expression of the plan at a case, naming the case and field
// when it does not evaluate (the loader checked every case, so this is a
// plan given with the candidate).
int64_t at_case(const Task& t, const Expr& e, const DimValues& env, const Case& c, const std::string& where) {
    try {
        return e.eval(env);
    } catch (const ExprError& err) {
        task_invalid(t, where + " ('" + e.text() + "') does not evaluate at case '" + c.name + "': " + err.what());
    }
}

Json scalar_value(DType dtype, bool is_float, double float_value, const Expr& e, const DimValues& env, const Task& t,
                  const Case& c, const std::string& where) {
    if (is_float) return Json{{"scalar", float_value}, {"dtype", dtype_name(dtype)}};
    const int64_t v = at_case(t, e, env, c, where);
    if (dtype_is_float(dtype)) return Json{{"scalar", double(v)}, {"dtype", dtype_name(dtype)}};
    return Json{{"scalar", v}, {"dtype", dtype_name(dtype)}};
}

Json shape_at(const Task& t, const std::vector<Expr>& shape, const Case& c, const std::string& where) {
    Json s = Json::array();
    for (const Expr& e : shape) s.push_back(at_case(t, e, c.dims, c, where));
    return s;
}

// One launch step at one case, every expression evaluated.
Json step_at(const Task& t, const Program& p, const LaunchStep& st, const Case& c, const Kernel* compiled,
             size_t index) {
    const std::string where = "candidate launch[" + std::to_string(index) + "]";
    if (st.kind == LaunchStep::Kind::zero) return Json{{"zero", st.target}};
    if (st.kind == LaunchStep::Kind::builtin)
        task_invalid(t, where + " calls a library routine; a candidate's work must be its own kernels");
    DimValues env = c.dims;
    Json s;
    s["kernel"] = st.kernel;
    if (p.language == Language::triton) {
        const TritonConfig cfg = st.triton ? *st.triton : TritonConfig{};
        try {
            env = cfg.env(c.dims);
        } catch (const ExprError& err) {
            task_invalid(t, where + ": a constexpr does not evaluate at case '" + c.name + "': " + err.what());
        }
        Json ce = Json::object();
        for (const auto& [name, e] : cfg.constexprs) ce[name] = env.at(name);
        s["constexprs"] = ce;
        s["num_warps"] = cfg.num_warps;
        s["num_stages"] = cfg.num_stages;
        s["num_ctas"] = cfg.num_ctas;
    } else {
        // The symbol in the image (mangled, or the extern "C" name).
        std::string function = st.kernel;
        if (compiled) {
            auto it = compiled->image.symbols.find(st.kernel);
            if (it != compiled->image.symbols.end()) function = it->second;
        }
        s["function"] = function;
        Json block = Json::array();
        for (const Expr& e : st.block) block.push_back(at_case(t, e, env, c, where + ".block"));
        s["block"] = block;
        s["shared_mem"] = at_case(t, st.shared_mem_bytes, env, c, where + ".shared_mem");
    }
    Json grid = Json::array();
    for (const Expr& e : st.grid) grid.push_back(at_case(t, e, env, c, where + ".grid"));
    s["grid"] = grid;
    Json args = Json::array();
    for (size_t i = 0; i < st.args.size(); ++i) {
        const LaunchArg& a = st.args[i];
        const std::string aw = where + ".args[" + std::to_string(i) + "]";
        if (a.kind == LaunchArg::Kind::scalar) {
            args.push_back(scalar_value(a.dtype, a.is_float, a.float_value, a.value, env, t, c, aw));
            continue;
        }
        const Arg* arg = t.find_arg(a.name);
        if (arg && arg->role == Role::scalar)
            args.push_back(scalar_value(arg->dtype, arg->scalar_is_float, arg->scalar_float, arg->scalar_expr, c.dims,
                                        t, c, aw + " ('" + a.name + "')"));
        else
            args.push_back(Json{{"buffer", a.name}});
    }
    s["args"] = args;
    return s;
}

}  // namespace

bool is_kernel_candidate(const CandidateInput& in, const Task& task) {
    if (in.language_given && in.language != Language::triton) return in.language != Language::python;
    if (!in.language_given)
        for (const char* ext : {".cu", ".cuh", ".ptx", ".cubin", ".json"})
            if (ends_with(in.path, ext)) return true;
    // Python text, Triton or not: a kernel only when it brings its launch and
    // does not define the class (or functions) a program candidate would.
    std::string code = in.code;
    if (code.empty() && !in.path.empty()) {
        try {
            code = read_file(in.path);
        } catch (const Error&) {
            return false;  // the program path reports the unreadable file
        }
    }
    const std::string entry = task.python && !task.python->candidate_entry.empty() ? task.python->candidate_entry
                                                                                   : "ModelNew";
    if (code.find("class " + entry) != std::string::npos) return false;
    return in.launch_json || code.find("# kbench: launch") != std::string::npos;
}

bool is_kernel_language(Language language) {
    return language == Language::cuda || language == Language::ptx || language == Language::cubin ||
           language == Language::triton;
}

KernelCandidate make_kernel_candidate(const Task& t, const Program& p, const Kernel* compiled) {
    if (!t.python) fail(KB_ERR_INTERNAL, "make_kernel_candidate: task '" + t.name + "' has no Python reference");
    if (t.python->style != "kernelbench")
        task_invalid(t, "kernel candidates need a KernelBench-style reference (a Model class and get_inputs()); a " +
                            t.python->style + " task takes program candidates only");
    if (t.args.empty())
        task_invalid(t, "a kernel candidate needs the task's kernel signature: add `args` (the in buffers in the order "
                        "get_inputs() returns them, then the out buffers in the order the Model returns them) and "
                        "`candidate.launch`, or score a Python program (language python) instead "
                        "(docs/programs.md, \"Kernel candidates against a Python reference\")");
    if (p.language != Language::triton && !compiled)
        fail(KB_ERR_INTERNAL, "make_kernel_candidate: a " + std::string(language_name(p.language)) +
                                  " candidate needs its compiled image");
    KernelCandidate kc;
    Json& table = kc.table;
    table["language"] = p.language == Language::triton ? "triton" : "cuda";
    Json inputs = Json::array(), outputs = Json::array();
    for (const Arg& a : t.args) {
        if (a.is_input()) inputs.push_back(Json{{"name", a.name}, {"dtype", dtype_name(a.dtype)}, {"role", role_name(a.role)}});
        if (a.is_output()) outputs.push_back(Json{{"name", a.name}, {"dtype", dtype_name(a.dtype)}});
    }
    table["inputs"] = inputs;
    table["outputs"] = outputs;
    Json cases = Json::array();
    for (const Case& c : t.cases) {
        Json jc;
        jc["name"] = c.name;
        Json buffers = Json::object();
        for (size_t i = 0; i < t.args.size(); ++i) {
            const Arg& a = t.args[i];
            if (!a.is_buffer()) continue;
            buffers[a.name] = Json{{"dtype", dtype_name(a.dtype)},
                                   {"shape", shape_at(t, a.shape, c, "args[" + std::to_string(i) + "].shape")}};
        }
        jc["buffers"] = buffers;
        Json scratch = Json::array();
        for (size_t i = 0; i < p.scratch.size(); ++i) {
            const Scratch& s = p.scratch[i];
            scratch.push_back(Json{{"name", s.name},
                                   {"dtype", dtype_name(s.dtype)},
                                   {"shape", shape_at(t, s.shape, c, "candidate scratch[" + std::to_string(i) + "].shape")},
                                   {"zero", s.zero}});
        }
        jc["scratch"] = scratch;
        Json steps = Json::array();
        for (size_t i = 0; i < p.launch.size(); ++i) steps.push_back(step_at(t, p, p.launch[i], c, compiled, i));
        jc["steps"] = steps;
        cases.push_back(jc);
    }
    table["cases"] = cases;
    if (compiled) {
        kc.image = compiled->image.bytes;
        table["image"] = compiled->image.kind == ImageKind::ptx ? "ptx" : "cubin";
    }
    return kc;
}

void check_kernel_signature(const Task& t, int case_index, const ProgramRunReply& ref) {
    const Case& c = t.cases[size_t(case_index)];
    const std::string at = " at case '" + c.name + "'";
    if (!ref.model_state.empty()) {
        std::string names;
        for (size_t i = 0; i < ref.model_state.size() && i < 4; ++i) names += (i ? ", " : "") + ref.model_state[i];
        if (ref.model_state.size() > 4) names += ", ...";
        task_invalid(t, "the problem's Model holds parameters or buffers (" + names +
                            "), which a kernel candidate never receives (it gets get_inputs()' tensors only); score a "
                            "Python program (ModelNew) for this problem");
    }
    std::vector<const ProgramInput*> tensors;
    for (const ProgramInput& in : ref.inputs)
        if (in.is_tensor) tensors.push_back(&in);
    std::vector<const Arg*> ins, outs;
    for (const Arg& a : t.args) {
        if (a.is_input()) ins.push_back(&a);
        if (a.is_output()) outs.push_back(&a);
    }
    if (tensors.size() != ins.size())
        task_invalid(t, "get_inputs() returns " + std::to_string(tensors.size()) + " tensor(s)" + at + " but `args` has " +
                            std::to_string(ins.size()) + " in/inout buffer(s); declare one per tensor, in order");
    for (size_t i = 0; i < ins.size(); ++i) {
        const Arg& a = *ins[i];
        int64_t n = 1;
        for (int64_t d : tensors[i]->shape) n *= d;
        const int64_t want = element_count(a.shape, c.dims, "args '" + a.name + "'");
        if (tensors[i]->dtype != dtype_name(a.dtype) || n != want)
            task_invalid(t, "args '" + a.name + "' is " + dtype_name(a.dtype) + " of " + std::to_string(want) +
                                " elements" + at + ", but get_inputs()' tensor " + std::to_string(i) + " is " +
                                tensors[i]->dtype + " of " + std::to_string(n) + "; make the arg match the tensor");
    }
    if (ref.outputs.size() != outs.size())
        task_invalid(t, "the reference returns " + std::to_string(ref.outputs.size()) + " output(s)" + at +
                            " but `args` has " + std::to_string(outs.size()) +
                            " out/inout buffer(s); declare one per output, in order");
    for (size_t i = 0; i < outs.size(); ++i) {
        const Arg& a = *outs[i];
        const ProgramOutputMeta& m = ref.outputs[i];
        std::vector<int64_t> want;
        for (const Expr& e : a.shape) want.push_back(e.eval(c.dims));
        auto text = [](const std::vector<int64_t>& s) {
            std::string r = "[";
            for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
            return r + "]";
        };
        if (!m.is_tensor || m.dtype != dtype_name(a.dtype) || m.shape != want)
            task_invalid(t, "args '" + a.name + "' is " + dtype_name(a.dtype) + " " + text(want) + at +
                                ", but the reference's " + m.label + " is " +
                                (m.is_tensor ? m.dtype + " " + text(m.shape) : "not a tensor") +
                                "; give the arg the dtype and shape the reference returns");
    }
}

}  // namespace kb
