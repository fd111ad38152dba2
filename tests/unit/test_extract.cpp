// Answer extraction's parts (src/evaluate/code_scan, extract) on small inputs:
// what the scanners see in CUDA and Python, the choice rules one by one, and
// that no input at all can make extraction misbehave. The corpus of whole
// answers is test_extract_fixtures.cpp.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "evaluate/code_scan.h"
#include "evaluate/extract.h"

namespace {

using namespace kb::evaluate;

std::set<std::string> keys(const std::map<std::string, std::string>& m) {
    std::set<std::string> k;
    for (const auto& kv : m) k.insert(kv.first);
    return k;
}

TEST(ScanCuda, FindsKernelsAndFileScopeDefinitions) {
    CodeFacts f = scan_cuda(R"(
#include <cuda_fp16.h>
#define BLOCK 256
typedef float real;
using vec = float4;
struct Pair { float a, b; };
__constant__ float coeffs[16];
constexpr int kWarps = 8;
__global__ void proto(float* x);            // a prototype defines nothing
namespace detail {
__device__ float helper(float v) { return v * 2.0f; /* { not a brace */ }
}
extern "C" {
__global__ void __launch_bounds__(256) plain_c(float* x, int n) { if (n) x[0] = 1; }
}
template <typename T, int N = sizeof(T)>
__global__ void templated(T* x) { const char* s = "}{"; x[0] = T(); }
static void host_launch(float* x) { plain_c<<<1, 1>>>(x, 1); }
int main() { return 0; }
)");
    EXPECT_EQ(f.kernels, (std::set<std::string>{"plain_c", "templated"}));
    EXPECT_EQ(keys(f.definitions), (std::set<std::string>{"BLOCK", "real", "vec", "Pair", "coeffs", "kWarps", "helper",
                                                          "plain_c", "templated", "host_launch", "main"}));
    EXPECT_TRUE(f.has_main);
    EXPECT_EQ(f.brace_balance, 0);
    EXPECT_TRUE(f.uses.count("threadIdx") == 0 && f.uses.count("helper") && f.uses.count("plain_c"));
    EXPECT_TRUE(f.framework_includes.empty());
    // Definitions compare without comments or layout.
    CodeFacts g = scan_cuda("namespace detail {\n__device__ float helper(float v)\n{\n  return v * 2.0f;  // twice\n}\n}");
    EXPECT_EQ(g.definitions.at("helper"), f.definitions.at("helper"));
}

TEST(ScanCuda, OpenBracesFrameworkHeadersAndACutOffKernel) {
    CodeFacts f = scan_cuda("#include <torch/extension.h>\n__global__ void k(float* x) {\n  if (x) {\n");
    EXPECT_EQ(f.brace_balance, 2);
    EXPECT_EQ(f.framework_includes, std::vector<std::string>{"torch/extension.h"});
    EXPECT_EQ(f.kernels, std::set<std::string>{"k"});  // cut off, but begun: it is this code's kernel
}

TEST(ScanPython, FindsTritonKernelsDefinitionsAndTheMainGuard) {
    CodeFacts f = scan_python(R"PY(
import torch, math
import triton.language as tl
from triton import (jit,
                    cdiv as ceil)
BLOCK = 1024
scale = 2.0

@triton.autotune(configs=[], key=["n"])
@triton.jit
def k(x_ptr, n, B: tl.constexpr):
    """def not_a_def(): this is a docstring"""
    pass

def wrapper(x):
    k[(1,)](x, x.numel(), B=BLOCK)

class ModelNew(torch.nn.Module):
    def forward(self, x):
        return wrapper(x)

if __name__ == "__main__":
    print(ModelNew()(torch.ones(4)))
)PY");
    EXPECT_EQ(f.kernels, std::set<std::string>{"k"});
    EXPECT_EQ(keys(f.definitions), (std::set<std::string>{"torch", "math", "tl", "jit", "ceil", "BLOCK", "k", "wrapper",
                                                          "ModelNew"}));
    EXPECT_TRUE(f.has_main);
    EXPECT_TRUE(f.uses_triton);
    EXPECT_FALSE(f.uses.count("not_a_def"));  // words in strings are not names the code uses
    EXPECT_TRUE(f.uses.count("wrapper"));
}

TEST(ScanPython, StringsAndTheirNames) {
    auto s = python_strings("x = 1\nsrc = r\"\"\"\n__global__ void k() {}\n\"\"\"\ny = '''a'''\n");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].assigned_to, "src");
    EXPECT_EQ(s[0].line, 2);
    EXPECT_NE(s[0].text.find("__global__ void k()"), std::string::npos);
    EXPECT_EQ(s[1].text, "a");
}

TEST(GuessLanguage, CudaPythonAndProse) {
    EXPECT_EQ(guess_language("__global__ void k(float* x) {\n  x[threadIdx.x] = 0;\n}"), CodeLanguage::cuda);
    EXPECT_EQ(guess_language("import torch\n\ndef f(x):\n    return x * 2\n"), CodeLanguage::python);
    EXPECT_EQ(guess_language("@triton.jit\ndef k(x):\n    pass\n"), CodeLanguage::python);
    EXPECT_EQ(guess_language("The kernel is fast because it uses shared memory.\nIt also avoids bank conflicts.\n"),
              CodeLanguage::unknown);
    EXPECT_EQ(guess_language("Max error: 0.0\nTime: 1.2 ms\n"), CodeLanguage::unknown);
    EXPECT_EQ(guess_language(""), CodeLanguage::unknown);
}

TEST(EntryBaseName, PlainTemplateAndSignatureForms) {
    EXPECT_EQ(entry_base_name("vadd"), "vadd");
    EXPECT_EQ(entry_base_name("reduce<float, 256>"), "reduce");
    EXPECT_EQ(entry_base_name("void k(float*, int)"), "k");
    EXPECT_EQ(entry_base_name("ns::kern<1>"), "kern");
}

// ---- choice rules ---------------------------------------------------------------

ExtractOptions cuda(std::vector<std::string> entries = {}) {
    ExtractOptions o;
    o.language = AnswerLanguage::cuda;
    o.entries = std::move(entries);
    return o;
}

const char* kA = "__global__ void k(float* x) { x[0] = 1; }";
const char* kB = "__global__ void k(float* x) { x[0] = 2; }";

std::string fenced(const std::string& code, const std::string& tag = "cuda") { return "```" + tag + "\n" + code + "\n```\n"; }

TEST(ExtractRules, WithoutEntriesTheKernelsTheAnswerDefinesStandIn) {
    Extraction x = extract_answer("Version one:\n" + fenced(kA) + "Version two:\n" + fenced(kB), cuda());
    EXPECT_EQ(x.outcome, ExtractOutcome::ambiguous);
    EXPECT_NE(x.reason.find("'k' differently"), std::string::npos) << x.reason;
    Extraction y = extract_answer("Version one:\n" + fenced(kA) + "Fixed version:\n" + fenced(kB), cuda());
    EXPECT_EQ(y.outcome, ExtractOutcome::ok);
    EXPECT_EQ(y.picked_block, 2);
    EXPECT_NE(y.reason.find("('Fixed')"), std::string::npos) << y.reason;
}

TEST(ExtractRules, ARevisionCueBeforeAnEarlierBlockDecidesNothing) {
    Extraction x = extract_answer("Here is the final kernel:\n" + fenced(kA) + "Or this one:\n" + fenced(kB), cuda({"k"}));
    EXPECT_EQ(x.outcome, ExtractOutcome::ambiguous) << x.reason;
}

TEST(ExtractRules, TheBlockDefiningMoreEntriesWins) {
    std::string both = "__global__ void k(float* x) { x[0] = 1; }\n__global__ void k2(float* x) { x[0] = 3; }";
    Extraction x = extract_answer(fenced(kB) + fenced(both), cuda({"k", "k2"}));
    EXPECT_EQ(x.outcome, ExtractOutcome::ok);
    EXPECT_EQ(x.picked_block, 2);
    EXPECT_EQ(x.used_blocks, std::vector<int>{2});  // block 1 would redefine k: never joined
}

TEST(ExtractRules, AClashingHelperIsNotJoinedAndTheNoteSaysWhy) {
    std::string helpers = "__device__ float h(float v) { return v; }\n__global__ void k(float* x) { x[0] = 9; }";
    std::string kernel = "__global__ void k2(float* x) { x[0] = h(1.0f); }\n__global__ void k(float* x) { x[0] = 1; }";
    Extraction x = extract_answer(fenced(helpers) + fenced(kernel), cuda({"k2"}));
    EXPECT_EQ(x.outcome, ExtractOutcome::ok);
    EXPECT_EQ(x.used_blocks, std::vector<int>{2});
    ASSERT_FALSE(x.notes.empty());
    EXPECT_NE(x.notes.back().find("would redefine 'k'"), std::string::npos) << x.notes.back();
}

TEST(ExtractRules, LanguageDetectionFollowsTheEntry) {
    std::string py = "import triton\nimport triton.language as tl\n@triton.jit\ndef add_kernel(x):\n    pass\n";
    ExtractOptions o;
    o.entries = {"add_kernel"};
    Extraction x = extract_answer(fenced(kA) + fenced(py, "python"), o);
    EXPECT_EQ(x.outcome, ExtractOutcome::ok);
    EXPECT_EQ(x.language, "triton");
    EXPECT_EQ(x.picked_block, 2);
    o.entries = {"k"};
    EXPECT_EQ(extract_answer(fenced(kA) + fenced(py, "python"), o).language, "cuda");
}

TEST(ExtractRules, CutAtTheFirstEndTokenOnly) {
    Extraction x = extract_answer(fenced(kA) + "<|eot_id|>\n" + fenced(kB), cuda());
    EXPECT_EQ(x.outcome, ExtractOutcome::ok);
    EXPECT_EQ(x.block_count, 1);
    EXPECT_NE(x.code.find("x[0] = 1"), std::string::npos);
}

TEST(ExtractRules, EveryEndTokenEndsTheAnswer) {
    for (std::string tok : {"<|im_end|>", "<|EOT|>", "<|eot_id|>", "</s>", "<|endoftext|>", "<|end_of_text|>", "<|end|>",
                            "<|return|>", "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>"}) {
        Extraction x = extract_answer(fenced(kA) + tok + "\nUser: now a second one\n" + fenced(kB), cuda({"k"}));
        EXPECT_EQ(x.outcome, ExtractOutcome::ok) << tok;
        EXPECT_TRUE(x.has_flag("end_token")) << tok;
        EXPECT_EQ(x.block_count, 1) << tok;
    }
}

TEST(ExtractRules, AnUnclosedFenceInsideThinkStaysThere) {
    // The draft's fence is never closed inside <think>; the final answer's block is still found.
    Extraction x = extract_answer("<think>\n```cuda\n" + std::string(kB) + "\n</think>\n" + fenced(kA), cuda({"k"}));
    EXPECT_EQ(x.outcome, ExtractOutcome::ok);
    EXPECT_EQ(x.picked_block, 2);
    EXPECT_NE(x.code.find("x[0] = 1"), std::string::npos);
    EXPECT_FALSE(x.has_flag("truncated"));
}

TEST(ExtractRules, ThinkingTagsOfEveryCommonSpelling) {
    for (std::string tag : {"think", "thinking", "reasoning", "THINK"}) {
        Extraction x = extract_answer("<" + tag + ">\n" + fenced(kB) + "</" + tag + ">\n" + fenced(kA), cuda());
        EXPECT_EQ(x.outcome, ExtractOutcome::ok) << tag;
        EXPECT_TRUE(x.has_flag("think_stripped")) << tag;
        EXPECT_NE(x.code.find("x[0] = 1"), std::string::npos) << tag;
    }
}

TEST(ExtractRules, JsonCarriesTheDocumentedKeys) {
    Extraction x = extract_answer(fenced(kA), cuda({"k"}));
    kb::Json j = x.to_json(false, false);
    for (const char* k : {"outcome", "language", "picked_block", "used_blocks", "blocks", "reason", "flags", "notes"})
        EXPECT_TRUE(j.contains(k)) << k;
    EXPECT_FALSE(j.contains("code"));
    EXPECT_TRUE(x.to_json(true, true).contains("block_list"));
}

// Any text at all: no crash, no hang, and the result is consistent with itself.
// fuzz_extract's first finding: one invalid byte inside the code made the
// report unserialisable (nlohmann's strict dump threw type_error 316).
TEST(ExtractRules, TheReportIsValidUtf8WhateverBytesTheAnswerHeld) {
    const std::string answer = "__global__ void vector_add(const float* a, const float* b,\n"
                               "                           floa\x8a* c, int n) { c[0] = a[0] + b[0]; }\n";
    ExtractOptions o;
    o.language = AnswerLanguage(0);
    Extraction x = extract_answer(answer, o);
    std::string text;
    EXPECT_NO_THROW(text = x.to_json(true, true).dump(-1, ' ', false, kb::Json::error_handler_t::strict));
    ASSERT_FALSE(x.code.empty()) << text;
    // U+FFFD (EF BF BD in UTF-8) where the broken byte was.
    EXPECT_NE(text.find("floa\xef\xbf\xbd*"), std::string::npos) << text;
}

TEST(ExtractRules, ArbitraryInputsGiveConsistentResults) {
    const std::vector<std::string> pieces = {
        "```", "```cuda", "```python", "~~~", "````", "\n", "\r\n", "  ", "<think>", "</think>", "<|im_end|>",
        "{", "}", "(", ")", ";", "\"\"\"", "'", "\"", "//", "/*", "*/", "#include <x>", "#define A 1",
        "__global__ void k(float* x) {", "def f():", "@triton.jit", "import triton", "Here is the code:", "\\",
        "template <int N>", "namespace n {", "extern \"C\" {", "R\"(", ")\"", "class C:", "if __name__ == '__main__':",
        "\xff\xfe", "x", "int main() {"};
    std::mt19937 rng(12345);
    for (int i = 0; i < 3000; ++i) {
        std::string s;
        int n = int(rng() % 40);
        for (int k = 0; k < n; ++k) s += pieces[rng() % pieces.size()];
        ExtractOptions o;
        o.language = AnswerLanguage(rng() % 3);
        if (rng() % 2) o.entries = {"k", "f"};
        o.include_reasoning = rng() % 2;
        Extraction x = extract_answer(s, o);
        ASSERT_EQ(x.outcome == ExtractOutcome::ok, !x.code.empty()) << s;
        ASSERT_FALSE(x.reason.empty()) << s;
        if (x.outcome == ExtractOutcome::ok) {
            ASSERT_GE(x.picked_block, 1) << s;
            ASSERT_FALSE(x.used_blocks.empty()) << s;
            ASSERT_LE(x.used_blocks.back(), x.block_count) << s;
        } else {
            ASSERT_EQ(x.picked_block, 0) << s;
        }
        (void)x.to_json(true, true).dump(-1, ' ', false, kb::Json::error_handler_t::replace);
    }
}

}  // namespace
