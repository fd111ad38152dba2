// Launch plans: the kernel steps (grid, block, shared memory, arguments) and
// zero steps a program runs, and the scratch buffers it allocates. A plan is
// checked against its task once, here, at every case, so that a plan which
// would launch an empty grid or overflow a size at some case is caught when
// the task or candidate is loaded, not halfway through an evaluation.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <set>

#include "task/task_json.h"

namespace kb {

using namespace taskjson;

std::vector<std::string> Program::kernel_names() const {
    std::vector<std::string> names;
    for (const auto& s : launch)
        if (s.kind == LaunchStep::Kind::kernel && std::find(names.begin(), names.end(), s.kernel) == names.end())
            names.push_back(s.kernel);
    return names;
}

int64_t element_count(const std::vector<Expr>& shape, const DimValues& dims, const std::string& what) {
    return count_elements(shape, dims, what, "");
}

namespace {

// CUDA limits that hold on every GPU kbench can run on (compute capability
// 3.0 and later); device-specific limits (shared memory) are checked at launch.
constexpr int64_t kMaxBlock[3] = {1024, 1024, 64};
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};
constexpr const char* kAxis[3] = {"x", "y", "z"};

const std::vector<std::string> kKernelStepKeys = {"kernel", "grid", "block", "shared_mem", "args"};
const std::vector<std::string> kTritonStepKeys = {"kernel",    "grid",       "args",     "constexprs",
                                                  "num_warps", "num_stages", "num_ctas", "configs"};
const std::vector<std::string> kTritonConfigKeys = {"constexprs", "num_warps", "num_stages", "num_ctas"};
const std::vector<std::string> kZeroStepKeys = {"zero"};
const std::vector<std::string> kScratchKeys = {"name", "dtype", "shape", "zero"};
const std::vector<std::string> kScalarArgKeys = {"value", "dtype"};

// Where each expression of a step came from, for per-case messages.
struct StepPaths {
    std::string grid[3], block[3], shared_mem;
    std::vector<std::string> args;
    std::vector<std::string> configs;                      // Triton: where each config was given
    std::vector<std::vector<std::string>> constexpr_paths;  // Triton: per config (the entry's first)
};

class PlanParser {
public:
    PlanParser(const Task& task, std::string path, bool allow_builtins, Language lang, const Limits& limits)
        : task_(task), path_(std::move(path)), allow_builtins_(allow_builtins), lang_(lang), limits_(limits) {}

    Program parse(const Json& obj) {
        if (const Json* s = find(obj, "scratch")) read_scratch(*s, child_path(path_, "scratch"));
        const std::string lp = child_path(path_, "launch");
        const Json& launch = require(obj, path_, "launch",
                                     "expected a non-empty array of launch steps, e.g. [{\"kernel\": \"k\", "
                                     "\"grid\": \"ceil_div(n, 256)\", \"block\": 256, \"args\": [\"a\", \"n\"]}]");
        as_array(launch, lp, "expected a non-empty array of launch steps");
        if (launch.empty()) fail_at(lp, "the launch plan is empty", "expected at least one kernel step");
        check_count(launch.size(), limits_.max_launch_steps, lp, "launch steps", "max_launch_steps");
        for (size_t i = 0; i < launch.size(); ++i) read_step(launch[i], index_path(lp, i));
        for (const Case& c : task_.cases) check_case(c);
        return std::move(p_);
    }

    // The shorthand {"builtin": ..., "args": {...}} in place of a program.
    Program parse_builtin(const Json& obj) {
        p_.launch.push_back(read_builtin_step(obj, path_, task_, p_.scratch, limits_));
        step_paths_.emplace_back();
        for (const Case& c : task_.cases) check_case(c);
        return std::move(p_);
    }

private:
    // ---- scratch ----
    void read_scratch(const Json& v, const std::string& path) {
        as_array(v, path, "expected an array of scratch buffers {\"name\", \"dtype\", \"shape\", \"zero\"}");
        check_count(v.size(), limits_.max_scratch, path, "scratch buffers", "max_scratch");
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string sp = index_path(path, i);
            check_object(v[i], sp, kScratchKeys, "a scratch buffer");
            Scratch s;
            const std::string np = child_path(sp, "name");
            s.name = as_string(require(v[i], sp, "name", "expected the buffer's name"), np);
            check_identifier(s.name, np, "scratch buffer name");
            if (task_.find_arg(s.name))
                fail_at(np, "scratch buffer '" + s.name + "' has the name of a task argument",
                        "expected a name that is not one of the task's arguments (" + arg_names() + ")");
            for (size_t j = 0; j < p_.scratch.size(); ++j)
                if (p_.scratch[j].name == s.name)
                    fail_at(np,
                            "duplicate scratch buffer name '" + s.name + "' (also " +
                                child_path(index_path(path, j), "name") + ")",
                            "expected unique names");
            s.dtype =
                as_dtype(require(v[i], sp, "dtype", "expected one of: " + dtype_names()), child_path(sp, "dtype"));
            s.shape = as_shape(require(v[i], sp, "shape", "expected an array of sizes, e.g. [\"ceil_div(n, 256)\"]"),
                               child_path(sp, "shape"), task_.dims, limits_);
            if (const Json* z = find(v[i], "zero")) s.zero = as_bool(*z, child_path(sp, "zero"));
            p_.scratch.push_back(std::move(s));
            scratch_paths_.push_back(child_path(sp, "shape"));
        }
    }

    // ---- steps ----
    void read_step(const Json& v, const std::string& path) {
        as_object(v, path,
                  "expected a launch step: {\"kernel\": ..., \"grid\": ..., \"block\": ..., \"args\": [...]} "
                  "or {\"zero\": buffer}");
        LaunchStep step;
        step.json_path = path;
        StepPaths paths;
        const bool is_kernel = find(v, "kernel") != nullptr, is_zero = find(v, "zero") != nullptr,
                   is_builtin = find(v, "builtin") != nullptr;
        if (is_kernel + is_zero + is_builtin > 1) {
            std::vector<std::string> kinds;
            for (const char* k : {"kernel", "zero", "builtin"})
                if (find(v, k)) kinds.push_back(std::string("\"") + k + "\"");
            fail_at(path, "the step has both " + kinds[0] + " and " + kinds[1],
                    "expected either a kernel step, a zero step {\"zero\": buffer} or a built-in step "
                    "{\"builtin\": ..., \"args\": {...}}, one per array element");
        }
        if (is_builtin) {
            if (!allow_builtins_)
                fail_at(child_path(path, "builtin"), "only a task's baseline may call a built-in library routine",
                        "expected a kernel step or a zero step: a candidate's plan runs its own code, and the "
                        "reference must be code kbench can check against its float64 oracle");
            step = read_builtin_step(v, path, task_, p_.scratch, limits_);
        } else if (is_zero) {
            check_object(v, path, kZeroStepKeys, "a zero step");
            step.kind = LaunchStep::Kind::zero;
            step.target = read_zero_target(v["zero"], child_path(path, "zero"));
        } else if (lang_ == Language::triton) {
            for (const char* k : {"block", "shared_mem"})
                if (find(v, k))
                    fail_at(child_path(path, k), std::string("a Triton launch entry has no \"") + k + "\"",
                            "expected \"num_warps\" (the block is 32 x num_warps threads, and Triton decides the "
                            "shared memory); a Triton entry is {\"kernel\", \"grid\", \"args\", \"constexprs\", "
                            "\"num_warps\", \"num_stages\", \"num_ctas\", \"configs\"}");
            check_object(v, path, kTritonStepKeys, "a Triton launch entry");
            read_triton_step(v, path, step, paths);
        } else {
            check_object(v, path, kKernelStepKeys, "a kernel step");
            read_kernel_step(v, path, step, paths);
        }
        p_.launch.push_back(std::move(step));
        step_paths_.push_back(std::move(paths));
    }

    std::string read_zero_target(const Json& v, const std::string& path) {
        std::string name = as_string(v, path, "expected the name of an out/inout argument or scratch buffer");
        if (const Arg* a = task_.find_arg(name)) {
            if (a->role == Role::in)
                fail_at(path, "zeroing '" + name + "' would modify an input",
                        "expected an out/inout argument or a scratch buffer");
            if (a->role == Role::scalar)
                fail_at(path, "'" + name + "' is a scalar, not a buffer",
                        "expected an out/inout argument or a scratch buffer");
            return name;
        }
        if (find_scratch(name)) return name;
        fail_at(path, "'" + name + "' is neither a task argument nor a scratch buffer of this plan",
                hint_for(name) + "expected one of: " + join(writable_names()));
    }

    void read_kernel_step(const Json& v, const std::string& path, LaunchStep& step, StepPaths& paths) {
        const std::string kp = child_path(path, "kernel");
        const std::string expected = "expected the kernel's name as the code spells it";
        step.kernel =
            as_string(require(v, path, "kernel", expected + " (or a zero step {\"zero\": buffer})"), kp, expected);
        if (step.kernel.empty() || step.kernel.find_first_of("\n\r") != std::string::npos ||
            step.kernel.find('\0') != std::string::npos)
            fail_at(kp, "the kernel name is empty or spans lines",
                    "expected a name such as \"vadd\", \"k<float, 256>\" or a full signature");

        read_dims3(require(v, path, "grid",
                           "expected the number of blocks: an integer, an expression or an "
                           "array of 1 to 3 of them, e.g. \"ceil_div(n, 256)\""),
                   child_path(path, "grid"), step.grid, paths.grid, "a grid size");
        read_dims3(require(v, path, "block",
                           "expected the threads per block: an integer, an expression or an "
                           "array of 1 to 3 of them, e.g. 256"),
                   child_path(path, "block"), step.block, paths.block, "a block size");

        paths.shared_mem = child_path(path, "shared_mem");
        if (const Json* sm = find(v, "shared_mem")) {
            step.shared_mem_bytes = as_expr(*sm, paths.shared_mem, task_.dims, "dynamic shared memory in bytes", limits_);
            if (step.shared_mem_bytes.is_constant() && eval_at(step.shared_mem_bytes, {}, paths.shared_mem, "") < 0)
                fail_at(paths.shared_mem, "the size " + step.shared_mem_bytes.text() + " is negative",
                        "expected a number of bytes >= 0");
        }

        if (const Json* args = find(v, "args")) {
            const std::string ap = child_path(path, "args");
            as_array(*args, ap, "expected an array of argument names and inline scalars {\"value\", \"dtype\"}");
            check_count(args->size(), limits_.max_kernel_args, ap, "kernel arguments", "max_kernel_args");
            for (size_t i = 0; i < args->size(); ++i) {
                paths.args.push_back(index_path(ap, i));
                step.args.push_back(read_launch_arg((*args)[i], paths.args.back()));
            }
        }
    }

    // ---- Triton entries (docs/triton.md) ----
    void read_triton_step(const Json& v, const std::string& path, LaunchStep& step, StepPaths& paths) {
        const std::string kp = child_path(path, "kernel");
        const std::string expected = "expected the name of a @triton.jit function of the source";
        step.kernel = as_string(require(v, path, "kernel", expected), kp, expected);
        bool ident = !step.kernel.empty() && !std::isdigit(static_cast<unsigned char>(step.kernel[0]));
        for (char c : step.kernel) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        if (!ident) fail_at(kp, "'" + step.kernel + "' is not a Python function name", expected);

        TritonConfig base;
        paths.constexpr_paths.push_back(read_triton_options(v, path, base, nullptr));
        step.triton = base;
        if (const Json* cf = find(v, "configs")) {
            const std::string cp = child_path(path, "configs");
            as_array(*cf, cp, "expected an array of configurations {\"constexprs\", \"num_warps\", \"num_stages\", "
                              "\"num_ctas\"} to tune over");
            if (cf->empty()) fail_at(cp, "the list of configurations is empty", "expected at least one, or no \"configs\"");
            if (cf->size() > 64) fail_at(cp, std::to_string(cf->size()) + " configurations", "expected at most 64");
            for (size_t i = 0; i < cf->size(); ++i) {
                const std::string ip = index_path(cp, i);
                check_object((*cf)[i], ip, kTritonConfigKeys, "a Triton configuration");
                TritonConfig c;
                paths.constexpr_paths.push_back(read_triton_options((*cf)[i], ip, c, &base));
                paths.configs.push_back(ip);
                step.triton_configs.push_back(std::move(c));
            }
        }
        // The grid may name the constexprs of the entry and of every config.
        std::vector<std::string> names = task_.dims;
        auto add_names = [&](const TritonConfig& c) {
            for (const auto& kv : c.constexprs)
                if (std::find(names.begin(), names.end(), kv.first) == names.end()) names.push_back(kv.first);
        };
        add_names(base);
        for (const TritonConfig& c : step.triton_configs) add_names(c);
        read_dims3(require(v, path, "grid",
                           "expected the number of program instances: an expression over the dims and the entry's "
                           "constexprs, or an array of 1 to 3 of them, e.g. \"ceil_div(n, BLOCK)\""),
                   child_path(path, "grid"), step.grid, paths.grid, "a grid size", names);
        if (const Json* args = find(v, "args")) {
            const std::string ap = child_path(path, "args");
            as_array(*args, ap, "expected the task's argument names in the kernel's parameter order");
            for (size_t i = 0; i < args->size(); ++i) {
                paths.args.push_back(index_path(ap, i));
                step.args.push_back(read_launch_arg((*args)[i], paths.args.back()));
            }
        }
    }

    // constexprs, num_warps, num_stages, num_ctas of an entry (base == null)
    // or of a config, which starts from the entry's and overrides what it gives.
    std::vector<std::string> read_triton_options(const Json& v, const std::string& path, TritonConfig& c,
                                                 const TritonConfig* base) {
        if (base) c = *base;
        std::vector<std::string> cpaths(c.constexprs.size(), path);
        if (const Json* ce = find(v, "constexprs")) {
            const std::string cp = child_path(path, "constexprs");
            as_object(*ce, cp, "expected an object of tl.constexpr values, e.g. {\"BLOCK\": 1024}");
            for (auto it = ce->begin(); it != ce->end(); ++it) {
                if (is_comment_key(it.key())) continue;
                const std::string np = child_path(cp, it.key());
                check_identifier(it.key(), np, "constexpr name");
                if (std::find(task_.dims.begin(), task_.dims.end(), it.key()) != task_.dims.end())
                    fail_at(np, "'" + it.key() + "' is also a dim of the task",
                            "expected a constexpr name that is not a dim (the grid sees both)");
                if (it.value().is_boolean())
                    fail_at(np, "got " + describe(it.value()), "expected an integer (write 1 or 0 for a flag)");
                Expr e = as_expr(it.value(), np, task_.dims, "a tl.constexpr value", limits_);
                auto same = std::find_if(c.constexprs.begin(), c.constexprs.end(),
                                         [&](const auto& kv) { return kv.first == it.key(); });
                if (same != c.constexprs.end()) {
                    same->second = e;
                    cpaths[size_t(same - c.constexprs.begin())] = np;
                } else {
                    c.constexprs.emplace_back(it.key(), e);
                    cpaths.push_back(np);
                }
            }
        }
        auto small_int = [&](const char* key, int& out, std::initializer_list<int> allowed, const char* why) {
            const Json* x = find(v, key);
            if (!x) return;
            const std::string kp = child_path(path, key);
            int64_t n = as_int(*x, kp);
            if (std::find(allowed.begin(), allowed.end(), n) == allowed.end())
                fail_at(kp, std::string(key) + " " + std::to_string(n), why);
            out = int(n);
        };
        small_int("num_warps", c.num_warps, {1, 2, 4, 8, 16, 32},
                  "expected a power of two from 1 to 32 (Triton's rule; the block is 32 x num_warps threads)");
        small_int("num_stages", c.num_stages, {1, 2, 3, 4, 5, 6, 7, 8}, "expected 1 to 8 software-pipeline stages");
        small_int("num_ctas", c.num_ctas, {1, 2, 4, 8, 16},
                  "expected 1, 2, 4, 8 or 16 CTAs per cluster (more than 1 needs sm_90 or newer)");
        return cpaths;
    }

    void read_dims3(const Json& v, const std::string& path, Expr out[3], std::string paths[3],
                    const std::string& what) {
        read_dims3(v, path, out, paths, what, task_.dims);
    }

    void read_dims3(const Json& v, const std::string& path, Expr out[3], std::string paths[3],
                    const std::string& what, const std::vector<std::string>& names) {
        for (int i = 0; i < 3; ++i) {
            out[i] = Expr::constant(1);
            paths[i] = path;
        }
        auto one = [&](const Json& e, const std::string& p, int axis) {
            out[axis] = as_expr(e, p, names, what, limits_);
            paths[axis] = p;
            if (out[axis].is_constant()) {
                int64_t c = eval_at(out[axis], {}, p, "");
                if (c < 1) fail_at(p, what + " of " + std::to_string(c), "expected a value >= 1");
            }
        };
        if (!v.is_array()) {
            one(v, path, 0);
            return;
        }
        if (v.empty() || v.size() > 3)
            fail_at(path, "an array of " + std::to_string(v.size()) + " values",
                    "expected 1 to 3 values (x, y, z), or a single value");
        for (size_t i = 0; i < v.size(); ++i) one(v[i], index_path(path, i), int(i));
    }

    LaunchArg read_launch_arg(const Json& v, const std::string& path) {
        LaunchArg a;
        if (v.is_string()) {
            a.kind = LaunchArg::Kind::named;
            a.name = v.get<std::string>();
            if (task_.find_arg(a.name) || find_scratch(a.name)) return a;
            std::string hint = hint_for(a.name);
            if (std::find(task_.dims.begin(), task_.dims.end(), a.name) != task_.dims.end())
                hint = "'" + a.name + "' is a dim, not an argument: pass it as {\"value\": \"" + a.name +
                       "\", \"dtype\": \"i32\"}; ";
            fail_at(path, "'" + a.name + "' is neither a task argument nor a scratch buffer of this plan",
                    hint + "expected one of: " + join(known_names()));
        }
        check_object(v, path, kScalarArgKeys,
                     "an inline scalar {\"value\": expression, \"dtype\": \"i32\"} (or the name of an argument)");
        a.kind = LaunchArg::Kind::scalar;
        a.dtype = as_dtype(require(v, path, "dtype", "expected the scalar's dtype, one of: " + dtype_names()),
                           child_path(path, "dtype"));
        const std::string vp = child_path(path, "value");
        const Json& value = require(v, path, "value", "expected an integer expression over the dims, or a number");
        if (dtype_is_float(a.dtype) && value.is_number()) {
            a.is_float = true;
            a.float_value = value.get<double>();
            check_float_fits(a.float_value, a.dtype, vp);
        } else if (a.dtype == DType::boolean && value.is_boolean()) {
            a.value = Expr::constant(value.get<bool>() ? 1 : 0);
        } else {
            if (value.is_number_float())
                fail_at(vp, "got " + describe(value),
                        std::string("expected an integer or an integer expression for a ") + dtype_name(a.dtype) +
                            " scalar");
            a.value = as_expr(value, vp, task_.dims, std::string("the value of a ") + dtype_name(a.dtype) + " scalar",
                              limits_);
            if (a.value.is_constant()) check_int_fits(eval_at(a.value, {}, vp, ""), a.dtype, vp, "");
        }
        return a;
    }

    // ---- evaluation at every case ----
    void check_case(const Case& c) {
        const std::string at = at_case(c, task_.dims);
        for (size_t i = 0; i < p_.scratch.size(); ++i) {
            int64_t n = count_elements(p_.scratch[i].shape, c.dims, scratch_paths_[i], at);
            check_bytes(n, p_.scratch[i].dtype, scratch_paths_[i], at);
        }
        for (size_t s = 0; s < p_.launch.size(); ++s) {
            const LaunchStep& step = p_.launch[s];
            if (step.kind == LaunchStep::Kind::builtin) check_builtin_step_at(step, task_, p_.scratch, c, at);
            if (step.kind != LaunchStep::Kind::kernel) continue;
            const StepPaths& paths = step_paths_[s];
            if (step.triton) {
                check_triton_case(step, paths, c, at);
                check_scalars(step, paths, c, at);
                continue;
            }
            int64_t threads = 1;
            for (int i = 0; i < 3; ++i) {
                int64_t g = eval_at(step.grid[i], c.dims, paths.grid[i], at);
                if (g < 1 || g > kMaxGrid[i])
                    fail_at(paths.grid[i],
                            "'" + step.grid[i].text() + "' gives grid." + kAxis[i] + " = " + std::to_string(g) + at,
                            "expected 1 to " + std::to_string(kMaxGrid[i]) + " blocks (a CUDA limit)");
                int64_t b = eval_at(step.block[i], c.dims, paths.block[i], at);
                if (b < 1 || b > kMaxBlock[i])
                    fail_at(paths.block[i],
                            "'" + step.block[i].text() + "' gives block." + kAxis[i] + " = " + std::to_string(b) + at,
                            "expected 1 to " + std::to_string(kMaxBlock[i]) + " threads (a CUDA limit)");
                threads *= b;  // at most 1024^2 * 64: no overflow
            }
            if (threads > kMaxThreadsPerBlock)
                fail_at(child_path(step.json_path, "block"), std::to_string(threads) + " threads per block" + at,
                        "expected at most " + std::to_string(kMaxThreadsPerBlock) +
                            " threads per block (a CUDA limit on every GPU)");
            int64_t sm = eval_at(step.shared_mem_bytes, c.dims, paths.shared_mem, at);
            if (sm < 0 || sm > int64_t(std::numeric_limits<uint32_t>::max()))
                fail_at(paths.shared_mem,
                        "'" + step.shared_mem_bytes.text() + "' gives " + std::to_string(sm) + " bytes" + at,
                        "expected a number of bytes from 0 to 4294967295");
            check_scalars(step, paths, c, at);
        }
    }

    void check_scalars(const LaunchStep& step, const StepPaths& paths, const Case& c, const std::string& at) {
        for (size_t i = 0; i < step.args.size(); ++i) {
            const LaunchArg& a = step.args[i];
            if (a.kind != LaunchArg::Kind::scalar || a.is_float) continue;
            const std::string vp = child_path(paths.args[i], "value");
            check_int_fits(eval_at(a.value, c.dims, vp, at), a.dtype, vp, at);
        }
    }

    // A Triton entry at a case, with its own options and with every config:
    // the constexprs evaluate, and the grid (times num_ctas, which Triton's
    // launcher multiplies in) is within CUDA's limits.
    void check_triton_case(const LaunchStep& step, const StepPaths& paths, const Case& c, const std::string& at) {
        for (size_t k = 0; k <= step.triton_configs.size(); ++k) {
            const TritonConfig& cfg = k == 0 ? *step.triton : step.triton_configs[k - 1];
            const std::string in = k == 0 ? "" : " with " + paths.configs[k - 1];
            DimValues env = c.dims;
            for (size_t i = 0; i < cfg.constexprs.size(); ++i)
                env[cfg.constexprs[i].first] =
                    eval_at(cfg.constexprs[i].second, c.dims, paths.constexpr_paths[k][i], at);
            for (int i = 0; i < 3; ++i) {
                int64_t g = eval_at(step.grid[i], env, paths.grid[i], at + in);
                int64_t limit = kMaxGrid[i] / (i == 0 ? cfg.num_ctas : 1);
                if (g < 1 || g > limit)
                    fail_at(paths.grid[i],
                            "'" + step.grid[i].text() + "' gives grid." + kAxis[i] + " = " + std::to_string(g) + at + in,
                            "expected 1 to " + std::to_string(limit) + " program instances (a CUDA limit" +
                                (i == 0 && cfg.num_ctas > 1 ? ", divided by num_ctas" : "") + ")");
            }
        }
    }

    // ---- names ----
    const Scratch* find_scratch(const std::string& name) const {
        for (const auto& s : p_.scratch)
            if (s.name == name) return &s;
        return nullptr;
    }
    std::vector<std::string> known_names() const {
        std::vector<std::string> names;
        for (const auto& a : task_.args) names.push_back(a.name);
        for (const auto& s : p_.scratch) names.push_back(s.name);
        return names;
    }
    std::vector<std::string> writable_names() const {
        std::vector<std::string> names;
        for (const auto& a : task_.args)
            if (a.is_output()) names.push_back(a.name);
        for (const auto& s : p_.scratch) names.push_back(s.name);
        return names;
    }
    std::string arg_names() const {
        std::vector<std::string> names;
        for (const auto& a : task_.args) names.push_back(a.name);
        return join(names);
    }
    std::string hint_for(const std::string& name) const {
        if (auto near = closest(name, known_names())) return "did you mean '" + *near + "'? ";
        return "";
    }

    const Task& task_;
    std::string path_;
    bool allow_builtins_ = false;
    Language lang_ = Language::cuda;
    const Limits& limits_;
    Program p_;
    std::vector<std::string> scratch_paths_;
    std::vector<StepPaths> step_paths_;
};

Json step_to_json(const LaunchStep& s) {
    Json j = Json::object();
    if (s.kind == LaunchStep::Kind::zero) {
        j["zero"] = s.target;
        return j;
    }
    if (s.kind == LaunchStep::Kind::builtin) return builtin_step_to_json(s);
    j["kernel"] = s.kernel;
    j["grid"] = Json::array({expr_to_json(s.grid[0]), expr_to_json(s.grid[1]), expr_to_json(s.grid[2])});
    if (!s.triton) {
        j["block"] = Json::array({expr_to_json(s.block[0]), expr_to_json(s.block[1]), expr_to_json(s.block[2])});
        j["shared_mem"] = expr_to_json(s.shared_mem_bytes);
    }
    Json args = Json::array();
    for (const auto& a : s.args) {
        if (a.kind == LaunchArg::Kind::named) {
            args.push_back(a.name);
        } else {
            Json v = Json::object();
            v["value"] = a.is_float ? Json(a.float_value) : expr_to_json(a.value);
            v["dtype"] = dtype_name(a.dtype);
            args.push_back(std::move(v));
        }
    }
    j["args"] = std::move(args);
    if (s.triton) {
        auto options = [](const TritonConfig& c, Json& out) {
            Json ce = Json::object();
            for (const auto& kv : c.constexprs) ce[kv.first] = expr_to_json(kv.second);
            out["constexprs"] = std::move(ce);
            out["num_warps"] = c.num_warps;
            out["num_stages"] = c.num_stages;
            out["num_ctas"] = c.num_ctas;
        };
        options(*s.triton, j);
        if (!s.triton_configs.empty()) {
            Json configs = Json::array();
            for (const TritonConfig& c : s.triton_configs) {
                Json one = Json::object();
                options(c, one);
                configs.push_back(std::move(one));
            }
            j["configs"] = std::move(configs);
        }
    }
    return j;
}

}  // namespace

namespace taskjson {

const std::vector<std::string>& plan_companion_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k = program_code_keys();
        k.insert(k.end(), {"format", "signature"});
        return k;
    }();
    return keys;
}

Program parse_plan_fields(const Json& obj, const Task& task, const std::string& path, bool allow_builtins,
                          Language language, const Limits& limits) {
    return PlanParser(task, path, allow_builtins, language, limits).parse(obj);
}

Program parse_builtin_program(const Json& obj, const Task& task, const std::string& path, const Limits& limits) {
    return PlanParser(task, path, true, Language::cuda, limits).parse_builtin(obj);
}

std::vector<std::string> outputs_not_written(const Program& p, const Task& task) {
    std::set<std::string> touched;
    for (const auto& s : p.launch) {
        if (s.kind == LaunchStep::Kind::zero) touched.insert(s.target);
        if (s.kind == LaunchStep::Kind::builtin) touched.insert(s.gemm.c);
        for (const auto& a : s.args)
            if (a.kind == LaunchArg::Kind::named) touched.insert(a.name);
    }
    std::vector<std::string> missing;
    for (const auto& a : task.args)
        if (a.is_output() && !touched.count(a.name)) missing.push_back(a.name);
    return missing;
}

}  // namespace taskjson

Program parse_launch_plan(const Json& plan, const Task& task, const std::string& json_path, bool allow_builtins,
                          Language language, const Limits& limits) {
    // A bare array of steps is a plan without scratch buffers.
    if (plan.is_array())
        return parse_plan_fields(Json{{"launch", plan}}, task, json_path, allow_builtins, language, limits);
    std::vector<std::string> known = {"launch", "scratch"};
    known.insert(known.end(), plan_companion_keys().begin(), plan_companion_keys().end());
    const std::string what = "a launch plan {\"launch\": [...], \"scratch\": [...]}";
    if (!plan.is_object())
        fail_at(json_path.empty() ? "launch plan" : json_path, "got " + describe(plan), "expected " + what);
    check_object(plan, json_path, known, what);
    return parse_plan_fields(plan, task, json_path, allow_builtins, language, limits);
}

Json launch_plan_to_json(const Program& p) {
    Json steps = Json::array();
    for (const auto& s : p.launch) steps.push_back(step_to_json(s));
    Json scratch = Json::array();
    for (const auto& s : p.scratch) {
        Json shape = Json::array();
        for (const auto& e : s.shape) shape.push_back(expr_to_json(e));
        scratch.push_back(Json{{"name", s.name}, {"dtype", dtype_name(s.dtype)}, {"shape", shape}, {"zero", s.zero}});
    }
    return Json{{"launch", std::move(steps)}, {"scratch", std::move(scratch)}};
}

}  // namespace kb
