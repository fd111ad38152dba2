#include "compiler/triton_specialize.h"

#include <future>

#include "util/error.h"

namespace kb {

std::string TritonCompileSpec::key() const {
    std::string k = kernel + "(";
    for (size_t i = 0; i < args.size(); ++i)
        k += (i ? ", " : "") + args[i].type + (args[i].spec.empty() ? "" : ":" + args[i].spec);
    k += ";";
    for (const auto& kv : constexprs) k += " " + kv.first + "=" + std::to_string(kv.second);
    k += "; w" + std::to_string(num_warps) + " s" + std::to_string(num_stages) + " c" + std::to_string(num_ctas) + ")";
    return k;
}

std::string triton_type(DType t, bool pointer) {
    const char* name = "";
    switch (t) {
        case DType::f16: name = "fp16"; break;
        case DType::bf16: name = "bf16"; break;
        case DType::f32: name = "fp32"; break;
        case DType::f64: name = "fp64"; break;
        case DType::i8: name = "i8"; break;
        case DType::u8: name = "u8"; break;
        case DType::i16: name = "i16"; break;
        case DType::u16: name = "u16"; break;
        case DType::i32: name = "i32"; break;
        case DType::u32: name = "u32"; break;
        case DType::i64: name = "i64"; break;
        case DType::u64: name = "u64"; break;
        case DType::boolean: name = pointer ? "i1" : "u1"; break;
    }
    return pointer ? std::string("*") + name : std::string(name);
}

std::string triton_int_spec(int64_t v) {
    if (v == 1) return "1";
    if (v % 16 == 0) return "D";
    return "";
}

TritonCompileSpec triton_spec_at(const Task& task, const Program& p, size_t step, const DimValues& dims) {
    const LaunchStep& s = p.launch.at(step);
    if (!s.triton) fail(KB_ERR_INTERNAL, s.json_path + ": not a Triton launch entry (a kbench bug)");
    auto eval = [&](const Expr& e, const std::string& what) -> int64_t {
        try {
            return e.eval(dims);
        } catch (const ExprError& x) {
            fail(KB_ERR_TASK_INVALID, s.json_path + ": " + what + " '" + e.text() + "' cannot be evaluated: " + x.what());
        }
    };
    TritonCompileSpec spec;
    spec.kernel = s.kernel;
    spec.num_warps = s.triton->num_warps;
    spec.num_stages = s.triton->num_stages;
    spec.num_ctas = s.triton->num_ctas;
    for (const auto& kv : s.triton->constexprs) spec.constexprs.emplace_back(kv.first, eval(kv.second, kv.first));
    for (const LaunchArg& a : s.args) {
        TritonArg ta;
        if (a.kind == LaunchArg::Kind::scalar) {
            ta.name = a.is_float ? std::to_string(a.float_value) : a.value.text();
            ta.type = triton_type(a.dtype, false);
            // Triton specialises integers only (not floats, not bools).
            if (!dtype_is_float(a.dtype) && a.dtype != DType::boolean && !a.is_float)
                ta.spec = triton_int_spec(eval(a.value, "the inline scalar"));
            spec.args.push_back(ta);
            continue;
        }
        ta.name = a.name;
        const Arg* arg = task.find_arg(a.name);
        if (arg && !arg->is_buffer()) {
            ta.type = triton_type(arg->dtype, false);
            if (!dtype_is_float(arg->dtype) && arg->dtype != DType::boolean && !arg->scalar_is_float)
                ta.spec = triton_int_spec(eval(arg->scalar_expr, "the value of '" + arg->name + "'"));
        } else {
            const Scratch* sc = nullptr;
            for (const Scratch& x : p.scratch)
                if (x.name == a.name) sc = &x;
            if (!arg && !sc) fail(KB_ERR_INTERNAL, s.json_path + ": no buffer named '" + a.name + "' (a kbench bug)");
            ta.type = triton_type(arg ? arg->dtype : sc->dtype, true);
            // Every buffer kbench allocates starts 256 bytes aligned
            // (cuMemAlloc, and guard zones of 64 KiB in front): Triton's
            // 16-byte assumption holds. The launcher re-checks each pointer.
            ta.spec = "D";
        }
        spec.args.push_back(ta);
    }
    return spec;
}

std::vector<TritonSpecAt> triton_specs(const Task& task, const Program& p, const std::vector<int>& cases) {
    std::vector<int> which = cases;
    if (which.empty())
        for (size_t i = 0; i < task.cases.size(); ++i) which.push_back(int(i));
    std::vector<TritonSpecAt> out;
    for (size_t step = 0; step < p.launch.size(); ++step) {
        if (!p.launch[step].triton) continue;
        for (int c : which) {
            TritonCompileSpec spec = triton_spec_at(task, p, step, task.cases.at(size_t(c)).dims);
            const std::string key = spec.key();
            bool seen = false;
            for (const TritonSpecAt& x : out) seen = seen || (x.step == step && x.spec.key() == key);
            if (!seen) out.push_back({step, std::move(spec)});
        }
    }
    return out;
}

const TritonVariant& triton_variant_for(const std::vector<TritonVariant>& variants, const Task& task,
                                        const Program& p, size_t step, const DimValues& dims,
                                        const std::string& case_name) {
    const std::string key = triton_spec_at(task, p, step, dims).key();
    std::string have;
    for (const TritonVariant& v : variants) {
        if (v.step != step) continue;
        if (v.key == key) return v;
        have += "\n  " + v.key;
    }
    fail(KB_ERR_INTERNAL, "launch[" + std::to_string(step) + "] at case '" + case_name +
                              "': no Triton binary was compiled for this case's specialisation " + key +
                              " (compiled:" + (have.empty() ? std::string(" none") : have) +
                              "); launching another would break the assumptions it was compiled under. This is a "
                              "kbench bug");
}

std::vector<TritonVariant> compile_triton_variants(Compiler& service, const CompileRequest& base,
                                                   const Task& task, const Program& p, const std::vector<int>& cases) {
    std::vector<TritonSpecAt> specs = triton_specs(task, p, cases);
    std::vector<std::future<CompiledImage>> running;
    for (const TritonSpecAt& s : specs) {
        CompileRequest rq = base;
        rq.language = Language::triton;
        rq.kernel_names = {s.spec.kernel};
        rq.triton = s.spec;
        running.push_back(std::async(std::launch::async, [&service, rq]() { return service.compile(rq); }));
    }
    std::vector<TritonVariant> out;
    std::exception_ptr first;
    for (size_t i = 0; i < running.size(); ++i) {
        try {
            out.push_back({specs[i].step, specs[i].spec.key(), running[i].get()});
        } catch (...) {
            if (!first) first = std::current_exception();
        }
    }
    if (first) std::rethrow_exception(first);
    return out;
}

}  // namespace kb
