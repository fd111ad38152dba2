// Reading just enough of a code block to choose between the blocks of a
// model's answer: which language it is, which kernels and other names it
// defines at file scope, which names it uses, and whether it is a usage example.
//
// These scanners are deliberately shallow (a tokenizer and a brace stack for
// CUDA C++, indentation and decorators for Python): they never reject code,
// and what they cannot make sense of simply defines nothing. Compiling is the
// compiler's job; this only decides which text to hand it.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kb::evaluate {

enum class CodeLanguage { unknown, cuda, python };
const char* code_language_name(CodeLanguage l);  // "unknown", "cuda", "python"

struct CodeFacts {
    // Kernels defined with a body: __global__ functions (CUDA), functions
    // decorated with @triton.jit / @triton.autotune / @triton.heuristics (Python).
    std::set<std::string> kernels;
    // Every file-scope definition (kernels included), name -> its text with
    // comments dropped and whitespace collapsed, so that two blocks defining
    // the same name can be compared. CUDA: functions with a body, types
    // (struct/class/union/enum, typedef, using), namespace-scope variables and
    // #define macros. Python: top-level def and class, names bound by
    // import, and top-level ALL_CAPS constants.
    std::map<std::string, std::string> definitions;
    // Every identifier the code mentions outside comments (and, for CUDA,
    // outside string literals). Locals are included: callers use it only to
    // ask "could this block need that name".
    std::set<std::string> uses;
    // A usage example or test harness: defines main() (CUDA) or has an
    // `if __name__ == "__main__":` guard (Python).
    bool has_main = false;
    // CUDA: '{' minus '}' outside comments and literals (a block cut in two
    // by a stray fence has a positive balance, its continuation a negative one).
    int brace_balance = 0;
    // Python: `import triton` or a Triton decorator.
    bool uses_triton = false;
    // CUDA: framework headers (torch/, ATen/, c10/, pybind11/) it includes.
    std::vector<std::string> framework_includes;
};

CodeFacts scan_cuda(const std::string& code);
CodeFacts scan_python(const std::string& code);
CodeFacts scan_code(const std::string& code, CodeLanguage lang);

// The language of a code block judged by its content, from weighted signals
// (`__global__`, `#include`, `;` line ends for CUDA C++; `def`, `import`,
// `:` line ends, `@triton.jit` for Python). `unknown` when neither reaches a
// minimum or the text reads as prose.
CodeLanguage guess_language(const std::string& code);

// A line of ordinary prose rather than code: several words, not indented,
// no code punctuation, not starting with a keyword.
bool looks_like_prose(const std::string& line);
// A line a C++ or Python file typically starts with (#include, __global__,
// template, import, def, @triton.jit, ...).
bool looks_like_code_start(const std::string& line);

// A triple-quoted Python string literal ("""...""" or '''...''', with any
// r/b/f/u prefix): its contents and the 1-based line of its opening quotes
// (relative to the scanned text).
struct PythonString {
    std::string text;
    int line = 0;
    std::string assigned_to;  // `name = """..."""`: the name, else ""
};
std::vector<PythonString> python_strings(const std::string& code);

// Python source with the contents of its string literals blanked and its
// comments dropped (same lines), for judging the code around them.
std::string mask_python_strings(const std::string& code);

// The identifier a launch plan's kernel field names: "reduce<float, 256>"
// -> "reduce", "void k(float*)" -> "k", "vadd" -> "vadd".
std::string entry_base_name(const std::string& kernel);

}  // namespace kb::evaluate
