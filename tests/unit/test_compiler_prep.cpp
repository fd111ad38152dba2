// The host-code splitter, include scanning, the framework-include check and
// the compile-log summary: pure text processing, no NVRTC.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compiler/compile_log.h"
#include "compiler/compiler.h"
#include "compiler/device_headers.h"
#include "compiler/source_prep.h"

namespace {

using kb::prepare_cuda_source;

size_t lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

TEST(CompilerPrep, RemovesHostLauncherAndMainKeepingLines) {
    std::string src =
        "#include <vector>\n"
        "__global__ void k(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1; }\n"
        "void launch(float* x, int n) {\n"
        "  k<<<1, 256>>>(x, n);\n"
        "}\n"
        "int main() { std::vector<float> v(3); return 0; }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_EQ(lines(p.text), lines(src));
    EXPECT_EQ(p.text.size(), src.size());
    EXPECT_TRUE(has(p.text, "__global__ void k(float* x, int n)"));
    EXPECT_FALSE(has(p.text, "launch"));
    EXPECT_FALSE(has(p.text, "main"));
    EXPECT_TRUE(has(p.text, "#include <vector>"));
    ASSERT_EQ(p.removed.size(), 2u);
    EXPECT_TRUE(has(p.removed[0], "lines 3-5")) << p.removed[0];
    EXPECT_TRUE(has(p.removed[0], "launch"));
    EXPECT_TRUE(has(p.removed[1], "main"));
}

TEST(CompilerPrep, KeepsDeviceCodeIncludingMacroAnnotations) {
    std::string src =
        "#define DEVICE_INLINE __device__ __forceinline__\n"
        "#define HD __host__ __device__\n"
        "DEVICE_INLINE float a(float x) { return x; }\n"
        "HD float b(float x) { return x; }\n"
        "__host__ __device__ float c(float x) { return x; }\n"
        "__attribute__((device)) float d(float x) { return x; }\n"
        "static __device__ __noinline__ float e(float x) { return x; }\n"
        "template <typename T> __global__ void f(T* x) {}\n"
        "__global__ void __launch_bounds__(128, 2) g(float* x) {}\n"
        "extern \"C\" __global__ void h(float* x) {}\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_EQ(p.text, src);
    EXPECT_TRUE(p.removed.empty());
}

TEST(CompilerPrep, RemovesHostOnlyAndHostVariablesKeepsConstants) {
    std::string src =
        "__host__ float host_only(float x) { return x; }\n"
        "int g_counter = 0;\n"
        "static float* g_buf;\n"
        "const int kN = 256;\n"
        "constexpr float kEps = 1e-5f;\n"
        "float* const kNull = nullptr;\n"
        "__constant__ float c_tab[4];\n"
        "__device__ int d_count;\n"
        "extern __shared__ float smem[];\n"
        "static const float* table = nullptr;\n"
        "__global__ void k(float* x) { x[0] = kN + kEps + c_tab[0]; }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_FALSE(has(p.text, "host_only"));
    EXPECT_FALSE(has(p.text, "g_counter"));
    EXPECT_FALSE(has(p.text, "g_buf"));
    EXPECT_FALSE(has(p.text, "table"));  // pointer to const: the pointer itself is a host variable
    for (const char* kept : {"const int kN", "constexpr float kEps", "float* const kNull", "__constant__ float c_tab",
                             "__device__ int d_count", "extern __shared__ float smem[]", "__global__ void k"})
        EXPECT_TRUE(has(p.text, kept)) << kept;
}

TEST(CompilerPrep, ConstexprFunctionsBecomeHostDevice) {
    std::string src =
        "constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }\n"
        "template <int N> constexpr int twice() { return 2 * N; }\n"
        "__global__ void k(int* x) { x[0] = ceil_div(7, 2) + twice<3>(); }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_TRUE(has(p.text, "__host__ __device__ constexpr int ceil_div"));
    EXPECT_TRUE(has(p.text, "template <int N> __host__ __device__ constexpr int twice"));
    EXPECT_EQ(p.annotated.size(), 2u);
    EXPECT_EQ(lines(p.text), lines(src));
}

TEST(CompilerPrep, CommentsStringsAndRawStringsDoNotConfuseBraces) {
    std::string src =
        "// void commented() {\n"
        "/* } void x() { */\n"
        "const char* s = \"}{ void f() {\";\n"
        "const char* r = R\"xx(\n } void g() { \n)xx\";\n"
        "char c = '}';\n"
        "int digits = 1'000'000;\n"
        "void host() { const char* t = \"}\"; }\n"
        "__global__ void k(int* x) { x[0] = '{'; }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_TRUE(has(p.text, "__global__ void k(int* x) { x[0] = '{'; }"));
    EXPECT_FALSE(has(p.text, "void host()"));
    EXPECT_EQ(lines(p.text), lines(src));
}

TEST(CompilerPrep, NamespacesExternCAndClassMembers) {
    std::string src =
        "namespace outer { namespace inner {\n"
        "__device__ float sq(float x) { return x * x; }\n"
        "float host_sq(float x) { return x * x; }\n"
        "} }\n"
        "extern \"C\" {\n"
        "__global__ void k(float* x) { x[0] = outer::inner::sq(x[1]); }\n"
        "void launch(float* x) { k<<<1, 1>>>(x); }\n"
        "}\n"
        "struct Launcher {\n"
        "  int threads = 256;\n"
        "  Launcher() {}\n"
        "  int blocks(int n) const { return (n + threads - 1) / threads; }\n"
        "  constexpr int warps() const { return threads / 32; }\n"
        "  __device__ int lane() const { return threadIdx.x & 31; }\n"
        "};\n"
        "int Launcher_out_of_class(int);\n"
        "enum class DType { f32, f16 };\n"
        "enum Plain { A = 1, B };\n"
        "void dispatch(DType d) {}\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_TRUE(has(p.text, "__device__ float sq"));
    EXPECT_FALSE(has(p.text, "host_sq"));
    EXPECT_FALSE(has(p.text, "void launch"));
    EXPECT_TRUE(has(p.text, "int threads = 256;"));
    EXPECT_TRUE(has(p.text, "Launcher() {}"));  // constructors stay: NVRTC or nvcc decides
    EXPECT_FALSE(has(p.text, "int blocks"));
    EXPECT_TRUE(has(p.text, "__host__ __device__ constexpr int warps"));
    EXPECT_TRUE(has(p.text, "__device__ int lane"));
    EXPECT_FALSE(has(p.text, "Launcher_out_of_class"));
    EXPECT_TRUE(has(p.text, "enum class DType { f32, f16 };"));
    EXPECT_FALSE(has(p.text, "dispatch"));
}

TEST(CompilerPrep, HostOnlyClassesNoKernelUsesGoWhole) {
    std::string src =
        "__global__ void k(float* x, int n) {}\n"
        "class Wrapper {\n"
        "public:\n"
        "  Wrapper(int n) : n_(n) { cudaMalloc(&p_, n); }\n"
        "  ~Wrapper() { cudaFree(p_); }\n"
        "  void run() { k<<<1, 1>>>(p_, n_); }\n"
        "private:\n"
        "  int n_; float* p_ = nullptr;\n"
        "};\n"
        "struct Params { int n; Params(int v) : n(v) {} };\n"
        "__global__ void uses(Params p) {}\n"
        "Wrapper* make() { return new Wrapper(3); }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_FALSE(has(p.text, "Wrapper"));  // no kernel names it: gone, constructors and all
    EXPECT_TRUE(has(p.text, "struct Params { int n; Params(int v) : n(v) {} };"));  // a kernel parameter: stays
    EXPECT_EQ(lines(p.text), lines(src));
    bool noted = false;
    for (const auto& r : p.removed) noted = noted || has(r, "host-only class 'Wrapper'");
    EXPECT_TRUE(noted);
}

TEST(CompilerPrep, UndeclaredHelpersInHostCodeAskForNvcc) {
    auto bad = prepare_cuda_source(
        "__global__ void k(float* x, int n) {}\n"
        "void launch(float* x, int n) { int b = ceil_div(n, 256); k<<<b, 256>>>(x, n); }\n");
    ASSERT_EQ(bad.nvcc_only.size(), 1u);
    EXPECT_TRUE(has(bad.nvcc_only[0], "ceil_div")) << bad.nvcc_only[0];
    auto good = prepare_cuda_source(
        "#include <vector>\n"
        "__global__ void k(float* x, int n) {}\n"
        "static int ceil_div(int a, int b) { return (a + b - 1) / b; }\n"
        "void launch(float* x, int n, cudaStream_t s) {\n"
        "  auto blocks = [](int m) { return m / 256 + 1; };\n"
        "  std::vector<float> v(n); v.push_back(1.f);\n"
        "  k<<<ceil_div(n, 256) + blocks(n), 256, 0, s>>>(x, n);\n"
        "  cudaError_t e = cudaGetLastError(); if (e != cudaSuccess) { fprintf(stderr, \"%s\", cudaGetErrorString(e)); exit(1); }\n"
        "}\n");
    EXPECT_TRUE(good.nvcc_only.empty()) << good.nvcc_only[0];
}

TEST(CompilerPrep, ExplicitInstantiationsFollowTheirTemplate) {
    std::string src =
        "template <typename T> __global__ void fill(T* x, T v) { x[0] = v; }\n"
        "template <typename T> void launch_fill(T* x, T v) { fill<T><<<1, 1>>>(x, v); }\n"
        "template void launch_fill<float>(float*, float);\n"
        "template void fill<int>(int*, int);\n"
        "template __global__ void fill<double>(double*, double);\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_FALSE(has(p.text, "launch_fill"));
    EXPECT_TRUE(has(p.text, "template void fill<int>(int*, int);"));
    EXPECT_TRUE(has(p.text, "template __global__ void fill<double>"));
}

TEST(CompilerPrep, RecordsTemplatesLaunchedFromHostCode) {
    std::string src =
        "#define BLOCK 128\n"
        "template <typename T, int B> __global__ void k(T* x) {}\n"
        "template <typename T> void run(T* x) {\n"
        "  k<float, 256><<<1, 256>>>((float*)x);\n"
        "  k<T, 64><<<1, 64>>>(x);\n"
        "  constexpr int local = 32;\n"
        "  k<int, local><<<1, 32>>>((int*)x);\n"
        "  k<double, BLOCK><<<1, BLOCK>>>((double*)x);\n"
        "}\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    // Only expressions NVRTC can name at namespace scope.
    ASSERT_EQ(p.host_launched_templates.size(), 2u);
    EXPECT_EQ(p.host_launched_templates[0], "k<float,256>");
    EXPECT_EQ(p.host_launched_templates[1], "k<double,BLOCK>");
}

TEST(CompilerPrep, MacroInvocationsAtNamespaceScopeStay) {
    std::string src =
        "#define DEFINE_SCALE(T) __global__ void scale_##T(T* x) { x[0] *= 2; }\n"
        "DEFINE_SCALE(float)\n"
        "DEFINE_SCALE(double)\n"
        "void host() {}\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_TRUE(has(p.text, "DEFINE_SCALE(float)"));
    EXPECT_TRUE(has(p.text, "DEFINE_SCALE(double)"));
    EXPECT_FALSE(has(p.text, "void host"));
}

TEST(CompilerPrep, DirectivesInsideRemovedCodeSurvive) {
    std::string src =
        "void host() {\n"
        "#define FROM_HOST 1\n"
        "#pragma unroll\n"
        "  for (int i = 0; i < 3; ++i) {}\n"
        "}\n"
        "__global__ void k(int* x) { x[0] = FROM_HOST; }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_TRUE(p.understood);
    EXPECT_TRUE(has(p.text, "#define FROM_HOST 1"));
    EXPECT_FALSE(has(p.text, "#pragma unroll"));
    EXPECT_FALSE(has(p.text, "void host"));
}

TEST(CompilerPrep, UnbalancedConditionalBracesLeaveTheSourceAlone) {
    std::string src =
        "#ifdef WIDE\n"
        "__global__ void k(double* x) {\n"
        "#else\n"
        "__global__ void k(float* x) {\n"
        "#endif\n"
        "  x[0] = 1;\n"
        "}\n"
        "void host() {}\n";
    auto p = prepare_cuda_source(src);
    EXPECT_FALSE(p.understood);
    EXPECT_EQ(p.text, src);
}

TEST(CompilerPrep, ScansIncludesAndIdentifiers) {
    std::string src =
        "#include <cmath>\n"
        "  #  include \"local.h\" // comment\n"
        "#define LIM std::numeric_limits<float>::max()\n"
        "__global__ void k(float* x) { x[0] = LIM; }\n";
    auto p = prepare_cuda_source(src);
    ASSERT_EQ(p.includes.size(), 2u);
    EXPECT_EQ(p.includes[0].name, "cmath");
    EXPECT_TRUE(p.includes[0].angled);
    EXPECT_EQ(p.includes[1].name, "local.h");
    EXPECT_FALSE(p.includes[1].angled);
    EXPECT_EQ(p.includes[1].line, 2);
    EXPECT_TRUE(p.identifiers.count("numeric_limits"));  // seen through the #define
    EXPECT_TRUE(p.identifiers.count("std"));
    EXPECT_EQ(kb::scan_includes(src).size(), 2u);
    // Names only removed host code spells do not count.
    auto q = prepare_cuda_source("void launch() { std::vector<int> v; }\n__global__ void k(float* x) {}\n");
    EXPECT_FALSE(q.identifiers.count("std"));
    EXPECT_FALSE(q.identifiers.count("vector"));
    EXPECT_TRUE(q.identifiers.count("k"));
}

TEST(CompilerPrep, FrameworkIncludesAreRejectedByName) {
    std::string src = "#include <cuda_runtime.h>\n\n#include <torch/extension.h>\n__global__ void k() {}\n";
    try {
        kb::reject_framework_includes(kb::scan_includes(src), "cand.cu");
        FAIL() << "expected a CompileError";
    } catch (const kb::CompileError& e) {
        EXPECT_EQ(e.status(), KB_ERR_COMPILE);
        std::string what = e.what();
        EXPECT_TRUE(has(what, "cand.cu:3")) << what;
        EXPECT_TRUE(has(what, "<torch/extension.h>")) << what;
        EXPECT_TRUE(has(what, "not a framework extension")) << what;
    }
    for (const char* inc : {"ATen/ATen.h", "c10/cuda/CUDAStream.h", "pybind11/pybind11.h", "Python.h"})
        EXPECT_THROW(kb::reject_framework_includes(kb::scan_includes(std::string("#include <") + inc + ">\n"), "c.cu"),
                     kb::CompileError)
            << inc;
    EXPECT_NO_THROW(kb::reject_framework_includes(kb::scan_includes("#include <cuda_fp16.h>\n#include <cub/cub.cuh>\n"), "c.cu"));
}

TEST(CompilerLog, SummaryNamesFirstErrorWithFileAndLine) {
    std::string log =
        "cand.cu(3): warning #177-D: variable \"y\" was declared but never referenced\n"
        "    int y;\n"
        "        ^\n\n"
        "cand.cu(7): error: identifier \"undefined_var\" is undefined\n"
        "    x[i] = undefined_var;\n"
        "           ^\n\n"
        "cand.cu(9): error: expected a \";\"\n\n"
        "2 errors detected in the compilation of \"cand.cu\".\n";
    std::string s = kb::summarize_compile_log(log, "nvrtc");
    EXPECT_TRUE(has(s, "cand.cu:7: error: identifier \"undefined_var\" is undefined")) << s;
    EXPECT_TRUE(has(s, "x[i] = undefined_var;")) << s;
    EXPECT_TRUE(has(s, "2 errors")) << s;
    EXPECT_EQ(kb::summarize_compile_log("", "nvcc"), "nvcc failed without a message");
    EXPECT_TRUE(has(kb::summarize_compile_log("ptxas fatal   : Unresolved extern function 'f'\n", "nvrtc"), "Unresolved"));
    EXPECT_EQ(kb::strip_temp_dir("/tmp/kb-x/cand.cu(1): error\n", "/tmp/kb-x"), "cand.cu(1): error\n");
}

TEST(CompilerLog, NvccQuotesTheKeywordsAsWritten) {
    // nvcc's front end expands __global__ in the declarations it quotes.
    const std::string log = "cand.cu(2): error: a __attribute__((global)) function must have a void return type\n"
                            "  __attribute__((global)) int f(__attribute__((shared)) float* x) {}\n";
    const std::string s = kb::with_cuda_keywords(log, "__global__ int f(float* x) {}\n");
    EXPECT_EQ(s, "cand.cu(2): error: a __global__ function must have a void return type\n"
                 "  __global__ int f(__shared__ float* x) {}\n");
    // Code that spells the attribute itself is quoted as it is.
    EXPECT_EQ(kb::with_cuda_keywords(log, "__attribute__((global)) int f() {}"),
              "cand.cu(2): error: a __attribute__((global)) function must have a void return type\n"
              "  __attribute__((global)) int f(__shared__ float* x) {}\n");
}

TEST(CompilerHeaders, PreludeOnlyBringsWhatTheSourceNames) {
    std::string bare = kb::prelude_for({});
    EXPECT_TRUE(has(bare, "__kb/config.h"));
    EXPECT_TRUE(has(bare, "__kb/math_macros.h"));
    EXPECT_FALSE(has(bare, "__kb/type_traits.h"));
    std::string with_std = kb::prelude_for({"std", "numeric_limits", "max", "sqrt"});
    EXPECT_FALSE(has(with_std, "__kb/type_traits.h"));  // ~5 ms NVRTC only pays when a trait is named
    EXPECT_TRUE(has(with_std, "__kb/limits.h"));
    EXPECT_TRUE(has(with_std, "__kb/minmax.h"));
    EXPECT_TRUE(has(with_std, "__kb/math.h"));
    EXPECT_FALSE(has(with_std, "__kb/pair.h"));
    std::string traits = kb::prelude_for({"std", "is_same_v", "make_pair"});
    EXPECT_TRUE(has(traits, "__kb/type_traits.h"));
    EXPECT_TRUE(has(traits, "__kb/pair.h"));
    EXPECT_FALSE(has(kb::prelude_for({"numeric_limits"}), "__kb/limits.h"));  // no std, no std::numeric_limits
    EXPECT_TRUE(has(kb::prelude_for({}, {"cub/cub.cuh"}), "__KB_CCCL"));
    int found = 0;
    for (const auto& h : kb::device_headers()) {
        std::string n = h.name;
        if (n == "cmath" || n == "cstdint" || n == "limits" || n == "cassert" || n == "cub/cub.cuh") ++found;
    }
    EXPECT_EQ(found, 5);
    EXPECT_TRUE(kb::is_host_only_header("vector"));
    EXPECT_FALSE(kb::is_host_only_header("cmath"));
}

}  // namespace
