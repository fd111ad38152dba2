// Internal to the kbench-task/1 loader (task_loader.cpp, launch_plan.cpp,
// program_code.cpp, candidate_document.cpp, json_check.cpp): reading JSON
// with error messages of one shape,
//
//     <json path>: <what is wrong>; <what is expected>
//
// so that a person or a model reading kb_last_error() knows where to look and
// what to write instead. Nothing outside src/task should need this header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "task/limits.h"
#include "task/task.h"
#include "util/error.h"
#include "util/json.h"

namespace kb::taskjson {

// ---- paths and failure ----------------------------------------------------

// "a.b" (or "b" when parent is empty) and "a[3]".
std::string child_path(const std::string& parent, const std::string& key);
std::string index_path(const std::string& parent, size_t index);

// Throws kb::Error(KB_ERR_TASK_INVALID, "<path>: <what>; <expected>").
[[noreturn]] void fail_at(const std::string& path, const std::string& what, const std::string& expected);

// A short description of a JSON value for "got ..." messages: "a string",
// "the number 3.5", "an array", "null".
std::string describe(const Json& v);
// "a, b, c" (or "(none)" for an empty list).
std::string join(const std::vector<std::string>& items);
// The candidate closest to `word` within edit distance 2, if any.
std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& candidates);

// ---- documents ------------------------------------------------------------

// Parses JSON text. Syntax errors name the line and column; a key repeated in
// one object (nlohmann would silently keep the last) names its JSON path.
// `what` labels the document in messages ("task", a file path). The size and
// the nesting depth are checked against `limits` before parsing, by a scan
// that does not recurse.
Json parse_document(const std::string& text, const std::string& what, const Limits& limits);
// Fails at `path` when a count of items passes a limit ("256 cases", ...).
void check_count(size_t count, uint32_t max, const std::string& path, const char* items, const char* field);

// ---- objects --------------------------------------------------------------

// Keys beginning with "_" or "comment" are comments, allowed in every object.
bool is_comment_key(const std::string& key);

// Checks that `v` is an object whose keys are all in `known` (or comments).
// An unknown key is reported with the nearest known one as a suggestion.
// `what` names the object in messages ("a launch step").
void check_object(const Json& v, const std::string& path, const std::vector<std::string>& known,
                  const std::string& what);

// The member `key` of an object, or nullptr when absent.
const Json* find(const Json& obj, const std::string& key);
// The member `key`, or a "missing required field" failure at path.key.
const Json& require(const Json& obj, const std::string& path, const std::string& key, const std::string& expected);

// ---- typed values ---------------------------------------------------------

std::string as_string(const Json& v, const std::string& path, const std::string& expected = "expected a string");
bool as_bool(const Json& v, const std::string& path);
double as_number(const Json& v, const std::string& path);
// A JSON integer (not 2.0, not true) that fits in int64.
int64_t as_int(const Json& v, const std::string& path, const std::string& expected = "expected an integer");
const Json& as_array(const Json& v, const std::string& path, const std::string& expected);
const Json& as_object(const Json& v, const std::string& path, const std::string& expected);
DType as_dtype(const Json& v, const std::string& path);

// A C identifier ([A-Za-z_][A-Za-z0-9_]*): dims, args, scratch buffers.
void check_identifier(const std::string& s, const std::string& path, const std::string& what);
// Letters, digits, '_', '.', '-': task and case names (they become file names).
void check_label(const std::string& s, const std::string& path, const std::string& what);

// ---- expressions ----------------------------------------------------------

// An integer, or a string in the expression language of expr.h, that names
// only declared dims. `what` says what the value is for ("a grid size").
// The expression's length and nesting are checked against `limits`.
Expr as_expr(const Json& v, const std::string& path, const std::vector<std::string>& dims, const std::string& what,
             const Limits& limits);
// The JSON form of an expression: a plain non-negative integer literal as a
// JSON integer, anything else as its string.
Json expr_to_json(const Expr& e);

// " at case 'one' (n=1)" or " at the perf case 'perf' (n=16777216)".
std::string at_case(const Case& c, const std::vector<std::string>& dims);
// Evaluates `e`; an ExprError (overflow, division by zero) becomes a failure
// at `path` naming the case.
int64_t eval_at(const Expr& e, const DimValues& dims, const std::string& path, const std::string& at);
// element_count with the case in the message (`at` from at_case, or "").
int64_t count_elements(const std::vector<Expr>& shape, const DimValues& dims, const std::string& path,
                       const std::string& at);
// A shape: an array of sizes (integer or expression), each >= 0 when constant.
std::vector<Expr> as_shape(const Json& v, const std::string& path, const std::vector<std::string>& dims,
                           const Limits& limits);
// Checks that count elements of dtype t fit in 2^62 bytes.
void check_bytes(int64_t count, DType t, const std::string& path, const std::string& at);

// ---- numbers and dtypes ---------------------------------------------------

// The inclusive range of an integer dtype (bool: [0, 1]; u64 capped at int64 max,
// because expressions are 64-bit signed).
void int_range(DType t, int64_t* lo, int64_t* hi);
// The largest finite value of a float dtype.
double float_max(DType t);
// Fails at path when an integer value does not fit dtype t.
void check_int_fits(int64_t v, DType t, const std::string& path, const std::string& at);
// Fails at path when a float value is not finite in dtype t.
void check_float_fits(double v, DType t, const std::string& path);

// ---- bytes ----------------------------------------------------------------

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);
bool is_valid_utf8(std::string_view s);

// ---- programs (program_code.cpp) -------------------------------------------

// The keys of a program object that say where its code is.
const std::vector<std::string>& program_code_keys();
// Where the files a document names may be. A task's programs may name any
// regular file (relative to the task's folder); a candidate document, which
// a model may have written, only files inside its own folder.
enum class FileScope { any_regular_file, inside_folder };
// Reads "language", "source" | "source_file" | "source_base64",
// "source_name", "headers" and "metadata" | "metadata_file" of a program
// object into p. `stem` names the code in default file names ("reference" ->
// "reference.cu"). Sizes are checked against `limits`.
void read_program_code(const Json& obj, const std::string& path, const std::string& base_dir, const std::string& stem,
                       Program& p, const Limits& limits, FileScope scope);
// The self-contained JSON of p's code (sources inlined), in the key order of
// the normalised task.
void write_program_code(const Program& p, Json& out);

// ---- launch plans (launch_plan.cpp) ----------------------------------------

// The keys parse_launch_plan accepts next to "launch" and "scratch" (so a whole
// program section or candidate document can be passed); they are ignored.
const std::vector<std::string>& plan_companion_keys();
// Reads "launch" (required, non-empty) and "scratch" of obj, without checking
// obj's other keys, and checks them against the task at every case. Built-in
// steps are an error unless `allow_builtins` (a task's baseline). `language`
// triton reads Triton launch entries (docs/triton.md).
Program parse_plan_fields(const Json& obj, const Task& task, const std::string& path, bool allow_builtins = false,
                          Language language = Language::cuda, const Limits& limits = Limits());
// A baseline given as one built-in call, {"builtin": ..., "args": {...}} in
// place of a program: a plan of that one step, checked at every case, with
// messages at `path` ("baseline.args.m").
Program parse_builtin_program(const Json& obj, const Task& task, const std::string& path, const Limits& limits);
// The outputs a plan never passes to a kernel nor zeroes.
std::vector<std::string> outputs_not_written(const Program& p, const Task& task);

// ---- built-in steps (builtin_step.cpp) ---------------------------------------

// The routines a {"builtin": ...} step may name.
const std::vector<std::string>& builtin_names();
// Reads a built-in step {"builtin": "cublas_gemm", "args": {...}} at `path`
// (also the shorthand program form, whose keys are the same). `scratch` are
// the plan's scratch buffers, which operands may name; size expressions are
// checked against `limits`.
LaunchStep read_builtin_step(const Json& v, const std::string& path, const Task& task,
                             const std::vector<Scratch>& scratch, const Limits& limits);
// Checks a built-in step at one case (`at` from at_case): sizes in range,
// every operand large enough for what the call reads and writes.
void check_builtin_step_at(const LaunchStep& s, const Task& task, const std::vector<Scratch>& scratch, const Case& c,
                           const std::string& at);
// The step as the normalised task writes it.
Json builtin_step_to_json(const LaunchStep& s);

}  // namespace kb::taskjson
