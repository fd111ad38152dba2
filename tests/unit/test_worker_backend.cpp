// The host side of worker isolation that needs no GPU: deadlines, the
// verdicts a dead or hung worker turns into, and compilation in compile
// workers (NVRTC runs without a device), through the pool and through a
// compile-only context, from several threads at once.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "engine/context.h"
#include "ipc/process_limits.h"
#include "engine/verdict.h"
#include "kbench.h"
#include "task/task.h"
#include "util/error.h"
#include "worker_host/compile_pool.h"
#include "worker_host/deadlines.h"
#include "worker_host/worker_backend.h"
#include "support/task_paths.h"

using namespace kb;

namespace {

std::string task_path(const char* name) { return kb::test::builtin_task_file(name); }
std::string worker_path() { return std::string(KB_BINARY_DIR) + "/kbench-worker"; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const char* kVectorAdd =
    "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";

CompileRequest ptx_request(const std::string& code) {
    CompileRequest r;
    r.language = Language::cuda;
    r.code = code;
    r.source_name = "candidate.cu";
    r.kernel_names = {"vector_add"};
    r.arch = "sm_90";
    r.emit_ptx = true;
    r.allow_nvcc_fallback = false;
    return r;
}

std::unique_ptr<CompilePool> pool(size_t workers = 2, double deadline_s = 0) {
    WorkerSettings s;
    s.spawn.executable = worker_path();
    s.spawn.test_hooks = true;
    CompilerConfig c;
    c.cuda_home = default_cuda_home();
    return std::make_unique<CompilePool>(s, c, workers, deadline_s);
}

}  // namespace

TEST(WorkerDeadlines, CompareHasAFloorAndScalesWithTheReference) {
    DeadlinePolicy p;
    Deadline tiny = p.compare(0.01, 12, 1, false);
    EXPECT_GE(tiny.seconds, 2.0);
    EXPECT_LT(tiny.seconds, 2.1);
    EXPECT_TRUE(has(tiny.why, "20x the reference")) << tiny.why;
    Deadline slow = p.compare(500.0, 0, 2, false);  // 0.5 s reference, two runs
    EXPECT_NEAR(slow.seconds, 20.0, 1e-9);
    Deadline fresh = p.compare(0.01, 0, 1, true);
    EXPECT_NEAR(fresh.seconds, 3.0, 1e-9);  // + loading a module the worker has not seen
    Deadline data = p.compare(0.01, uint64_t(1) << 30, 1, false);
    EXPECT_GT(data.seconds, 3.0);  // a GiB to generate, poison, check and download
}

// Several cases in one request: the one-case rule over their sums, with the
// 2 s floor and a new module's second counted once, never less than any one
// case's own deadline.
TEST(WorkerDeadlines, CasesInOneRequestSumTheirCosts) {
    DeadlinePolicy p;
    std::vector<DeadlinePolicy::CaseCost> tiny = {{0.01, 12, 2}, {0.01, 4000, 2}, {0.02, 400000, 1}};
    Deadline d = p.compare_cases(tiny, false);
    EXPECT_GE(d.seconds, 2.0);
    EXPECT_LT(d.seconds, 2.1) << "the floor counted more than once: " << d.why;
    EXPECT_TRUE(has(d.why, "summed over 3 cases")) << d.why;
    EXPECT_NEAR(p.compare_cases(tiny, true).seconds, d.seconds + 1.0, 1e-9);
    std::vector<DeadlinePolicy::CaseCost> slow = {{500.0, 0, 2}, {250.0, 0, 1}};  // 20x (1 s + 0.25 s)
    EXPECT_NEAR(p.compare_cases(slow, false).seconds, 25.0, 1e-9);
    std::vector<DeadlinePolicy::CaseCost> data = {{0.01, uint64_t(1) << 30, 1}, {0.01, uint64_t(1) << 30, 1}};
    EXPECT_GE(p.compare_cases(data, false).seconds, p.compare(0.01, uint64_t(1) << 30, 1, false).seconds + 1.0);
    for (const auto& c : slow) EXPECT_GE(p.compare_cases(slow, false).seconds, p.compare(c.reference_ms, c.case_bytes, c.runs, false).seconds);
    p.timeout_s = 5;
    EXPECT_EQ(p.compare_cases(slow, true).seconds, 5.0);
}

TEST(WorkerDeadlines, TimingCoversTheBudgetAndSlowKernels) {
    DeadlinePolicy p;
    TimeRequest r;
    r.against_baseline = true;
    Deadline d = p.time(0.1, 0, r, false);
    EXPECT_GE(d.seconds, 2.0 + 3 * 0.105);
    Deadline slow = p.time(100.0, 0, r, false);  // a 100 ms reference: rounds of up to 4 s
    EXPECT_GT(slow.seconds, 8 * 4.0);
    r.timing.budget_ms = 1000;
    EXPECT_GT(p.time(0.1, 0, r, false).seconds, 5.0);
}

TEST(WorkerDeadlines, AKernelRunIsLimitedFarBelowItsRequest) {
    DeadlinePolicy p;
    Deadline tiny = p.kernel(0.01);
    EXPECT_EQ(tiny.seconds, DeadlinePolicy::kKernelFloorS);
    // A hang costs a third of the request's deadline (2 s, + 1 s to load a new module).
    EXPECT_LE(tiny.seconds, p.compare(0.01, 12, 1, true).seconds / 3);
    EXPECT_TRUE(has(tiny.why, "20x the reference's 0.01 ms")) << tiny.why;
    EXPECT_NEAR(p.kernel(500.0).seconds, 10.0, 1e-9);  // a 0.5 s reference: 20x
    p.timeout_s = 5;
    EXPECT_EQ(p.kernel(0.01).seconds, 5.0);  // the caller's deadline wins, for the run too
    EXPECT_TRUE(has(p.kernel(0.01).why, "timeout_s"));
}

TEST(WorkerDeadlines, ACheckedBuildsLoopsStopFarBelowTheKernelLimit) {
    DeadlinePolicy p;
    Deadline tiny = p.checked_loops(0.01);
    EXPECT_EQ(tiny.seconds, DeadlinePolicy::kCheckedLoopFloorS);
    EXPECT_LT(tiny.seconds, p.kernel(0.01).seconds / 3);
    EXPECT_TRUE(has(tiny.why, "max(0.25 s, 20x the reference's 0.01 ms)")) << tiny.why;
    EXPECT_TRUE(has(tiny.why, "checked build")) << tiny.why;
    EXPECT_NEAR(p.checked_loops(30.0).seconds, 0.6, 1e-9);  // 20x a 30 ms reference
    // Past the kernel floor the two rules agree: the loops get the kernel's limit.
    EXPECT_EQ(p.checked_loops(500.0).seconds, p.kernel(500.0).seconds);
    EXPECT_EQ(p.checked_loops(500.0).why, p.kernel(500.0).why);
    // Never past the kernel's limit, whose floor may be moved below the loops' floor.
    p.kernel_floor_s = 0.1;
    EXPECT_EQ(p.checked_loops(0.01).seconds, 0.1);
    p.kernel_floor_s = DeadlinePolicy::kKernelFloorS;
    p.timeout_s = 5;
    EXPECT_EQ(p.checked_loops(0.01).seconds, 5.0);  // the caller's deadline, for the loops too
    EXPECT_TRUE(has(p.checked_loops(0.01).why, "timeout_s"));
}

TEST(WorkerDeadlines, TheKernelFloorCanBeMovedToMeasureIt) {
    DeadlinePolicy p;
    p.kernel_floor_s = 0.3;
    EXPECT_EQ(p.kernel(0.01).seconds, 0.3);
    EXPECT_TRUE(has(p.kernel(0.01).why, "max(0.3 s")) << p.kernel(0.01).why;
    // $KBENCH_KERNEL_FLOOR_S that is not a positive number is refused by
    // name, before any device is looked for.
    for (const char* bad : {"fast", "0", "-1", "0.3s"}) {
        ::setenv("KBENCH_KERNEL_FLOOR_S", bad, 1);
        try {
            make_worker_backend(ContextOptions{});
            ADD_FAILURE() << bad << " was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT) << bad;
            EXPECT_TRUE(has(e.what(), "KBENCH_KERNEL_FLOOR_S")) << e.what();
        }
    }
    ::unsetenv("KBENCH_KERNEL_FLOOR_S");
    ::setenv("KBENCH_CHECKED_LOOP_FLOOR_S", "soon", 1);
    try {
        make_worker_backend(ContextOptions{});
        ADD_FAILURE() << "soon was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(has(e.what(), "$KBENCH_CHECKED_LOOP_FLOOR_S is 'soon'")) << e.what();
        EXPECT_TRUE(has(e.what(), "0.25 s floor")) << e.what();
    }
    ::unsetenv("KBENCH_CHECKED_LOOP_FLOOR_S");
}

TEST(WorkerDeadlines, ContextTimeoutReplacesTheComputedOne) {
    DeadlinePolicy p;
    p.timeout_s = 0.75;
    EXPECT_EQ(p.compare(1000.0, 1 << 30, 4, true).seconds, 0.75);
    EXPECT_EQ(p.time(1000.0, 0, TimeRequest{}, true).seconds, 0.75);
    EXPECT_TRUE(has(p.compare(1, 1, 1, false).why, "timeout_s"));
    EXPECT_GE(p.reference().seconds, DeadlinePolicy::kReferenceS);  // the task's reference is not the candidate
}

TEST(WorkerDeadlines, CaseBytesCountEveryBuffer) {
    TaskPtr t = load_task(task_path("vector_add_f32"));
    EXPECT_EQ(case_buffer_bytes(*t, 0), 3u * 4u * 1u);        // n = 1: a, b, c
    EXPECT_EQ(case_buffer_bytes(*t, t->perf_index), 3u * 4u * 16777216u);
    EXPECT_EQ(case_buffer_bytes(*t, 99), 0u);
}

TEST(WorkerFailureResults, TimeoutNamesTheDeadlineAndTheFix) {
    TaskPtr t = load_task(task_path("vector_add_f32"));
    Outcome o;
    o.kind = Outcome::Kind::timeout;
    o.detail = "no reply within 2.05 s; the worker was killed";
    o.elapsed_s = 2.06;
    o.pid = 1234;
    Deadline d{2.05, "max(2 s, 20x the reference's 0.01 ms) + 0.05 s to move 1 MiB"};
    Json r = worker_failure_result("compare", *t, 1, 7, "spin.cu", o, d);
    EXPECT_EQ(r["verdict"], "timeout");
    EXPECT_EQ(r["kind"], "compare");
    EXPECT_EQ(r["case"], t->cases[1].name);
    EXPECT_EQ(r["kernel"], "spin.cu");
    EXPECT_EQ(r["deadline_s"], 2.05);
    std::string m = r["message"];
    EXPECT_TRUE(has(m, "2.05 s")) << m;
    EXPECT_TRUE(has(m, "20x the reference")) << m;
    EXPECT_TRUE(has(m, "timeout_s")) << m;
    EXPECT_TRUE(has(m, "case '" + t->cases[1].name + "'")) << m;
    EXPECT_EQ(r["worker"]["pid"], 1234);
    EXPECT_EQ(verdict_from_name(r["verdict"]), KB_VERDICT_TIMEOUT);
}

TEST(WorkerFailureResults, DeathNamesTheSignalAndWhatTheWorkerDid) {
    TaskPtr t = load_task(task_path("vector_add_f32"));
    Outcome o;
    o.kind = Outcome::Kind::died;
    o.detail = "killed by SIGSEGV (segmentation fault)";
    o.term_signal = SIGSEGV;
    o.last_words = "comparing x.cu at case 'one'";
    Json r = worker_failure_result("time", *t, t->perf_index, 0, "x.cu", o, Deadline{});
    EXPECT_EQ(r["verdict"], "runtime_error");
    EXPECT_EQ(r["signal"], "SIGSEGV (segmentation fault)");
    std::string m = r["message"];
    EXPECT_TRUE(has(m, "SIGSEGV")) << m;
    EXPECT_TRUE(has(m, "while timing")) << m;
    EXPECT_TRUE(has(m, "comparing x.cu")) << m;
    EXPECT_FALSE(r.contains("seed"));  // timing inputs are not the caller's seed
}

TEST(CompilePool, CompilesInAWorkerProcess) {
    std::shared_ptr<CompilePool> p = pool();
    CompiledImage img = p->build(ptx_request(kVectorAdd));
    EXPECT_EQ(img.kind, ImageKind::ptx);
    EXPECT_TRUE(has(img.bytes, ".entry")) << img.bytes.substr(0, 200);
    EXPECT_FALSE(img.cache_hit);
    EXPECT_EQ(p->started_workers(), 1u);
}

TEST(CompilePool, LettingGoLeavesNoWorkerAndTheNextBuildStartsOne) {
    std::shared_ptr<CompilePool> p = pool();
    CompiledImage img = p->build(ptx_request(kVectorAdd));
    p->let_go();  // kbench run's end: nobody waits for the workers to exit
    CompiledImage again = p->build(ptx_request(kVectorAdd));
    EXPECT_EQ(again.bytes, img.bytes);
    EXPECT_EQ(p->started_workers(), 1u);
}

TEST(CompilePool, TheServiceCachesWhatThePoolBuilds) {
    std::shared_ptr<CompilePool> p = pool();
    CompilerConfig c;
    c.cuda_home = default_cuda_home();
    Compiler service(c, p);
    CompiledImage img = service.compile(ptx_request(kVectorAdd));
    EXPECT_FALSE(img.cache_hit);
    EXPECT_EQ(p->started_workers(), 1u);
    CompiledImage again = service.compile(ptx_request(kVectorAdd));
    EXPECT_TRUE(again.cache_hit);
    EXPECT_EQ(again.bytes, img.bytes);
    // Given images need no sandbox: validated in the host, no worker asked.
    CompileRequest given = ptx_request(img.bytes);
    given.language = Language::ptx;
    EXPECT_EQ(service.compile(given).path, "given");
    EXPECT_EQ(p->started_workers(), 1u);
}

TEST(CompilePool, CompileErrorsCarryTheLog) {
    auto p = pool();
    try {
        p->build(ptx_request("__global__ void vector_add(float* c) { c[0] = undefined_thing; }"));
        FAIL() << "compiled";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.log(), "undefined_thing")) << e.log();
    }
}

TEST(CompilePool, ACompilerCrashIsACompileErrorAndTheNextCompileWorks) {
    auto p = pool(1);
    p->inject_fault_once("segv");
    try {
        p->build(ptx_request(std::string(kVectorAdd) + "// crash\n"));
        FAIL() << "a crashed compile returned an image";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "SIGSEGV")) << e.what();
        EXPECT_TRUE(has(e.what(), "crashed")) << e.what();
    }
    CompiledImage img = p->build(ptx_request(std::string(kVectorAdd) + "// after\n"));
    EXPECT_TRUE(has(img.bytes, ".entry"));
}

TEST(CompilePool, ACompilerHangIsStoppedAtTheDeadline) {
    auto p = pool(1, 1.0);
    p->inject_fault_once("sleep:30");
    auto t0 = std::chrono::steady_clock::now();
    try {
        p->build(ptx_request(std::string(kVectorAdd) + "// hang\n"));
        FAIL() << "a hung compile returned an image";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "did not finish")) << e.what();
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.5);
    EXPECT_TRUE(has(p->build(ptx_request(kVectorAdd)).bytes, ".entry"));
}

TEST(CompilePool, ThreadsCompileInParallel) {
    auto p = pool(3);
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2; ++i) {
                CompiledImage img =
                    p->build(ptx_request(std::string(kVectorAdd) + "// " + std::to_string(t * 10 + i) + "\n"));
                if (has(img.bytes, ".entry")) ++ok;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 12);
    EXPECT_LE(p->started_workers(), 3u);
}

TEST(WorkerContext, CompileOnlyContextCompilesInWorkersWhenAsked) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    o.isolation = KB_ISOLATION_WORKER;
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
    Json info = Json::parse(kb_context_json(c));
    EXPECT_EQ(info["compile_isolation"], "worker");
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(task_path("vector_add_f32").c_str(), &t), KB_OK) << kb_last_error();
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] {
            std::string code = std::string(kVectorAdd) + "// thread " + std::to_string(i) + "\n";
            kb_candidate cand = KB_CANDIDATE_INIT;
            cand.code = code.c_str();
            kb_kernel* k = nullptr;
            if (kb_compile(c, t, &cand, &k) == KB_OK) ++ok;
            kb_kernel_destroy(k);
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(ok.load(), 4);
    kb_candidate bad = KB_CANDIDATE_INIT;
    bad.code = "__global__ void vector_add(float* c) { c[0] = undefined_thing; }";
    kb_kernel* k = nullptr;
    EXPECT_EQ(kb_compile(c, t, &bad, &k), KB_ERR_COMPILE);
    EXPECT_TRUE(has(kb_last_error(), "undefined_thing")) << kb_last_error();
    kb_task_destroy(t);
    kb_context_destroy(c);
}

TEST(WorkerContext, DefaultCompileOnlyContextStaysInProcess) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
    EXPECT_EQ(Json::parse(kb_context_json(c))["compile_isolation"], "in_process");
    kb_context_destroy(c);
}

TEST(CompilePool, CompileWorkersRunUnderTheCompileMemoryLimit) {
    if (!kb::address_space_limit_usable()) GTEST_SKIP() << "a sanitizer build cannot cap its address space";
    WorkerSettings s;
    s.spawn.executable = worker_path();
    CompilerConfig c;
    c.cuda_home = default_cuda_home();
    // NVRTC parses CUB's headers in a few hundred MiB (it compiles at 300);
    // at 200 MiB the compile worker's own limit stops it, in that process.
    c.process_limits.memory_bytes = uint64_t(200) << 20;
    CompilePool p(s, c, 1);
    try {
        p.build(ptx_request("#include <cub/cub.cuh>\n" + std::string(kVectorAdd)));
        FAIL() << "compiled";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "compile memory limit of 200 MiB")) << e.what();
        EXPECT_TRUE(has(e.what(), "kb_limits.compile_memory_bytes")) << e.what();
    }
    // The host is untouched and the worker goes on with small compiles.
    EXPECT_TRUE(has(p.build(ptx_request(kVectorAdd)).bytes, ".entry"));
    EXPECT_EQ(kb::own_address_space_limit(), 0u);
}

TEST(WorkerSettings, AStandbyWaitsForALossOnlyWhereFaultsAreContained) {
    ContextOptions o;
    o.worker_path = worker_path();
    o.contain_traps = false;
    WorkerSettings plain = worker_settings(o, 0);
    EXPECT_TRUE(plain.standby);
    EXPECT_FALSE(plain.standby_after_loss);
    o.contain_traps = true;
    WorkerSettings contained = worker_settings(o, 0);
    EXPECT_TRUE(contained.standby);
    EXPECT_TRUE(contained.standby_after_loss);
    // Traps contained without the checked builds: faults still lose workers.
    ::setenv("KBENCH_CHECKED_BUILD", "0", 1);
    EXPECT_FALSE(worker_settings(o, 0).standby_after_loss);
    ::unsetenv("KBENCH_CHECKED_BUILD");
    ::setenv("KBENCH_WORKER_STANDBY", "1", 1);
    EXPECT_FALSE(worker_settings(o, 0).standby_after_loss);
    ::setenv("KBENCH_WORKER_STANDBY", "0", 1);
    EXPECT_FALSE(worker_settings(o, 0).standby);
    ::unsetenv("KBENCH_WORKER_STANDBY");
    EXPECT_FALSE(worker_settings(o, -1).standby);  // a compile worker holds no device
}
