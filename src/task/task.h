// The task model: what a `kbench-task/1` document means once it has been
// parsed and validated (docs/task-format.md documents every field).
//
// Everything here is plain data. A Task is immutable after loading and may be
// shared between threads; expressions are kept unevaluated and evaluated per
// case, so one task describes every size it is checked at.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "task/dtype.h"
#include "task/expr.h"
#include "task/limits.h"
#include "util/json.h"

namespace kb {

enum class Role { in, out, inout, scalar };
const char* role_name(Role r);

// How an input buffer is filled, from a counter-based RNG keyed by
// (seed, argument index, element index): the same seed gives the same inputs
// on every machine. Outputs are never initialised (they are poisoned).
struct InitSpec {
    enum class Dist { uniform, normal, randint, bernoulli, constant, arange };
    Dist dist = Dist::uniform;
    // uniform: [low, high); normal: mean=a, std=b; randint: [low, high] inclusive
    // integers; bernoulli: p = a (bool or 0/1 values); constant: value = a;
    // arange: start = a, step = b (element i gets a + i*b, wrapped for integer types).
    double a = -1.0;
    double b = 1.0;
    // randint bounds given as expressions over the dims (an index input in
    // [0, vocab - 1]): set, they replace a / b at each case. Use at().
    std::optional<Expr> a_expr;
    std::optional<Expr> b_expr;

    // The distribution at a case, with bound expressions evaluated into a / b
    // (this spec unchanged when it has none). Throws ExprError on overflow;
    // the loader has checked every case, so that means a case it never saw.
    InitSpec at(const DimValues& dims) const;
    bool depends_on_dims() const { return a_expr || b_expr; }
};
const char* dist_name(InitSpec::Dist d);

struct Tolerance {
    double atol = 0.0;
    double rtol = 0.0;
    bool equal_nan = true;  // a NaN where the reference has NaN is a match
};

struct Arg {
    std::string name;
    Role role = Role::in;
    DType dtype = DType::f32;
    std::vector<Expr> shape;  // buffers only; empty shape = one element
    InitSpec init;            // in / inout
    // out / inout of float dtype: required (from the arg or the task default);
    // integer and bool outputs always compare exactly.
    std::optional<Tolerance> tolerance;
    // scalars: the value, an integer expression over dims, or a float literal
    // for float dtypes (`scalar_is_float`).
    Expr scalar_expr;
    double scalar_float = 0.0;
    bool scalar_is_float = false;

    bool is_buffer() const { return role != Role::scalar; }
    bool is_output() const { return role == Role::out || role == Role::inout; }
    bool is_input() const { return role == Role::in || role == Role::inout; }
};

// A buffer a program allocates for itself (partial sums of a two-pass
// reduction, say). Poisoned before each run unless `zero` is set.
struct Scratch {
    std::string name;
    DType dtype = DType::f32;
    std::vector<Expr> shape;
    bool zero = false;
};

// One argument of a kernel launch: a task arg or scratch buffer by name, or
// an inline scalar computed from dims.
struct LaunchArg {
    enum class Kind { named, scalar } kind = Kind::named;
    std::string name;  // named
    DType dtype = DType::i32;  // scalar
    Expr value;                // scalar (integer expression)
    double float_value = 0.0;  // scalar of float dtype given as a JSON number
    bool is_float = false;
};

// The arguments of a {"builtin": "cublas_gemm"} step (docs/task-format.md,
// "Built-in steps"): for every batch entry i,
//     C_i = alpha * op(A_i) @ op(B_i) + beta * C_i
// with op(A_i) of m x k and op(B_i) of k x n, every matrix dense and row-major
// as the task stores it. transpose_a means A is stored [k, m] (op(A) = A^T);
// transpose_b means B is stored [n, k]. Strides count elements between
// consecutive batch entries; unset means dense (m*k, k*n, m*n).
struct BuiltinGemm {
    std::string a, b, c;  // task buffer arguments or scratch buffers of the plan
    Expr m, n, k;
    Expr batch = Expr::constant(1);
    bool transpose_a = false;
    bool transpose_b = false;
    std::optional<Expr> stride_a, stride_b, stride_c;
    double alpha = 1.0;
    double beta = 0.0;
};

// A Triton kernel's tl.constexpr values and compile options
// (docs/triton.md): one launch entry's, or one of its tuning configs.
struct TritonConfig {
    std::vector<std::pair<std::string, Expr>> constexprs;  // name -> integer expression over the dims
    int num_warps = 4;
    int num_stages = 3;
    int num_ctas = 1;

    // The dims plus the constexprs evaluated at them: what a Triton step's
    // grid is evaluated with. Throws ExprError like Expr::eval.
    DimValues env(const DimValues& dims) const;
    // "BLOCK=1024 w4 s3" (c2 when num_ctas > 1), for results.
    std::string label() const;
};

struct LaunchStep {
    enum class Kind { kernel, zero, builtin } kind = Kind::kernel;
    // kernel: the name as the code spells it (plain "vadd", a template
    // instantiation "k<float, 256>", or a full signature to pick an overload).
    std::string kernel;
    Expr grid[3] = {Expr::constant(1), Expr::constant(1), Expr::constant(1)};
    Expr block[3] = {Expr::constant(1), Expr::constant(1), Expr::constant(1)};
    Expr shared_mem_bytes = Expr::constant(0);
    std::vector<LaunchArg> args;
    // zero: the buffer (task arg or scratch) to fill with zero bytes.
    std::string target;
    // builtin: the library routine ("cublas_gemm", the only one so far) and
    // its arguments. Only a task's baseline may have built-in steps.
    std::string builtin;
    BuiltinGemm gemm;
    std::string json_path;  // where the step was declared, for error messages
    // Language::triton: the kernel's constexprs and options. `block` and
    // `shared_mem` then come from what Triton compiled, and `grid` may name
    // the constexprs. `triton_configs` are the alternatives to tune over.
    std::optional<TritonConfig> triton;
    std::vector<TritonConfig> triton_configs;
};

// triton is Python source with @triton.jit kernels (compiled by Triton);
// triton_binary a cubin Triton already compiled, with its metadata JSON.
// python: a program candidate or reference (docs/programs.md), Python source
// that kbench's Python workers run; never compiled by the C core.
enum class Language { cuda, ptx, cubin, triton, triton_binary, python };
const char* language_name(Language l);

// A file the code includes, given beside it ("headers" of a program): its
// name as the code's #include spells it, relative to the code's folder.
struct SourceFile {
    std::string name;
    std::string text;
};

// Code plus the plan that launches it. The task's reference and baseline are
// Programs; a candidate is a Program too once its source is attached. A
// baseline whose plan launches no kernel (only built-in and zero steps) has
// no code: `source` is empty and compiling it produces no image.
struct Program {
    Language language = Language::cuda;
    std::string source;        // CUDA/PTX text or binary image bytes
    std::string source_name;   // file name for logs ("vector_add.ref.cu")
    std::vector<SourceFile> headers;  // the only files beside the code its #includes may reach
    std::string triton_metadata;  // Triton's metadata JSON (Language::triton_binary)
    std::vector<LaunchStep> launch;
    std::vector<Scratch> scratch;

    // Every distinct kernel name the plan launches, in order of first use.
    std::vector<std::string> kernel_names() const;
    // Whether a step calls a library routine ({"builtin": ...}).
    bool has_builtin_steps() const;
    // A program without code: its plan has no kernel step (a built-in baseline).
    bool has_code() const { return !source.empty(); }
    // The same program with launch entry i using config choice[i] of its
    // triton_configs (-1: its own constexprs and options), configs dropped.
    Program with_triton_configs(const std::vector<int>& choice) const;
    bool has_triton_configs() const;
};

struct Case {
    std::string name;
    DimValues dims;
    bool perf = false;
};

struct CompilePolicy {
    std::string std = "c++17";   // c++14, c++17, c++20
    bool fast_math = false;
    bool deterministic = false;  // outputs must be bit-identical across runs
    std::vector<std::string> defines;  // "NAME" or "NAME=VALUE", passed as -D
    int max_registers = 0;             // 0: no cap
};

// A reference written in Python: a KernelBench problem (a Model class,
// get_inputs(), get_init_inputs(), size constants) or a TritonBench operator
// (its code and its test function). The dims are the module's size constants;
// a case sets them. kbench's Python workers run it (docs/programs.md); the
// C core never compiles it. Task::reference holds its source (language python).
struct PythonReference {
    std::string style = "kernelbench";      // "kernelbench" | "tritonbench"
    std::string entry;                      // the reference class, or the test function
    std::string candidate_entry;            // kernelbench: the class a candidate defines ("ModelNew")
    std::vector<std::string> candidate_functions;  // tritonbench: the functions a candidate defines
    std::string get_inputs = "get_inputs";
    std::string get_init_inputs = "get_init_inputs";
    std::string test_source;                // tritonbench: the test section (definitions only)
    // tritonbench: TritonBench's performance script of the operator (its
    // golden_metrics/<op>_perf.py): the perf case runs its call_op on each of
    // its inputs, which is what timing times (docs/programs.md).
    std::string perf_source;
    DType precision = DType::f32;           // floating inputs and parameters are cast to it
    Json inputs = Json::array();            // what get_inputs() returns, as the import read it
    Json outputs = Json::array();           // what the reference returns, as the import saw it
    Json input_transforms = Json::array();  // [{"input": i, "scale": s, "shift": b}], applied after get_inputs()
};

// How program candidates of a task are judged (docs/programs.md).
struct ProgramPolicy {
    // Whether torch compute in a candidate fails it: "allow", "report" (the
    // default: reported, not failed) or "forbid" (TritonBench-style tasks).
    std::string torch_compute = "report";
    bool timing = true;  // false: correctness only (TritonBench's tests)
};

struct Task {
    std::string name;
    std::string description;
    std::vector<std::string> dims;  // declared dim names
    std::vector<Case> cases;        // correctness cases, then the perf case last
    int perf_index = -1;
    std::vector<Arg> args;
    Program reference;
    std::optional<Program> baseline;
    // The plan a candidate gets when it brings none (its source only).
    std::optional<Program> candidate_default;
    // candidate.signature: the kernel a CUDA candidate defines (for prompts).
    std::string candidate_signature;
    // candidate.triton_args: the task arguments, by name, in the order a
    // Triton kernel for this task takes them (empty when not given).
    std::vector<std::string> triton_args;
    // prompt.cuda / prompt.triton: what to tell a model so that it writes a
    // candidate in that language (empty when not given).
    std::string prompt_cuda;
    std::string prompt_triton;
    std::optional<Expr> flops;
    std::optional<Expr> bytes;
    CompilePolicy policy;
    // The task-wide default tolerance of each float dtype ("tolerance").
    std::map<DType, Tolerance> default_tolerances;
    // Set when the reference is Python (reference.language "python"); `args`
    // may then be empty (no kernel signature) and program candidates apply.
    std::optional<PythonReference> python;
    ProgramPolicy program;
    Json origin;  // where an imported task came from, and the import's findings (kept as given)
    std::string base_dir;           // folder relative source_file paths resolved against

    // The normalised, self-contained document (sources inlined): what a
    // worker process receives, and what `hash` is computed over.
    std::string normalized_json;
    std::string hash;  // SHA-256 hex of normalized_json

    const Arg* find_arg(const std::string& name) const;
    int arg_index(const std::string& name) const;  // -1 if absent
    const Program& baseline_or_reference() const { return baseline ? *baseline : reference; }
};

using TaskPtr = std::shared_ptr<const Task>;

// Parses and validates a task. `source` is JSON text or a file path (see
// kb_load_task). Throws kb::Error(KB_ERR_TASK_INVALID) with a message of the
// form "<json path>: <what is wrong>; <what is expected>", or KB_ERR_IO.
// Every size is checked against `limits` (docs/limits.md) before it is used.
TaskPtr load_task(const std::string& source, const Limits& limits = Limits());
TaskPtr load_task_json(const std::string& text, const std::string& base_dir, const Limits& limits = Limits());

// Parses a launch plan ({"launch":[...], "scratch":[...]}, as found in a
// task's reference/baseline/candidate section or in a candidate file) and
// checks it against the task: every named argument exists, expressions only
// mention declared dims, and so on. `json_path` prefixes error messages.
// Built-in steps are rejected unless `allow_builtins` (a candidate's work
// must be its own code; only a task's baseline, or the plan of a kernel the
// host built from one, may call a library). `language` triton reads Triton
// launch entries (docs/triton.md). Counts, sizes and expressions are checked
// against `limits`. Throws kb::Error(KB_ERR_TASK_INVALID).
Program parse_launch_plan(const Json& plan, const Task& task, const std::string& json_path,
                          bool allow_builtins = false, Language language = Language::cuda,
                          const Limits& limits = Limits());

// Parses a `kbench-candidate/1` document: {"format", "language",
// "source" | "source_file", "launch", "scratch", "metadata"}. Relative
// source_file paths resolve against base_dir. A document without "launch"
// takes the task's default candidate plan; with neither it is an error.
// Files it names (source_file, metadata_file, headers) must lie inside
// base_dir: a candidate document may be written by a model.
Program parse_candidate_document(const Json& doc, const Task& task, const std::string& base_dir,
                                 const Limits& limits = Limits());

// The number of elements of a shape at a case's dims (1 for an empty shape).
// Throws kb::Error(KB_ERR_TASK_INVALID) for a negative or overflowing size.
int64_t element_count(const std::vector<Expr>& shape, const DimValues& dims, const std::string& what);

// The bytes of every buffer argument of a task at one case (what a run moves
// around: input generation, poisoning, checksums, downloads, comparison);
// 0 for a case index out of range.
uint64_t case_buffer_bytes(const Task& task, int case_index);

// Throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming the task's range when
// `case_index` is not one of its cases.
void check_case_index(const Task& task, int case_index);

// The JSON of a program's plan, {"launch": [...], "scratch": [...]}, with every
// default explicit, as in the normalised task (for logs and results).
Json launch_plan_to_json(const Program& p);

// A bare Triton `.py` candidate's launch plan, from its structured comments
// (docs/triton.md):
//   # kbench: launch kernel=add grid=ceil_div(n, BLOCK) BLOCK=1024 num_warps=4 args=x,y,out,n
//   # kbench: config BLOCK=2048 num_warps=8
// Without args= the arguments are the task's candidate.triton_args, else the
// kernel's parameter names where they all name task arguments. Returns the
// plan as the JSON of a "launch" array (parsed like a candidate document's),
// or null when the source has no such comment. Throws
// kb::Error(KB_ERR_TASK_INVALID) naming the line of a malformed comment.
Json triton_plan_from_comments(const std::string& source, const std::string& source_name, const Task& task);

// Parses JSON text (a task, candidate document or launch plan) with errors in
// the loader's style: the line and column of a syntax error, the JSON path of
// a key repeated within one object. `what` labels the document in messages.
// Size and nesting are checked against `limits` first.
// Throws kb::Error(KB_ERR_TASK_INVALID).
Json parse_json_text(const std::string& text, const std::string& what, const Limits& limits = Limits());

}  // namespace kb
