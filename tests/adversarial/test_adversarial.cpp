// Every known way for a kernel to game or break an evaluation, scored through
// a worker context with kbench's defaults, each with the verdict it must get
// and a piece of the message that says why. Each runs alone (a test of its
// own), and all of them run once more in sequence through ONE context: the
// host must survive every one, and a correct candidate must still pass
// after them.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "adversarial_util.h"
#include "worker_host/worker_backend.h"

using namespace kb;
using namespace kb::adversarial;

namespace {

struct Adversary {
    const char* name;          // the test's name
    const char* task;
    const char* kernel;        // kernels/... in tests/adversarial, or tasks/... in the repository
    kb_verdict expected;
    const char* message_part;  // the message must say this ("" for no check)
    const char* launch_json;   // a launch plan of its own, or nullptr for the task's default
    bool timing;               // full score (timing and the recheck after it)
};

const char* kBlock2048 =
    R"js({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 2048)", "block": 2048, "args": ["a", "b", "c", "n"]}]})js";
const char* kHugeShared =
    R"js({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 256)", "block": 256, "shared_mem": 1073741824, "args": ["a", "b", "c", "n"]}]})js";

const std::vector<Adversary>& adversaries() {
    static const std::vector<Adversary> all = {
        {"WritesNothing", "vector_add_f32", "kernels/writes_nothing.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, false},
        {"FirstBlockOnly", "vector_add_f32", "kernels/first_block_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'prime'", nullptr, false},
        {"FirstRowOnly", "softmax_f32", "kernels/first_row_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'cols_one'", nullptr, false},
        {"PerfShapeOnly", "vector_add_f32", "kernels/perf_shape_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, false},
        {"HardcodedPerfSize", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/hardcoded_size.cu", KB_VERDICT_OUT_OF_BOUNDS_WRITE, "outside buffer", nullptr, false},
        {"StaleReferenceInDeviceMemory", "vector_add_f32", "kernels/stale_reference.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, false},
        {"ModifiesAnInput", "vector_add_f32", "kernels/modifies_input.cu", KB_VERDICT_INPUT_MODIFIED, "'b'", nullptr, false},
        {"WritesOutsideItsBuffer", "vector_add_f32", "kernels/writes_outside.cu", KB_VERDICT_OUT_OF_BOUNDS_WRITE, "outside buffer 'c'", nullptr, false},
        {"CachesResultsAcrossCalls", "vector_add_f32", "kernels/caches_in_global.cu", KB_VERDICT_WRONG_ANSWER, "fresh inputs", nullptr, true},
        {"InfiniteLoop", "vector_add_f32", "kernels/infinite_loop.cu", KB_VERDICT_TIMEOUT, "did not finish within", nullptr, false},
        {"Trap", "vector_add_f32", "kernels/trap.cu", KB_VERDICT_RUNTIME_ERROR, "CUDA_ERROR", nullptr, false},
        {"IllegalAddress", "vector_add_f32", "kernels/illegal_address.cu", KB_VERDICT_RUNTIME_ERROR, "ILLEGAL_ADDRESS", nullptr, false},
        {"MisalignedAccess", "vector_add_f32", "kernels/misaligned.cu", KB_VERDICT_RUNTIME_ERROR, "MISALIGNED", nullptr, false},
        {"LaunchBoundsExceeded", "vector_add_f32", "kernels/launch_bounds.cu", KB_VERDICT_LAUNCH_ERROR, "128", nullptr, false},
        {"BlockOverTheDeviceLimit", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", KB_VERDICT_LAUNCH_ERROR, "1024", kBlock2048, false},
        {"HugeDynamicSharedMemory", "vector_add_f32", "kernels/dynamic_shared.cu", KB_VERDICT_LAUNCH_ERROR, "shared memory", kHugeShared, false},
        {"RaceLosesUpdates", "sum_f32", "kernels/race_lost_update.cu", KB_VERDICT_WRONG_ANSWER, "", nullptr, false},
        {"AtomicOrderWhereDeterminismIsRequired", "sum_deterministic_f32", "kernels/atomic_order.cu", KB_VERDICT_NONDETERMINISTIC, "bit-identical", nullptr, false},
        {"AtomicOrderWhereItIsAllowed", "sum_f32", "kernels/atomic_order.cu", KB_VERDICT_PASS, "", nullptr, false},
        {"DeterministicCandidateOnDeterministicTask", "sum_deterministic_f32", "tasks/reductions/sum_f32/candidates/two_pass/candidate.json", KB_VERDICT_PASS, "", nullptr, false},
        {"CorrectCandidateStillPasses", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", KB_VERDICT_PASS, "", nullptr, true},
    };
    return all;
}

void expect_verdict(const Adversary& a, const Scored& s) {
    EXPECT_EQ(verdict_name(s.verdict), std::string(verdict_name(a.expected))) << a.name << ": " << s.message;
    if (*a.message_part) EXPECT_TRUE(has(s.message, a.message_part)) << a.name << ": " << s.message;
    EXPECT_FALSE(s.message.empty()) << a.name;
}

Scored run(Context& ctx, const Adversary& a) {
    std::optional<std::string> plan;
    if (a.launch_json) plan = std::string(a.launch_json);
    return score(ctx, a.task, a.kernel, plan, a.timing);
}

// gtest prints a parameter in failure messages and test lists: its name.
void PrintTo(const Adversary& a, std::ostream* os) { *os << a.name << " (" << a.kernel << ")"; }

class Adversarial : public ::testing::TestWithParam<Adversary> {};

}  // namespace

TEST_P(Adversarial, GetsItsVerdict) {
    const Adversary& a = GetParam();
    auto ctx = worker_context();
    Scored s = run(*ctx, a);
    expect_verdict(a, s);
    // Whatever it did, the context goes on: the task's correct candidate passes.
    std::string correct = std::string(a.task) == "softmax_f32" ? "tasks/softmax/softmax_f32/candidates/correct.cu"
                          : std::string(a.task) == "vector_add_f32" ? "tasks/elementwise/vector_add_f32/candidates/correct.cu"
                                                                    : "tasks/reductions/sum_f32/candidates/correct.cu";
    std::string correct_task = std::string(a.task) == "sum_deterministic_f32" ? "sum_f32" : a.task;
    Scored after = score(*ctx, correct_task, correct);
    EXPECT_EQ(after.verdict, KB_VERDICT_PASS) << "after " << a.name << ": " << after.message;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Adversarial, ::testing::ValuesIn(adversaries()),
                         [](const ::testing::TestParamInfo<Adversary>& i) { return std::string(i.param.name); });

TEST(AdversarialSequence, AllOfThemThroughOneContextAndTheHostSurvives) {
    auto ctx = worker_context();
    auto& backend = dynamic_cast<WorkerBackend&>(ctx->backend());
    int failures = 0;
    for (const Adversary& a : adversaries()) {
        Scored s = run(*ctx, a);
        if (s.verdict != a.expected) ++failures;
        expect_verdict(a, s);
    }
    // Two rounds: a context that has seen everything still gets everything right.
    for (const Adversary& a : adversaries()) {
        if (a.expected == KB_VERDICT_TIMEOUT) continue;  // once is enough for the slowest one
        Scored s = run(*ctx, a);
        if (s.verdict != a.expected) ++failures;
        expect_verdict(a, s);
    }
    EXPECT_EQ(failures, 0);
    Scored last = score(*ctx, "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", std::nullopt, true);
    EXPECT_EQ(last.verdict, KB_VERDICT_PASS) << last.message;
    Json st = backend.supervisor().stats();
    // trap, illegal address, misaligned (twice each) and the hang: each cost a worker.
    EXPECT_GE(st["respawns"].get<int>(), 7) << st.dump();
    EXPECT_TRUE(backend.supervisor().reap_pending(5.0)) << st.dump();
}
