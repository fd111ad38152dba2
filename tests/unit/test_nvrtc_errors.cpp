// When an NVRTC failure is worth nvcc's second opinion (compiler/nvrtc_errors.h).
// The compatibility corpus (tests/compat) checks on real code that skipping
// nvcc never changes a compile verdict.
#include <gtest/gtest.h>

#include "compiler/nvrtc_errors.h"
#include "compiler/source_prep.h"

namespace {

using kb::nvcc_could_cure;
using kb::prepare_cuda_source;

const char* kPlain = "__global__ void k(float* x) { x[0] = ; }\n";

TEST(NvrtcErrors, ASyntaxErrorInPlainDeviceCodeIsFinal) {
    auto prep = prepare_cuda_source(kPlain);
    EXPECT_FALSE(nvcc_could_cure("candidate.cu(1): error: expected an expression\n\n1 error detected", prep));
    EXPECT_FALSE(nvcc_could_cure("candidate.cu(3): error: expected a \";\"\ncandidate.cu(4): error: expected a \"}\"\n",
                                 prep));
}

TEST(NvrtcErrors, CodeCutOffBeforeItsBracesCloseIsFinal) {
    // A model's answer truncated mid-kernel: EDG reports it "At end of source".
    auto prep = prepare_cuda_source("__global__ void k(float* x) {\n    if (x) {\n        x[0] = 1;\n");
    EXPECT_FALSE(nvcc_could_cure("At end of source: error: expected a \"}\"\n"
                                 "candidate.cu(2): note #3196-D: to match this \"{\"\n\n"
                                 "At end of source: error: expected a \"}\"\n"
                                 "candidate.cu(1): note #3196-D: to match this \"{\"\n\n"
                                 "2 errors detected in the compilation of \"candidate.cu\".\n",
                                 prep));
    // Not every error at the end is syntax.
    EXPECT_TRUE(nvcc_could_cure("At end of source: error: identifier \"helper\" is undefined\n", prep));
}

TEST(NvrtcErrors, OtherErrorsAskNvcc) {
    auto prep = prepare_cuda_source(kPlain);
    // An identifier nvcc's implicit headers may declare.
    EXPECT_TRUE(nvcc_could_cure("candidate.cu(1): error: identifier \"cudaMalloc\" is undefined\n", prep));
    // One syntax error among others: nvcc decides.
    EXPECT_TRUE(nvcc_could_cure("candidate.cu(1): error: expected an expression\n"
                                "candidate.cu(2): error: namespace \"std\" has no member \"vector\"\n",
                                prep));
    // A log kbench cannot read.
    EXPECT_TRUE(nvcc_could_cure("", prep));
    EXPECT_TRUE(nvcc_could_cure("internal compiler error\n", prep));
}

TEST(NvrtcErrors, CodeNvccSeesDifferentlyAlwaysAsksNvcc) {
    const char* syntax = "candidate.cu(3): error: expected an expression\n";
    // An #include: nvcc resolves it on its own path.
    EXPECT_TRUE(nvcc_could_cure(syntax, prepare_cuda_source("#include <vector>\n__global__ void k() { int x = ; }\n")));
    // Host code kbench removes before NVRTC: nvcc compiles it.
    EXPECT_TRUE(nvcc_could_cure(syntax, prepare_cuda_source("__global__ void k(float* x) { x[0] = ; }\n"
                                                            "void launch(float* x) { k<<<1, 1>>>(x); }\n")));
}

}  // namespace
