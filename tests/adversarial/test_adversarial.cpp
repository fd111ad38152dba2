// Every known way for a kernel to game or break an evaluation, scored through
// a worker context, each with the verdict it must get and a piece of the
// message that says why. Each runs alone (a test of its own), and all of
// them run once more in sequence through ONE context: the host must survive
// every one, and a correct candidate must still pass after them. Both under
// the library's default, which contains the faults and hangs of
// correctness-only builds (docs/isolation.md), and with containment off
// (KB_CONTEXT_NO_CONTAIN_TRAPS, the names ending in _Plain): the same verdicts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ostream>
#include <string>
#include <tuple>
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
    const char* contained_part;  // ... where the build is contained, if it says something else
    const char* launch_json;   // a launch plan of its own, or nullptr for the task's default
    bool timing;               // full score (timing and the recheck after it)
};

const char* kBlock2048 =
    R"js({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 2048)", "block": 2048, "args": ["a", "b", "c", "n"]}]})js";
const char* kHugeShared =
    R"js({"launch": [{"kernel": "vector_add", "grid": "ceil_div(n, 256)", "block": 256, "shared_mem": 1073741824, "args": ["a", "b", "c", "n"]}]})js";

const std::vector<Adversary>& adversaries() {
    static const std::vector<Adversary> all = {
        {"WritesNothing", "vector_add_f32", "kernels/writes_nothing.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, nullptr, false},
        {"FirstBlockOnly", "vector_add_f32", "kernels/first_block_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'prime'", nullptr, nullptr, false},
        {"FirstRowOnly", "softmax_f32", "kernels/first_row_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'cols_one'", nullptr, nullptr, false},
        {"PerfShapeOnly", "vector_add_f32", "kernels/perf_shape_only.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, nullptr, false},
        {"HardcodedPerfSize", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/hardcoded_size.cu", KB_VERDICT_OUT_OF_BOUNDS_WRITE, "outside buffer", nullptr, nullptr, false},
        {"StaleReferenceInDeviceMemory", "vector_add_f32", "kernels/stale_reference.cu", KB_VERDICT_OUTPUT_NOT_WRITTEN, "case 'one'", nullptr, nullptr, false},
        {"ModifiesAnInput", "vector_add_f32", "kernels/modifies_input.cu", KB_VERDICT_INPUT_MODIFIED, "'b'", nullptr, nullptr, false},
        {"WritesOutsideItsBuffer", "vector_add_f32", "kernels/writes_outside.cu", KB_VERDICT_OUT_OF_BOUNDS_WRITE, "outside buffer 'c'", nullptr, nullptr, false},
        {"CachesResultsAcrossCalls", "vector_add_f32", "kernels/caches_in_global.cu", KB_VERDICT_WRONG_ANSWER, "fresh inputs", nullptr, nullptr, true},
        {"InfiniteLoop", "vector_add_f32", "kernels/infinite_loop.cu", KB_VERDICT_TIMEOUT, "did not finish within", "kbench's checked build ended them", nullptr, false},
        {"Trap", "vector_add_f32", "kernels/trap.cu", KB_VERDICT_RUNTIME_ERROR, "CUDA_ERROR", nullptr, nullptr, false},
        {"IllegalAddress", "vector_add_f32", "kernels/illegal_address.cu", KB_VERDICT_RUNTIME_ERROR, "ILLEGAL_ADDRESS", nullptr, nullptr, false},
        {"MisalignedAccess", "vector_add_f32", "kernels/misaligned.cu", KB_VERDICT_RUNTIME_ERROR, "MISALIGNED", nullptr, nullptr, false},
        {"LaunchBoundsExceeded", "vector_add_f32", "kernels/launch_bounds.cu", KB_VERDICT_LAUNCH_ERROR, "128", nullptr, nullptr, false},
        {"BlockOverTheDeviceLimit", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", KB_VERDICT_LAUNCH_ERROR, "1024", nullptr, kBlock2048, false},
        {"HugeDynamicSharedMemory", "vector_add_f32", "kernels/dynamic_shared.cu", KB_VERDICT_LAUNCH_ERROR, "shared memory", nullptr, kHugeShared, false},
        {"RaceLosesUpdates", "sum_f32", "kernels/race_lost_update.cu", KB_VERDICT_WRONG_ANSWER, "", nullptr, nullptr, false},
        {"AtomicOrderWhereDeterminismIsRequired", "sum_deterministic_f32", "kernels/atomic_order.cu", KB_VERDICT_NONDETERMINISTIC, "bit-identical", nullptr, nullptr, false},
        {"AtomicOrderWhereItIsAllowed", "sum_f32", "kernels/atomic_order.cu", KB_VERDICT_PASS, "", nullptr, nullptr, false},
        {"DeterministicCandidateOnDeterministicTask", "sum_deterministic_f32", "tasks/reductions/sum_f32/candidates/two_pass/candidate.json", KB_VERDICT_PASS, "", nullptr, nullptr, false},
        {"CorrectCandidateStillPasses", "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", KB_VERDICT_PASS, "", nullptr, nullptr, true},
    };
    return all;
}

void expect_verdict(const Adversary& a, const Scored& s, bool contained) {
    EXPECT_EQ(verdict_name(s.verdict), std::string(verdict_name(a.expected))) << a.name << ": " << s.message;
    const char* part = contained && a.contained_part ? a.contained_part : a.message_part;
    if (*part) EXPECT_TRUE(has(s.message, part)) << a.name << ": " << s.message;
    EXPECT_FALSE(s.message.empty()) << a.name;
}

// Whether this score ran a contained build: a correctness-only score under
// the default, unless $KBENCH_CONTAIN_TRAPS overrides the context's choice.
bool ran_contained(const Scored& s) { return s.json.value("compile", Json::object()).value("checked_only", false); }

Scored run(Context& ctx, const Adversary& a) {
    std::optional<std::string> plan;
    if (a.launch_json) plan = std::string(a.launch_json);
    return score(ctx, a.task, a.kernel, plan, a.timing);
}

// gtest prints a parameter in failure messages and test lists: its name.
void PrintTo(const Adversary& a, std::ostream* os) { *os << a.name << " (" << a.kernel << ")"; }

class Adversarial : public ::testing::TestWithParam<std::tuple<Adversary, bool>> {};

bool overridden() { return std::getenv("KBENCH_CONTAIN_TRAPS") != nullptr; }

}  // namespace

TEST_P(Adversarial, GetsItsVerdict) {
    const auto& [a, plain] = GetParam();
    auto ctx = worker_context(0, !plain);
    Scored s = run(*ctx, a);
    expect_verdict(a, s, ran_contained(s));
    const Json compile = s.json.value("compile", Json::object());
    if (!overridden() && !plain && !a.timing && compile.value("path", "") == "nvrtc")
        EXPECT_TRUE(ran_contained(s)) << a.name << ": the default contains a correctness-only build: "
                                      << compile.dump();
    if (!overridden() && (plain || a.timing)) EXPECT_FALSE(ran_contained(s)) << a.name;
    // Whatever it did, the context goes on: the task's correct candidate passes.
    std::string correct = std::string(a.task) == "softmax_f32" ? "tasks/softmax/softmax_f32/candidates/correct.cu"
                          : std::string(a.task) == "vector_add_f32" ? "tasks/elementwise/vector_add_f32/candidates/correct.cu"
                                                                    : "tasks/reductions/sum_f32/candidates/correct.cu";
    std::string correct_task = std::string(a.task) == "sum_deterministic_f32" ? "sum_f32" : a.task;
    Scored after = score(*ctx, correct_task, correct);
    EXPECT_EQ(after.verdict, KB_VERDICT_PASS) << "after " << a.name << ": " << after.message;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Adversarial, ::testing::Combine(::testing::ValuesIn(adversaries()), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<Adversary, bool>>& i) {
                             return std::string(std::get<0>(i.param).name) + (std::get<1>(i.param) ? "_Plain" : "");
                         });

void all_through_one_context(bool plain) {
    auto ctx = worker_context(0, !plain);
    auto& backend = dynamic_cast<WorkerBackend&>(ctx->backend());
    int failures = 0;
    for (const Adversary& a : adversaries()) {
        Scored s = run(*ctx, a);
        if (s.verdict != a.expected) ++failures;
        expect_verdict(a, s, ran_contained(s));
    }
    // Two rounds: a context that has seen everything still gets everything right.
    for (const Adversary& a : adversaries()) {
        if (a.expected == KB_VERDICT_TIMEOUT) continue;  // once is enough for the slowest one
        Scored s = run(*ctx, a);
        if (s.verdict != a.expected) ++failures;
        expect_verdict(a, s, ran_contained(s));
    }
    EXPECT_EQ(failures, 0);
    Scored last = score(*ctx, "vector_add_f32", "tasks/elementwise/vector_add_f32/candidates/correct.cu", std::nullopt, true);
    EXPECT_EQ(last.verdict, KB_VERDICT_PASS) << last.message;
    Json st = backend.supervisor().stats();
    if (overridden()) {
    } else if (plain) {
        // trap, illegal address, misaligned (twice each) and the hang: each cost a worker.
        EXPECT_GE(st["respawns"].get<int>(), 7) << st.dump();
    } else {
        // All of them are correctness-only scores: contained, no worker lost.
        EXPECT_EQ(st["respawns"].get<int>(), 0) << st.dump();
    }
    EXPECT_TRUE(backend.supervisor().reap_pending(5.0)) << st.dump();
}

TEST(AdversarialSequence, AllOfThemThroughOneContextAndTheHostSurvives) { all_through_one_context(false); }

TEST(AdversarialSequence, AllOfThemThroughOneContextAndTheHostSurvives_Plain) { all_through_one_context(true); }
