// Fast builds that fit their launches (compiler/nvrtc_backend.h): a build
// that is only compared is compiled fast, and a fast build may use more
// registers than the full one. Where a block of the plan's launches could
// not hold them, the build is made again at full optimisation, so that a
// correctness-only score launches what a timed one launches. CPU only: NVRTC
// and nvJitLink run without a GPU; the registers are read from the cubin.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "compiler/compiler.h"
#include "compiler/fault_containment.h"
#include "compiler/image_entries.h"
#include "compiler/kernel_params.h"
#include "compiler/nvrtc_backend.h"
#include "task/task.h"

namespace {

std::string read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The fixture keeps 44 values live: its full build uses 64 registers a
// thread, the most a 1024-thread block may have.
const std::string kHeavy = std::string(KB_SOURCE_DIR) + "/tests/adversarial/kernels/register_heavy_1024.cu";
// This one keeps 16 pointers live: its full build uses 56 registers, its
// checked copy (every access checked) more than 64 even in full.
const std::string kPointers = std::string(KB_SOURCE_DIR) + "/tests/adversarial/kernels/checked_copy_heavy_1024.cu";

// A correctness-only request for the fixture, its launch steps giving
// vector_add blocks of `threads` (0: not known).
kb::CompileRequest heavy_request(int64_t threads, const std::string& tag, const std::string& file = kHeavy) {
    kb::CompileRequest rq;
    rq.code = read(file) + "// " + tag + "\n";
    rq.arch = "sm_90";
    rq.allow_nvcc_fallback = false;
    rq.kernel_names = {"vector_add"};
    rq.comparisons_only = true;
    kb::KernelSpec spec;
    spec.where = "candidate.launch[0]";
    spec.max_block_threads = threads;
    rq.expect.kernels["vector_add"] = {spec};
    return rq;
}

// The registers of the image's (only) vector_add function or checked copy.
int heavy_registers(const kb::CompiledImage& img) {
    for (const auto& [fn, regs] : kb::cubin_registers(img.bytes))
        if (fn.find("vector_add") != std::string::npos) return regs;
    return -1;
}

TEST(FastBuildFit, RegistersABlockMayHave) {
    EXPECT_EQ(kb::registers_for_block(1024), 64);
    EXPECT_EQ(kb::registers_for_block(1000), 64);
    EXPECT_EQ(kb::registers_for_block(896), 72);
    EXPECT_EQ(kb::registers_for_block(768), 80);
    EXPECT_EQ(kb::registers_for_block(512), 128);
    EXPECT_EQ(kb::registers_for_block(384), 168);
    EXPECT_EQ(kb::registers_for_block(256), 255);
    EXPECT_EQ(kb::registers_for_block(1), 255);
    EXPECT_EQ(kb::registers_for_block(0), 64) << "not known: as for the largest block";
    EXPECT_EQ(kb::registers_for_block(4096), 64);
}

TEST(FastBuildFit, CubinRegistersAreReadPerFunction) {
    kb::CompileRequest rq = heavy_request(1024, "timed");
    rq.comparisons_only = false;  // the full build, as a timed score's
    kb::CompiledImage img = kb::Compiler(kb::CompilerConfig{}).compile(rq);
    ASSERT_EQ(img.kind, kb::ImageKind::cubin) << img.log;
    std::map<std::string, int> regs = kb::cubin_registers(img.bytes);
    ASSERT_EQ(regs.size(), 1u);
    EXPECT_EQ(regs.begin()->first, img.symbols.at("vector_add"));
    EXPECT_GT(regs.begin()->second, 32);
    EXPECT_LE(regs.begin()->second, 64) << "the fixture's full build is meant to fit a block of 1024 threads";
    EXPECT_TRUE(kb::cubin_registers("not a cubin").empty());
    EXPECT_TRUE(kb::cubin_registers(std::string(img.bytes, 0, 64)).empty());
}

// Both kinds of compared build: the checked copies alone (the library's
// default, contained), and the plain fast build (containment off).
void expect_fits(const kb::CompilerConfig& cfg, const std::string& what) {
    kb::Compiler compiler{cfg};
    // Blocks of 256: 255 registers fit, so the fast build stands. It is the
    // premise of the rest that it uses more than 64.
    kb::CompiledImage small = compiler.compile(heavy_request(256, what + " 256"));
    if (small.kind == kb::ImageKind::ptx) GTEST_SKIP() << "no nvJitLink in the toolkit: " << small.log;
    ASSERT_TRUE(small.fast_compiled) << what;
    const int fast_regs = heavy_registers(small);
    if (fast_regs <= 64)
        GTEST_SKIP() << what << ": this toolkit's fast build uses " << fast_regs
                     << " registers, within a 1024-thread block: nothing to build again";
    EXPECT_EQ(small.log.find("built again"), std::string::npos) << small.log;
    EXPECT_EQ(kb::launch_misfit(small, heavy_request(256, "").expect), "");

    // Blocks of 1024 (and blocks not known): built again in full, and said so.
    for (int64_t threads : {int64_t(1024), int64_t(0)}) {
        kb::CompiledImage big = compiler.compile(heavy_request(threads, what + " " + std::to_string(threads)));
        EXPECT_FALSE(big.fast_compiled) << what << " " << threads;
        EXPECT_LE(heavy_registers(big), 64) << what << " " << threads << ": " << big.log;
        EXPECT_NE(big.log.find("built again at full optimisation"), std::string::npos) << big.log;
        EXPECT_NE(big.log.find("more than a block of 1024 threads may have (64)"), std::string::npos) << big.log;
        EXPECT_EQ(big.checked_only, small.checked_only) << "still the same kind of build";
        EXPECT_NE(kb::launch_misfit(small, heavy_request(threads, "").expect), "");
        // The cache knows the two apart: the block is part of the request's key.
        EXPECT_NE(big.hash, small.hash);
    }
}

TEST(FastBuildFit, ACheckedCopyABlockCouldNotHoldIsBuiltInFull) {
    kb::CompilerConfig cfg;
    cfg.contain_comparisons = true;  // the library's default
    expect_fits(cfg, "checked copies");
}

TEST(FastBuildFit, APlainFastBuildABlockCouldNotHoldIsBuiltInFull) {
    expect_fits(kb::CompilerConfig{}, "plain");
}

// A checked copy that needs more registers than its block may have, even in
// full, where the function does not: the function is built alone (traps
// still contained), so the launch is the candidate's own. Under
// contain_traps (kbench run's default) a timed build holds both, and a
// correctness-only build without the fast compile the copies alone.
TEST(FastBuildFit, ACheckedCopyThatStillDoesNotFitIsLeftOut) {
    kb::CompilerConfig all;
    all.contain_traps = true;
    kb::Compiler compiler{all};
    kb::CompileRequest timed = heavy_request(256, "timed 256", kPointers);
    timed.comparisons_only = false;
    kb::CompiledImage both = compiler.compile(timed);
    if (both.kind == kb::ImageKind::ptx) GTEST_SKIP() << "no nvJitLink in the toolkit: " << both.log;
    ASSERT_NE(both.checked_arm, "") << both.log;
    const std::map<std::string, int> regs = kb::cubin_registers(both.bytes);
    const std::string fn = both.symbols.at("vector_add");
    ASSERT_TRUE(regs.count(fn) && regs.count(fn + kb::kCheckedSuffix)) << both.log;
    ASSERT_LE(regs.at(fn), 64) << "the fixture's function is meant to fit a block of 1024 threads";
    if (regs.at(fn + kb::kCheckedSuffix) <= 64)
        GTEST_SKIP() << "this toolkit's checked copy uses " << regs.at(fn + kb::kCheckedSuffix)
                     << " registers, within a 1024-thread block: nothing to leave out";
    EXPECT_EQ(kb::launch_misfit(both, timed.expect, true), "");
    kb::CompileRequest timed_1024 = heavy_request(1024, "timed 1024", kPointers);
    timed_1024.comparisons_only = false;
    EXPECT_NE(kb::launch_misfit(both, timed_1024.expect, true).find("its checked copy of vector_add uses"),
              std::string::npos);

    kb::CompiledImage alone = compiler.compile(timed_1024);
    EXPECT_EQ(alone.checked_arm, "") << alone.log;
    EXPECT_NE(alone.trap_flag, "") << "traps are still contained";
    EXPECT_NE(alone.log.find("kbench: no checked build of this kernel: its checked copy of vector_add uses"),
              std::string::npos)
        << alone.log;
    EXPECT_LE(kb::cubin_registers(alone.bytes).at(alone.symbols.at("vector_add")), 64);

    kb::CompilerConfig slow = all;
    slow.comparisons_fast_compile = false;
    kb::CompileRequest compared = heavy_request(1024, "compared 1024", kPointers);
    kb::CompiledImage c = kb::Compiler(slow).compile(compared);
    EXPECT_FALSE(c.checked_only) << c.log;
    EXPECT_EQ(c.checked_arm, "") << c.log;
    EXPECT_NE(c.log.find("no checked build of this kernel"), std::string::npos) << c.log;

}

// The plan's largest block over the task's cases, from its expressions.
TEST(FastBuildFit, LaunchExpectationsCarryTheLargestBlock) {
    kb::TaskPtr task = kb::load_task(std::string(KB_SOURCE_DIR) + "/tasks/elementwise/vector_add_f32/task.json");
    kb::Program p = *task->candidate_default;
    kb::LaunchExpectations e = kb::launch_expectations(*task, p);
    ASSERT_EQ(e.kernels.at("vector_add").size(), 1u);
    EXPECT_EQ(e.kernels.at("vector_add")[0].max_block_threads, 256);
    p.launch[0].block[0] = kb::Expr::parse("min(n, 1024)");  // n runs from 1 to 16777216 over the cases
    p.launch[0].block[1] = kb::Expr::parse("1");
    e = kb::launch_expectations(*task, p);
    EXPECT_EQ(e.kernels.at("vector_add")[0].max_block_threads, 1024);
    p.launch[0].block[0] = kb::Expr::parse("32");
    p.launch[0].block[1] = kb::Expr::parse("8");
    e = kb::launch_expectations(*task, p);
    EXPECT_EQ(e.kernels.at("vector_add")[0].max_block_threads, 256);
    const std::string key256 = kb::expectations_key(e);
    p.launch[0].block[0] = kb::Expr::parse("no_such_dim");
    e = kb::launch_expectations(*task, p);
    EXPECT_EQ(e.kernels.at("vector_add")[0].max_block_threads, 0) << "not known: the launch names the error";
    EXPECT_NE(kb::expectations_key(e), key256);
}

}  // namespace
