// The checked build (compiler/fault_containment.h): which instructions get
// a check, on hand-written PTX and on NVRTC's own, which ptxas must accept;
// the compiler's image carries it, and so do the wire and the disk cache.
// Needs the CUDA toolkit (NVRTC, ptxas), no GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "compiler/compile_cache.h"
#include "compiler/compiler.h"
#include "compiler/fault_containment.h"
#include "compiler/image_entries.h"
#include "compiler/kernel_params.h"
#include "compiler/trap_containment.h"
#include "unit/containing_compiler.h"
#include "protocol/wire.h"

namespace {

size_t count_of(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
}

// ptxas's verdict on `ptx` for sm_90: "" when it assembles, else its log.
std::string ptxas_refusal(const std::string& ptx) {
    const std::string ptxas = kb::Compiler(kb::CompilerConfig{}).config().cuda_home + "/bin/ptxas";
    if (::access(ptxas.c_str(), X_OK) != 0) return "skip: no ptxas at " + ptxas;
    char dir[] = "/tmp/kbench-faults-XXXXXX";
    if (!::mkdtemp(dir)) return "mkdtemp failed";
    const std::string in = std::string(dir) + "/k.ptx";
    std::ofstream(in) << ptx;
    const std::string cmd = ptxas + " -arch=sm_90 " + in + " -o " + dir + "/k.cubin > " + dir + "/log 2>&1";
    int rc = std::system(cmd.c_str());
    std::ifstream log(std::string(dir) + "/log");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    std::system(("rm -rf " + std::string(dir)).c_str());
    return rc == 0 ? "" : "ptxas: " + text;
}

#define EXPECT_PTXAS_ACCEPTS(ptx)                                                   \
    do {                                                                            \
        std::string why = ptxas_refusal(ptx);                                       \
        if (why.rfind("skip:", 0) == 0) GTEST_SKIP() << why;                        \
        EXPECT_EQ(why, "") << (ptx);                                                \
    } while (0)

const char* kHandWritten =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".global .align 4 .u32 counter;\n"
    ".global .align 1 .b8 $str[4] = {104, 105, 10, 0};\n"
    ".const .align 4 .b8 table[16];\n"
    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u64 k_param_1\n)\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<8>;\n"
    "\t.shared .align 4 .b8 smem[64];\n"
    "\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n"
    "\tcvta.to.global.u64 %rd3, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tsetp.gt.u32 %p1, %r1, 7;\n"
    "$L__BB0_1:\n"
    "\tld.global.f32 %f1, [%rd3];\n"                      // checked
    "\t@%p1 st.global.f32 [%rd3+16], %f1;\n"               // checked, under its guard
    "\t@!%p1 ld.global.nc.v4.f32 {%f2, %f3, %f4, %f5}, [%rd3+-32];\n"  // checked: braces in the operands
    "\tld.f32 %f6, [%rd2];\n"                             // generic: checked where global
    "\tld.shared.f32 %f7, [smem];\n"                      // shared: not checked
    "\tld.global.u32 %r2, [counter];\n"                   // a symbol: not checked
    "\tatom.global.add.u32 %r3, [%rd3+4], 1;\n"           // checked
    "\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.u32 %p2, %r1, 100;\n"
    "\t@%p2 bra $L__BB0_1;\n"                             // a loop: checked
    "\t@%p1 bra $L__BB0_2;\n"                             // forward: not checked
    "\tst.global.f32 [%rd3], %f7;\n"                      // checked
    "$L__BB0_2:\n"
    "\tret;\n}\n";

kb::CheckedPtx checked_hand_written() {
    std::string contained = kb::contain_traps(kHandWritten, 0xabc);
    return kb::check_faults(contained);
}

TEST(FaultContainment, ChecksGlobalAndGenericAccessesAndLoopsOnly) {
    kb::CheckedPtx c = checked_hand_written();
    ASSERT_NE(c.ptx, "");
    EXPECT_TRUE(c.bounds_checked);
    EXPECT_EQ(c.accesses, 6u) << c.ptx;
    EXPECT_EQ(c.loops, 1u) << c.ptx;
    EXPECT_EQ(c.arm_entry, "__kb_arm_0000000000000abc");
    EXPECT_EQ(count_of(c.ptx, ".entry __kb_arm_0000000000000abc("), 1u);
    EXPECT_EQ(count_of(c.ptx, "isspacep.shared"), 1u) << "only the generic access asks its space";
    EXPECT_EQ(count_of(c.ptx, "%globaltimer"), 2u) << "one loop check and the arming entry";
    // The module's variables are measured by the arming entry: the candidate's
    // three and kbench's one, the flag's, widened to hold the checks' state.
    EXPECT_EQ(count_of(c.ptx, "cvta.global.u64 %kbarm"), 3u) << c.ptx;
    EXPECT_EQ(count_of(c.ptx, "cvta.const.u64 %kbarm"), 1u) << c.ptx;
    EXPECT_EQ(count_of(c.ptx, ".visible .global .align 16 .b32 __kb_trap_flag_0000000000000abc[16];"), 1u) << c.ptx;
    EXPECT_EQ(count_of(c.ptx, "__kb_bounds"), 0u) << c.ptx;
    EXPECT_EQ(count_of(c.ptx, "__kb_deadline"), 0u) << c.ptx;
    // A failed access check leaves by one store of kind and address, and one exit.
    EXPECT_EQ(count_of(c.ptx, " st.volatile.global.v2.u64 [__kb_trap_flag_0000000000000abc], {"), 6u) << c.ptx;
    EXPECT_EQ(count_of(c.ptx, "_p exit;"), 7u) << "six accesses and one loop: " << c.ptx;
    EXPECT_PTXAS_ACCEPTS(c.ptx);
}

TEST(FaultContainment, AGuardedAccessIsCheckedOnlyUnderItsGuard) {
    kb::CheckedPtx c = checked_hand_written();
    // The functions as they were come first, unchanged; then their checked copies.
    const size_t copies = c.ptx.find("// kbench: the checked build");
    ASSERT_NE(copies, std::string::npos);
    EXPECT_EQ(c.ptx.substr(0, copies).find("%kb0000000000000abc_a"), std::string::npos) << "the timed build has no checks";
    c.ptx = c.ptx.substr(copies);
    size_t at = c.ptx.find("@%p1 st.global.f32 [%rd3+16]");
    ASSERT_NE(at, std::string::npos);
    std::string before = c.ptx.substr(0, at);
    before = before.substr(before.rfind("add.s64 %kb0000000000000abc_a, %rd3, 16;"));
    EXPECT_NE(before.find("and.pred %kb0000000000000abc_p, %kb0000000000000abc_p, %p1;"), std::string::npos) << before;
    EXPECT_NE(before.find("add.s64 %kb0000000000000abc_e, %kb0000000000000abc_a, 4;"), std::string::npos) << before;
    size_t neg = c.ptx.find("@!%p1 ld.global.nc.v4.f32");
    ASSERT_NE(neg, std::string::npos);
    std::string vec = c.ptx.substr(0, neg);
    vec = vec.substr(vec.rfind("add.s64 %kb0000000000000abc_a, %rd3, -32;"));
    EXPECT_NE(vec.find("not.pred %kb0000000000000abc_r, %p1;"), std::string::npos) << vec;
    EXPECT_NE(vec.find("and.b64 %kb0000000000000abc_e, %kb0000000000000abc_a, 15;"), std::string::npos)
        << "a 16-byte access must be 16-byte aligned: " << vec;
}

TEST(FaultContainment, MemoryKbenchDidNotHandOutTurnsBoundsOff) {
    // The device heap: its addresses are the allocator's.
    std::string heap = std::string(kHandWritten);
    heap.insert(heap.find(".visible .entry"),
                ".extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0\n)\n;\n");
    kb::CheckedPtx c = kb::check_faults(kb::contain_traps(heap, 1));
    EXPECT_FALSE(c.bounds_checked);
    EXPECT_EQ(c.accesses, 0u);
    EXPECT_EQ(c.loops, 1u);
    EXPECT_PTXAS_ACCEPTS(c.ptx);
    // A variable sized elsewhere, declared after the code that uses it.
    std::string unsized = std::string(kHandWritten) + ".extern .global .align 4 .b8 elsewhere[];\n";
    c = kb::check_faults(kb::contain_traps(unsized, 1));
    EXPECT_FALSE(c.bounds_checked);
    EXPECT_EQ(c.accesses, 0u);
    // PTX that was not contained has no flag to set: no checked build.
    EXPECT_EQ(kb::check_faults(kHandWritten).ptx, "");
}

TEST(FaultContainment, MessagesNameTheAddressTheCaseAndTheFix) {
    kb::TrapFlag t;
    t.kind = kb::kFaultOutOfBounds;
    t.address = 0x40000000000ull;
    std::string m = kb::describe_contained_fault(t, "small");
    EXPECT_NE(m.find("0x40000000000"), std::string::npos) << m;
    EXPECT_NE(m.find("case 'small'"), std::string::npos) << m;
    EXPECT_NE(m.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << m;
    EXPECT_NE(m.find("index bounds"), std::string::npos) << m;
    t.kind = kb::kFaultMisaligned;
    m = kb::describe_contained_fault(t, "perf");
    EXPECT_NE(m.find("CUDA_ERROR_MISALIGNED_ADDRESS"), std::string::npos) << m;
    t.kind = kb::kTrapInstruction;
    EXPECT_EQ(kb::describe_contained_fault(t, "perf"), kb::describe_contained_trap(t, "perf"));
}

// Kernels of the shapes candidates have: NVRTC's PTX, checked, still
// assembles, and the accesses and loops one expects are checked.
const char* kShapes =
    "__device__ float scale_table[4];\n"
    "__constant__ float bias[4];\n"
    "extern \"C\" __global__ void vadd(const float* a, const float* b, float* c, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) c[i] = a[i] + b[i] * scale_table[i & 3] + bias[i & 3];\n"
    "}\n"
    "extern \"C\" __global__ void vec4(const float4* a, float4* c, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n / 4) { float4 v = a[i]; v.x += 1.0f; c[i] = v; }\n"
    "}\n"
    "extern \"C\" __global__ void rowsum(const float* x, float* out, int rows, int cols) {\n"
    "  __shared__ float part[256];\n"
    "  float s = 0.0f;\n"
    "  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += x[blockIdx.x * cols + j];\n"
    "  part[threadIdx.x] = s;\n"
    "  __syncthreads();\n"
    "  for (int w = blockDim.x / 2; w > 0; w /= 2) {\n"
    "    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (threadIdx.x == 0) atomicAdd(out + blockIdx.x % rows, part[0]);\n"
    "}\n"
    "__device__ volatile int never_set = 0;\n"
    "extern \"C\" __global__ void spin(float* c) { while (never_set == 0) { } c[0] = 1.0f; }\n"
    "extern \"C\" __global__ void null_write(float* c) {\n"
    "  if (threadIdx.x == 0) { volatile float* bad = nullptr; *bad = 1.0f; }\n"
    "  c[threadIdx.x] = 2.0f;\n"
    "}\n";

kb::CompileRequest shapes_request(bool ptx) {
    kb::CompileRequest rq;
    rq.source_name = "candidate.cu";
    rq.arch = "sm_90";
    rq.emit_ptx = ptx;
    rq.allow_nvcc_fallback = false;
    rq.kernel_names = {"vadd", "vec4", "rowsum", "spin", "null_write"};
    rq.code = kShapes;
    return rq;
}

TEST(FaultContainment, NvrtcPtxOfCommonKernelsStaysValid) {
    kb::CompiledImage img = containing_compiler().compile(shapes_request(true));
    ASSERT_EQ(img.kind, kb::ImageKind::ptx);
    kb::CheckedPtx c = kb::check_faults(img.bytes);
    ASSERT_NE(c.ptx, "");
    EXPECT_TRUE(c.bounds_checked);
    // vadd: 3 loads, 1 store (scale_table's and bias's reads go through
    // symbols); vec4: a 16-byte load and store; rowsum: the strided load and
    // the atomic (the shared accesses are not checked).
    EXPECT_GE(c.accesses, 8u) << c.ptx;
    EXPECT_GE(c.loops, 3u) << "rowsum's two loops and spin's: " << c.ptx;
    EXPECT_NE(c.ptx.find(", 15;"), std::string::npos) << "float4's alignment is checked";
    // The store through a null pointer is a generic one (NVRTC cannot name
    // a space for address 0): it is checked unless it is shared or local.
    EXPECT_GE(count_of(c.ptx, "isspacep.local"), 1u) << c.ptx;
    EXPECT_PTXAS_ACCEPTS(c.ptx);
}

TEST(FaultContainment, ACubinTargetHoldsBothBuildsAndTheWireAndTheDiskCacheKeepThem) {
    kb::CompiledImage img = containing_compiler().compile(shapes_request(false));
    if (img.kind == kb::ImageKind::ptx) GTEST_SKIP() << "no nvJitLink in the toolkit: " << img.log;
    ASSERT_NE(img.checked_arm, "") << img.log;
    EXPECT_EQ(img.bytes.compare(0, 4, "\x7f" "ELF"), 0);
    EXPECT_NE(img.bytes.find(img.checked_arm), std::string::npos);
    EXPECT_NE(img.bytes.find(img.trap_flag), std::string::npos);
    EXPECT_NE(img.bytes.find(std::string("vadd") + kb::kCheckedSuffix), std::string::npos) << "vadd's checked copy";
    // The image's entries are the candidate's: no copy, no arming entry.
    EXPECT_EQ(img.entries.size(), 5u);
    for (const std::string& e : img.entries) EXPECT_EQ(e.find("__kb"), std::string::npos) << e;

    std::vector<std::string> blobs;
    kb::Json j = kb::wire::image_to_json(img, &blobs);
    kb::CompiledImage back = kb::wire::image_from_json(j, blobs);
    EXPECT_EQ(back.checked_arm, img.checked_arm);
    EXPECT_EQ(back.bytes, img.bytes);

    char dir[] = "/tmp/kbench-faults-cache-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    {
        kb::CompileCache cache(dir, 4);
        cache.put("k1", img);
    }
    kb::CompileCache fresh(dir, 4);
    std::optional<kb::CompiledImage> hit = fresh.find("k1");
    ASSERT_TRUE(hit.has_value());
    EXPECT_EQ(hit->checked_arm, img.checked_arm);
    EXPECT_EQ(hit->entries, img.entries);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

// A build that is only compared (CompileRequest::comparisons_only) holds the
// checked copies alone: no function itself, the same entries named, a key of
// its own, kept by the wire and the disk cache; extern "C" kernels' parameters
// are still checked against the plan (on the copies). Without containment
// and without NVRTC's fast compile the request is the ordinary one, cache key
// included.
TEST(FaultContainment, AComparisonsOnlyBuildHoldsTheCopiesAloneUnderAKeyOfItsOwn) {
    kb::CompiledImage both = containing_compiler().compile(shapes_request(false));
    if (both.kind == kb::ImageKind::ptx) GTEST_SKIP() << "no nvJitLink in the toolkit: " << both.log;
    kb::CompileRequest rq = shapes_request(false);
    rq.comparisons_only = true;
    kb::CompiledImage img = containing_compiler().compile(rq);
    EXPECT_FALSE(img.cache_hit);
    EXPECT_NE(img.hash, both.hash);
    EXPECT_TRUE(img.checked_only);
    EXPECT_FALSE(both.checked_only);
    EXPECT_TRUE(img.fast_compiled) << "NVRTC's PTX, optimised less (CompilerConfig::comparisons_fast_compile)";
    EXPECT_FALSE(both.fast_compiled);
    ASSERT_NE(img.checked_arm, "") << img.log;
    EXPECT_EQ(img.entries, both.entries) << "the entries named are the candidate's";
    EXPECT_EQ(img.symbols, both.symbols);
    EXPECT_LT(img.bytes.size(), both.bytes.size());
    std::vector<std::string> in_cubin = kb::cubin_entries(img.bytes);
    for (const std::string& e : in_cubin)
        EXPECT_TRUE(e == img.checked_arm || e.find(kb::kCheckedSuffix) != std::string::npos)
            << e << ": only the copies and the arming entry are in the image";
    for (const std::string& k : {"vadd", "vec4", "rowsum", "spin", "null_write"})
        EXPECT_EQ(std::count(in_cubin.begin(), in_cubin.end(), std::string(k) + kb::kCheckedSuffix), 1) << k;

    // The plan's parameters against an extern "C" kernel's: read from its copy.
    kb::LaunchExpectations expect;
    kb::KernelSpec two;  // vadd takes four
    two.where = "candidate.launch[0]";
    two.params = {{"a", true, true, kb::DType::f32}, {"c", true, false, kb::DType::f32}};
    expect.kernels["vadd"] = {two};
    for (const kb::CompiledImage* i : {&both, &img}) {
        try {
            kb::check_kernel_parameters(expect, *i, "candidate.cu");
            ADD_FAILURE() << "a plan passing two arguments to vadd was accepted (checked_only " << i->checked_only << ")";
        } catch (const kb::CompileError& e) {
            EXPECT_NE(std::string(e.what()).find("takes 4 parameters"), std::string::npos) << e.what();
        }
    }

    std::vector<std::string> blobs;
    kb::CompileRequest rq_back = kb::wire::compile_request_from_json(kb::wire::compile_request_to_json(rq, &blobs), blobs);
    EXPECT_TRUE(rq_back.comparisons_only);
    blobs.clear();
    kb::CompiledImage back = kb::wire::image_from_json(kb::wire::image_to_json(img, &blobs), blobs);
    EXPECT_TRUE(back.checked_only);
    EXPECT_TRUE(back.fast_compiled);
    char dir[] = "/tmp/kbench-faults-cache-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    {
        kb::CompileCache cache(dir, 4);
        cache.put("k1", img);
    }
    std::optional<kb::CompiledImage> hit = kb::CompileCache(dir, 4).find("k1");
    ASSERT_TRUE(hit.has_value());
    EXPECT_TRUE(hit->checked_only);
    EXPECT_TRUE(hit->fast_compiled);
    std::system(("rm -rf " + std::string(dir)).c_str());

    // No containment and no fast compile: the flag changes nothing, not
    // even the key (test_compiler.cpp checks the fast compile alone).
    kb::CompilerConfig no_fast;
    no_fast.comparisons_fast_compile = false;
    kb::Compiler plain{no_fast};
    kb::CompileRequest ordinary = shapes_request(false);
    ordinary.code += "// plain\n";
    kb::CompiledImage first = plain.compile(ordinary);
    ordinary.comparisons_only = true;
    kb::CompiledImage second = plain.compile(ordinary);
    EXPECT_TRUE(second.cache_hit);
    EXPECT_EQ(second.hash, first.hash);
    EXPECT_FALSE(second.checked_only);
    EXPECT_FALSE(second.fast_compiled);
}

// The library's default (ContextOptions::contain_comparisons): a build that
// is only compared holds the checked copies alone, with its traps contained;
// a build that may be timed is the plain one, under the plain build's key.
TEST(FaultContainment, TheDefaultContainsOnlyTheBuildsThatAreCompared) {
    kb::CompilerConfig comparisons_cfg;
    comparisons_cfg.contain_comparisons = true;
    kb::Compiler comparisons{comparisons_cfg};
    kb::Compiler plain{kb::CompilerConfig{}};
    EXPECT_EQ(kb::Compiler::containment_name(comparisons_cfg), "comparisons");
    EXPECT_EQ(kb::Compiler::containment_name(kb::CompilerConfig{}), "none");
    EXPECT_FALSE(kb::Compiler::faults_contained(comparisons_cfg)) << "a timed build's crash still costs its worker";

    kb::CompileRequest timed = shapes_request(false);
    timed.code += "// the default's timed build\n";
    kb::CompiledImage t = comparisons.compile(timed);
    EXPECT_EQ(t.trap_flag, "") << "a timed build stays plain";
    EXPECT_EQ(t.checked_arm, "");
    EXPECT_FALSE(t.checked_only);
    EXPECT_EQ(t.kind, kb::ImageKind::cubin);
    EXPECT_EQ(t.hash, plain.compile(timed).hash) << "the same build under the same key as without containment";

    kb::CompileRequest compared = timed;
    compared.comparisons_only = true;
    kb::CompiledImage c = comparisons.compile(compared);
    if (c.kind == kb::ImageKind::ptx) GTEST_SKIP() << "no nvJitLink in the toolkit: " << c.log;
    EXPECT_NE(c.trap_flag, "") << c.log;
    ASSERT_NE(c.checked_arm, "") << c.log;
    EXPECT_TRUE(c.checked_only);
    EXPECT_TRUE(c.fast_compiled);
    std::vector<std::string> ce = c.entries, te = t.entries;
    std::sort(ce.begin(), ce.end());
    std::sort(te.begin(), te.end());
    EXPECT_EQ(ce, te) << "the entries named are the candidate's";
    EXPECT_EQ(c.symbols, t.symbols);
    kb::CompiledImage p = plain.compile(compared);
    EXPECT_NE(c.hash, p.hash) << "a plain compared build is not the contained one";
    EXPECT_EQ(p.trap_flag, "");
    EXPECT_FALSE(p.checked_only);

    // Without the checked build there is nothing to contain faults with:
    // the default leaves the build plain rather than half contained.
    kb::CompilerConfig no_checks = comparisons_cfg;
    no_checks.checked_build = false;
    EXPECT_EQ(kb::Compiler::containment_name(no_checks), "none");
    EXPECT_EQ(kb::Compiler(no_checks).compile(compared).trap_flag, "");

    // Compile workers get the choice over the wire.
    kb::CompilerConfig back = kb::wire::compiler_config_from_json(kb::wire::compiler_config_to_json(comparisons_cfg));
    EXPECT_TRUE(back.contain_comparisons);
    EXPECT_FALSE(back.contain_traps);
}

// A device function called from a kernel: its checked copy is called from
// the kernel's checked copy, declared before it, and ptxas accepts the whole.
TEST(FaultContainment, CallsBetweenCheckedCopiesStayInTheCheckedBuild) {
    kb::CompileRequest rq = shapes_request(true);
    rq.code = "__device__ __noinline__ float load(const float* p, int i) { return p[i]; }\n"
              "extern \"C\" __global__ void k(const float* a, float* c, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) c[i] = load(a, i);\n}\n";
    rq.kernel_names = {"k"};
    kb::CompiledImage img = containing_compiler().compile(rq);
    kb::CheckedPtx c = kb::check_faults(img.bytes);
    ASSERT_NE(c.ptx, "");
    EXPECT_EQ(c.functions.size(), 2u);
    const std::string copy = std::string("k") + kb::kCheckedSuffix;
    size_t entry = c.ptx.find(".entry " + copy + "(");
    ASSERT_NE(entry, std::string::npos) << c.ptx;
    size_t next = c.ptx.find(".entry", entry + 1);
    std::string body = c.ptx.substr(entry, next - entry);
    EXPECT_NE(body.find(kb::kCheckedSuffix + std::string(",")), std::string::npos)
        << "the checked kernel calls the checked helper: " << body;
    EXPECT_EQ(count_of(c.ptx, ".entry k("), 1u) << "the kernel itself is unchanged";
    EXPECT_PTXAS_ACCEPTS(c.ptx);
}

// The copies alone (CheckedForm::copies_only): every checked copy, the
// module's variables and the arming entry, none of the input's own
// functions or their prototypes, and ptxas accepts it; the checks are the
// same as beside the functions.
TEST(FaultContainment, TheCopiesAloneAssembleWithoutTheFunctions) {
    kb::CheckedPtx beside = checked_hand_written();
    kb::CheckedPtx alone = kb::check_faults(kb::contain_traps(kHandWritten, 0xabc), kb::CheckedForm::copies_only);
    ASSERT_NE(alone.ptx, "");
    EXPECT_EQ(alone.accesses, beside.accesses);
    EXPECT_EQ(alone.loops, beside.loops);
    EXPECT_EQ(alone.arm_entry, beside.arm_entry);
    EXPECT_EQ(count_of(alone.ptx, ".entry k("), 0u) << alone.ptx;
    EXPECT_EQ(count_of(alone.ptx, std::string(".entry k") + kb::kCheckedSuffix + "("), 1u) << alone.ptx;
    for (const char* var : {".global .align 4 .u32 counter;", "$str[4] = {104, 105, 10, 0};", ".const .align 4 .b8 table[16];"})
        EXPECT_EQ(count_of(alone.ptx, var), 1u) << var << " in " << alone.ptx;
    EXPECT_LT(alone.ptx.size(), beside.ptx.size());
    EXPECT_PTXAS_ACCEPTS(alone.ptx);

    // NVRTC's own: several kernels, a device function called across them (a
    // prototype NVRTC declares first), module variables, printf.
    kb::CompileRequest rq = shapes_request(true);
    rq.code = std::string(kShapes) +
              "__device__ __noinline__ float load2(const float* p, int i);\n"
              "extern \"C\" __global__ void calls(const float* a, float* c, int n) {\n"
              "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "  if (i < n) c[i] = load2(a, i);\n  if (i == 0) printf(\"%d\\n\", n);\n}\n"
              "__device__ __noinline__ float load2(const float* p, int i) { return p[i] * 2.0f; }\n";
    kb::CompiledImage img = containing_compiler().compile(rq);
    ASSERT_EQ(img.kind, kb::ImageKind::ptx);
    kb::CheckedPtx both = kb::check_faults(img.bytes);
    kb::CheckedPtx copies = kb::check_faults(img.bytes, kb::CheckedForm::copies_only);
    ASSERT_NE(copies.ptx, "");
    EXPECT_EQ(copies.functions, both.functions);
    EXPECT_EQ(copies.accesses, both.accesses);
    for (const std::string& f : both.functions) {
        EXPECT_EQ(count_of(copies.ptx, " " + f + "("), 0u) << f << " itself is left out: " << copies.ptx;
        EXPECT_GE(count_of(copies.ptx, f + kb::kCheckedSuffix), 1u) << f << "'s copy";
    }
    EXPECT_GE(count_of(copies.ptx, "vprintf"), 2u) << "printf's declaration stays, and the copy calls it";
    EXPECT_PTXAS_ACCEPTS(copies.ptx);
}

}  // namespace
