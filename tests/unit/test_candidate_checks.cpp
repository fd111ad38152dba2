// Candidates as users write them, through the C API on a compile-only
// context (no GPU): files that are not UTF-8 text, half/bfloat16 without an
// include, kernels whose parameters do not take what the launch plan passes,
// overloaded kernel names, and a missing kernel's hint. The pure parts
// (parameter lists, image parameter tables) are tested on their own below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/image_entries.h"
#include "compiler/kernel_params.h"
#include "compiler/source_text.h"
#include "kbench.h"
#include "support/task_paths.h"
#include "util/json.h"

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

std::string task_path(const char* name) { return kb::test::builtin_task_file(name); }

// A compile-only context and a task, released at the end of the test.
struct Fixture {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;
    explicit Fixture(const std::string& task_source, const char* arch = nullptr) {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.isolation = KB_ISOLATION_IN_PROCESS;
        o.arch = arch;
        EXPECT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
        EXPECT_EQ(kb_load_task(task_source.c_str(), &task), KB_OK) << kb_last_error();
    }
    ~Fixture() {
        kb_task_destroy(task);
        kb_context_destroy(ctx);
    }
    // Compiles `code` (size given: it may hold NUL bytes) with an optional
    // launch plan; returns the status, and the error detail or kernel JSON.
    kb_status compile(const std::string& code, std::string* out, const char* launch = nullptr) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.data();
        c.code_size = code.size();
        c.language = KB_LANG_CUDA;
        c.label = "candidate.cu";
        c.launch_json = launch;
        kb_kernel* k = nullptr;
        kb_status s = kb_compile(ctx, task, &c, &k);
        *out = s == KB_OK ? kb_kernel_json(k) : kb_last_error();
        kb_kernel_destroy(k);
        return s;
    }
};

const char* kVectorAdd = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "    if (i < n) c[i] = a[i] + b[i];\n"
                         "}\n";

// A bf16 task, inline: y = x for bf16 data.
const char* kCopyBf16Task = R"J({
  "format": "kbench-task/1", "name": "copy_bf16", "dims": {"n": "elements"},
  "cases": [{"name": "small", "dims": {"n": 7}}], "perf_case": {"name": "perf", "dims": {"n": 4096}},
  "args": [
    {"name": "x", "role": "in", "dtype": "bf16", "shape": ["n"]},
    {"name": "y", "role": "out", "dtype": "bf16", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}},
    {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}],
  "reference": {"source": "#include <cuda_bf16.h>\n__global__ void copy_ref(const __nv_bfloat16* x, __nv_bfloat16* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }\n",
    "launch": [{"kernel": "copy_ref", "grid": "ceil_div(n, 256)", "block": 256, "args": ["x", "y", "n"]}]},
  "candidate": {"launch": [{"kernel": "copy", "grid": "ceil_div(n, 256)", "block": 256, "args": ["x", "y", "n"]}]}
})J";

}  // namespace

// --- files that are not text ---------------------------------------------------

TEST(CandidateText, BinaryFileIsAClearCompileError) {
    Fixture f(task_path("vector_add_f32"));
    const char raw[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00 rest of a binary";
    std::string elf(raw, sizeof raw - 1);
    std::string err;
    ASSERT_EQ(f.compile(elf, &err), KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "candidate.cu:1:8: a NUL byte")) << err;
    EXPECT_TRUE(has(err, "binary file")) << err;
    EXPECT_TRUE(has(err, ".cubin")) << err;
    EXPECT_FALSE(has(err, "json.exception")) << err;
    EXPECT_FALSE(has(err, "ELF\x02")) << "the raw bytes must not be echoed: " << err;
}

TEST(CandidateText, Latin1FileNamesLineColumnAndTheFix) {
    Fixture f(task_path("vector_add_f32"));
    std::string code = std::string("// ok\n// caf\xe9\n") + kVectorAdd;
    std::string err;
    ASSERT_EQ(f.compile(code, &err), KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "candidate.cu:2:7: byte 0xe9 is not UTF-8")) << err;
    EXPECT_TRUE(has(err, "iconv")) << err;
    // The detail is itself valid JSON text: it can travel in a result.
    EXPECT_NO_THROW(kb::Json(err).dump());
}

TEST(CandidateText, Utf8IsAccepted) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    EXPECT_EQ(f.compile(std::string("// café, naïve — ünïcode ✓\n") + kVectorAdd, &err), KB_OK) << err;
    EXPECT_EQ(kb::source_text_problem("a\xc3\xa9" "b", "x.cu"), "");
    EXPECT_NE(kb::source_text_problem("\xed\xa0\x80", "x.cu"), "") << "a UTF-16 surrogate is not UTF-8";
    EXPECT_NE(kb::source_text_problem("\xc0\xaf", "x.cu"), "") << "an overlong form is not UTF-8";
    EXPECT_NE(kb::source_text_problem("\xe2\x82", "x.cu"), "") << "a cut-off sequence is not UTF-8";
}

TEST(CandidateText, DirectoryWhereAFileIsExpectedIsAnIoError) {
    std::string dir = kb::test::builtin_task_dir("vector_add_f32");
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(dir.c_str(), &t), KB_ERR_IO);
    EXPECT_TRUE(has(kb_last_error(), "is a directory")) << kb_last_error();
    Fixture f(task_path("vector_add_f32"));
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = dir.c_str();
    kb_kernel* k = nullptr;
    EXPECT_EQ(kb_compile(f.ctx, f.task, &c, &k), KB_ERR_IO);
    EXPECT_TRUE(has(kb_last_error(), "is a directory")) << kb_last_error();
}

// --- half and bfloat16 without an include ----------------------------------------

TEST(CandidateHalf, HalfWorksWithoutAnInclude) {
    Fixture f(task_path("gelu_tanh_f16"));
    const char* code =
        "__global__ void gelu_tanh(const half* x, half* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) { float v = __half2float(x[i]); y[i] = __float2half(v * tanhf(v)); }\n"
        "}\n";
    std::string out;
    EXPECT_EQ(f.compile(code, &out), KB_OK) << out;
}

TEST(CandidateHalf, Bfloat16WorksWithoutAnInclude) {
    Fixture f(kCopyBf16Task);
    const char* code =
        "__global__ void copy(const __nv_bfloat16* x, __nv_bfloat16* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = __float2bfloat16(__bfloat162float(x[i]));\n"
        "}\n";
    std::string out;
    EXPECT_EQ(f.compile(code, &out), KB_OK) << out;
}

TEST(CandidateHalf, TorchsBfloat16NameGetsTheCudaName) {
    Fixture f(kCopyBf16Task);
    std::string err;
    ASSERT_EQ(f.compile("__global__ void copy(const bfloat16* x, bfloat16* y, int n) {}\n", &err), KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "__nv_bfloat16")) << err;
    EXPECT_TRUE(has(err, "PyTorch")) << err;
}

TEST(CandidateHalf, NvccFallbackGetsTheHeaderToo) {
    // The nvcc path must see the same implicit include as NVRTC.
    kb::Compiler compiler(kb::CompilerConfig{});
    if (compiler.nvcc_path().empty()) GTEST_SKIP() << "no nvcc";
    kb::CompileRequest rq;
    rq.code = "__global__ void k(half* y) { y[0] = __float2half(1.0f); }\n";
    rq.source_name = "candidate.cu";
    rq.kernel_names = {"k"};
    rq.force_nvcc = true;
    rq.emit_ptx = true;
    kb::CompiledImage img = compiler.compile(rq);
    EXPECT_EQ(img.path, "nvcc");
    EXPECT_EQ(img.symbols.at("k"), "_Z1kP6__half");
}

// --- parameters against the launch plan -----------------------------------------

TEST(CandidateParams, ScalarOfTheWrongTypeIsRejectedNamingTheParameter) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    ASSERT_EQ(f.compile("__global__ void vector_add(const float* a, const float* b, float* c, float n) {}\n", &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "parameter 3 is 'float'")) << err;
    EXPECT_TRUE(has(err, "'n', an i32 value")) << err;
    EXPECT_TRUE(has(err, "declare it 'int n'")) << err;
}

TEST(CandidateParams, PointerWhereTheTaskHasAnIntIsRejected) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    ASSERT_EQ(f.compile("__global__ void vector_add(const float* a, const float* b, float* c, float* n) {}\n", &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "parameter 3 is 'float*'")) << err;
    EXPECT_TRUE(has(err, "'n', an i32 value")) << err;
}

TEST(CandidateParams, BufferOfTheWrongElementTypeAndWrongCountAreRejected) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    ASSERT_EQ(f.compile("__global__ void vector_add(const float* a, const float* b, int* c, int n) {}\n", &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "parameter 2 is 'int*'")) << err;
    EXPECT_TRUE(has(err, "'c', an f32 buffer")) << err;
    EXPECT_TRUE(has(err, "declare it 'float* c'")) << err;
    ASSERT_EQ(f.compile("__global__ void vector_add(const float* a, const float* b, float* c) {}\n", &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "takes 3 parameters, but candidate.launch[0] passes 4 (a, b, c, n)")) << err;
}

TEST(CandidateParams, SpellingsThatTakeTheSameDataAreAccepted) {
    Fixture f(task_path("vector_add_f32"));
    std::string out;
    // void*, a vector type kbench cannot judge, __restrict__, other signedness.
    EXPECT_EQ(f.compile("__global__ void vector_add(const void* a, const float4* b, float* __restrict__ c, unsigned n) {}\n",
                        &out),
              KB_OK)
        << out;
    EXPECT_EQ(f.compile("template <class T> __global__ void vector_add(const T* a, const T* b, T* c, int n) {}\n"
                        "template __global__ void vector_add<float>(const float*, const float*, float*, int);\n",
                        &out),
              KB_OK)
        << out;
}

TEST(CandidateParams, ExternCKernelsAreCheckedByTheImage) {
    const std::string bad = "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, double n) {}\n";
    const std::string good = "extern \"C\" __global__ void vector_add(const float* a, const float* b, float* c, int n) {}\n";
    for (const char* arch : {static_cast<const char*>(nullptr), "sm_90"}) {  // PTX, then a cubin
        Fixture f(task_path("vector_add_f32"), arch);
        std::string err;
        ASSERT_EQ(f.compile(bad, &err), KB_ERR_COMPILE) << (arch ? arch : "ptx");
        EXPECT_TRUE(has(err, "parameter 3 is 8 bytes")) << err;
        EXPECT_TRUE(has(err, "'n', an i32 value there (4 bytes)")) << err;
        EXPECT_EQ(f.compile(good, &err), KB_OK) << err;
    }
}

TEST(CandidateParams, OverloadIsResolvedByTheTasksSignature) {
    Fixture f(task_path("vector_add_f32"));
    std::string out;
    ASSERT_EQ(f.compile(std::string("__global__ void vector_add(const double* a, const double* b, double* c, int n) {}\n") +
                            kVectorAdd,
                        &out),
              KB_OK)
        << out;
    kb::Json k = kb::Json::parse(out);
    EXPECT_EQ(k["symbols"]["vector_add"], "_Z10vector_addPKfS0_Pfi") << out;
}

TEST(CandidateParams, OverloadsThatAllMismatchAreListed) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    ASSERT_EQ(f.compile("__global__ void vector_add(const int* a, const int* b, int* c, int n) {}\n"
                        "__global__ void vector_add(const double* a, const double* b, double* c, int n) {}\n",
                        &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "2 overloads, and none takes")) << err;
    EXPECT_TRUE(has(err, "vector_add(int const*, int const*, int*, int): parameter 0")) << err;
    EXPECT_TRUE(has(err, "vector_add(double const*, double const*, double*, int): parameter 0")) << err;
}

// --- a missing kernel: one hint, the right way round -----------------------------

TEST(CandidateNames, TasksPlanAsksToRenameTheKernel) {
    Fixture f(task_path("vector_add_f32"));
    std::string err;
    ASSERT_EQ(f.compile("__global__ void vadd(const float* a, const float* b, float* c, int n) {}\n", &err),
              KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "the task launches kernel 'vector_add'")) << err;
    EXPECT_TRUE(has(err, "Name your kernel 'vector_add'")) << err;
    EXPECT_TRUE(has(err, "vector_add(const float* a, const float* b, float* c, int n)")) << err;
    EXPECT_FALSE(has(err, "Did you mean")) << "the hint points one way only: " << err;
    EXPECT_EQ(count(err, "Name your kernel"), 1u) << err;
    EXPECT_FALSE(has(err, "compiler log")) << "nothing repeats the message: " << err;
}

TEST(CandidateNames, OwnPlanAsksWhetherTheNameWasMeant) {
    Fixture f(task_path("vector_add_f32"));
    const char* plan =
        R"J({"launch": [{"kernel": "vector_ad", "grid": "ceil_div(n, 256)", "block": 256, "args": ["a", "b", "c", "n"]}]})J";
    std::string err;
    ASSERT_EQ(f.compile(kVectorAdd, &err, plan), KB_ERR_COMPILE);
    EXPECT_TRUE(has(err, "the launch plan names kernel 'vector_ad'")) << err;
    EXPECT_EQ(count(err, "Did you mean 'vector_add'?"), 1u) << err;
    EXPECT_FALSE(has(err, "Name your kernel")) << err;
}

// --- the pure parts ----------------------------------------------------------------

TEST(KernelParams, DemangledParameterLists) {
    std::vector<std::string> t;
    ASSERT_TRUE(kb::demangled_parameter_types("void ns::k<float, 4>(float const*, std::pair<int, int>, int)", t));
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[1], "std::pair<int, int>");
    ASSERT_TRUE(kb::demangled_parameter_types("k()", t));
    EXPECT_TRUE(t.empty());
    EXPECT_FALSE(kb::demangled_parameter_types("plain_extern_c", t));
}

TEST(KernelParams, MismatchRules) {
    kb::KernelSpec spec;
    spec.where = "launch[0]";
    spec.params = {{"x", true, true, kb::DType::f16}, {"n", false, false, kb::DType::i64}};
    EXPECT_EQ(kb::parameter_mismatch({"__half const*", "long long"}, spec), "");
    EXPECT_EQ(kb::parameter_mismatch({"half const*", "unsigned long"}, spec), "");
    EXPECT_EQ(kb::parameter_mismatch({"__half2 const*", "long"}, spec), "") << "vector types are not judged";
    EXPECT_NE(kb::parameter_mismatch({"__nv_bfloat16 const*", "long"}, spec), "") << "bf16 is not f16";
    EXPECT_NE(kb::parameter_mismatch({"float const*", "long"}, spec), "");
    EXPECT_NE(kb::parameter_mismatch({"__half const*", "int"}, spec), "") << "4 bytes where 8 are passed";
    EXPECT_NE(kb::parameter_mismatch({"__half**", "long"}, spec), "");
    EXPECT_EQ(kb::c_parameter_list(spec), "const __half* x, int64_t n");
}

TEST(KernelParams, ImageParameterTables) {
    kb::Compiler compiler(kb::CompilerConfig{});
    kb::CompileRequest rq;
    rq.code = "extern \"C\" __global__ void ec(const float* a, float* b, int n, double d, char c, short s) {}\n";
    rq.source_name = "p.cu";
    rq.kernel_names = {"ec"};
    rq.allow_nvcc_fallback = false;
    for (bool ptx : {true, false}) {
        rq.emit_ptx = ptx;
        kb::CompiledImage img = compiler.compile(rq);
        std::vector<kb::EntryParam> p;
        ASSERT_TRUE(ptx ? kb::ptx_entry_params(img.bytes, "ec", p) : kb::cubin_entry_params(img.bytes, "ec", p));
        ASSERT_EQ(p.size(), 6u) << (ptx ? "ptx" : "cubin");
        const size_t sizes[] = {8, 8, 4, 8, 1, 2};
        for (size_t i = 0; i < 6; ++i) EXPECT_EQ(p[i].size, sizes[i]) << (ptx ? "ptx" : "cubin") << " parameter " << i;
        if (ptx) EXPECT_EQ(p[3].kind, 'f');
        EXPECT_FALSE(ptx ? kb::ptx_entry_params(img.bytes, "e", p) : kb::cubin_entry_params(img.bytes, "e", p));
    }
}
