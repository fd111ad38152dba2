// The compiler end to end: NVRTC to cubin and PTX, entry discovery, kernel
// name resolution, policy flags, the cache, error summaries, the nvcc
// fallback and given images. Needs the CUDA toolkit (NVRTC, headers, nvcc
// for the fallback tests), no GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/compile_cache.h"
#include "compiler/image_entries.h"
#include "compiler/nvrtc_minimal.h"
#include "protocol/wire.h"
#include "util/files.h"

namespace {

using kb::CompiledImage;
using kb::CompileError;
using kb::CompileRequest;
using kb::Compiler;
using kb::CompilerConfig;
using kb::ImageKind;
using kb::Language;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

Compiler& shared_compiler() {
    static Compiler c(CompilerConfig{});
    return c;
}

CompileRequest cuda(const std::string& code, std::vector<std::string> names = {}) {
    CompileRequest r;
    r.code = code;
    r.source_name = "candidate.cu";
    r.kernel_names = std::move(names);
    return r;
}

// NVRTC alone (the fast path) must handle it: no fallback.
CompileRequest nvrtc_only(const std::string& code, std::vector<std::string> names = {}) {
    CompileRequest r = cuda(code, std::move(names));
    r.allow_nvcc_fallback = false;
    return r;
}

bool have_nvcc() { return !shared_compiler().nvcc_path().empty(); }

std::string temp_dir() {
    char buf[] = "/tmp/kbench-compiler-test-XXXXXX";
    char* d = ::mkdtemp(buf);
    return d ? d : "";
}

void remove_dir(const std::string& dir) {
    std::string cmd = "rm -rf '" + dir + "'";
    if (std::system(cmd.c_str()) != 0) std::perror("rm");
}

const char* kVadd =
    "__global__ void vadd(const float* a, const float* b, float* c, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

TEST(Compiler, NvrtcCompilesSmallKernelToCubin) {
    CompiledImage img = shared_compiler().compile(nvrtc_only(kVadd, {"vadd"}));
    EXPECT_EQ(img.kind, ImageKind::cubin);
    EXPECT_EQ(img.path, "nvrtc");
    EXPECT_EQ(img.arch, "sm_90");
    ASSERT_GE(img.bytes.size(), 4u);
    EXPECT_EQ(img.bytes.compare(0, 4, "\x7f" "ELF"), 0);
    EXPECT_EQ(kb::cubin_sm(img.bytes), 90);
    ASSERT_EQ(img.entries.size(), 1u);
    EXPECT_EQ(img.entries[0], "_Z4vaddPKfS0_Pfi");
    EXPECT_EQ(img.symbols.at("vadd"), "_Z4vaddPKfS0_Pfi");
    EXPECT_GT(img.nvrtc_ms, 0.0);
    EXPECT_EQ(img.nvcc_ms, 0.0);
    EXPECT_FALSE(img.cache_hit);
    EXPECT_EQ(img.hash.size(), 64u);
}

TEST(Compiler, NvrtcCompilesToPtxWhenAsked) {
    CompileRequest r = nvrtc_only(kVadd, {"vadd"});
    r.emit_ptx = true;
    CompiledImage img = shared_compiler().compile(r);
    EXPECT_EQ(img.kind, ImageKind::ptx);
    EXPECT_TRUE(has(img.bytes, ".version"));
    EXPECT_TRUE(has(img.bytes, ".target sm_90"));
    EXPECT_TRUE(has(img.bytes, ".entry _Z4vaddPKfS0_Pfi"));
    EXPECT_EQ(img.bytes.find('\0'), std::string::npos);
    ASSERT_EQ(img.entries.size(), 1u);
    EXPECT_EQ(img.symbols.at("vadd"), "_Z4vaddPKfS0_Pfi");
}

TEST(Compiler, ArchSuffixesPassThroughAndBadArchIsTheCallersError) {
    CompileRequest r = nvrtc_only(kVadd, {"vadd"});
    r.arch = "sm_90a";
    CompiledImage img = shared_compiler().compile(r);
    EXPECT_EQ(kb::cubin_sm(img.bytes), 90);
    EXPECT_TRUE(has(shared_compiler().nvrtc_options(r)[0], "sm_90a"));
    r.arch = "sm_80";
    EXPECT_EQ(kb::cubin_sm(shared_compiler().compile(r).bytes), 80);
    r.arch = "volta";
    try {
        shared_compiler().compile(r);
        FAIL();
    } catch (const CompileError&) {
        FAIL() << "a bad architecture is not a compile error";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
    }
}

const char* kNames =
    "namespace ns { __global__ void vadd(float* x) { x[0] = 1; } }\n"
    "namespace other { __global__ void only_here(float* x) { x[0] = 2; } }\n"
    "template <typename T, int B> __global__ void tk(T* x) { x[0] = T(B); }\n"
    "__global__ void ov(float* x) { x[0] = 3; }\n"
    "__global__ void ov(double* x) { x[0] = 4; }\n"
    "__global__ void ov2(const float* x, long long* y, unsigned int n) {}\n"
    "extern \"C\" __global__ void plain(int* x) { x[0] = 5; }\n";

TEST(Compiler, ResolvesPlainNamespacedTemplateOverloadAndExternCNames) {
    CompiledImage img = shared_compiler().compile(nvrtc_only(
        kNames, {"ns::vadd", "only_here", "tk<float, 256>", "tk<int,4>", "ov(float*)", "ov( double * )", "plain",
                 "ov2(const float*, int64_t*, unsigned)"}));
    EXPECT_EQ(img.symbols.at("ns::vadd"), "_ZN2ns4vaddEPf");
    EXPECT_EQ(img.symbols.at("only_here"), "_ZN5other9only_hereEPf");
    EXPECT_EQ(img.symbols.at("tk<float, 256>"), "_Z2tkIfLi256EEvPT_");
    EXPECT_EQ(img.symbols.at("tk<int,4>"), "_Z2tkIiLi4EEvPT_");
    EXPECT_EQ(img.symbols.at("ov(float*)"), "_Z2ovPf");
    EXPECT_EQ(img.symbols.at("ov( double * )"), "_Z2ovPd");
    EXPECT_EQ(img.symbols.at("plain"), "plain");
    EXPECT_EQ(kb::demangle(img.symbols.at("ov2(const float*, int64_t*, unsigned)")),
              "ov2(float const*, long long*, unsigned int)");
    // Every kernel in the image is listed, the instantiations named included.
    EXPECT_EQ(img.entries.size(), 8u);
}

TEST(Compiler, MissingKernelListsKernelsAndSuggestsTheClosest) {
    try {
        shared_compiler().compile(nvrtc_only(kNames, {"vad"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        std::string w = e.what();
        EXPECT_EQ(e.status(), KB_ERR_COMPILE);
        EXPECT_TRUE(has(w, "names kernel 'vad', which")) << w;
        EXPECT_TRUE(has(w, "ns::vadd(float*)")) << w;
        EXPECT_TRUE(has(w, "plain")) << w;
        EXPECT_TRUE(has(w, "Did you mean 'ns::vadd'?")) << w;
    }
    try {
        shared_compiler().compile(nvrtc_only("__device__ float f(float x) { return x; }\n", {"f"}));
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "defines no __global__ kernel")) << e.what();
    }
}

TEST(Compiler, AmbiguousNameAsksForTheSignature) {
    try {
        shared_compiler().compile(nvrtc_only(kNames, {"ov"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        std::string w = e.what();
        EXPECT_TRUE(has(w, "ambiguous")) << w;
        EXPECT_TRUE(has(w, "ov(float*)")) << w;
        EXPECT_TRUE(has(w, "ov(double*)")) << w;
        EXPECT_TRUE(has(w, "signature")) << w;
    }
}

TEST(Compiler, PolicyDefinesFastMathRegistersAndStandard) {
    const char* src =
        "#ifndef SCALE\n#error SCALE must be defined by the policy\n#endif\n"
        "#if __cplusplus < 201703L\n#error wrong standard\n#endif\n"
        "__global__ void k(float* x) { x[0] = SCALE * __expf(x[1]) / x[2]; }\n";
    CompileRequest r = nvrtc_only(src, {"k"});
    EXPECT_THROW(shared_compiler().compile(r), CompileError);
    r.policy.defines = {"SCALE=2.5f"};
    CompiledImage precise = shared_compiler().compile(r);
    r.policy.fast_math = true;
    r.policy.max_registers = 32;
    CompiledImage fast = shared_compiler().compile(r);
    EXPECT_EQ(fast.symbols.at("k"), precise.symbols.at("k"));
    EXPECT_NE(fast.hash, precise.hash);
    auto opts = shared_compiler().nvrtc_options(r);
    EXPECT_TRUE(std::find(opts.begin(), opts.end(), "--use_fast_math") != opts.end());
    EXPECT_TRUE(std::find(opts.begin(), opts.end(), "--maxrregcount=32") != opts.end());
    EXPECT_TRUE(std::find(opts.begin(), opts.end(), "-DSCALE=2.5f") != opts.end());
    r.policy.std = "c++14";
    EXPECT_THROW(shared_compiler().compile(r), CompileError);
    r.policy.std = "c++20";
    EXPECT_NO_THROW(shared_compiler().compile(r));
    auto flags = Compiler::nvcc_flags(r);
    EXPECT_TRUE(std::find(flags.begin(), flags.end(), "-std=c++20") != flags.end());
    EXPECT_TRUE(std::find(flags.begin(), flags.end(), "-use_fast_math") != flags.end());
    EXPECT_TRUE(std::find(flags.begin(), flags.end(), "--expt-relaxed-constexpr") != flags.end());
}

TEST(Compiler, CompileErrorSummaryHasTheLineAndTheLogIsKept) {
    const char* src =
        "__global__ void broken(float* x, int n) {\n"
        "  int i = blockIdx.x;\n"
        "  x[i] = undefined_thing;\n"
        "}\n";
    try {
        shared_compiler().compile(nvrtc_only(src, {"broken"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        std::string w = e.what();
        EXPECT_TRUE(has(w, "candidate.cu:3")) << w;
        EXPECT_TRUE(has(w, "undefined_thing")) << w;
        EXPECT_TRUE(has(e.log(), "candidate.cu(3): error")) << e.log();
        EXPECT_TRUE(has(e.log(), "1 error detected")) << e.log();
    }
}

TEST(NvrtcMinimal, NamesTheOptionLeavesOutOrADeviceLaunchCompileInFull) {
    EXPECT_TRUE(kb::nvrtc_minimal_suffices({"vadd", "blockIdx", "threadIdx", "float", "n"}, kVadd));
    for (const char* name : {"cudaStream_t", "CUDART_PI_F", "tex1Dfetch", "surf2Dwrite", "CUdeviceptr"})
        EXPECT_FALSE(kb::nvrtc_minimal_suffices({"k", name}, "")) << name;
    EXPECT_FALSE(kb::nvrtc_minimal_suffices({"k"}, "child<<<1, 1>>>(x);"));
    EXPECT_TRUE(kb::nvrtc_minimal_may_explain("k.cu(3): error: identifier \"cudaStream_t\" is undefined"));
    EXPECT_TRUE(kb::nvrtc_minimal_may_explain("k.cu(3): error: identifier \"tex2D\" is undefined"));
    EXPECT_FALSE(kb::nvrtc_minimal_may_explain("k.cu(3): error: identifier \"undefined_thing\" is undefined"));
}

TEST(Compiler, MinimalChangesNeitherTheImageNorTheVerdict) {
    CompilerConfig full_config;
    full_config.nvrtc_minimal = false;
    Compiler full(full_config);
    Compiler minimal{CompilerConfig{}};
    // The same cubin, byte for byte.
    CompiledImage a = minimal.compile(nvrtc_only(kVadd, {"vadd"}));
    CompiledImage b = full.compile(nvrtc_only(kVadd, {"vadd"}));
    EXPECT_EQ(a.bytes, b.bytes);
    // A name -minimal leaves out that the source does not spell (it comes
    // from the policy's define): the -minimal compile fails on it, the full
    // compile answers.
    CompileRequest r = nvrtc_only("__global__ void k(float* x) { STREAM s = 0; x[0] = s ? 1.f : 0.f; }\n", {"k"});
    r.policy.defines = {"STREAM=cudaStream_t"};
    CompiledImage c = minimal.compile(r);
    EXPECT_EQ(c.bytes, full.compile(r).bytes);
    // A real error is the same error either way.
    const char* broken = "__global__ void broken(float* x) {\n  x[0] = undefined_thing;\n}\n";
    std::string with, without;
    try { minimal.compile(nvrtc_only(broken, {"broken"})); } catch (const CompileError& e) { with = e.what(); }
    try { full.compile(nvrtc_only(broken, {"broken"})); } catch (const CompileError& e) { without = e.what(); }
    EXPECT_TRUE(has(with, "undefined_thing")) << with;
    EXPECT_EQ(with, without);
}

// A build that is only compared (a correctness-only score) is compiled with
// NVRTC's -Ofast-compile=mid: the same kernels under a key of its own, never
// served to a build that will be timed; the same verdict for code that does
// not compile; the flag kept by the wire and the disk cache; the ordinary
// build, key and all, when the config turns it off or the request is PTX.
TEST(Compiler, AComparedOnlyBuildIsFastCompiledUnderAKeyOfItsOwn) {
    Compiler compiler{CompilerConfig{}};
    const std::string code = std::string(kVadd) + "// fast compile " + std::to_string(::getpid()) + "\n";
    CompileRequest timed = nvrtc_only(code, {"vadd"});
    CompileRequest compared = timed;
    compared.comparisons_only = true;
    CompiledImage fast = compiler.compile(compared);
    EXPECT_TRUE(fast.fast_compiled);
    EXPECT_FALSE(fast.cache_hit);
    EXPECT_EQ(fast.kind, ImageKind::cubin);
    CompiledImage full = compiler.compile(timed);
    EXPECT_FALSE(full.cache_hit) << "a timed build never gets the compared-only image";
    EXPECT_FALSE(full.fast_compiled);
    EXPECT_NE(full.hash, fast.hash);
    EXPECT_EQ(fast.entries, full.entries);
    EXPECT_EQ(fast.symbols, full.symbols);
    CompiledImage again = compiler.compile(compared);
    EXPECT_TRUE(again.cache_hit);
    EXPECT_TRUE(again.fast_compiled);

    std::vector<std::string> blobs;
    EXPECT_TRUE(kb::wire::image_from_json(kb::wire::image_to_json(fast, &blobs), blobs).fast_compiled);
    const std::string dir = temp_dir();
    { kb::CompileCache(dir, 4).put("k", fast); }
    std::optional<CompiledImage> hit = kb::CompileCache(dir, 4).find("k");
    ASSERT_TRUE(hit.has_value());
    EXPECT_TRUE(hit->fast_compiled);
    remove_dir(dir);

    const char* broken = "__global__ void broken(float* x) {\n  x[0] = undefined_thing;\n}\n";
    std::string fast_error, full_error;
    CompileRequest b = nvrtc_only(broken, {"broken"});
    try { compiler.compile(b); } catch (const CompileError& e) { full_error = e.what(); }
    b.comparisons_only = true;
    try { compiler.compile(b); } catch (const CompileError& e) { fast_error = e.what(); }
    EXPECT_TRUE(has(fast_error, "undefined_thing")) << fast_error;
    EXPECT_EQ(fast_error, full_error);

    CompilerConfig off;
    off.comparisons_fast_compile = false;
    CompiledImage plain = Compiler(off).compile(compared);
    EXPECT_FALSE(plain.fast_compiled);
    EXPECT_EQ(plain.hash, full.hash);
    CompileRequest ptx = compared;
    ptx.emit_ptx = true;
    EXPECT_FALSE(compiler.compile(ptx).fast_compiled) << "PTX is handed out, not only compared";
}

TEST(Compiler, WarningsStayInTheLogOfASuccess) {
    CompiledImage img = shared_compiler().compile(
        nvrtc_only("__global__ void k(float* x) { int unused = 3; x[0] = 1; }\n", {"k"}));
    EXPECT_TRUE(has(img.log, "warning")) << img.log;
}

TEST(Compiler, MemoryCacheHitIsFastAndKeepsThePath) {
    Compiler c(CompilerConfig{});
    CompileRequest r = nvrtc_only(std::string(kVadd) + "// memory cache test\n", {"vadd"});
    CompiledImage first = c.compile(r);
    EXPECT_FALSE(first.cache_hit);
    CompiledImage second = c.compile(r);
    EXPECT_TRUE(second.cache_hit);
    EXPECT_EQ(second.path, "nvrtc");
    EXPECT_EQ(second.bytes, first.bytes);
    EXPECT_EQ(second.symbols, first.symbols);
    EXPECT_EQ(second.hash, first.hash);
    EXPECT_LT(second.compile_ms, 1.0);
    // Anything in the key changes the key.
    CompileRequest other = r;
    other.kernel_names = {};
    EXPECT_NE(c.cache_key(other), c.cache_key(r));
    other = r;
    other.arch = "sm_80";
    EXPECT_NE(c.cache_key(other), c.cache_key(r));
    other = r;
    other.policy.defines = {"X"};
    EXPECT_NE(c.cache_key(other), c.cache_key(r));
}

TEST(Compiler, DirectoryCacheIsSharedBetweenCompilers) {
    std::string dir = temp_dir();
    ASSERT_FALSE(dir.empty());
    CompilerConfig cfg;
    cfg.cache_dir = dir;
    CompileRequest r = nvrtc_only(std::string(kVadd) + "// directory cache test\n", {"vadd"});
    std::string key;
    {
        Compiler a(cfg);
        CompiledImage img = a.compile(r);
        EXPECT_FALSE(img.cache_hit);
        key = img.hash;
    }
    EXPECT_TRUE(kb::file_exists(dir + "/" + key + ".bin"));
    EXPECT_TRUE(kb::file_exists(dir + "/" + key + ".json"));
    {
        Compiler b(cfg);
        CompiledImage img = b.compile(r);
        EXPECT_TRUE(img.cache_hit);
        EXPECT_EQ(img.path, "nvrtc");
        EXPECT_EQ(img.symbols.at("vadd"), "_Z4vaddPKfS0_Pfi");
        EXPECT_EQ(img.hash, key);
    }
    // A damaged image is not trusted: compiled again.
    kb::write_file_atomic(dir + "/" + key + ".bin", "garbage");
    {
        Compiler c(cfg);
        CompiledImage img = c.compile(r);
        EXPECT_FALSE(img.cache_hit);
        EXPECT_EQ(img.bytes.compare(0, 4, "\x7f" "ELF"), 0);
    }
    remove_dir(dir);
}

TEST(Compiler, ConcurrentCompilesShareTheWork) {
    Compiler c(CompilerConfig{});
    std::vector<std::thread> threads;
    std::atomic<int> ok{0}, hits{0};
    for (int t = 0; t < 6; ++t) {
        threads.emplace_back([&, t] {
            // two distinct sources, each compiled by three threads at once
            CompileRequest r = nvrtc_only(std::string(kVadd) + "// concurrent " + std::to_string(t % 2) + "\n", {"vadd"});
            CompiledImage img = c.compile(r);
            if (img.symbols.at("vadd") == "_Z4vaddPKfS0_Pfi") ++ok;
            if (img.cache_hit) ++hits;
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 6);
    EXPECT_EQ(hits.load(), 4);
}

// ---- nvcc's conveniences under NVRTC (issue 4): each with the fast path alone.

struct Convenience {
    const char* name;
    const char* code;
};

const Convenience kConveniences[] = {
    {"infinity_without_include",
     "__global__ void k(float* x) { x[0] = -INFINITY; x[1] = NAN; x[2] = isinf(x[0]) ? HUGE_VALF : 0.f; }\n"},
    {"math_h", "#include <math.h>\n__global__ void k(float* x) { x[0] = sqrtf(x[1]) + expf(x[2]) + M_PI + INFINITY; }\n"},
    {"cmath",
     "#include <cmath>\n__global__ void k(float* x) { x[0] = std::sqrt(x[1]) + std::exp(x[2]) + std::abs(x[3]) + "
     "std::pow(x[4], 2) + std::fmax(x[5], 0.f) + (std::isnan(x[6]) ? 1.f : 0.f) + std::tanh(x[7]); }\n"},
    {"float_h", "#include <float.h>\n__global__ void k(float* x) { x[0] = -FLT_MAX; x[1] = FLT_EPSILON + FLT_MIN; }\n"},
    {"cfloat", "#include <cfloat>\n__global__ void k(double* x) { x[0] = DBL_MAX; }\n"},
    {"cstdint",
     "#include <cstdint>\n__global__ void k(const int64_t* a, uint32_t* b, std::uint8_t* c) { b[0] = (uint32_t)a[0] "
     "& UINT32_MAX; c[0] = (std::uint8_t)INT8_MAX; }\n"},
    {"limits",
     "#include <limits>\n__global__ void k(float* x, int* y) { x[0] = std::numeric_limits<float>::max(); x[1] = "
     "-std::numeric_limits<float>::infinity(); y[0] = std::numeric_limits<int>::min(); }\n"},
    {"printf", "#include <stdio.h>\n__global__ void k(const float* x) { printf(\"x0=%f %d\\n\", x[0], 3); }\n"},
    {"printf_without_include", "__global__ void k(const float* x) { printf(\"x0=%f\\n\", x[0]); }\n"},
    {"cstdio", "#include <cstdio>\n__global__ void k(const float* x) { std::printf(\"x0=%f\\n\", x[0]); }\n"},
    {"assert", "#include <cassert>\n__global__ void k(const float* x, int n) { assert(n > 0 && x != nullptr); }\n"},
    {"type_traits_algorithm_utility",
     "#include <type_traits>\n#include <algorithm>\n#include <utility>\n"
     "template <typename T> __global__ void k(T* x) { static_assert(std::is_floating_point<T>::value, \"\");\n"
     "  auto p = std::make_pair(x[0], x[1]); x[2] = std::min(p.first, p.second) + std::max(x[3], T(0)) + "
     "std::clamp(x[4], T(0), T(1)); }\n"
     "template __global__ void k<float>(float*);\n"},
    {"host_launcher",
     "#include <cuda_runtime.h>\n#include <vector>\n#include <iostream>\n"
     "__global__ void k(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }\n"
     "void launch(float* x, int n, cudaStream_t s) { k<<<(n + 255) / 256, 256, 0, s>>>(x, n);\n"
     "  if (cudaGetLastError() != cudaSuccess) std::cerr << \"launch failed\\n\"; }\n"
     "int main() { std::vector<float> h(16); float* d; cudaMalloc(&d, 64); launch(d, 16, 0); return 0; }\n"},
    {"cub_block_reduce",
     "#include <cub/cub.cuh>\n"
     "__global__ void k(const float* x, float* out) {\n"
     "  typedef cub::BlockReduce<float, 128> BR;\n"
     "  __shared__ typename BR::TempStorage tmp;\n"
     "  float s = BR(tmp).Sum(x[threadIdx.x]);\n"
     "  if (threadIdx.x == 0) *out = s + INFINITY * 0.f;\n"
     "}\n"},
};

class CompilerConvenience : public ::testing::TestWithParam<Convenience> {};

TEST_P(CompilerConvenience, CompilesWithNvrtcAlone) {
    const Convenience& c = GetParam();
    std::string name = has(c.code, "template __global__ void k<float>") ? "k<float>" : "k";
    try {
        CompiledImage img = shared_compiler().compile(nvrtc_only(c.code, {name}));
        EXPECT_EQ(img.path, "nvrtc");
        EXPECT_EQ(img.symbols.count(name), 1u);
        EXPECT_FALSE(has(img.log, "error")) << img.log;
    } catch (const CompileError& e) {
        FAIL() << c.name << ": " << e.what() << "\n" << e.log();
    }
}

INSTANTIATE_TEST_SUITE_P(Issue4, CompilerConvenience, ::testing::ValuesIn(kConveniences),
                         [](const ::testing::TestParamInfo<Convenience>& i) { return std::string(i.param.name); });

TEST(Compiler, StdShimsLiveAlongsideCcclHeaders) {
    // CUB (libcu++ underneath) and the std:: shims in one translation unit,
    // structured bindings included.
    const char* src =
        "#include <cub/cub.cuh>\n#include <cmath>\n#include <limits>\n#include <type_traits>\n"
        "#include <utility>\n#include <array>\n#include <cfloat>\n"
        "__global__ void k(const float* x, float* out) {\n"
        "  using BR = cub::BlockReduce<float, 128>;\n"
        "  __shared__ typename BR::TempStorage tmp;\n"
        "  static_assert(std::is_same<float, std::remove_cv_t<const float>>::value, \"\");\n"
        "  float m = std::max(x[threadIdx.x], -std::numeric_limits<float>::infinity());\n"
        "  float r = BR(tmp).Reduce(m, cuda::maximum<>{});\n"
        "  std::array<float, 2> a{r, -FLT_MAX};\n"
        "  auto [p, q] = std::make_pair(a[0], a[1]);\n"
        "  if (threadIdx.x == 0) *out = std::isinf(p) ? q : p + INFINITY * 0.f;\n"
        "}\n";
    CompiledImage img = shared_compiler().compile(nvrtc_only(src, {"k"}));
    EXPECT_EQ(img.path, "nvrtc");
    EXPECT_FALSE(has(img.log, "warning #47")) << img.log;  // INFINITY redefined by libcu++: silenced
}

TEST(Compiler, WhatNvccWouldRejectIsLeftToNvcc) {
    // A host function with a __device__ twin of the same signature is a
    // redefinition to nvcc: removing the host one must not make it compile.
    const char* twins =
        "float act(float x) { return x; }\n"
        "__device__ float act(float x) { return 2 * x; }\n"
        "__global__ void k(float* x) { x[0] = act(x[1]); }\n";
    EXPECT_THROW(shared_compiler().compile(nvrtc_only(twins, {"k"})), CompileError);
    // A namespace-scope constant array read at run time by device code:
    // nvcc says "undefined in device code", NVRTC would not.
    const char* table =
        "constexpr float kCoef[3] = {0.25f, 0.5f, 0.25f};\n"
        "__global__ void k(const float* x, float* y) { y[0] = kCoef[threadIdx.x % 3] * x[0]; }\n";
    if (have_nvcc()) {
        try {
            shared_compiler().compile(cuda(table, {"k"}));
            FAIL() << "nvcc rejects this";
        } catch (const CompileError& e) {
            EXPECT_TRUE(has(e.what(), "kCoef")) << e.what();
            EXPECT_TRUE(has(e.log(), "compiled with nvcc, not NVRTC")) << e.log();
        }
    }
    CompiledImage lenient = shared_compiler().compile(nvrtc_only(table, {"k"}));
    EXPECT_TRUE(has(lenient.log, "nvcc may reject this")) << lenient.log;
}

TEST(Compiler, TemplateLaunchedOnlyByHostCodeIsFoundByItsPlainName) {
    const char* src =
        "template <int BLOCK> __global__ void ln(float* x) { x[threadIdx.x] = BLOCK; }\n"
        "void launch(float* x, int rows) { ln<256><<<rows, 256>>>(x); }\n";
    CompiledImage img = shared_compiler().compile(nvrtc_only(src, {"ln"}));
    EXPECT_EQ(img.path, "nvrtc");
    EXPECT_EQ(img.symbols.at("ln"), "_Z2lnILi256EEvPf");
}

TEST(Compiler, FrameworkExtensionIsRejected) {
    const char* src =
        "#include <torch/extension.h>\n"
        "__global__ void k(float* x) { x[0] = 1; }\n"
        "torch::Tensor forward(torch::Tensor x) { return x; }\n";
    try {
        shared_compiler().compile(cuda(src, {"k"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        std::string w = e.what();
        EXPECT_TRUE(has(w, "candidate.cu:1")) << w;
        EXPECT_TRUE(has(w, "torch/extension.h")) << w;
        EXPECT_TRUE(has(w, "must be a CUDA kernel")) << w;
    }
}

// ---- the nvcc fallback

// A kernel parameter whose class has a host constructor: nvcc compiles it,
// NVRTC refuses any host function (and kbench keeps constructors).
const char* kNeedsNvcc =
    "struct Timer { float ms; Timer() : ms(0) {} };\n"
    "__global__ void k(float* x, Timer t) { x[0] = t.ms; }\n"
    "float host_time() { Timer t; return t.ms; }\n";

TEST(Compiler, NvccFallbackCompilesWhatNvrtcRefuses) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc in the toolkit";
    EXPECT_THROW(shared_compiler().compile(nvrtc_only(kNeedsNvcc, {"k"})), CompileError);
    CompiledImage img = shared_compiler().compile(cuda(kNeedsNvcc, {"k"}));
    EXPECT_EQ(img.path, "nvcc");
    EXPECT_GT(img.nvrtc_ms, 0.0);
    EXPECT_GT(img.nvcc_ms, 0.0);
    EXPECT_EQ(img.symbols.at("k"), "_Z1kPf5Timer");
    EXPECT_EQ(kb::cubin_sm(img.bytes), 90);
    EXPECT_TRUE(has(img.log, "NVRTC failed first")) << img.log;
    EXPECT_TRUE(has(img.fallback_reason, "JIT mode")) << img.fallback_reason;
    // PTX through nvcc too
    CompileRequest r = cuda(kNeedsNvcc, {"k"});
    r.emit_ptx = true;
    CompiledImage ptx = shared_compiler().compile(r);
    EXPECT_EQ(ptx.path, "nvcc");
    EXPECT_EQ(ptx.kind, ImageKind::ptx);
    EXPECT_TRUE(has(ptx.bytes, ".entry _Z1kPf5Timer"));
}

TEST(Compiler, ForcedNvccInstantiatesNamedTemplates) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc in the toolkit";
    CompileRequest r = cuda(kNames, {"tk<float, 256>", "ns::vadd", "ov(double*)"});
    r.force_nvcc = true;
    CompiledImage img = shared_compiler().compile(r);
    EXPECT_EQ(img.path, "nvcc");
    EXPECT_EQ(img.nvrtc_ms, 0.0);
    EXPECT_EQ(img.symbols.at("tk<float, 256>"), "_Z2tkIfLi256EEvPT_");
    EXPECT_EQ(img.symbols.at("ns::vadd"), "_ZN2ns4vaddEPf");
    EXPECT_EQ(img.symbols.at("ov(double*)"), "_Z2ovPd");
}

TEST(Compiler, WhenNvccFailsTooItsLogIsTheVerdict) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc in the toolkit";
    const char* src =
        "__global__ void k(float* x) {\n"
        "  x[0] = not_declared;\n"
        "}\n";
    try {
        shared_compiler().compile(cuda(src, {"k"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        std::string w = e.what();
        EXPECT_TRUE(has(w, "candidate.cu:2")) << w;
        EXPECT_TRUE(has(w, "not_declared")) << w;
        EXPECT_TRUE(has(e.log(), "candidate.cu(2): error")) << e.log();
        EXPECT_FALSE(has(e.log(), "/tmp/kbench-nvcc-")) << e.log();  // temp paths stripped
        EXPECT_TRUE(has(e.log(), "NVRTC failed first")) << e.log();
    }
}

TEST(Compiler, FallbackCanBeTurnedOff) {
    if (have_nvcc()) {
        // An image only nvcc could build is not served from the cache to a
        // request that forbids the fallback.
        Compiler c(CompilerConfig{});
        EXPECT_EQ(c.compile(cuda(kNeedsNvcc, {"k"})).path, "nvcc");
        EXPECT_THROW(c.compile(nvrtc_only(kNeedsNvcc, {"k"})), CompileError);
        EXPECT_TRUE(c.compile(cuda(kNeedsNvcc, {"k"})).cache_hit);
        CompiledImage fast = c.compile(nvrtc_only(kVadd, {"vadd"}));
        EXPECT_TRUE(c.compile(cuda(kVadd, {"vadd"})).cache_hit);  // an NVRTC image serves both
        EXPECT_EQ(fast.path, "nvrtc");
    }
    try {
        shared_compiler().compile(nvrtc_only(kNeedsNvcc, {"k"}));
        FAIL() << "expected a CompileError";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "candidate.cu:1")) << e.what();
        EXPECT_TRUE(has(e.what(), "JIT mode")) << e.what();
    }
}

// ---- given images

TEST(Compiler, GivenPtxAndCubinPassThrough) {
    CompileRequest r = nvrtc_only(kNames, {"plain", "ov(float*)"});
    CompiledImage cubin = shared_compiler().compile(r);
    r.emit_ptx = true;
    CompiledImage ptx = shared_compiler().compile(r);

    CompileRequest given;
    given.language = Language::cubin;
    given.code = cubin.bytes;
    given.source_name = "given.cubin";
    given.kernel_names = {"plain", "ns::vadd", "ov(double*)"};
    CompiledImage g = shared_compiler().compile(given);
    EXPECT_EQ(g.path, "given");
    EXPECT_EQ(g.kind, ImageKind::cubin);
    EXPECT_EQ(g.bytes, cubin.bytes);
    EXPECT_EQ(g.symbols.at("plain"), "plain");
    EXPECT_EQ(g.symbols.at("ns::vadd"), "_ZN2ns4vaddEPf");
    EXPECT_EQ(g.entries.size(), cubin.entries.size());

    given.language = Language::ptx;
    given.code = ptx.bytes;
    given.source_name = "given.ptx";
    CompiledImage gp = shared_compiler().compile(given);
    EXPECT_EQ(gp.path, "given");
    EXPECT_EQ(gp.kind, ImageKind::ptx);
    EXPECT_EQ(gp.symbols.at("ov(double*)"), "_Z2ovPd");

    given.kernel_names = {"missing"};
    EXPECT_THROW(shared_compiler().compile(given), CompileError);

    // A cubin for another architecture family does not load on this one.
    CompileRequest r80 = nvrtc_only(kVadd, {"vadd"});
    r80.arch = "sm_80";
    given.language = Language::cubin;
    given.code = shared_compiler().compile(r80).bytes;
    given.kernel_names = {"vadd"};
    try {
        shared_compiler().compile(given);
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "sm_80")) << e.what();
    }
}

TEST(Compiler, GarbageImagesAreRejected) {
    CompileRequest g;
    g.language = Language::cubin;
    g.source_name = "x.cubin";
    for (std::string bytes : {std::string("not an elf at all"), std::string("\x7f" "ELF\x02\x01\x01", 7),
                              std::string("\x7f" "ELF") + std::string(60, '\0')}) {
        g.code = bytes;
        try {
            shared_compiler().compile(g);
            FAIL() << "accepted garbage";
        } catch (const CompileError& e) {
            EXPECT_EQ(e.status(), KB_ERR_COMPILE);
            EXPECT_TRUE(has(e.what(), "not a loadable cubin")) << e.what();
        }
    }
    // a host ELF (this test binary) is not a cubin
    std::string self = kb::read_file("/proc/self/exe").substr(0, 4096);
    g.code = self;
    EXPECT_THROW(shared_compiler().compile(g), CompileError);
    // a truncated cubin
    CompiledImage real = shared_compiler().compile(nvrtc_only(kVadd, {"vadd"}));
    g.code = real.bytes.substr(0, real.bytes.size() / 2);
    EXPECT_THROW(shared_compiler().compile(g), CompileError);

    g.language = Language::ptx;
    g.code = "__global__ void k() {}";
    try {
        shared_compiler().compile(g);
        FAIL();
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), ".version")) << e.what();
    }
}

TEST(Compiler, TritonCubinWithMetadata) {
    CompiledImage real = shared_compiler().compile(nvrtc_only("extern \"C\" __global__ void add_kernel(float* x) {}\n"));
    CompileRequest t;
    t.language = Language::triton_binary;
    t.code = real.bytes;
    t.source_name = "add_kernel.cubin";
    t.kernel_names = {"add_kernel"};
    t.triton_metadata = R"({"name": "add_kernel", "num_warps": 4, "shared": 1024, "num_ctas": 1, "target": {"arch": 90}})";
    CompiledImage img = shared_compiler().compile(t);
    EXPECT_EQ(img.path, "given");
    EXPECT_EQ(img.symbols.at("add_kernel"), "add_kernel");
    t.triton_metadata = R"({"name": "other_kernel", "num_warps": 4, "shared": 0})";
    EXPECT_THROW(shared_compiler().compile(t), CompileError);

    kb::TritonKernelInfo info = kb::parse_triton_metadata(R"({"name": "k", "num_warps": 8, "shared": 49152})");
    EXPECT_EQ(info.name, "k");
    EXPECT_EQ(info.num_warps, 8);
    EXPECT_EQ(info.threads_per_block(), 256);
    EXPECT_EQ(info.shared, 49152);
    EXPECT_EQ(info.num_ctas, 1);
    for (const char* bad : {"[]", "{\"num_warps\": 4, \"shared\": 0}", "{\"name\": \"k\", \"num_warps\": 0, \"shared\": 0}",
                            "{\"name\": \"k\", \"num_warps\": 4}", "{\"name\": \"k\", \"num_warps\": 4, \"shared\": -1}",
                            "not json"}) {
        try {
            kb::parse_triton_metadata(bad);
            FAIL() << bad;
        } catch (const kb::Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT) << bad;
            EXPECT_TRUE(has(e.what(), "Triton metadata")) << e.what();
        }
    }
}

TEST(Compiler, CudaHomeAndIncludeDirs) {
    EXPECT_FALSE(kb::default_cuda_home().empty());
    auto dirs = shared_compiler().include_dirs();
    ASSERT_FALSE(dirs.empty());
    EXPECT_TRUE(has(dirs[0], "/include"));
    EXPECT_FALSE(Compiler::nvrtc_version().empty());
}

}  // namespace
