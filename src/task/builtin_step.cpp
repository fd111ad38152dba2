// Built-in steps of launch plans: {"builtin": "cublas_gemm", "args": {...}}, a
// library routine kbench loads at run time instead of a kernel the task
// brings. Only a task's baseline may use them: they are speed yardsticks, and
// a candidate's work must be its own code.
//
// Everything a call reads or writes is checked here, at every case, so that a
// baseline that would read past a buffer (a stride too large, a batch too
// long) is a task error at load time and never an out-of-bounds access inside
// a library kbench cannot guard.
#include <algorithm>
#include <climits>
#include <cmath>

#include "task/task_json.h"

namespace kb {
namespace taskjson {
namespace {

const std::vector<std::string> kStepKeys = {"builtin", "args"};
const std::vector<std::string> kGemmKeys = {"a",           "b",           "c",        "m",        "n",
                                            "k",           "batch",       "transpose_a", "transpose_b", "stride_a",
                                            "stride_b",    "stride_c",    "alpha",    "beta"};
constexpr int64_t kMaxInt = INT_MAX;  // cuBLAS takes sizes and leading dimensions as int

// A buffer an operand may name: a task buffer argument or a scratch buffer.
struct Operand {
    const Arg* arg = nullptr;
    const Scratch* scratch = nullptr;
    DType dtype() const { return arg ? arg->dtype : scratch->dtype; }
    const std::vector<Expr>& shape() const { return arg ? arg->shape : scratch->shape; }
};

Operand find_operand(const std::string& name, const Task& task, const std::vector<Scratch>& scratch) {
    Operand o;
    o.arg = task.find_arg(name);
    if (o.arg) return o;
    for (const Scratch& s : scratch)
        if (s.name == name) o.scratch = &s;
    return o;
}

std::vector<std::string> buffer_names(const Task& task, const std::vector<Scratch>& scratch) {
    std::vector<std::string> names;
    for (const Arg& a : task.args)
        if (a.is_buffer()) names.push_back(a.name);
    for (const Scratch& s : scratch) names.push_back(s.name);
    return names;
}

bool is_gemm_dtype(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }

class GemmReader {
public:
    GemmReader(const Task& task, const std::vector<Scratch>& scratch, std::string path, const Limits& limits)
        : task_(task), scratch_(scratch), path_(std::move(path)), limits_(limits) {}

    BuiltinGemm read(const Json& args) {
        as_object(args, path_,
                  "expected the arguments of cublas_gemm: {\"a\": ..., \"b\": ..., \"c\": ..., \"m\": ..., \"n\": ..., "
                  "\"k\": ...}");
        check_object(args, path_, kGemmKeys, "the arguments of cublas_gemm");
        BuiltinGemm g;
        g.a = operand(args, "a", "the left operand A");
        g.b = operand(args, "b", "the right operand B");
        g.c = operand(args, "c", "the result C");
        const Operand a = find_operand(g.a, task_, scratch_), b = find_operand(g.b, task_, scratch_),
                      c = find_operand(g.c, task_, scratch_);
        if (c.arg && c.arg->role == Role::in)
            fail_at(child_path(path_, "c"), "writing the result into '" + g.c + "' would modify an input",
                    "expected an out or inout argument or a scratch buffer");
        for (const char* other : {"a", "b"})
            if ((other[0] == 'a' ? g.a : g.b) == g.c)
                fail_at(child_path(path_, "c"), "the result '" + g.c + "' is also operand " + other,
                        "expected C in a buffer of its own (cuBLAS does not allow C to alias A or B)");
        if (!is_gemm_dtype(a.dtype()))
            fail_at(child_path(path_, "a"), std::string("'") + g.a + "' is " + dtype_name(a.dtype()),
                    "expected an f32, f16 or bf16 buffer");
        if (b.dtype() != a.dtype())
            fail_at(child_path(path_, "b"),
                    std::string("'") + g.b + "' is " + dtype_name(b.dtype()) + " but A ('" + g.a + "') is " +
                        dtype_name(a.dtype()),
                    "expected A and B of one dtype");
        if (c.dtype() != a.dtype() && c.dtype() != DType::f32)
            fail_at(child_path(path_, "c"),
                    std::string("'") + g.c + "' is " + dtype_name(c.dtype()) + " for " + dtype_name(a.dtype()) +
                        " operands",
                    std::string("expected C of the operands' dtype (") + dtype_name(a.dtype()) +
                        ") or f32; every product accumulates in f32 either way");

        g.m = size(args, "m", "the rows of op(A) and C", true);
        g.n = size(args, "n", "the columns of op(B) and C", true);
        g.k = size(args, "k", "the length of the dot products (columns of op(A), rows of op(B))", true);
        if (find(args, "batch")) g.batch = size(args, "batch", "the number of products in the batch", true);
        if (const Json* t = find(args, "transpose_a")) g.transpose_a = as_bool(*t, child_path(path_, "transpose_a"));
        if (const Json* t = find(args, "transpose_b")) g.transpose_b = as_bool(*t, child_path(path_, "transpose_b"));
        if (find(args, "stride_a")) g.stride_a = size(args, "stride_a", "the elements between matrices of A", false);
        if (find(args, "stride_b")) g.stride_b = size(args, "stride_b", "the elements between matrices of B", false);
        if (find(args, "stride_c")) g.stride_c = size(args, "stride_c", "the elements between matrices of C", false);
        if (const Json* v = find(args, "alpha")) g.alpha = finite(*v, "alpha");
        if (const Json* v = find(args, "beta")) g.beta = finite(*v, "beta");
        if (g.beta != 0.0 && c.arg && c.arg->role == Role::out)
            fail_at(child_path(path_, "beta"),
                    "beta is " + Json(g.beta).dump() + ", so C is read, but '" + g.c +
                        "' is an out argument (poisoned before every run)",
                    "expected beta 0, or C an inout argument or a scratch buffer an earlier step wrote");
        return g;
    }

private:
    std::string operand(const Json& args, const char* key, const std::string& what) {
        const std::string p = child_path(path_, key);
        std::string name =
            as_string(require(args, path_, key, "expected " + what + ": the name of a buffer argument or scratch buffer"),
                      p, "expected the name of a buffer argument or scratch buffer");
        const Operand o = find_operand(name, task_, scratch_);
        if (o.arg && o.arg->role == Role::scalar)
            fail_at(p, "'" + name + "' is a scalar", "expected " + what + ", a buffer");
        if (!o.arg && !o.scratch) {
            std::string hint;
            if (auto near = closest(name, buffer_names(task_, scratch_))) hint = "did you mean '" + *near + "'? ";
            fail_at(p, "'" + name + "' is neither a buffer argument of the task nor a scratch buffer of this plan",
                    hint + "expected one of: " + join(buffer_names(task_, scratch_)));
        }
        return name;
    }

    Expr size(const Json& args, const char* key, const std::string& what, bool positive) {
        const std::string p = child_path(path_, key);
        const Json& v = require(args, path_, key, "expected " + what + ": an integer or an expression over the dims");
        Expr e = as_expr(v, p, task_.dims, what, limits_);
        if (e.is_constant()) {
            int64_t c = eval_at(e, {}, p, "");
            if (c < (positive ? 1 : 0))
                fail_at(p, "the value " + std::to_string(c) + " is " + (positive ? "below 1" : "negative"),
                        positive ? "expected a size >= 1" : "expected a number of elements >= 0");
        }
        return e;
    }

    double finite(const Json& v, const char* key) {
        const std::string p = child_path(path_, key);
        double x = as_number(v, p);
        if (!std::isfinite(x)) fail_at(p, "the value is not finite", "expected a finite number");
        return x;
    }

    const Task& task_;
    const std::vector<Scratch>& scratch_;
    std::string path_;
    const Limits& limits_;
};

// a * b + c for sizes known to be >= 0, or -1 on overflow.
int64_t extent(int64_t batch, int64_t stride, int64_t rows, int64_t cols) {
    int64_t span = 0, matrix = 0, total = 0;
    if (__builtin_mul_overflow(batch - 1, stride, &span) || __builtin_mul_overflow(rows, cols, &matrix) ||
        __builtin_add_overflow(span, matrix, &total))
        return -1;
    return total;
}

}  // namespace

const std::vector<std::string>& builtin_names() {
    static const std::vector<std::string> names = {"cublas_gemm"};
    return names;
}

LaunchStep read_builtin_step(const Json& v, const std::string& path, const Task& task,
                             const std::vector<Scratch>& scratch, const Limits& limits) {
    check_object(v, path, kStepKeys, "a built-in step {\"builtin\": \"cublas_gemm\", \"args\": {...}}");
    LaunchStep s;
    s.kind = LaunchStep::Kind::builtin;
    s.json_path = path;
    const std::string bp = child_path(path, "builtin");
    const std::string expected = "expected one of: " + join(builtin_names());
    s.builtin = as_string(v["builtin"], bp, expected);
    if (std::find(builtin_names().begin(), builtin_names().end(), s.builtin) == builtin_names().end()) {
        std::string hint;
        if (auto near = closest(s.builtin, builtin_names())) hint = "did you mean '" + *near + "'? ";
        fail_at(bp, "unknown built-in '" + s.builtin + "'", hint + expected);
    }
    const Json& args = require(v, path, "args",
                               "expected the routine's arguments, e.g. {\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", "
                               "\"m\": \"M\", \"n\": \"N\", \"k\": \"K\"}");
    s.gemm = GemmReader(task, scratch, child_path(path, "args"), limits).read(args);
    return s;
}

void check_builtin_step_at(const LaunchStep& s, const Task& task, const std::vector<Scratch>& scratch, const Case& c,
                           const std::string& at) {
    const BuiltinGemm& g = s.gemm;
    const std::string ap = child_path(s.json_path, "args");
    auto value = [&](const Expr& e, const char* key, int64_t lo, int64_t hi, const std::string& expected) {
        const std::string p = child_path(ap, key);
        int64_t x = eval_at(e, c.dims, p, at);
        if (x < lo || x > hi) fail_at(p, "'" + e.text() + "' evaluates to " + std::to_string(x) + at, expected);
        return x;
    };
    const std::string size_range = "expected a size from 1 to " + std::to_string(kMaxInt) + " (cuBLAS takes int sizes)";
    const int64_t m = value(g.m, "m", 1, kMaxInt, size_range);
    const int64_t n = value(g.n, "n", 1, kMaxInt, size_range);
    const int64_t k = value(g.k, "k", 1, kMaxInt, size_range);
    const int64_t batch = value(g.batch, "batch", 1, kMaxInt, size_range);

    struct Side {
        const char* key;
        const std::string& name;
        const std::optional<Expr>& stride;
        int64_t rows, cols;
    };
    // Rows and columns as stored (row-major): A is [m, k], or [k, m] transposed.
    const Side sides[3] = {{"a", g.a, g.stride_a, g.transpose_a ? k : m, g.transpose_a ? m : k},
                           {"b", g.b, g.stride_b, g.transpose_b ? n : k, g.transpose_b ? k : n},
                           {"c", g.c, g.stride_c, m, n}};
    for (const Side& side : sides) {
        const std::string stride_key = std::string("stride_") + side.key;
        int64_t matrix = side.rows * side.cols;  // each below 2^31: no overflow
        int64_t stride = side.stride ? value(*side.stride, stride_key.c_str(), 0, INT64_MAX,
                                             "expected a number of elements >= 0")
                                     : matrix;
        if (side.key[0] == 'c' && batch > 1 && stride < matrix)
            fail_at(child_path(ap, "stride_c"),
                    "the matrices of C overlap: stride " + std::to_string(stride) + " is below m * n = " +
                        std::to_string(matrix) + at,
                    "expected stride_c >= m * n, so each product of the batch writes its own matrix");
        const Operand o = find_operand(side.name, task, scratch);
        const int64_t count = count_elements(o.shape(), c.dims, child_path(ap, side.key), at);
        const int64_t need = extent(batch, stride, side.rows, side.cols);
        if (need < 0 || need > count)
            fail_at(child_path(ap, side.key),
                    "'" + side.name + "' has " + std::to_string(count) + " elements but the call " +
                        (side.key[0] == 'c' ? "writes" : "reads") + " " +
                        (need < 0 ? std::string("more than 2^63") : std::to_string(need)) + " (batch " +
                        std::to_string(batch) + ", stride " + std::to_string(stride) + ", " +
                        std::to_string(side.rows) + " x " + std::to_string(side.cols) + " per matrix)" + at,
                    "expected a buffer of at least (batch - 1) * stride + rows * cols elements: check m, n, k, "
                    "batch, the strides and transpose_" + std::string(side.key[0] == 'c' ? "a/b" : side.key));
    }
}

Json builtin_step_to_json(const LaunchStep& s) {
    const BuiltinGemm& g = s.gemm;
    Json args = Json::object();
    args["a"] = g.a;
    args["b"] = g.b;
    args["c"] = g.c;
    args["m"] = expr_to_json(g.m);
    args["n"] = expr_to_json(g.n);
    args["k"] = expr_to_json(g.k);
    args["batch"] = expr_to_json(g.batch);
    args["transpose_a"] = g.transpose_a;
    args["transpose_b"] = g.transpose_b;
    // Strides appear only when given: their defaults depend on m, n and k.
    if (g.stride_a) args["stride_a"] = expr_to_json(*g.stride_a);
    if (g.stride_b) args["stride_b"] = expr_to_json(*g.stride_b);
    if (g.stride_c) args["stride_c"] = expr_to_json(*g.stride_c);
    args["alpha"] = g.alpha;
    args["beta"] = g.beta;
    return Json{{"builtin", s.builtin}, {"args", std::move(args)}};
}

}  // namespace taskjson

bool Program::has_builtin_steps() const {
    return std::any_of(launch.begin(), launch.end(),
                       [](const LaunchStep& s) { return s.kind == LaunchStep::Kind::builtin; });
}

}  // namespace kb
