// Every decision rule of the judge (compare/judge.h), on the CPU: outputs
// compared by the host comparator (so poison, NaN, infinity and tolerance go
// through the same rule the GPU applies), plus faults, guards, inputs,
// repeated runs and the recheck.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compare/judge.h"
#include "hostdev/compare_math.h"

using namespace kb;

namespace {

Arg f32_output(double atol = 1e-5, double rtol = 1e-5, bool equal_nan = true) {
    Arg a;
    a.name = "y";
    a.role = Role::out;
    a.dtype = DType::f32;
    a.tolerance = Tolerance{atol, rtol, equal_nan};
    return a;
}

HostTensor f32(const std::vector<float>& v, const std::string& name = "y") {
    HostTensor t;
    t.name = name;
    t.dtype = DType::f32;
    t.shape = {int64_t(v.size())};
    t.bytes.resize(v.size() * 4);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
}

float poison() {
    uint32_t bits = uint32_t(kPoisonF32);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// One run whose only output is `got` against `want`.
RunObservation ran(const std::vector<float>& got, const std::vector<float>& want, const Arg& arg = f32_output()) {
    RunObservation o;
    o.outputs.push_back(compare_host(f32(got), f32(want), arg));
    return o;
}

const JudgeRules kRules{"prime", false};
const std::vector<float> kWant = {1.0f, -2.0f, 3.5f};

}  // namespace

TEST(Judge, MatchingOutputsPass) {
    Judgement j = judge_run(ran(kWant, kWant), kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_PASS);
    EXPECT_EQ(j.message, "all outputs match at case 'prime'");
}

TEST(Judge, WithinToleranceIsAMatchAndBeyondItIsWrong) {
    EXPECT_EQ(judge_run(ran({1.000001f, -2.0f, 3.5f}, kWant), kRules).verdict, KB_VERDICT_PASS);
    Judgement j = judge_run(ran({1.01f, -2.0f, 3.5f}, kWant), kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_NE(j.message.find("output 'y'"), std::string::npos) << j.message;
    EXPECT_NE(j.message.find("at case 'prime'"), std::string::npos) << j.message;
}

TEST(Judge, AnElementStillPoisonedIsNotWritten) {
    Judgement j = judge_run(ran({1.0f, poison(), 3.5f}, kWant), kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN);
}

TEST(Judge, ACandidateNanNeverMatchesAFiniteReference) {
    EXPECT_EQ(judge_run(ran({1.0f, std::nanf(""), 3.5f}, kWant, f32_output(1e30, 1e30)), kRules).verdict,
              KB_VERDICT_WRONG_ANSWER);
}

TEST(Judge, NanWhereTheReferenceHasNanFollowsEqualNan) {
    std::vector<float> want = {1.0f, std::nanf(""), 3.0f};
    EXPECT_EQ(judge_run(ran(want, want, f32_output(0, 0, true)), kRules).verdict, KB_VERDICT_PASS);
    EXPECT_EQ(judge_run(ran(want, want, f32_output(0, 0, false)), kRules).verdict, KB_VERDICT_WRONG_ANSWER);
}

TEST(Judge, InfinityMatchesOnlyTheSameInfinity) {
    std::vector<float> want = {INFINITY, 1.0f};
    EXPECT_EQ(judge_run(ran({INFINITY, 1.0f}, want), kRules).verdict, KB_VERDICT_PASS);
    EXPECT_EQ(judge_run(ran({-INFINITY, 1.0f}, want, f32_output(1e30, 1e30)), kRules).verdict,
              KB_VERDICT_WRONG_ANSWER);
    EXPECT_EQ(judge_run(ran({3e38f, 1.0f}, want, f32_output(1e30, 1e30)), kRules).verdict, KB_VERDICT_WRONG_ANSWER);
}

TEST(Judge, AModifiedInputFailsEvenWithRightOutputs) {
    RunObservation o = ran(kWant, kWant);
    o.inputs_modified = {"a", "b"};
    Judgement j = judge_run(o, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_INPUT_MODIFIED);
    EXPECT_NE(j.message.find("'a', 'b'"), std::string::npos) << j.message;
}

TEST(Judge, ABrokenGuardZoneIsAnOutOfBoundsWrite) {
    RunObservation o = ran(kWant, kWant);
    o.breaches.push_back({"y", 4, 12});
    Judgement j = judge_run(o, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_OUT_OF_BOUNDS_WRITE);
    EXPECT_NE(j.message.find("buffer 'y'"), std::string::npos) << j.message;
    EXPECT_NE(j.message.find("byte offset 12"), std::string::npos) << j.message;
}

TEST(Judge, RulesDecideInOrder) {
    // A fault outranks everything; then guards, inputs, unwritten, wrong.
    RunObservation o = ran({1.0f, poison(), 9.0f}, kWant);
    o.inputs_modified = {"a"};
    o.breaches.push_back({"y", 1, -1});
    o.fault = RunFault{KB_VERDICT_RUNTIME_ERROR, "illegal address", true};
    EXPECT_EQ(judge_run(o, kRules).verdict, KB_VERDICT_RUNTIME_ERROR);
    EXPECT_TRUE(judge_run(o, kRules).context_lost);
    o.fault.reset();
    EXPECT_EQ(judge_run(o, kRules).verdict, KB_VERDICT_OUT_OF_BOUNDS_WRITE);
    o.breaches.clear();
    EXPECT_EQ(judge_run(o, kRules).verdict, KB_VERDICT_INPUT_MODIFIED);
    o.inputs_modified.clear();
    EXPECT_EQ(judge_run(o, kRules).verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN);
}

TEST(Judge, NotWrittenAnywhereOutranksWrongAnywhereAndNamesTheFirstBadOutput) {
    Arg a = f32_output(), b = f32_output();
    a.name = "a";
    b.name = "b";
    RunObservation o;
    o.outputs.push_back(compare_host(f32({5.0f}, "a"), f32({1.0f}, "a"), a));
    o.outputs.push_back(compare_host(f32({poison()}, "b"), f32({1.0f}, "b"), b));
    Judgement j = judge_run(o, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN);
    EXPECT_NE(j.message.find("output 'a'"), std::string::npos) << j.message;
}

TEST(Judge, ALaunchFaultIsALaunchError) {
    RunObservation o;
    o.fault = RunFault{KB_VERDICT_LAUNCH_ERROR, "block of 2048 threads", false};
    Judgement j = judge_run(o, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_LAUNCH_ERROR);
    EXPECT_EQ(j.message, "block of 2048 threads");
}

TEST(JudgeRuns, IdenticalRepeatsAreDeterministic) {
    RunObservation second;  // identical to the first: nothing to compare
    Judgement j = judge_runs({ran(kWant, kWant), second}, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_PASS);
    EXPECT_EQ(j.runs, 2u);
    ASSERT_TRUE(j.deterministic.has_value());
    EXPECT_TRUE(*j.deterministic);
}

TEST(JudgeRuns, DifferentButCorrectRepeatsPassWithANoteWhereAllowed) {
    RunObservation second = ran({1.0000001f, -2.0f, 3.5f}, kWant);
    second.identical_to_first = false;
    Judgement j = judge_runs({ran(kWant, kWant), second}, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_PASS);
    EXPECT_FALSE(*j.deterministic);
    EXPECT_NE(j.message.find("the task allows that"), std::string::npos) << j.message;
}

TEST(JudgeRuns, DifferentRepeatsAreNondeterministicWhereTheTaskForbidsIt) {
    RunObservation second = ran({1.0000001f, -2.0f, 3.5f}, kWant);
    second.identical_to_first = false;
    Judgement j = judge_runs({ran(kWant, kWant), second}, JudgeRules{"prime", true});
    EXPECT_EQ(j.verdict, KB_VERDICT_NONDETERMINISTIC);
}

TEST(JudgeRuns, ARaceRightOnlySometimesFailsOnTheRunThatWasWrong) {
    RunObservation second = ran({1.0f, -2.5f, 3.5f}, kWant);
    second.identical_to_first = false;
    Judgement j = judge_runs({ran(kWant, kWant), second}, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_EQ(j.failed_run, 2u);
    EXPECT_EQ(j.judged_run, 1u);
    EXPECT_EQ(j.message.rfind("on run 2 of 2 on the same inputs (the first run passed): ", 0), 0u) << j.message;
}

TEST(JudgeRuns, AFirstRunThatFailsDecides) {
    Judgement j = judge_runs({ran({0, 0, 0}, kWant), ran(kWant, kWant)}, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_EQ(j.failed_run, 0u);
}

TEST(JudgeRuns, ALaterCrashFails) {
    RunObservation second;
    second.fault = RunFault{KB_VERDICT_RUNTIME_ERROR, "trap", false};
    Judgement j = judge_runs({ran(kWant, kWant), second}, kRules);
    EXPECT_EQ(j.verdict, KB_VERDICT_RUNTIME_ERROR);
    EXPECT_EQ(j.failed_run, 2u);
}

TEST(JudgeRuns, ALaterRunThatTouchedAnInputIsJudged) {
    RunObservation second = ran(kWant, kWant);
    second.inputs_modified = {"x"};
    EXPECT_TRUE(needs_comparison(second));
    EXPECT_EQ(judge_runs({ran(kWant, kWant), second}, kRules).verdict, KB_VERDICT_INPUT_MODIFIED);
}

TEST(JudgeRecheck, AFailedRecheckSaysWhen) {
    Judgement bad;
    bad.verdict = KB_VERDICT_WRONG_ANSWER;
    bad.message = "output 'y' wrong";
    EXPECT_EQ(judge_recheck(bad, true).message, "after timing, on fresh inputs: output 'y' wrong");
    EXPECT_EQ(judge_recheck(bad, false).message, "on fresh inputs from a secret seed: output 'y' wrong");
    Judgement good;
    good.message = "all outputs match";
    EXPECT_EQ(judge_recheck(good, true).message, "all outputs match");
}
