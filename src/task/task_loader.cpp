// The kbench-task/1 loader: JSON in, a validated immutable Task out, plus its
// normalised self-contained document and that document's SHA-256.
//
// Validation is strict on purpose. A task is the contract every candidate is
// judged against; a typo that silently dropped a tolerance or a case would
// turn into wrong verdicts for thousands of kernels. So unknown fields are
// errors (with a suggestion), and every expression is evaluated at every case
// here, before any GPU work. docs/task-format.md documents every rule.
#include <algorithm>
#include <cmath>
#include <map>

#include "task/python_reference.h"
#include "task/task_json.h"
#include "util/files.h"
#include "util/sha256.h"

namespace kb {

using namespace taskjson;

const char* role_name(Role r) {
    switch (r) {
        case Role::in: return "in";
        case Role::out: return "out";
        case Role::inout: return "inout";
        case Role::scalar: return "scalar";
    }
    return "?";
}

const char* dist_name(InitSpec::Dist d) {
    switch (d) {
        case InitSpec::Dist::uniform: return "uniform";
        case InitSpec::Dist::normal: return "normal";
        case InitSpec::Dist::randint: return "randint";
        case InitSpec::Dist::bernoulli: return "bernoulli";
        case InitSpec::Dist::constant: return "constant";
        case InitSpec::Dist::arange: return "arange";
    }
    return "?";
}

InitSpec InitSpec::at(const DimValues& dims) const {
    InitSpec s = *this;
    if (a_expr) s.a = double(a_expr->eval(dims));
    if (b_expr) s.b = double(b_expr->eval(dims));
    s.a_expr.reset();
    s.b_expr.reset();
    return s;
}

const Arg* Task::find_arg(const std::string& arg_name) const {
    int i = arg_index(arg_name);
    return i < 0 ? nullptr : &args[size_t(i)];
}

int Task::arg_index(const std::string& arg_name) const {
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i].name == arg_name) return int(i);
    return -1;
}

namespace {

constexpr const char* kFormat = "kbench-task/1";
// Integers beyond 2^53 are not exact in the doubles InitSpec stores.
constexpr double kMaxExactInt = 9007199254740992.0;

const std::vector<std::string> kTopKeys = {"format",    "name", "description", "dims",      "cases",
                                           "perf_case", "args", "tolerance",   "reference", "baseline",
                                           "candidate", "prompt", "cost", "policy",    "program",   "origin"};
const std::vector<std::string> kCaseKeys = {"name", "dims"};
const std::vector<std::string> kArgKeys = {"name", "role", "dtype", "shape", "init", "tolerance", "value"};
const std::vector<std::string> kToleranceKeys = {"atol", "rtol", "equal_nan"};
const std::vector<std::string> kCandidateKeys = {"signature", "launch", "scratch", "triton_args"};
const std::vector<std::string> kPromptKeys = {"cuda", "triton"};
const std::vector<std::string> kCostKeys = {"flops", "bytes"};
const std::vector<std::string> kPolicyKeys = {"std",     "fast_math",    "deterministic",
                                              "defines", "max_registers", "torch_compute"};
const std::vector<std::string> kStds = {"c++14", "c++17", "c++20"};
const std::vector<std::string> kRoles = {"in", "out", "inout", "scalar"};
const std::vector<std::string> kDists = {"uniform", "normal", "randint", "bernoulli", "constant", "arange"};
const std::vector<std::string> kReservedDims = {"ceil_div", "min", "max"};

std::vector<std::string> program_keys() {
    std::vector<std::string> k = program_code_keys();
    k.insert(k.end(), {"launch", "scratch"});
    return k;
}

// The parameters each distribution takes, after "dist".
std::vector<std::string> init_keys(InitSpec::Dist d) {
    switch (d) {
        case InitSpec::Dist::uniform: return {"dist", "low", "high"};
        case InitSpec::Dist::normal: return {"dist", "mean", "std"};
        case InitSpec::Dist::randint: return {"dist", "low", "high"};
        case InitSpec::Dist::bernoulli: return {"dist", "p"};
        case InitSpec::Dist::constant: return {"dist", "value"};
        case InitSpec::Dist::arange: return {"dist", "start", "step"};
    }
    return {};
}

std::string fmt(double v) { return Json(v).dump(); }

// Builds a Task from a parsed document, section by section, in an order where
// each section only refers to what is already known (dims before cases,
// cases before args, args before launch plans).
class TaskReader {
public:
    TaskReader(const Json& doc, std::string base_dir, const Limits& limits)
        : doc_(doc), limits_(limits), t_(std::make_shared<Task>()) {
        t_->base_dir = std::move(base_dir);
    }

    TaskPtr read() {
        read_header();
        python_ = has_python_reference(doc_);
        read_dims();
        read_cases();
        read_default_tolerances();
        read_args();
        check_args_at_cases();
        read_programs();
        read_candidate();
        read_prompt();
        read_cost();
        read_policy();
        read_program_and_origin();
        t_->normalized_json = normalize().dump(2);
        t_->hash = sha256_hex(t_->normalized_json);
        return t_;
    }

private:
    // ---- format, name, description ----
    void read_header() {
        if (!doc_.is_object())
            fail_at("task", "got " + describe(doc_),
                    std::string("expected a JSON object with \"format\": \"") + kFormat + "\"");
        const std::string expected = std::string("expected \"format\": \"") + kFormat + "\"";
        std::string format = as_string(require(doc_, "", "format", expected), "format", expected);
        if (format != kFormat)
            fail_at("format",
                    "unknown format '" + format + "'" +
                        (format == "kbench-candidate/1" ? " (this is a candidate document, not a task)" : ""),
                    expected);
        check_object(doc_, "", kTopKeys, "a task");
        t_->name = as_string(require(doc_, "", "name", "expected the task's name, e.g. \"vector_add_f32\""), "name");
        check_label(t_->name, "name", "task name");
        if (const Json* d = find(doc_, "description")) t_->description = as_string(*d, "description");
    }

    // ---- dims ----
    void read_dims() {
        const Json& dims =
            require(doc_, "", "dims", "expected an object of named sizes, e.g. {\"n\": \"number of elements\"}");
        as_object(dims, "dims",
                  "expected an object of named sizes {name: description}, e.g. {\"n\": \"number of elements\"}");
        check_count(dims.size(), limits_.max_dims, "dims", "dims", "max_dims");
        dim_docs_ = Json::object();
        for (auto it = dims.begin(); it != dims.end(); ++it) {
            if (is_comment_key(it.key())) continue;
            const std::string p = child_path("dims", it.key());
            check_identifier(it.key(), p, "dim name");
            if (std::find(kReservedDims.begin(), kReservedDims.end(), it.key()) != kReservedDims.end())
                fail_at(p, "'" + it.key() + "' is a function of the expression language",
                        "expected a dim name other than ceil_div, min and max");
            dim_docs_[it.key()] = as_string(it.value(), p, "expected a description of the dim (a string)");
            t_->dims.push_back(it.key());
        }
    }

    // ---- cases ----
    Case read_case(const Json& v, const std::string& path, bool perf) {
        const std::string what = perf ? "the perf case" : "a case";
        check_object(v, path, kCaseKeys, what + " {\"name\", \"dims\"}");
        Case c;
        c.perf = perf;
        const std::string np = child_path(path, "name");
        if (const Json* n = find(v, "name"))
            c.name = as_string(*n, np);
        else if (perf)
            c.name = "perf";
        else
            fail_at(np, "missing required field 'name'", "expected the case's name, e.g. \"prime\"");
        check_label(c.name, np, "case name");

        const std::string dp = child_path(path, "dims");
        const std::string expected = "expected a positive integer for every declared dim (" + join(t_->dims) + ")";
        const Json& dims = require(v, path, "dims", expected);
        as_object(dims, dp, expected);
        for (auto it = dims.begin(); it != dims.end(); ++it) {
            if (is_comment_key(it.key())) continue;
            const std::string p = child_path(dp, it.key());
            if (std::find(t_->dims.begin(), t_->dims.end(), it.key()) == t_->dims.end()) {
                std::string hint;
                if (auto near = closest(it.key(), t_->dims)) hint = "did you mean '" + *near + "'? ";
                fail_at(p, "'" + it.key() + "' is not a declared dim",
                        hint + "the declared dims are: " + join(t_->dims));
            }
            int64_t value = as_int(it.value(), p, "expected a positive integer");
            if (value < 1)
                fail_at(p, "the value " + std::to_string(value) + " is not positive", "expected a positive integer");
            c.dims[it.key()] = value;
        }
        for (const auto& d : t_->dims)
            if (!c.dims.count(d)) fail_at(dp, "no value for dim '" + d + "'", expected);
        return c;
    }

    void read_cases() {
        const Json& cases = require(doc_, "", "cases", "expected an array of correctness cases {\"name\", \"dims\"}");
        as_array(cases, "cases", "expected an array of correctness cases {\"name\", \"dims\"}");
        if (cases.empty())
            fail_at("cases", "there are no correctness cases",
                    "expected at least one case; include awkward sizes (1, a prime, a non-multiple of the block size)");
        // The perf case counts too: every plan is checked at every case.
        check_count(cases.size() + 1, limits_.max_cases, "cases", "cases (with the perf case)", "max_cases");
        std::vector<std::string> paths;
        auto add = [&](Case c, const std::string& path) {
            for (size_t i = 0; i < t_->cases.size(); ++i)
                if (t_->cases[i].name == c.name)
                    fail_at(child_path(path, "name"), "duplicate case name '" + c.name + "' (also " + paths[i] + ")",
                            "expected unique case names (the perf case's name included)");
            paths.push_back(child_path(path, "name"));
            t_->cases.push_back(std::move(c));
        };
        for (size_t i = 0; i < cases.size(); ++i)
            add(read_case(cases[i], index_path("cases", i), false), index_path("cases", i));
        const Json& perf =
            require(doc_, "", "perf_case", "expected the case timing runs on: {\"name\": \"perf\", \"dims\": {...}}");
        add(read_case(perf, "perf_case", true), "perf_case");
        t_->perf_index = int(t_->cases.size()) - 1;
    }

    // ---- tolerances ----
    Tolerance read_tolerance(const Json& v, const std::string& path) {
        check_object(v, path, kToleranceKeys, "a tolerance {\"atol\", \"rtol\", \"equal_nan\"}");
        Tolerance t;
        auto non_negative = [&](const char* key, double* out) {
            if (const Json* x = find(v, key)) {
                const std::string p = child_path(path, key);
                *out = as_number(*x, p);
                if (!(*out >= 0) || !std::isfinite(*out))
                    fail_at(p, "the value " + fmt(*out) + " is negative", "expected a finite number >= 0");
            }
        };
        non_negative("atol", &t.atol);
        non_negative("rtol", &t.rtol);
        if (const Json* e = find(v, "equal_nan")) t.equal_nan = as_bool(*e, child_path(path, "equal_nan"));
        return t;
    }

    void read_default_tolerances() {
        const Json* tol = find(doc_, "tolerance");
        if (!tol) return;
        as_object(*tol, "tolerance",
                  "expected an object mapping a float dtype to its default tolerance, e.g. "
                  "{\"f16\": {\"atol\": 1e-3, \"rtol\": 1e-3}}");
        for (auto it = tol->begin(); it != tol->end(); ++it) {
            if (is_comment_key(it.key())) continue;
            const std::string p = child_path("tolerance", it.key());
            DType t = as_dtype(Json(it.key()), p);
            if (!dtype_is_float(t))
                fail_at(p, std::string(dtype_name(t)) + " outputs always compare exactly",
                        "expected a float dtype: f16, bf16, f32 or f64");
            default_tolerance_[t] = read_tolerance(it.value(), p);
        }
        t_->default_tolerances = default_tolerance_;
    }

    // ---- args ----
    void read_args() {
        // A Python reference needs no kernel signature: program candidates
        // bring their own code. With "args", kernel candidates apply too.
        if (python_ && !find(doc_, "args")) return;
        const Json& args = require(doc_, "", "args", "expected the kernel's ordered argument list");
        as_array(args, "args", "expected an array of arguments {\"name\", \"role\", \"dtype\", ...}");
        check_count(args.size(), limits_.max_args, "args", "arguments", "max_args");
        if (args.empty()) fail_at("args", "the argument list is empty", "expected at least one output buffer");
        for (size_t i = 0; i < args.size(); ++i) {
            const std::string p = index_path("args", i);
            Arg a = read_arg(args[i], p);
            int prev = t_->arg_index(a.name);
            if (prev >= 0)
                fail_at(child_path(p, "name"),
                        "duplicate argument name '" + a.name + "' (also " + index_path("args", size_t(prev)) + ")",
                        "expected unique argument names");
            t_->args.push_back(std::move(a));
            arg_paths_.push_back(p);
        }
        bool has_output = false;
        for (const auto& a : t_->args) has_output = has_output || a.is_output();
        if (!has_output)
            fail_at("args", "no argument is an output",
                    "expected at least one buffer with role \"out\" or \"inout\": a task checks outputs");
    }

    Arg read_arg(const Json& v, const std::string& path) {
        check_object(v, path, kArgKeys, "an argument");
        Arg a;
        const std::string np = child_path(path, "name");
        a.name = as_string(require(v, path, "name", "expected the argument's name"), np);
        check_identifier(a.name, np, "argument name");
        a.role =
            read_role(require(v, path, "role", "expected one of: in, out, inout, scalar"), child_path(path, "role"));
        a.dtype = as_dtype(require(v, path, "dtype", "expected one of: " + dtype_names()), child_path(path, "dtype"));

        if (a.role == Role::scalar) {
            for (const char* k : {"shape", "init", "tolerance"})
                if (find(v, k))
                    fail_at(child_path(path, k), std::string("a scalar has no ") + k,
                            "expected only name, role, dtype and value for a scalar");
            read_scalar_value(require(v, path, "value",
                                      "expected the scalar's value: an integer expression over the "
                                      "dims (e.g. \"n\"), or a number for float dtypes"),
                              child_path(path, "value"), a);
            return a;
        }
        if (find(v, "value"))
            fail_at(child_path(path, "value"), "a buffer has no value",
                    "expected \"shape\" (and \"init\" for inputs); \"value\" is for role \"scalar\"");
        a.shape = as_shape(require(v, path, "shape", "expected an array of sizes, e.g. [\"n\"] ([] for one element)"),
                           child_path(path, "shape"), t_->dims, limits_);
        read_buffer_init(v, path, a);
        read_buffer_tolerance(v, path, a);
        return a;
    }

    Role read_role(const Json& v, const std::string& path) {
        const std::string expected = "expected one of: in, out, inout, scalar";
        std::string name = as_string(v, path, expected);
        for (Role r : {Role::in, Role::out, Role::inout, Role::scalar})
            if (name == role_name(r)) return r;
        std::string hint;
        if (auto near = closest(name, kRoles)) hint = "did you mean '" + *near + "'? ";
        fail_at(path, "unknown role '" + name + "'", hint + expected);
    }

    void read_scalar_value(const Json& v, const std::string& path, Arg& a) {
        const std::string dt = dtype_name(a.dtype);
        if (dtype_is_float(a.dtype) && v.is_number()) {
            a.scalar_is_float = true;
            a.scalar_float = v.get<double>();
            check_float_fits(a.scalar_float, a.dtype, path);
            return;
        }
        if (a.dtype == DType::boolean && v.is_boolean()) {
            a.scalar_expr = Expr::constant(v.get<bool>() ? 1 : 0);
            return;
        }
        if (v.is_number_float() || v.is_boolean())
            fail_at(path, "got " + describe(v),
                    "expected an integer or an integer expression over the dims for a " + dt + " scalar");
        a.scalar_expr =
            as_expr(v, path, t_->dims, "the value of a " + dt + " scalar (an integer expression)", limits_);
        if (a.scalar_expr.is_constant()) check_int_fits(eval_at(a.scalar_expr, {}, path, ""), a.dtype, path, "");
    }

    void read_buffer_init(const Json& v, const std::string& path, Arg& a) {
        const Json* init = find(v, "init");
        const std::string ip = child_path(path, "init");
        if (a.role == Role::out) {
            if (init)
                fail_at(ip, "an output is not initialised (kbench poisons it before every run)",
                        "expected no \"init\", or role \"inout\" for a buffer that is read and written");
            return;
        }
        a.init = init ? read_init(*init, ip, a.dtype) : default_init(a.dtype);
    }

    static InitSpec default_init(DType t) {
        InitSpec s;
        if (dtype_is_float(t)) {
            s.dist = InitSpec::Dist::uniform;
            s.a = -1;
            s.b = 1;
        } else if (t == DType::boolean) {
            s.dist = InitSpec::Dist::bernoulli;
            s.a = 0.5;
            s.b = 0;
        } else {
            s.dist = InitSpec::Dist::randint;
            s.a = dtype_is_signed_int(t) ? -100 : 0;
            s.b = 100;
        }
        return s;
    }

    InitSpec read_init(const Json& v, const std::string& path, DType t) {
        as_object(v, path,
                  "expected {\"dist\": \"uniform\" | \"normal\" | \"randint\" | \"bernoulli\" | \"constant\" | "
                  "\"arange\", ...parameters}");
        const std::string dp = child_path(path, "dist");
        const std::string expected = "expected one of: " + join(kDists);
        std::string name = as_string(require(v, path, "dist", expected), dp, expected);
        auto it = std::find(kDists.begin(), kDists.end(), name);
        if (it == kDists.end()) {
            std::string hint;
            if (auto near = closest(name, kDists)) hint = "did you mean '" + *near + "'? ";
            fail_at(dp, "unknown distribution '" + name + "'", hint + expected);
        }
        InitSpec s = default_init(t);
        s.dist = InitSpec::Dist(it - kDists.begin());
        check_object(v, path, init_keys(s.dist), "a \"" + name + "\" init");

        const bool is_float = dtype_is_float(t), is_bool = t == DType::boolean;
        const std::string dt = dtype_name(t);
        if (is_bool && s.dist != InitSpec::Dist::bernoulli && s.dist != InitSpec::Dist::constant)
            fail_at(dp, "\"" + name + "\" cannot fill a bool buffer",
                    "expected \"bernoulli\" (with \"p\") or \"constant\" (0 or 1)");
        if (!is_float && s.dist == InitSpec::Dist::normal)
            fail_at(dp, "normal draws are unbounded and cannot fill a " + dt + " buffer",
                    "expected \"randint\", \"uniform\", \"arange\", \"bernoulli\" or \"constant\"");

        // A number parameter, or an integer one for integer buffers (so that
        // the value the device writes is the value the task states).
        auto number = [&](const char* key, double dflt, bool integer) -> double {
            const Json* x = find(v, key);
            if (!x) return dflt;
            const std::string p = child_path(path, key);
            if (!integer) {
                double d = as_number(*x, p);
                if (is_float) check_float_fits(d, t, p);
                return d;
            }
            int64_t i = as_int(*x, p, "expected an integer for a " + dt + " buffer");
            if (std::fabs(double(i)) > kMaxExactInt)
                fail_at(p, "the value " + std::to_string(i) + " is beyond 2^53",
                        "expected an integer of magnitude <= 2^53");
            if (!is_float)
                check_int_fits(i, t, p, "");
            else
                check_float_fits(double(i), t, p);
            return double(i);
        };

        switch (s.dist) {
            case InitSpec::Dist::uniform: {
                // Integer buffers get the same default range as randint.
                s.a = number("low", is_float ? -1 : dtype_is_signed_int(t) ? -100 : 0, false);
                s.b = number("high", is_float ? 1 : 100, false);
                if (!(s.a < s.b))
                    fail_at(path, "low (" + fmt(s.a) + ") is not below high (" + fmt(s.b) + ")",
                            "expected low < high: draws fall in [low, high)");
                if (!is_float) {
                    // Draws are floored; they must stay within the dtype.
                    int64_t lo, hi;
                    int_range(t, &lo, &hi);
                    if (std::floor(s.a) < double(lo) || s.b > double(hi) + 1)
                        fail_at(path, "[" + fmt(s.a) + ", " + fmt(s.b) + ") exceeds the range of " + dt,
                                "expected bounds within [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
                }
                break;
            }
            case InitSpec::Dist::normal: {
                s.a = number("mean", 0, false);
                s.b = number("std", 1, false);
                if (s.b < 0)
                    fail_at(child_path(path, "std"), "the value " + fmt(s.b) + " is negative", "expected std >= 0");
                break;
            }
            case InitSpec::Dist::randint: {
                // Bounds may be expressions over the dims ("vocab - 1"),
                // checked at every case by check_args_at_cases.
                double lo = dtype_is_signed_int(t) || is_float ? -100 : 0;
                auto bound = [&](const char* key, double dflt, std::optional<Expr>& expr) -> double {
                    const Json* x = find(v, key);
                    if (!x || !x->is_string()) return number(key, dflt, true);
                    const std::string p = child_path(path, key);
                    expr = as_expr(*x, p, t_->dims, std::string("the randint bound '") + key + "' (included)", limits_);
                    return 0;
                };
                s.a = bound("low", lo, s.a_expr);
                s.b = bound("high", 100, s.b_expr);
                if (!s.depends_on_dims() && s.a > s.b)
                    fail_at(path, "low (" + fmt(s.a) + ") is above high (" + fmt(s.b) + ")",
                            "expected low <= high: both bounds are included");
                break;
            }
            case InitSpec::Dist::bernoulli: {
                s.a = number("p", 0.5, false);
                s.b = 0;
                if (!(s.a >= 0 && s.a <= 1))
                    fail_at(child_path(path, "p"), "the probability " + fmt(s.a) + " is outside [0, 1]",
                            "expected 0 <= p <= 1");
                break;
            }
            case InitSpec::Dist::constant: {
                const std::string p = child_path(path, "value");
                const Json& x = require(v, path, "value", "expected the value every element gets");
                if (is_bool && x.is_boolean()) {
                    s.a = x.get<bool>() ? 1 : 0;
                } else {
                    s.a = number("value", 0, !is_float);
                    if (is_bool && s.a != 0 && s.a != 1)
                        fail_at(p, "the value " + fmt(s.a) + " is not a bool", "expected 0, 1, true or false");
                }
                s.b = 0;
                break;
            }
            case InitSpec::Dist::arange: {
                s.a = number("start", 0, !is_float);
                s.b = number("step", 1, !is_float);
                break;
            }
        }
        return s;
    }

    void read_buffer_tolerance(const Json& v, const std::string& path, Arg& a) {
        const Json* tol = find(v, "tolerance");
        const std::string tp = child_path(path, "tolerance");
        if (!a.is_output()) {
            if (tol)
                fail_at(tp, "an input is not compared, so it has no tolerance",
                        "expected \"tolerance\" only on out/inout buffers");
            return;
        }
        if (!dtype_is_float(a.dtype)) {
            if (tol)
                fail_at(tp, std::string(dtype_name(a.dtype)) + " outputs always compare exactly",
                        "expected no tolerance on integer and bool outputs");
            return;
        }
        if (tol) {
            a.tolerance = read_tolerance(*tol, tp);
            return;
        }
        auto dflt = default_tolerance_.find(a.dtype);
        if (dflt == default_tolerance_.end())
            fail_at(tp,
                    std::string("the ") + dtype_name(a.dtype) + " output '" + a.name +
                        "' has no tolerance and the task has no default for " + dtype_name(a.dtype),
                    "expected \"tolerance\": {\"atol\": ..., \"rtol\": ...} on the argument, or a task-level "
                    "\"tolerance\": {\"" +
                        std::string(dtype_name(a.dtype)) + "\": {...}}");
        a.tolerance = dflt->second;
    }

    // Every shape and scalar value at every case: a size that goes negative
    // or overflows at one case is a broken task, found before any GPU work.
    void check_args_at_cases() {
        for (const Case& c : t_->cases) {
            const std::string at = at_case(c, t_->dims);
            for (size_t i = 0; i < t_->args.size(); ++i) {
                const Arg& a = t_->args[i];
                if (a.is_buffer()) {
                    const std::string sp = child_path(arg_paths_[i], "shape");
                    check_bytes(count_elements(a.shape, c.dims, sp, at), a.dtype, sp, at);
                    if (a.is_input() && a.init.depends_on_dims()) check_init_at_case(a, i, c, at);
                } else if (!a.scalar_is_float) {
                    const std::string vp = child_path(arg_paths_[i], "value");
                    check_int_fits(eval_at(a.scalar_expr, c.dims, vp, at), a.dtype, vp, at);
                }
            }
        }
    }

    // Bounds given as expressions, at one case: evaluable, within the dtype
    // (and exact in the doubles the generator uses), low <= high.
    void check_init_at_case(const Arg& a, size_t i, const Case& c, const std::string& at) {
        const std::string ip = child_path(arg_paths_[i], "init");
        const std::string lp = child_path(ip, "low"), hp = child_path(ip, "high");
        const int64_t lo = a.init.a_expr ? eval_at(*a.init.a_expr, c.dims, lp, at) : int64_t(a.init.a);
        const int64_t hi = a.init.b_expr ? eval_at(*a.init.b_expr, c.dims, hp, at) : int64_t(a.init.b);
        for (auto [v, p] : {std::pair<int64_t, std::string>{lo, lp}, {hi, hp}}) {
            if (std::fabs(double(v)) > kMaxExactInt)
                fail_at(p, "the bound evaluates to " + std::to_string(v) + at + ", beyond 2^53",
                        "expected a bound of magnitude <= 2^53");
            if (dtype_is_float(a.dtype)) check_float_fits(double(v), a.dtype, p);
            else check_int_fits(v, a.dtype, p, at);
        }
        if (lo > hi)
            fail_at(ip, "low (" + std::to_string(lo) + ") is above high (" + std::to_string(hi) + ")" + at,
                    "expected low <= high at every case: both bounds are included");
    }

    // ---- programs ----
    // The reference, or the baseline (`baseline`: built-in steps allowed, and
    // then code only when the plan also launches kernels).
    Program read_program(const Json& v, const std::string& path, const std::string& stem, bool baseline) {
        as_object(v, path, "expected a program: {\"source_file\": \"...\", \"launch\": [...]}");
        if (find(v, "builtin")) {
            if (!baseline)
                fail_at(child_path(path, "builtin"), "a built-in library routine cannot be the reference",
                        "expected the reference as code and a launch plan: it is the correctness oracle, checked "
                        "against the task's float64 oracle; put the built-in in \"baseline\", the speed yardstick");
            check_object(v, path, {"builtin", "args"},
                         "a built-in baseline {\"builtin\": \"cublas_gemm\", \"args\": {...}} (a plan with "
                         "several steps goes in \"launch\")");
            return parse_builtin_program(v, *t_, path, limits_);
        }
        check_object(v, path, program_keys(), "a program");
        Program p;
        const bool has_code_fields = std::any_of(program_code_keys().begin(), program_code_keys().end(),
                                                 [&](const std::string& k) { return find(v, k) != nullptr; });
        if (has_code_fields || !baseline)
            read_program_code(v, path, t_->base_dir, stem, p, limits_, FileScope::any_regular_file);
        Program plan = parse_plan_fields(v, *t_, path, baseline, p.language, limits_);
        p.launch = std::move(plan.launch);
        p.scratch = std::move(plan.scratch);
        // Without code a plan can only call built-ins: kernels need code.
        // (read_program_code then fails, saying the code is missing).
        if (baseline && !p.has_code() && (!p.kernel_names().empty() || !p.has_builtin_steps()))
            read_program_code(v, path, t_->base_dir, stem, p, limits_, FileScope::any_regular_file);
        if (baseline && p.has_code() && p.kernel_names().empty() && p.has_builtin_steps())
            fail_at(path, "the plan launches no kernel, yet the baseline gives code",
                    "expected no \"source\"/\"source_file\" beside a plan of built-in and zero steps only");
        return p;
    }

    void read_programs() {
        if (python_) {
            read_python_reference(doc_["reference"], "reference", *t_, limits_);
            if (t_->python->style == "tritonbench") t_->program.torch_compute = "forbid";
            if (find(doc_, "baseline"))
                fail_at("baseline", "a task with a Python reference has no separate baseline",
                        "expected no \"baseline\": the reference (PyTorch eager) is the speed yardstick");
            return;
        }
        t_->reference = read_program(require(doc_, "", "reference",
                                             "expected the reference program: {\"source_file\": \"reference.cu\", "
                                             "\"launch\": [...]}"),
                                     "reference", "reference", false);
        // A reference that never touches an output cannot be the oracle for it.
        auto missing = outputs_not_written(t_->reference, *t_);
        if (!missing.empty())
            fail_at("reference.launch", "the output '" + missing.front() + "' is never passed to a kernel",
                    "expected every out/inout argument among the args of a kernel step (or in a zero step)");
        if (const Json* b = find(doc_, "baseline")) t_->baseline = read_program(*b, "baseline", "baseline", true);
    }

    void read_candidate() {
        const Json* c = find(doc_, "candidate");
        if (!c) return;
        if (python_ && t_->args.empty())
            fail_at("candidate", "a kernel candidate section without \"args\"",
                    "expected \"args\" (the kernel signature) beside \"candidate\", or no candidate section: "
                    "program candidates bring their own code");
        has_candidate_ = true;
        check_object(*c, "candidate", kCandidateKeys,
                     "the candidate section {\"signature\", \"launch\", \"scratch\", \"triton_args\"}");
        if (const Json* s = find(*c, "signature")) t_->candidate_signature = as_string(*s, "candidate.signature");
        if (const Json* ta = find(*c, "triton_args")) read_triton_args(*ta);
        if (find(*c, "launch")) {
            Program p = parse_plan_fields(*c, *t_, "candidate", false, Language::cuda, limits_);
            p.source_name = "candidate.cu";
            t_->candidate_default = std::move(p);
        } else if (find(*c, "scratch")) {
            fail_at("candidate.scratch", "scratch buffers are given without a launch plan",
                    "expected \"launch\" beside \"scratch\"");
        }
    }

    // Names of task arguments in a Triton kernel's order: each once, and every
    // output among them (a kernel that is not given an output cannot write it).
    void read_triton_args(const Json& v) {
        const std::string path = "candidate.triton_args";
        const std::string expected =
            "expected an array of task argument names (buffers and scalars) in the order a Triton kernel takes them";
        as_array(v, path, expected);
        std::vector<std::string> names;
        for (const Arg& a : t_->args) names.push_back(a.name);
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string p = index_path(path, i);
            std::string name = as_string(v[i], p, expected);
            if (t_->arg_index(name) < 0) {
                std::string hint;
                if (auto near = closest(name, names)) hint = "did you mean '" + *near + "'? ";
                fail_at(p, "'" + name + "' is not an argument of the task", hint + "the arguments are: " + join(names));
            }
            if (std::find(t_->triton_args.begin(), t_->triton_args.end(), name) != t_->triton_args.end())
                fail_at(p, "'" + name + "' is listed twice", "expected each argument at most once");
            t_->triton_args.push_back(name);
        }
        for (const Arg& a : t_->args)
            if (a.is_output() &&
                std::find(t_->triton_args.begin(), t_->triton_args.end(), a.name) == t_->triton_args.end())
                fail_at(path, "the output '" + a.name + "' is missing",
                        "expected every out/inout argument among the names (a kernel that is not given an output "
                        "cannot write it)");
    }

    // ---- prompt ----
    void read_prompt() {
        const Json* pr = find(doc_, "prompt");
        if (!pr) return;
        check_object(*pr, "prompt", kPromptKeys, "the prompt section {\"cuda\", \"triton\"}");
        auto text = [&](const char* key, std::string& out) {
            const Json* x = find(*pr, key);
            if (!x) return;
            const std::string p = child_path("prompt", key);
            out = as_string(*x, p, std::string("expected the text that tells a model what to write in ") + key);
            if (out.find_first_not_of(" \t\r\n") == std::string::npos)
                fail_at(p, "the text is empty",
                        "expected the signature, layouts, semantics, dtypes and launch a candidate must follow, or no "
                        "field at all");
        };
        text("cuda", t_->prompt_cuda);
        text("triton", t_->prompt_triton);
    }

    // ---- program candidates: the program section and the import's origin ----
    void read_program_and_origin() {
        if (const Json* pr = find(doc_, "program")) read_program_section(*pr, "program", *t_);
        if (const Json* o = find(doc_, "origin"))
            t_->origin = as_object(*o, "origin",
                                   "expected an object saying where the task came from (kbench import writes it)");
    }

    // ---- cost and policy ----
    void read_cost() {
        const Json* cost = find(doc_, "cost");
        if (!cost) return;
        check_object(*cost, "cost", kCostKeys, "the cost section {\"flops\", \"bytes\"}");
        auto read = [&](const char* key, std::optional<Expr>& out) {
            const Json* v = find(*cost, key);
            if (!v) return;
            const std::string p = child_path("cost", key);
            out = as_expr(*v, p, t_->dims, std::string("the ") + key + " of one run of the kernel", limits_);
            for (const Case& c : t_->cases) {
                std::string at = at_case(c, t_->dims);
                int64_t x = eval_at(*out, c.dims, p, at);
                if (x < 0)
                    fail_at(p, "'" + out->text() + "' evaluates to " + std::to_string(x) + at, "expected a count >= 0");
            }
        };
        read("flops", t_->flops);
        read("bytes", t_->bytes);
    }

    void read_policy() {
        const Json* pol = find(doc_, "policy");
        if (!pol) return;
        check_object(*pol, "policy", kPolicyKeys, "the compile policy");
        CompilePolicy& p = t_->policy;
        if (const Json* s = find(*pol, "std")) {
            const std::string expected = "expected one of: " + join(kStds);
            p.std = as_string(*s, "policy.std", expected);
            if (std::find(kStds.begin(), kStds.end(), p.std) == kStds.end())
                fail_at("policy.std", "unknown language standard '" + p.std + "'", expected);
        }
        if (const Json* f = find(*pol, "fast_math")) p.fast_math = as_bool(*f, "policy.fast_math");
        if (const Json* d = find(*pol, "deterministic")) p.deterministic = as_bool(*d, "policy.deterministic");
        if (const Json* d = find(*pol, "defines")) read_defines(*d, p.defines);
        if (const Json* tc = find(*pol, "torch_compute")) read_torch_compute(*tc, "policy.torch_compute", *t_);
        if (const Json* r = find(*pol, "max_registers")) {
            int64_t n = as_int(*r, "policy.max_registers", "expected 0 (no cap) or a register count up to 255");
            if (n < 0 || n > 255)
                fail_at("policy.max_registers", "the value " + std::to_string(n) + " is out of range",
                        "expected 0 (no cap) or a register count up to 255");
            p.max_registers = int(n);
        }
    }

    void read_defines(const Json& v, std::vector<std::string>& out) {
        as_array(v, "policy.defines", "expected an array of \"NAME\" or \"NAME=VALUE\" strings");
        std::vector<std::string> names;
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string p = index_path("policy.defines", i);
            std::string d = as_string(v[i], p, "expected \"NAME\" or \"NAME=VALUE\"");
            std::string name = d.substr(0, d.find('='));
            check_identifier(name, p, "macro name");
            if (d.find_first_of("\n\r") != std::string::npos || d.find('\0') != std::string::npos)
                fail_at(p, "the definition spans lines", "expected \"NAME\" or \"NAME=VALUE\" on one line");
            if (std::find(names.begin(), names.end(), name) != names.end())
                fail_at(p, "'" + name + "' is defined twice", "expected each macro once");
            names.push_back(name);
            out.push_back(d);
        }
    }

    // ---- the normalised document ----
    static Json tolerance_json(const Tolerance& t) {
        return Json{{"atol", t.atol}, {"rtol", t.rtol}, {"equal_nan", t.equal_nan}};
    }

    static Json case_json(const Case& c, const std::vector<std::string>& dims) {
        Json d = Json::object();
        for (const auto& n : dims) d[n] = c.dims.at(n);
        return Json{{"name", c.name}, {"dims", d}};
    }

    static Json init_json(const InitSpec& s, DType t) {
        // Integer parameters of integer buffers are written as JSON integers,
        // which is what the reader asks of them.
        const bool ints = !dtype_is_float(t);
        auto num = [](double v, bool as_int) { return as_int ? Json(int64_t(v)) : Json(v); };
        Json j{{"dist", dist_name(s.dist)}};
        switch (s.dist) {
            case InitSpec::Dist::uniform:
                j["low"] = s.a;
                j["high"] = s.b;
                break;
            case InitSpec::Dist::normal:
                j["mean"] = s.a;
                j["std"] = s.b;
                break;
            case InitSpec::Dist::randint:
                j["low"] = s.a_expr ? expr_to_json(*s.a_expr) : Json(int64_t(s.a));
                j["high"] = s.b_expr ? expr_to_json(*s.b_expr) : Json(int64_t(s.b));
                break;
            case InitSpec::Dist::bernoulli: j["p"] = s.a; break;
            case InitSpec::Dist::constant: j["value"] = num(s.a, ints); break;
            case InitSpec::Dist::arange:
                j["start"] = num(s.a, ints);
                j["step"] = num(s.b, ints);
                break;
        }
        return j;
    }

    static Json arg_json(const Arg& a) {
        Json j{{"name", a.name}, {"role", role_name(a.role)}, {"dtype", dtype_name(a.dtype)}};
        if (a.role == Role::scalar) {
            j["value"] = a.scalar_is_float ? Json(a.scalar_float) : expr_to_json(a.scalar_expr);
            return j;
        }
        Json shape = Json::array();
        for (const auto& e : a.shape) shape.push_back(expr_to_json(e));
        j["shape"] = std::move(shape);
        if (a.is_input()) j["init"] = init_json(a.init, a.dtype);
        if (a.tolerance) j["tolerance"] = tolerance_json(*a.tolerance);
        return j;
    }

    static Json program_json(const Program& p) {
        Json j = Json::object();
        if (p.has_code()) write_program_code(p, j);
        const Json plan = launch_plan_to_json(p);
        for (auto it = plan.begin(); it != plan.end(); ++it) j[it.key()] = it.value();
        return j;
    }

    Json normalize() const {
        const Task& t = *t_;
        Json n = Json::object();
        n["format"] = kFormat;
        n["name"] = t.name;
        n["description"] = t.description;
        n["dims"] = dim_docs_;
        Json cases = Json::array();
        for (const auto& c : t.cases)
            if (!c.perf) cases.push_back(case_json(c, t.dims));
        n["cases"] = std::move(cases);
        n["perf_case"] = case_json(t.cases[size_t(t.perf_index)], t.dims);
        Json args = Json::array();
        for (const auto& a : t.args) args.push_back(arg_json(a));
        if (!t.python || !t.args.empty()) n["args"] = std::move(args);
        Json tol = Json::object();
        for (const auto& [dtype, tolerance] : default_tolerance_) tol[dtype_name(dtype)] = tolerance_json(tolerance);
        n["tolerance"] = std::move(tol);
        n["reference"] = t.python ? python_reference_json(t) : program_json(t.reference);
        if (t.baseline) n["baseline"] = program_json(*t.baseline);
        if (has_candidate_) {
            Json c = Json::object();
            if (!t.candidate_signature.empty()) c["signature"] = t.candidate_signature;
            if (t.candidate_default) {
                const Json plan = launch_plan_to_json(*t.candidate_default);
                for (auto it = plan.begin(); it != plan.end(); ++it) c[it.key()] = it.value();
            }
            if (!t.triton_args.empty()) c["triton_args"] = t.triton_args;
            n["candidate"] = std::move(c);
        }
        if (!t.prompt_cuda.empty() || !t.prompt_triton.empty()) {
            Json p = Json::object();
            if (!t.prompt_cuda.empty()) p["cuda"] = t.prompt_cuda;
            if (!t.prompt_triton.empty()) p["triton"] = t.prompt_triton;
            n["prompt"] = std::move(p);
        }
        if (t.flops || t.bytes) {
            Json cost = Json::object();
            if (t.flops) cost["flops"] = expr_to_json(*t.flops);
            if (t.bytes) cost["bytes"] = expr_to_json(*t.bytes);
            n["cost"] = std::move(cost);
        }
        n["policy"] = Json{{"std", t.policy.std},
                           {"fast_math", t.policy.fast_math},
                           {"deterministic", t.policy.deterministic},
                           {"defines", t.policy.defines},
                           {"max_registers", t.policy.max_registers}};
        if (t.python) {
            n["policy"]["torch_compute"] = t.program.torch_compute;
            n["program"] = program_section_json(t);
        }
        if (t.origin.is_object()) n["origin"] = t.origin;
        return n;
    }

    const Json& doc_;
    const Limits& limits_;
    std::shared_ptr<Task> t_;
    Json dim_docs_;
    std::map<DType, Tolerance> default_tolerance_;
    std::vector<std::string> arg_paths_;
    bool has_candidate_ = false;
    bool python_ = false;  // the reference is Python (python_reference.h)
};

}  // namespace

TaskPtr load_task_json(const std::string& text, const std::string& base_dir, const Limits& limits) {
    Json doc = parse_document(text, "task", limits);
    return TaskReader(doc, base_dir, limits).read();
}

TaskPtr load_task(const std::string& source, const Limits& limits) {
    size_t first = source.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        fail(KB_ERR_TASK_INVALID, "task: the task source is empty; expected JSON text or the path of a task file");
    if (source[first] == '{') return load_task_json(source, "", limits);
    FileRead file = read_regular_file(source, limits.max_document_bytes);  // KB_ERR_IO naming the path
    if (file.too_large)
        fail(KB_ERR_TASK_INVALID, source + ": the task file is " + std::to_string(file.size) +
                                      " bytes long; expected at most " + format_bytes(limits.max_document_bytes) +
                                      "; " + raise_hint("max_document_bytes"));
    std::string text = std::move(file.data);
    try {
        return load_task_json(text, dirname_of(source), limits);
    } catch (const Error& e) {
        // Prefix the file, as a compiler prefixes its diagnostics.
        throw Error(e.status(), source + ": " + e.what());
    }
}

}  // namespace kb
