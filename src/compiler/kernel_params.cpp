#include "compiler/kernel_params.h"

#include <algorithm>
#include <cctype>

#include "compiler/compile_types.h"
#include "compiler/fault_containment.h"
#include "compiler/image_entries.h"

namespace kb {
namespace {

// A C++ type as far as the check needs it.
struct CType {
    enum class Kind { unknown, floating, integer, boolean, void_, pointer } kind = Kind::unknown;
    size_t size = 0;
    std::string name;      // canonical spelling, without cv-qualifiers
    std::string pointee;   // for pointers: the canonical pointee type
};

const char* c_type_of(DType t) {
    switch (t) {
        case DType::f16: return "__half";
        case DType::bf16: return "__nv_bfloat16";
        case DType::f32: return "float";
        case DType::f64: return "double";
        case DType::i8: return "int8_t";
        case DType::u8: return "uint8_t";
        case DType::i16: return "int16_t";
        case DType::u16: return "uint16_t";
        case DType::i32: return "int";
        case DType::u32: return "unsigned int";
        case DType::i64: return "int64_t";
        case DType::u64: return "uint64_t";
        case DType::boolean: return "bool";
    }
    return "?";
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Removes the words const, volatile and the restrict spellings.
std::string strip_qualifiers(std::string t) {
    for (const char* q : {"const", "volatile", "__restrict__", "__restrict", "restrict"}) {
        std::string w = q;
        size_t p = 0;
        while ((p = t.find(w, p)) != std::string::npos) {
            bool left = p == 0 || !(std::isalnum(static_cast<unsigned char>(t[p - 1])) || t[p - 1] == '_');
            size_t e = p + w.size();
            bool right = e >= t.size() || !(std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_');
            if (left && right) t.erase(p, w.size());
            else p = e;
        }
    }
    std::string out;
    for (char c : t) {
        if (c == ' ' && (out.empty() || out.back() == ' ' || out.back() == '*')) continue;
        if (c == '*' && !out.empty() && out.back() == ' ') out.pop_back();
        out += c;
    }
    return trim(out);
}

CType classify(const std::string& spelled) {
    CType t;
    std::string s = strip_qualifiers(canonical_signature(spelled));
    if (!s.empty() && s.back() == '*') {
        t.kind = CType::Kind::pointer;
        t.size = 8;
        t.pointee = trim(s.substr(0, s.size() - 1));
        t.name = s;
        return t;
    }
    t.name = s;
    static const struct {
        const char* name;
        CType::Kind kind;
        size_t size;
    } known[] = {
        {"float", CType::Kind::floating, 4},        {"double", CType::Kind::floating, 8},
        {"__half", CType::Kind::floating, 2},       {"__nv_bfloat16", CType::Kind::floating, 2},
        {"bool", CType::Kind::boolean, 1},          {"char", CType::Kind::integer, 1},
        {"signed char", CType::Kind::integer, 1},   {"unsigned char", CType::Kind::integer, 1},
        {"short", CType::Kind::integer, 2},         {"unsigned short", CType::Kind::integer, 2},
        {"int", CType::Kind::integer, 4},           {"unsigned int", CType::Kind::integer, 4},
        {"long", CType::Kind::integer, 8},          {"unsigned long", CType::Kind::integer, 8},
        {"void", CType::Kind::void_, 0},
    };
    for (const auto& k : known) {
        if (s == k.name) {
            t.kind = k.kind;
            t.size = k.size;
            return t;
        }
    }
    return t;  // a struct, a vector type (float4, __half2), a template parameter: not judged
}

CType expected_value(DType d) {
    CType t;
    t.size = dtype_size(d);
    t.name = canonical_signature(c_type_of(d));
    t.kind = d == DType::boolean ? CType::Kind::boolean
                                 : (dtype_is_float(d) ? CType::Kind::floating : CType::Kind::integer);
    return t;
}

// Whether a value of type `have` holds one of `want`: same kind and size
// (signedness is free; bool and one-byte integers are interchangeable; the
// two 16-bit float types are not).
bool holds(const CType& have, const CType& want) {
    if (have.kind == CType::Kind::unknown) return true;
    bool byte_like = have.size == 1 && want.size == 1 &&
                     (have.kind == CType::Kind::boolean || have.kind == CType::Kind::integer) &&
                     (want.kind == CType::Kind::boolean || want.kind == CType::Kind::integer);
    if (byte_like) return true;
    if (have.kind != want.kind || have.size != want.size) return false;
    return want.kind != CType::Kind::floating || want.size != 2 || have.name == want.name;
}

std::string describe_arg(const ParamSpec& p) {
    std::string type = dtype_name(p.dtype);
    std::string article = type[0] == 'f' || type[0] == 'i' ? "an " : "a ";  // an f32, an i32, a u8, a bool
    return "'" + p.arg + "', " + article + type + (p.buffer ? " buffer" : " value");
}

bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

std::string c_parameter(const ParamSpec& p) {
    std::string name = is_identifier(p.arg) ? p.arg : "/* " + p.arg + " */";
    if (p.buffer) return std::string(p.read_only ? "const " : "") + c_type_of(p.dtype) + "* " + name;
    return std::string(c_type_of(p.dtype)) + " " + name;
}

// Splits "a, b<c, d>, e(f, g)" at its top-level commas.
std::vector<std::string> split_top_level(const std::string& list) {
    std::vector<std::string> out;
    int depth = 0;
    std::string cur;
    for (char c : list) {
        if (c == '<' || c == '(' || c == '[') ++depth;
        if (c == '>' || c == ')' || c == ']') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

bool same_plan(const Program& a, const Program& b) {
    if (a.launch.size() != b.launch.size()) return false;
    for (size_t i = 0; i < a.launch.size(); ++i) {
        const LaunchStep &x = a.launch[i], &y = b.launch[i];
        if (x.kind != y.kind || x.kernel != y.kernel || x.args.size() != y.args.size()) return false;
        for (size_t j = 0; j < x.args.size(); ++j)
            if (x.args[j].kind != y.args[j].kind || x.args[j].name != y.args[j].name) return false;
    }
    return true;
}

std::string image_kind_name(const EntryParam& p) {
    return std::to_string(p.size) + " bytes" + (p.kind == 'f' ? " (floating point)" : p.kind == 'i' ? " (integer)" : "");
}

}  // namespace

LaunchExpectations launch_expectations(const Task& task, const Program& program) {
    LaunchExpectations e;
    e.plan_from_task = &program == &task.reference || (task.baseline && &program == &*task.baseline) ||
                       (task.candidate_default && same_plan(program, *task.candidate_default));
    for (const LaunchStep& step : program.launch) {
        if (step.kind != LaunchStep::Kind::kernel) continue;
        KernelSpec spec;
        spec.where = step.json_path;
        bool complete = true;
        for (const LaunchArg& a : step.args) {
            ParamSpec p;
            if (a.kind == LaunchArg::Kind::scalar) {
                p.arg = a.is_float ? std::to_string(a.float_value) : a.value.text();
                p.dtype = a.dtype;
            } else if (const Arg* t = task.find_arg(a.name)) {
                p.arg = a.name;
                p.buffer = t->is_buffer();
                p.read_only = t->role == Role::in;
                p.dtype = t->dtype;
            } else {
                const Scratch* s = nullptr;
                for (const Scratch& sc : program.scratch)
                    if (sc.name == a.name) s = &sc;
                if (!s) {
                    complete = false;  // the plan's own validation names it
                    break;
                }
                p.arg = a.name;
                p.buffer = true;
                p.dtype = s->dtype;
            }
            spec.params.push_back(p);
        }
        for (const Case& c : task.cases) {
            int64_t threads = 1;
            try {
                // Each side clamped (a device allows 1024 threads a block):
                // an absurd plan must not overflow here; its launch says why.
                for (const Expr& b : step.block) threads *= std::clamp<int64_t>(b.eval(c.dims), 1, 1 << 16);
            } catch (const ExprError&) {
                threads = 0;
            }
            if (threads <= 0) {
                spec.max_block_threads = 0;
                break;
            }
            spec.max_block_threads = std::max(spec.max_block_threads, threads);
        }
        if (complete) e.kernels[step.kernel].push_back(std::move(spec));
    }
    return e;
}

std::string expectations_key(const LaunchExpectations& e) {
    std::string k = e.plan_from_task ? "task;" : "own;";
    for (const auto& kv : e.kernels) {
        for (const KernelSpec& s : kv.second) {
            k += kv.first + "@" + s.where + "(";
            for (const ParamSpec& p : s.params)
                k += p.arg + ":" + dtype_name(p.dtype) + (p.buffer ? (p.read_only ? "*r" : "*") : "") + ",";
            k += ")" + std::to_string(s.max_block_threads) + ";";
        }
    }
    return k;
}

std::string c_parameter_list(const KernelSpec& spec) {
    std::string out;
    for (const ParamSpec& p : spec.params) out += (out.empty() ? "" : ", ") + c_parameter(p);
    return out;
}

bool demangled_parameter_types(const std::string& demangled, std::vector<std::string>& out) {
    out.clear();
    std::string sig = split_demangled(demangled).signature;
    // The parameter list is the last top-level (...) of the signature.
    if (sig.empty() || sig.back() != ')') return false;
    int depth = 0;
    size_t open = std::string::npos;
    for (size_t i = sig.size(); i-- > 0;) {
        if (sig[i] == ')') ++depth;
        else if (sig[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (open == std::string::npos) return false;
    std::string list = trim(sig.substr(open + 1, sig.size() - open - 2));
    if (list == "void") list.clear();
    out = split_top_level(list);
    return true;
}

std::string parameter_mismatch(const std::vector<std::string>& types, const KernelSpec& spec) {
    if (types.size() != spec.params.size()) {
        std::string args;
        for (const ParamSpec& p : spec.params) args += (args.empty() ? "" : ", ") + p.arg;
        return "it takes " + std::to_string(types.size()) + " parameter" + (types.size() == 1 ? "" : "s") + ", but " +
               spec.where + " passes " + std::to_string(spec.params.size()) + " (" + args + ")";
    }
    for (size_t i = 0; i < types.size(); ++i) {
        const ParamSpec& p = spec.params[i];
        CType have = classify(types[i]);
        bool ok;
        if (p.buffer) {
            if (have.kind == CType::Kind::unknown) {
                ok = true;  // a template parameter or a type kbench does not know
            } else if (have.kind != CType::Kind::pointer) {
                ok = false;
            } else {
                CType pointee = classify(have.pointee);
                ok = pointee.kind == CType::Kind::void_ || holds(pointee, expected_value(p.dtype));
            }
        } else {
            ok = have.kind != CType::Kind::pointer && holds(have, expected_value(p.dtype));
        }
        if (!ok)
            return "parameter " + std::to_string(i) + " is '" + types[i] + "', but " + spec.where + " passes " +
                   describe_arg(p) + " there: declare it '" + c_parameter(p) + "'";
    }
    return "";
}

void check_kernel_parameters(const LaunchExpectations& expect, const CompiledImage& image,
                             const std::string& source_name) {
    for (const auto& kv : expect.kernels) {
        auto sym = image.symbols.find(kv.first);
        if (sym == image.symbols.end()) continue;
        std::string demangled = demangle(sym->second);
        std::vector<std::string> types;
        if (demangled_parameter_types(demangled, types)) {
            for (const KernelSpec& spec : kv.second) {
                std::string why = parameter_mismatch(types, spec);
                if (why.empty()) continue;
                std::string msg = source_name + ": kernel " + split_demangled(demangled).signature + " does not take what the launch plan passes: " +
                                  why + ".\nThe plan launches it as " + kv.first + "(" + c_parameter_list(spec) + ").";
                throw CompileError(msg, "");
            }
            continue;
        }
        // extern "C": what the image records (of the kernel's checked copy,
        // whose parameters are its own, where the image holds only those).
        std::vector<EntryParam> params;
        const std::string entry = image.checked_only ? sym->second + kCheckedSuffix : sym->second;
        bool described = image.kind == ImageKind::ptx ? ptx_entry_params(image.bytes, entry, params)
                                                      : cubin_entry_params(image.bytes, entry, params);
        if (!described) continue;
        for (const KernelSpec& spec : kv.second) {
            std::string why;
            if (params.size() != spec.params.size()) {
                std::string args;
                for (const ParamSpec& p : spec.params) args += (args.empty() ? "" : ", ") + p.arg;
                why = "it takes " + std::to_string(params.size()) + " parameter" + (params.size() == 1 ? "" : "s") +
                      ", but " + spec.where + " passes " + std::to_string(spec.params.size()) + " (" + args + ")";
            }
            for (size_t i = 0; why.empty() && i < params.size(); ++i) {
                const ParamSpec& p = spec.params[i];
                const EntryParam& have = params[i];
                bool ok = p.buffer ? have.size == 8 && have.kind != 'f'
                                   : have.size == dtype_size(p.dtype) &&
                                         (have.kind == '?' || (have.kind == 'f') == dtype_is_float(p.dtype));
                if (!ok)
                    why = "parameter " + std::to_string(i) + " is " + image_kind_name(have) + ", but " + spec.where +
                          " passes " + describe_arg(p) + " there (" +
                          (p.buffer ? std::string("a pointer, 8 bytes") : std::to_string(dtype_size(p.dtype)) + " bytes") +
                          "): declare it '" + c_parameter(p) + "'";
            }
            if (why.empty()) continue;
            std::string msg = source_name + ": kernel '" + sym->second + "' does not take what the launch plan passes: " +
                              why + ".\nThe plan launches it as " + kv.first + "(" + c_parameter_list(spec) + ").";
            throw CompileError(msg, "");
        }
    }
}

}  // namespace kb
