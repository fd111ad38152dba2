// Worker isolation on a real GPU: a hang is reported within its deadline plus
// half a second, a crash costs under half a second before the next healthy
// verdict, a worker that dies mid-request is named by its signal, results
// already returned survive, the live worker's device memory stays flat, and
// timing has a watchdog too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "adversarial_util.h"
#include "kbench.h"
#include "device/device.h"
#include "exec/run_guarded.h"
#include "worker_host/worker_backend.h"

using namespace kb;
using namespace kb::adversarial;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const char* kCorrect = "tasks/elementwise/vector_add_f32/candidates/correct.cu";
const char* kTask = "vector_add_f32";
constexpr uint64_t kSeed = 1234;

WorkerBackend& workers(Context& ctx) { return dynamic_cast<WorkerBackend&>(ctx.backend()); }

// Traps and faults contained in the contexts a test makes while it lives
// ($KBENCH_CONTAIN_TRAPS=1, which overrides the contexts' own choice).
struct ContainmentOn {
    ContainmentOn() { ::setenv("KBENCH_CONTAIN_TRAPS", "1", 1); }
    ~ContainmentOn() { ::unsetenv("KBENCH_CONTAIN_TRAPS"); }
};

// Lets the standby worker, started after the first request, finish starting.
void let_standby_start() { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); }

// A correct kernel passes (the worker warm, its standby started), then the
// infinite loop runs at case 0: its result, how long it took, and the
// correct kernel for what comes after.
struct Hang {
    Json result;
    double took = 0;
    KernelPtr good;
};

void hang_after_a_pass(Context& ctx, Hang* h) {
    h->good = compile(ctx, kTask, kCorrect);
    KernelPtr loop = compile(ctx, kTask, "kernels/infinite_loop.cu");
    ASSERT_EQ(to_json(ctx.compare(task(kTask), h->good, 0, kSeed))["verdict"], "pass");
    let_standby_start();
    auto t0 = Clock::now();
    h->result = to_json(ctx.compare(task(kTask), loop, 0, kSeed));
    h->took = seconds_since(t0);
}

}  // namespace

TEST(IsolationGpu, ContextsIsolateByDefault) {
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(nullptr, &c), KB_OK) << kb_last_error();
    Json info = Json::parse(kb_context_json(c));
    EXPECT_EQ(info["isolation"], "worker");
    EXPECT_EQ(info["compile_isolation"], "worker");
    EXPECT_GT(info["device"]["worker"]["pid"].get<int>(), 0);
    kb_context_destroy(c);
}

// A device worker sees its own GPU alone, as its device 0
// (ipc/worker_environment.h): on every GPU of the host, the worker's device
// is the card the host's ordinal names, and the context reports the host's
// ordinal. With two or more GPUs this is what a wrong mapping would fail.
TEST(IsolationGpu, EachWorkerOpensTheHostsGpuAndSeesItAlone) {
    int count = 0;
    ASSERT_EQ(kb_device_count(&count), KB_OK) << kb_last_error();
    ASSERT_GT(count, 0);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
        const std::string pci = Device(ordinal).props().pci_bus_id;
        ASSERT_FALSE(pci.empty());
        ContextOptions o;
        o.device = ordinal;
        o.isolation = KB_ISOLATION_WORKER;
        Context ctx(o, worker_isolation());
        const Json& dev = ctx.info()["device"];
        EXPECT_EQ(dev["pci_bus_id"], pci) << "ordinal " << ordinal << ": " << dev.dump();
        EXPECT_EQ(dev["ordinal"], ordinal);
        Scored r = score(ctx, kTask, kCorrect);
        EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << "ordinal " << ordinal << ": " << r.message;
    }
}

TEST(IsolationGpu, HangIsReportedWithinItsDeadlinePlusHalfASecond) {
    auto ctx = worker_context(1.0);
    Hang h;
    ASSERT_NO_FATAL_FAILURE(hang_after_a_pass(*ctx, &h));
    const auto& [r, took, good] = h;
    EXPECT_EQ(r["verdict"], "timeout") << r.dump(2);
    EXPECT_LT(took, 1.5) << "deadline 1 s";
    EXPECT_TRUE(has(r["message"].get<std::string>(), "timeout_s")) << r["message"];
    auto t1 = Clock::now();
    Json next = to_json(ctx->compare(task(kTask), good, 0, kSeed));
    EXPECT_EQ(next["verdict"], "pass") << next.dump(2);
    EXPECT_LT(seconds_since(t1), 0.5) << "hang to the next healthy verdict";
}

TEST(IsolationGpu, HangIsCaughtByTheWorkersOwnWatchdogAtItsFloor) {
    auto ctx = worker_context();  // kbench's computed deadlines
    // The request's deadline is 2 s + 1 s to load the new module: the
    // worker's watchdog (1 s from the launch) ends it first.
    Hang h;
    ASSERT_NO_FATAL_FAILURE(hang_after_a_pass(*ctx, &h));
    const auto& [r, took, good] = h;
    EXPECT_EQ(r["verdict"], "timeout") << r.dump(2);
    EXPECT_TRUE(r.value("context_lost", false)) << r.dump(2);
    EXPECT_EQ(r.value("deadline_s", 0.0), DeadlinePolicy::kKernelFloorS) << r.dump(2);
    EXPECT_TRUE(has(r["message"].get<std::string>(), "of its launch")) << r["message"];
    EXPECT_LT(took, DeadlinePolicy::kKernelFloorS + 0.5) << r.dump(2);
    auto t1 = Clock::now();
    Json next = to_json(ctx->compare(task(kTask), good, 0, kSeed));
    EXPECT_EQ(next["verdict"], "pass") << next.dump(2);
    EXPECT_NE(next["worker"]["pid"], r["worker"]["pid"]) << "the hung worker was replaced";
    EXPECT_LT(seconds_since(t1), 0.5) << "hang to the next healthy verdict";
}

TEST(IsolationGpu, CrashToTheNextHealthyVerdictTakesUnderHalfASecond) {
    auto ctx = worker_context();
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    KernelPtr bad = compile(*ctx, kTask, "kernels/illegal_address.cu");
    for (int round = 0; round < 3; ++round) {
        Json ok = to_json(ctx->compare(task(kTask), good, 1, kSeed));
        ASSERT_EQ(ok["verdict"], "pass") << ok.dump(2);
        let_standby_start();
        Json crash = to_json(ctx->compare(task(kTask), bad, 1, kSeed));
        EXPECT_EQ(crash["verdict"], "runtime_error") << crash.dump(2);
        EXPECT_TRUE(crash.value("context_lost", false)) << crash.dump(2);
        auto t0 = Clock::now();
        Json next = to_json(ctx->compare(task(kTask), good, 1, kSeed));
        double took = seconds_since(t0);
        EXPECT_EQ(next["verdict"], "pass") << next.dump(2);
        EXPECT_LT(took, 0.5) << "round " << round << ": " << workers(*ctx).supervisor().stats().dump();
        EXPECT_NE(next["worker"]["pid"], ok["worker"]["pid"]);
    }
}

TEST(IsolationGpu, AWorkerThatDiesMidRequestIsNamedByItsSignal) {
    ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
    auto ctx = worker_context();
    ::unsetenv("KBENCH_WORKER_TEST_HOOKS");
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    Json before = to_json(ctx->compare(task(kTask), good, 0, kSeed));
    ASSERT_EQ(before["verdict"], "pass");
    Json kept = before;
    for (const char* fault : {"segv", "abort"}) {
        workers(*ctx).inject_fault_once("compare", fault);
        Json r = to_json(ctx->compare(task(kTask), good, 0, kSeed));
        EXPECT_EQ(r["verdict"], "runtime_error") << r.dump(2);
        std::string m = r["message"];
        EXPECT_TRUE(has(m, std::string(fault) == "segv" ? "SIGSEGV" : "SIGABRT")) << m;
        EXPECT_TRUE(has(m, "comparing")) << "the worker's last words: " << m;
        EXPECT_EQ(to_json(ctx->compare(task(kTask), good, 0, kSeed))["verdict"], "pass");
    }
    workers(*ctx).inject_fault_once("time", "abort");
    TimeRequest tr;
    tr.against_baseline = true;
    Json t = to_json(ctx->time(task(kTask), good, tr));
    EXPECT_EQ(t["verdict"], "runtime_error") << t.dump(2);
    EXPECT_TRUE(has(t["message"].get<std::string>(), "while timing")) << t["message"];
    EXPECT_EQ(before, kept) << "a result already returned changed";
}

TEST(IsolationGpu, TimingHasAWatchdogToo) {
    // Honest at every case, then spins on its second launch at the perf size:
    // correctness passes, timing hangs.
    const char* code = R"cu(
__device__ unsigned long long perf_blocks = 0;
__device__ volatile int never_set = 0;
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n == 16777216) {
        __shared__ unsigned long long earlier;
        if (threadIdx.x == 0) earlier = atomicAdd(&perf_blocks, 0ull) / gridDim.x;
        __syncthreads();
        if (earlier > 0) while (never_set == 0) {}
        if (i < n) c[i] = a[i] + b[i];
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(&perf_blocks, 1ull);
        return;
    }
    if (i < n) c[i] = a[i] + b[i];
}
)cu";
    auto ctx = worker_context();
    CandidateInput in;
    in.code = code;
    in.label = "hangs_when_timed.cu";
    ScoreOptions so;
    auto t0 = Clock::now();
    Json r = to_json(ctx->score(task(kTask), in, so));
    EXPECT_EQ(r["verdict"], "timeout") << r.dump(2);
    EXPECT_TRUE(has(r["message"].get<std::string>(), "while timing")) << r["message"];
    // Timed again (Context::TimeoutRetry::always), and it hung again.
    ASSERT_TRUE(r["timing"].contains("retried")) << r.dump(2);
    EXPECT_TRUE(has(r["timing"]["retried"].get<std::string>(), "passed every case")) << r["timing"]["retried"];
    EXPECT_LT(seconds_since(t0), 20.0);
    EXPECT_EQ(score(*ctx, kTask, kCorrect, std::nullopt, true).verdict, KB_VERDICT_PASS);
}

TEST(IsolationGpu, ATimeoutWhileTimingAPassedCandidateIsTriedOnceMore) {
    // The worker sleeps through the first timing request (as one stalled by
    // a neighbour's hang would): the candidate passed every case, so the
    // timeout is tried again, and the second attempt's timing stands.
    ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
    auto ctx = worker_context();
    ::unsetenv("KBENCH_WORKER_TEST_HOOKS");
    workers(*ctx).inject_fault_once("time", "sleep:30");
    CandidateInput in;
    in.path = kernel_file(kCorrect);
    ScoreOptions so;
    auto t0 = Clock::now();
    Json r = to_json(ctx->score(task(kTask), in, so));
    EXPECT_EQ(r["verdict"], "pass") << r.dump(2);
    ASSERT_TRUE(r["timing"].contains("retried")) << r.dump(2);
    const std::string why = r["timing"]["retried"];
    EXPECT_TRUE(has(why, "passed every case") && has(why, "did not finish")) << why;
    EXPECT_GT(r.value("speedup", 0.0), 0) << r.dump(2);
    EXPECT_LT(seconds_since(t0), 20.0);
}

TEST(IsolationGpu, StickyErrorsReplaceTheWorkerAndEarlierResultsStay) {
    auto ctx = worker_context();
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    Json first = to_json(ctx->compare(task(kTask), good, 2, kSeed));
    ASSERT_EQ(first["verdict"], "pass");
    const Json copy = first;
    for (const char* k : {"kernels/trap.cu", "kernels/misaligned.cu", "kernels/illegal_address.cu"}) {
        Json crash = to_json(ctx->compare(task(kTask), compile(*ctx, kTask, k), 2, kSeed));
        EXPECT_EQ(crash["verdict"], "runtime_error") << k << ": " << crash.dump(2);
        EXPECT_TRUE(crash.value("context_lost", false)) << k;
        EXPECT_TRUE(crash["worker"].value("replaced", false)) << k;
        Json again = to_json(ctx->compare(task(kTask), good, 2, kSeed));
        EXPECT_EQ(again["verdict"], "pass") << "after " << k << ": " << again.dump(2);
    }
    EXPECT_EQ(first, copy);
}

TEST(IsolationGpu, TheLiveWorkersDeviceMemoryStaysFlat) {
    auto ctx = worker_context();
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    KernelPtr bad = compile(*ctx, kTask, "kernels/illegal_address.cu");
    int perf = task(kTask)->perf_index;
    Json r = to_json(ctx->compare(task(kTask), good, perf, kSeed));
    ASSERT_EQ(r["verdict"], "pass");
    let_standby_start();
    uint64_t first = to_json(ctx->compare(task(kTask), good, perf, kSeed))["worker"]["device_free_bytes"].get<uint64_t>();
    for (int i = 0; i < 15; ++i) {
        EXPECT_EQ(to_json(ctx->compare(task(kTask), bad, perf, kSeed))["verdict"], "runtime_error");
        EXPECT_EQ(to_json(ctx->compare(task(kTask), good, perf, kSeed))["verdict"], "pass");
    }
    let_standby_start();  // killed workers release their memory; the next standby settles
    uint64_t last = to_json(ctx->compare(task(kTask), good, perf, kSeed))["worker"]["device_free_bytes"].get<uint64_t>();
    double drift_mib = (double(first) - double(last)) / (1024.0 * 1024.0);
    EXPECT_LT(std::abs(drift_mib), 256.0) << "free device memory went from " << first << " to " << last;
}

TEST(IsolationGpu, WorkerAndInProcessAgree) {
    auto w = worker_context();
    ContextOptions o;
    o.device = 0;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    Context local(o);
    for (const char* k : {kCorrect, "tasks/elementwise/vector_add_f32/candidates/wrong.cu", "tasks/elementwise/vector_add_f32/candidates/not_writing.cu",
                          "tasks/elementwise/vector_add_f32/candidates/input_mutating.cu"}) {
        Scored a = score(*w, kTask, k);
        Scored b = score(local, kTask, k);
        EXPECT_EQ(a.verdict, b.verdict) << k << ": " << a.message << " | " << b.message;
        EXPECT_EQ(a.message, b.message) << k;
    }
}

// A score's cases go to the worker in one request (compare_cases). The
// results stop at the first case that fails and name it: a wrong answer
// there, a crash there (the worker replaced, the next request on a fresh
// one), and a worker that dies mid-request, whose failure is still reported
// although nothing in the reply says at which case.
TEST(IsolationGpu, CasesInOneRequestStopAtTheFirstFailureAndNameIt) {
    ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
    auto ctx = worker_context();
    ::unsetenv("KBENCH_WORKER_TEST_HOOKS");
    TaskPtr t = task(kTask);
    TaskBinding tb = ctx->bind(t);
    WorkerBackend& w = workers(*ctx);
    std::vector<Backend::CaseRuns> cases;
    for (size_t i = 0; i < t->cases.size(); ++i) cases.push_back({int(i), 2});
    ASSERT_GE(cases.size(), 3u);
    const std::string prime = t->cases[1].name;  // vector_add_f32: n = 1009
    ASSERT_EQ(t->cases[1].dims.at("n"), 1009);

    KernelPtr good = compile(*ctx, kTask, kCorrect);
    std::vector<CompareResult> all = w.compare_cases(tb, good, cases, kSeed);
    ASSERT_EQ(all.size(), cases.size());
    for (size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].verdict, KB_VERDICT_PASS) << all[i].message;
        EXPECT_EQ(all[i].where.case_name, t->cases[i].name);
    }

    KernelPtr wrong_at_prime = compile_code(*ctx, kTask, R"cu(
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = n == 1009 ? a[i] - b[i] : a[i] + b[i];
}
)cu", "wrong_at_prime.cu");
    std::vector<CompareResult> w1 = w.compare_cases(tb, wrong_at_prime, cases, kSeed);
    ASSERT_EQ(w1.size(), 2u);
    EXPECT_EQ(w1[0].verdict, KB_VERDICT_PASS);
    EXPECT_EQ(w1[1].verdict, KB_VERDICT_WRONG_ANSWER) << w1[1].message;
    EXPECT_EQ(w1[1].where.case_name, prime);

    KernelPtr crash_at_prime = compile_code(*ctx, kTask, R"cu(
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (n == 1009 && i == 0) { volatile float* bad = nullptr; *bad = 1.0f; }
    if (i < n) c[i] = a[i] + b[i];
}
)cu", "crash_at_prime.cu");
    let_standby_start();
    std::vector<CompareResult> c1 = w.compare_cases(tb, crash_at_prime, cases, kSeed);
    ASSERT_EQ(c1.size(), 2u);
    EXPECT_EQ(c1[0].verdict, KB_VERDICT_PASS);
    EXPECT_EQ(c1[1].verdict, KB_VERDICT_RUNTIME_ERROR) << c1[1].message;
    EXPECT_TRUE(c1[1].context_lost);
    EXPECT_EQ(c1[1].where.case_name, prime);
    std::vector<CompareResult> after = w.compare_cases(tb, good, cases, kSeed);
    ASSERT_EQ(after.size(), cases.size());
    EXPECT_EQ(after.back().verdict, KB_VERDICT_PASS) << after.back().message;
    ASSERT_TRUE(after.back().worker && c1[1].worker);
    EXPECT_NE(after.back().worker->pid, c1[1].worker->pid) << "the crashed worker was kept";

    // The worker dies (SIGSEGV) at the request's first case: asked again one
    // case at a time, the kernel passes every case, so the death stands.
    let_standby_start();
    w.inject_fault_once("compare_cases", "segv");
    std::vector<CompareResult> died = w.compare_cases(tb, good, cases, kSeed);
    ASSERT_EQ(died.size(), 1u);
    EXPECT_EQ(died[0].verdict, KB_VERDICT_RUNTIME_ERROR) << died[0].message;
    EXPECT_TRUE(has(died[0].message, "SIGSEGV")) << died[0].message;
    EXPECT_EQ(w.compare_cases(tb, good, cases, kSeed).back().verdict, KB_VERDICT_PASS);
}

TEST(IsolationGpu, AReplacementHoldsItsPredecessorsReferencesWithoutRunningThem) {
    // Every case compared once (the references run, their digests kept on
    // the host); a crash replaces the worker; the replacement holds each
    // reference from its digest (the small cases' outputs, the perf case's
    // checksums for a rerun on the device) and judges as the first worker did.
    auto ctx = worker_context();
    WorkerBackend& w = workers(*ctx);
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    KernelPtr wrong = compile(*ctx, kTask, "tasks/elementwise/vector_add_f32/candidates/wrong.cu");
    KernelPtr bad = compile(*ctx, kTask, "kernels/illegal_address.cu");
    const int cases = int(task(kTask)->cases.size());
    for (int ci = 0; ci < cases; ++ci)
        ASSERT_EQ(to_json(ctx->compare(task(kTask), good, ci, kSeed))["verdict"], "pass") << "case " << ci;
    const unsigned ran = w.references_run();
    EXPECT_EQ(ran, unsigned(cases));
    EXPECT_EQ(w.digests_held(), size_t(cases)) << "every case's reference left a digest";
    Json crash = to_json(ctx->compare(task(kTask), bad, 0, kSeed));
    ASSERT_EQ(crash["verdict"], "runtime_error") << crash.dump(2);
    for (int ci = 0; ci < cases; ++ci) {
        Json r = to_json(ctx->compare(task(kTask), good, ci, kSeed));
        EXPECT_EQ(r["verdict"], "pass") << "case " << ci << ": " << r.dump(2);
        EXPECT_NE(r["worker"]["pid"], crash["worker"]["pid"]);
        Json bad_answer = to_json(ctx->compare(task(kTask), wrong, ci, kSeed));
        EXPECT_EQ(bad_answer["verdict"], "wrong_answer") << "case " << ci << ": " << bad_answer.dump(2);
    }
    EXPECT_EQ(w.references_run(), ran) << "the replacement ran a reference again";
    EXPECT_EQ(w.references_installed(), unsigned(cases));

    // Digests whose checksums no rerun reproduces (as for a reference that is
    // not bitwise deterministic): the perf case's comparison runs the
    // reference in the worker instead and judges as before; the small cases
    // need no rerun and keep their digests' outputs.
    w.spoil_digests_for_tests();
    ASSERT_EQ(to_json(ctx->compare(task(kTask), bad, 0, kSeed))["verdict"], "runtime_error");
    for (int ci = 0; ci < cases; ++ci) {
        EXPECT_EQ(to_json(ctx->compare(task(kTask), good, ci, kSeed))["verdict"], "pass") << "case " << ci;
        EXPECT_EQ(to_json(ctx->compare(task(kTask), wrong, ci, kSeed))["verdict"], "wrong_answer") << "case " << ci;
    }
    // The perf case's spoiled digest gave way to a run in a fresh worker,
    // which left a digest of its own in its place.
    EXPECT_EQ(w.references_run(), ran + 1) << "the perf case's reference ran once, the others were installed";
    EXPECT_EQ(w.digests_held(), size_t(cases));
    // Once more after another crash: every reference, the perf case's from
    // its new digest, is installed without a run.
    ASSERT_EQ(to_json(ctx->compare(task(kTask), bad, 0, kSeed))["verdict"], "runtime_error");
    for (int ci = 0; ci < cases; ++ci)
        EXPECT_EQ(to_json(ctx->compare(task(kTask), good, ci, kSeed))["verdict"], "pass") << "case " << ci;
    EXPECT_EQ(w.references_run(), ran + 1);
}

TEST(IsolationGpu, AReferenceWhoseRerunDiffersIsRunAgainWithItsOutputs) {
    // A worker keeps only the checksums of a large output that every
    // comparison reruns the reference for. This reference's bits change from
    // run to run: the first comparison's rerun differs, the worker has no
    // copy to upload, so a fresh worker runs the reference again, this time
    // keeping its outputs, and judges from the upload. Once, not at every
    // comparison.
    const char* jitter = "vector_add_jitter_f32";
    auto ctx = worker_context();
    WorkerBackend& w = workers(*ctx);
    KernelPtr good = compile(*ctx, jitter, kCorrect);
    KernelPtr wrong = compile(*ctx, jitter, "tasks/elementwise/vector_add_f32/candidates/wrong.cu");
    const int perf = task(jitter)->perf_index;
    Json first = to_json(ctx->compare(task(jitter), good, perf, kSeed));
    ASSERT_EQ(first["verdict"], "pass") << first.dump(2);
    EXPECT_EQ(w.supervisor().respawns(), 1u) << "the worker whose rerun differed was replaced once";
    for (int i = 0; i < 3; ++i) {
        Json again = to_json(ctx->compare(task(jitter), good, perf, kSeed));
        EXPECT_EQ(again["verdict"], "pass") << again.dump(2);
        EXPECT_EQ(again["worker"]["pid"], first["worker"]["pid"]);
        Json bad = to_json(ctx->compare(task(jitter), wrong, perf, kSeed));
        EXPECT_EQ(bad["verdict"], "wrong_answer") << bad.dump(2);
    }
    EXPECT_EQ(w.supervisor().respawns(), 1u) << "the reference's outputs were not kept";
    EXPECT_EQ(w.digests_held(), 0u) << "a reference that does not reproduce left a digest";
}

// $KBENCH_CONTAIN_TRAPS=1 (compiler/trap_containment.h): a __trap() and a
// failed assert() are runtime errors, found in the run's flag, and the
// worker keeps its context: the next candidate runs in the same process, at
// once, and timing a candidate whose traps never fire is unchanged.
TEST(IsolationGpu, ContainedTrapsAreRuntimeErrorsThatKeepTheWorker) {
    ContainmentOn contained;
    auto ctx = worker_context();
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    Json ok = to_json(ctx->compare(task(kTask), good, 1, kSeed));
    ASSERT_EQ(ok["verdict"], "pass") << ok.dump(2);
    KernelPtr trap = compile(*ctx, kTask, "kernels/trap.cu");
    KernelPtr failed_assert = compile_code(
        *ctx, kTask,
        "#include <cassert>\n"
        "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    assert(i < n / 2);\n"
        "    if (i < n) c[i] = a[i] + b[i];\n"
        "}\n",
        "failed_assert.cu");
    for (const KernelPtr& k : {trap, failed_assert}) {
        auto t0 = Clock::now();
        Json r = to_json(ctx->compare(task(kTask), k, 1, kSeed));
        const double took = seconds_since(t0);
        const std::string msg = r.value("message", "");
        EXPECT_EQ(r["verdict"], "runtime_error") << r.dump(2);
        EXPECT_FALSE(r.value("context_lost", false)) << r.dump(2);
        EXPECT_TRUE(has(msg, k == trap ? "trap instruction" : "assert() failed (line 4)")) << msg;
        EXPECT_TRUE(has(msg, "KBENCH_CONTAIN_TRAPS")) << msg;
        EXPECT_EQ(r["worker"]["pid"], ok["worker"]["pid"]) << r.dump(2);
        EXPECT_LT(took, 0.5) << "a contained trap waits for no driver recovery";
        Json again = to_json(ctx->compare(task(kTask), good, 1, kSeed));
        EXPECT_EQ(again["verdict"], "pass") << again.dump(2);
        EXPECT_EQ(again["worker"]["pid"], ok["worker"]["pid"]) << again.dump(2);
    }
    Scored timed = score(*ctx, kTask, kCorrect, std::nullopt, true);
    EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << timed.message;
    EXPECT_TRUE(timed.json.contains("timing")) << timed.json.dump(2);
}

// $KBENCH_CONTAIN_TRAPS=1 also gives each kernel a checked build for its
// comparisons (compiler/fault_containment.h): a write far outside every
// buffer and a misaligned float4 store are runtime errors found before the
// access, a loop that never ends stops itself at the loops' limit (a
// timeout, at 0.25 s for this task's tiny reference), and the worker keeps its context through all of them. The
// timed runs and the recheck use the build without checks: a correct
// kernel's score is unchanged, and a kernel that caches its result in a
// global still fails the recheck.
TEST(IsolationGpu, CheckedBuildsContainFaultsAndHangsAndKeepTheWorker) {
    ContainmentOn contained;
    auto ctx = worker_context();  // kbench's computed deadlines
    KernelPtr good = compile(*ctx, kTask, kCorrect);
    Json ok = to_json(ctx->compare(task(kTask), good, 1, kSeed));
    ASSERT_EQ(ok["verdict"], "pass") << ok.dump(2);
    struct Faulty {
        const char* file;
        const char* says;
    };
    for (const Faulty& f : {Faulty{"kernels/illegal_address.cu", "outside every buffer"},
                            Faulty{"kernels/misaligned.cu", "CUDA_ERROR_MISALIGNED_ADDRESS"}}) {
        KernelPtr k = compile(*ctx, kTask, f.file);
        auto t0 = Clock::now();
        Json r = to_json(ctx->compare(task(kTask), k, 1, kSeed));
        const double took = seconds_since(t0);
        const std::string msg = r.value("message", "");
        EXPECT_EQ(r["verdict"], "runtime_error") << f.file << ": " << r.dump(2);
        EXPECT_FALSE(r.value("context_lost", false)) << r.dump(2);
        EXPECT_TRUE(has(msg, f.says)) << msg;
        EXPECT_TRUE(has(msg, "checked build")) << msg;
        EXPECT_EQ(r["worker"]["pid"], ok["worker"]["pid"]) << r.dump(2);
        EXPECT_LT(took, 0.5) << f.file << ": a contained fault waits for no driver report";
        Json again = to_json(ctx->compare(task(kTask), good, 1, kSeed));
        EXPECT_EQ(again["verdict"], "pass") << again.dump(2);
        EXPECT_EQ(again["worker"]["pid"], ok["worker"]["pid"]) << again.dump(2);
    }
    KernelPtr loop = compile(*ctx, kTask, "kernels/infinite_loop.cu");
    auto t0 = Clock::now();
    Json hang = to_json(ctx->compare(task(kTask), loop, 0, kSeed));
    const double took = seconds_since(t0);
    EXPECT_EQ(hang["verdict"], "timeout") << hang.dump(2);
    EXPECT_FALSE(hang.value("context_lost", false)) << hang.dump(2);
    EXPECT_TRUE(has(hang.value("message", ""), "checked build")) << hang.dump(2);
    EXPECT_EQ(hang["worker"]["pid"], ok["worker"]["pid"]) << "the hung kernel's worker went on: " << hang.dump(2);
    // The loops' own limit (worker_host/deadlines.h), not the kernel's 1 s:
    // a hang costs a quarter of what it did.
    EXPECT_TRUE(has(hang.value("message", ""), "ran past 0.25 s")) << hang.dump(2);
    EXPECT_GE(took, DeadlinePolicy::kCheckedLoopFloorS) << hang.dump(2);
    EXPECT_LT(took, DeadlinePolicy::kCheckedLoopFloorS + 0.5) << hang.dump(2);
    EXPECT_EQ(hang.value("deadline_s", 0.0), DeadlinePolicy::kCheckedLoopFloorS) << hang.dump(2);
    Json after = to_json(ctx->compare(task(kTask), good, 0, kSeed));
    EXPECT_EQ(after["verdict"], "pass") << after.dump(2);
    EXPECT_EQ(after["worker"]["pid"], ok["worker"]["pid"]) << after.dump(2);

    Scored timed = score(*ctx, kTask, kCorrect, std::nullopt, true);
    EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << timed.message;
    EXPECT_TRUE(timed.json.contains("timing")) << timed.json.dump(2);
    Scored cached = score(*ctx, kTask, "kernels/caches_in_global.cu", std::nullopt, true);
    EXPECT_EQ(cached.verdict, KB_VERDICT_WRONG_ANSWER) << cached.json.dump(2);
    EXPECT_TRUE(cached.json.contains("recheck")) << "caught by the recheck, on the build that was timed: "
                                                 << cached.json.dump(2);
}

// A correct kernel whose full build fills a 1024-thread block's registers
// (64 a thread), launched in such blocks: its fast builds use more (NVRTC's
// -Ofast-compile=mid), which no such block could launch. Correctness-only
// scores build it again in full (compiler/nvrtc_backend.h) and pass it, as a
// timed score does: under the library's default (checked copies alone) and
// with containment off (the plain fast build). Before, both were launch errors.
// And a kernel whose checked copy alone is too big for such a block.
TEST(IsolationGpu, AKernelThatFillsABlocksRegistersPassesCorrectnessOnlyToo) {
    const std::string launch =
        R"J({"launch":[{"kernel":"vector_add","grid":"ceil_div(n, 1024)","block":1024,"args":["a","b","c","n"]}]})J";
    for (bool contained : {true, false}) {
        auto ctx = worker_context(0, contained);
        Scored only = score(*ctx, kTask, "kernels/register_heavy_1024.cu", launch);
        EXPECT_EQ(only.verdict, KB_VERDICT_PASS) << "contained " << contained << ": " << only.json.dump(2);
        EXPECT_EQ(only.json["compile"].value("checked_only", false), contained) << only.json["compile"].dump(2);
        EXPECT_FALSE(only.json["compile"].contains("fast_compile")) << only.json["compile"].dump(2);
        EXPECT_TRUE(has(only.json["compile"].value("log", ""), "built again at full optimisation"))
            << only.json["compile"].dump(2);
        Scored timed = score(*ctx, kTask, "kernels/register_heavy_1024.cu", launch, true);
        EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << "contained " << contained << ": " << timed.json.dump(2);
    }
    // Every build contained (kbench run's default): a kernel whose checked
    // copy needs more registers than a 1024-thread block may have, even in
    // full, while the function does not, is built without the copy, and passes.
    ContainmentOn all;
    auto ctx = worker_context();
    Scored timed = score(*ctx, kTask, "kernels/checked_copy_heavy_1024.cu", launch, true);
    EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << timed.json.dump(2);
    EXPECT_TRUE(has(timed.json["compile"].value("log", ""), "no checked build of this kernel"))
        << timed.json["compile"].dump(2);
    // (Its fast copy, for a correctness-only score, is smaller: 48 registers
    // with CUDA 13.0. Whichever build it gets, it passes.)
    Scored only = score(*ctx, kTask, "kernels/checked_copy_heavy_1024.cu", launch);
    EXPECT_EQ(only.verdict, KB_VERDICT_PASS) << only.json.dump(2);
}

// A correctness-only score with faults contained compiles the checked copies
// alone (CompileRequest::comparisons_only) and runs them for its comparisons
// and its recheck: the same verdicts as both builds give, faults and hangs
// still contained in the same worker, a kernel that caches its result still
// caught; a timed score of the same code builds both; the copies-only
// kernel cannot be timed.
TEST(IsolationGpu, ACorrectnessOnlyScoreRunsTheCheckedCopiesAlone) {
    ContainmentOn contained;
    auto ctx = worker_context();
    Scored ok = score(*ctx, kTask, kCorrect);
    ASSERT_EQ(ok.verdict, KB_VERDICT_PASS) << ok.json.dump(2);
    EXPECT_TRUE(ok.json["compile"].value("checked_only", false)) << ok.json["compile"].dump(2);
    EXPECT_EQ(ok.json["compile"].value("fast_compile", ""), "mid") << ok.json["compile"].dump(2);
    ASSERT_TRUE(ok.json.contains("recheck")) << ok.json.dump(2);
    EXPECT_EQ(ok.json["recheck"]["verdict"], "pass") << ok.json.dump(2);
    auto pid_of = [](const Json& c) { return c.value("worker", Json::object()).value("pid", Json()); };
    const Json pid = pid_of(ok.json["cases"][0]);
    ASSERT_FALSE(pid.is_null()) << ok.json.dump(2);

    struct Expect {
        const char* file;
        kb_verdict verdict;
        const char* says;
    };
    for (const Expect& e : {Expect{"kernels/illegal_address.cu", KB_VERDICT_RUNTIME_ERROR, "checked build"},
                            Expect{"kernels/misaligned.cu", KB_VERDICT_RUNTIME_ERROR, "checked build"},
                            Expect{"kernels/infinite_loop.cu", KB_VERDICT_TIMEOUT, "checked build"},
                            Expect{"kernels/caches_in_global.cu", KB_VERDICT_WRONG_ANSWER, ""}}) {
        Scored r = score(*ctx, kTask, e.file);
        EXPECT_EQ(r.verdict, e.verdict) << e.file << ": " << r.json.dump(2);
        EXPECT_TRUE(r.json["compile"].value("checked_only", false)) << e.file;
        EXPECT_TRUE(has(r.message, e.says)) << e.file << ": " << r.message;
        for (const Json& c : r.json.value("cases", Json::array()))
            EXPECT_EQ(pid_of(c), pid) << e.file << ": the worker went on: " << r.json.dump(2);
    }

    Scored timed = score(*ctx, kTask, kCorrect, std::nullopt, true);
    EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << timed.json.dump(2);
    EXPECT_FALSE(timed.json["compile"].value("checked_only", false)) << "a timed score builds both";
    EXPECT_FALSE(timed.json["compile"].contains("fast_compile")) << timed.json["compile"].dump(2);

    std::string label;
    CandidateInput in;
    in.path = kernel_file(kCorrect);
    Program p = ctx->resolve_candidate(*task(kTask), in, &label);
    KernelPtr copies = ctx->compile(*task(kTask), p, label, {}, true);
    ASSERT_TRUE(copies->image.checked_only);
    Json cmp = to_json(ctx->compare(task(kTask), copies, 1, kSeed));
    EXPECT_EQ(cmp["verdict"], "pass") << cmp.dump(2);
    try {
        ctx->time(task(kTask), copies, TimeRequest{});
        ADD_FAILURE() << "a copies-only kernel was timed";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
        EXPECT_TRUE(has(e.what(), "comparisons only")) << e.what();
    }
}

// A correctness-only score's build is only compared, so NVRTC compiles it
// with -Ofast-compile=mid (CompilerConfig::comparisons_fast_compile), with
// or without containment: the verdicts the full build gets (a pass; a
// kernel that caches its result caught by the recheck), the result naming
// the build; a timed score of the same code gets the full build.
TEST(IsolationGpu, ACorrectnessOnlyScoreIsFastCompiledAndATimedOneIsNot) {
    auto ctx = worker_context();
    Scored ok = score(*ctx, kTask, kCorrect);
    ASSERT_EQ(ok.verdict, KB_VERDICT_PASS) << ok.json.dump(2);
    EXPECT_EQ(ok.json["compile"].value("fast_compile", ""), "mid") << ok.json["compile"].dump(2);
    Scored cached = score(*ctx, kTask, "kernels/caches_in_global.cu");
    EXPECT_EQ(cached.verdict, KB_VERDICT_WRONG_ANSWER) << cached.json.dump(2);
    EXPECT_EQ(cached.json["compile"].value("fast_compile", ""), "mid") << cached.json["compile"].dump(2);
    Scored timed = score(*ctx, kTask, kCorrect, std::nullopt, true);
    EXPECT_EQ(timed.verdict, KB_VERDICT_PASS) << timed.json.dump(2);
    EXPECT_FALSE(timed.json["compile"].value("cache_hit", true)) << "not the compared-only image";
    EXPECT_FALSE(timed.json["compile"].contains("fast_compile")) << timed.json["compile"].dump(2);
}
