// Every task's reference against float64 truth computed on the CPU, on every
// case, from inputs the device generated; and the device's inputs against the
// host's regeneration of the same counter-based RNG.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "hostdev/input_gen.h"
#include "gpu_test_util.h"
#include "kbench.h"
#include "oracles/oracle.h"
#include "util/json.h"

using namespace kb;

namespace {

// Every built-in task, found recursively (tasks/<family>/<task>/task.json),
// by its folder name. A task without an oracle fails below rather than being
// skipped: every built-in task must have one (tests/oracles/<family>.cpp).
std::vector<std::string> task_names() {
    std::vector<std::string> out;
    for (const std::string& d : test::builtin_task_dirs()) out.push_back(d.substr(d.rfind('/') + 1));
    return out;
}

class ReferenceTruth : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(ReferenceTruth, MatchesFloat64OnEveryCase) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(test::task_file(GetParam()));
    const oracle::Oracle* task_oracle = oracle::find(task->name);
    ASSERT_NE(task_oracle, nullptr) << "task " << task->name << " has no float64 oracle; register one in tests/oracles/";
    TaskBinding tb = ctx->bind(task);
    LocalBackend& lb = test::local(*ctx);
    const uint64_t seed = 12345;
    size_t cases_with_warnings = 0;
    for (size_t ci = 0; ci < task->cases.size(); ++ci) {
        const Case& c = task->cases[ci];
        SCOPED_TRACE("case " + c.name);
        auto ref = lb.reference_outputs(tb, int(ci), seed);
        std::vector<HostTensor> ins = lb.inputs(tb, int(ci), seed);

        oracle::Tensors inputs;
        size_t k = 0;
        for (size_t ai = 0; ai < task->args.size(); ++ai) {
            const Arg& a = task->args[ai];
            if (!a.is_input()) continue;
            const HostTensor& t = ins[k++];
            std::vector<double>& v = inputs[a.name];
            v.resize(t.count());
            uint64_t mismatched = 0;
            const InitSpec init = a.init.at(c.dims);
            for (uint64_t i = 0; i < t.count(); ++i) {
                v[i] = t.at(i);
                // The host regenerates the device's inputs: bit-exact except
                // normal draws, whose log/cos may differ in the last bit.
                uint64_t host = kb_input_bits(int(a.dtype), int(init.dist), init.a, init.b, seed, uint32_t(ai), i);
                uint64_t mask = dtype_size(a.dtype) == 8 ? ~0ull : (1ull << (8 * dtype_size(a.dtype))) - 1;
                if ((host & mask) != t.bits(i)) {
                    double hv = load_as_double(&host, a.dtype, 0);
                    if (init.dist != InitSpec::Dist::normal || std::fabs(hv - v[i]) > 1e-6 * (1 + std::fabs(hv)))
                        ++mismatched;
                }
            }
            EXPECT_EQ(mismatched, 0u) << "input '" << a.name << "' differs from the host RNG";
        }
        oracle::Dims dims(c.dims.begin(), c.dims.end());
        oracle::Tensors truth = task_oracle->compute(dims, inputs);
        k = 0;
        for (const Arg& a : task->args) {
            if (!a.is_output()) continue;
            const HostTensor& got = ref->outputs[k++];
            oracle::Bound b = task_oracle->bound(a.name, dims);
            const std::vector<double>& want = truth.at(a.name);
            ASSERT_EQ(got.count(), want.size());
            uint64_t bad = 0, first = 0;
            for (uint64_t i = 0; i < want.size(); ++i)
                if (!oracle::within(got.at(i), want[i], b) && bad++ == 0) first = i;
            EXPECT_EQ(bad, 0u) << "output '" << a.name << "': " << bad << " elements outside the float64 bound; first at "
                               << first << ": gpu " << got.at(first) << " vs truth " << want[first];
        }
        if (!lb.run_reference(tb, int(ci), seed).warnings.empty()) ++cases_with_warnings;
    }
    // A case may be unable to discriminate (softmax over one column is all
    // ones); a task whose every case is like that is broken.
    EXPECT_LT(cases_with_warnings, task->cases.size()) << "no case of " << task->name << " can tell right from wrong";
}

INSTANTIATE_TEST_SUITE_P(Tasks, ReferenceTruth, ::testing::ValuesIn(task_names()),
                         [](const auto& info) { return info.param; });

// A reference's large outputs are page-locked from their second upload on:
// pinning a 64 MB output costs tens of milliseconds, more than a pageable
// upload or two, so a reference uploaded once is left unpinned. (Uploads only:
// KBENCH_REFERENCE_RERUN=0 turns the rerun on the device off, which would
// otherwise stand in for them here.)
TEST(ReferencePins, LargeOutputsArePinnedAtTheirSecondUpload) {
    ::setenv("KBENCH_REFERENCE_RERUN", "0", 1);
    auto ctx = test::in_process_context();
    ::unsetenv("KBENCH_REFERENCE_RERUN");
    TaskPtr task = load_task(test::task_file("vector_add_f32"));
    TaskBinding tb = ctx->bind(task);
    LocalBackend& lb = test::local(*ctx);
    const int perf = task->perf_index;
    const uint64_t seed = 777;
    auto ref = lb.reference_outputs(tb, perf, seed);
    ASSERT_EQ(ref->outputs.size(), 1u);
    ASSERT_GE(ref->outputs[0].bytes.size(), size_t(4) << 20) << "the perf case's output is too small to be pinned";
    EXPECT_TRUE(ref->pins.empty()) << "a reference nobody compared against yet is pinned";
    for (int i = 1; i <= 3; ++i) {
        CompareResult r = lb.compare(tb, tb.baseline, perf, seed, 1);
        ASSERT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
        ASSERT_EQ(r.outputs.size(), 1u);
        EXPECT_EQ(r.outputs[0].reference_on_gpu, "uploaded");
        auto again = lb.reference_outputs(tb, perf, seed);
        ASSERT_EQ(again.get(), ref.get()) << "the reference was run again instead of coming from the cache";
        EXPECT_EQ(ref->comparisons, unsigned(i));
        EXPECT_EQ(ref->pins.size(), i == 1 ? 0u : 1u) << "after comparison " << i;
    }
    // Case 0 is small: compared twice, it stays pageable.
    for (int i = 0; i < 2; ++i) ASSERT_EQ(lb.compare(tb, tb.baseline, 0, seed, 1).verdict, KB_VERDICT_PASS);
    EXPECT_TRUE(lb.reference_outputs(tb, 0, seed)->pins.empty());
}

namespace {

KernelPtr compile_candidate_file(Context& ctx, const TaskPtr& task, const std::string& file) {
    CandidateInput in;
    in.path = test::candidate_file(task->name, file);
    std::string label;
    Program p = ctx.resolve_candidate(*task, in, &label);
    return ctx.compile(*task, p, label, {});
}

}  // namespace

// A batch goes round its tasks, candidate after candidate: the sets of case
// buffers it has made stay for its next visit, over the bench's three tasks
// (20 cases, perf cases included) as over one. With at most 8 sets kept, two
// compares in five made a set afresh, and with it an input checksum that
// waited for the device.
TEST(CaseBufferSets, ABatchBackAtCasesItHasSeenMakesNoNewSets) {
    auto ctx = test::in_process_context();
    LocalBackend& lb = test::local(*ctx);
    struct Visit {
        TaskPtr task;
        TaskBinding tb;
        KernelPtr kernel;
    };
    std::vector<Visit> visits;
    size_t cases = 0;
    for (const char* name : {"vector_add_f32", "softmax_f32", "sum_f32"}) {
        TaskPtr task = load_task(test::task_file(name));
        TaskBinding tb = ctx->bind(task);
        visits.push_back({task, tb, compile_candidate_file(*ctx, task, "correct.cu")});
        cases += task->cases.size();
    }
    ASSERT_GE(cases, 16u) << "fewer cases than the old bound of 8 sets would have thrashed on";
    auto round = [&](uint64_t seed) {
        for (const Visit& v : visits)
            for (size_t ci = 0; ci < v.task->cases.size(); ++ci) {
                CompareResult r = lb.compare(v.tb, v.kernel, int(ci), seed, 1);
                ASSERT_EQ(r.verdict, KB_VERDICT_PASS) << v.task->name << " case " << ci << ": " << r.message;
            }
    };
    round(11);
    const size_t made = lb.buffer_sets_made();
    EXPECT_GE(made, cases) << "a set per case, at least";
    round(12);
    round(11);
    EXPECT_EQ(lb.buffer_sets_made(), made) << "a later round made sets again: the kept ones were dropped";
}

// A large output is compared against the reference run again on the device
// after the candidate (vector_add's perf case: 64 MB that would otherwise
// cross PCIe for every comparison), with the same verdicts and the same
// description of the worst element as against the uploaded host copy.
TEST(ReferenceRerun, LargeOutputsAreComparedAgainstTheReferenceRunAgain) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(test::task_file("vector_add_f32"));
    TaskBinding tb = ctx->bind(task);
    LocalBackend& lb = test::local(*ctx);
    const int perf = task->perf_index;
    const uint64_t seed = 4242;
    CompareResult good = lb.compare(tb, tb.baseline, perf, seed, 1);
    ASSERT_EQ(good.verdict, KB_VERDICT_PASS) << good.message;
    ASSERT_EQ(good.outputs.size(), 1u);
    EXPECT_EQ(good.outputs[0].compared_on, "gpu");
    EXPECT_EQ(good.outputs[0].reference_on_gpu, "rerun");
    EXPECT_TRUE(lb.reference_outputs(tb, perf, seed)->pins.empty()) << "pinned although nothing was uploaded";

    KernelPtr wrong = compile_candidate_file(*ctx, task, "wrong.cu");
    CompareResult bad = lb.compare(tb, wrong, perf, seed, 1);
    EXPECT_EQ(bad.verdict, KB_VERDICT_WRONG_ANSWER) << bad.message;
    ASSERT_EQ(bad.outputs.size(), 1u);
    EXPECT_EQ(bad.outputs[0].reference_on_gpu, "rerun");
    // The same comparison against the uploaded copy says the same.
    ::setenv("KBENCH_REFERENCE_RERUN", "0", 1);
    auto uctx = test::in_process_context();
    ::unsetenv("KBENCH_REFERENCE_RERUN");
    TaskBinding utb = uctx->bind(task);
    KernelPtr uwrong = compile_candidate_file(*uctx, task, "wrong.cu");
    CompareResult up = test::local(*uctx).compare(utb, uwrong, perf, seed, 1);
    ASSERT_EQ(up.outputs.size(), 1u);
    EXPECT_EQ(up.outputs[0].reference_on_gpu, "uploaded");
    EXPECT_EQ(bad.outputs[0].mismatches, up.outputs[0].mismatches);
    EXPECT_EQ(bad.outputs[0].worst_flat, up.outputs[0].worst_flat);
    EXPECT_EQ(bad.outputs[0].worst_expected, up.outputs[0].worst_expected);
    EXPECT_EQ(bad.outputs[0].worst_got, up.outputs[0].worst_got);
    EXPECT_EQ(bad.message, up.message);

    // A candidate that leaves part of the output unwritten is still caught:
    // the rerun does not write into what the candidate left.
    KernelPtr partial = compile_candidate_file(*ctx, task, "partial_write.cu");
    CompareResult part = lb.compare(tb, partial, perf, seed, 1);
    EXPECT_NE(part.verdict, KB_VERDICT_PASS) << part.message;
}

// The comparer's side of the contract: a rerun that does not reproduce the
// first run's bits is not trusted (the host copy goes up instead), and
// either way the candidate's outputs are back in its buffers afterwards.
TEST(ReferenceRerun, ARerunThatDoesNotReproduceIsReplacedByTheUpload) {
    auto ctx = test::in_process_context();
    TaskPtr task = load_task(test::task_file("vector_add_f32"));
    LocalBackend& lb = test::local(*ctx);
    TaskBinding tb = ctx->bind(task);
    const int perf = task->perf_index;
    const uint64_t seed = 99;
    auto ref = lb.reference_outputs(tb, perf, seed);
    Device& dev = lb.device();
    CaseBuffers bufs(dev, *task, perf);
    bufs.prepare(seed);
    const int c = 2;  // vector_add(a, b, c, n): the output
    ASSERT_TRUE(task->args[c].is_output());
    // The "candidate" wrote exactly the reference.
    dev.upload(bufs.arg(c).data(), ref->outputs[0].bytes.data(), ref->outputs[0].bytes.size());
    OutputComparer comparer(dev);
    for (bool claims_reproduced : {false, true}) {
        SCOPED_TRACE(claims_reproduced ? "a rerun claiming its bits are the first run's" : "a rerun that differs");
        bool scrubbed = false;
        ReferenceRerun rerun;
        // Writes garbage where the reference should be.
        rerun.run = [&] {
            dev.fill_bytes(bufs.arg(c).data(), bufs.arg(c).bytes(), 0x7f);
            return claims_reproduced;
        };
        rerun.scrub = [&] { scrubbed = true; bufs.scrub("reference"); };
        std::vector<OutputReport> reports = comparer.compare_all(bufs, ref->outputs, &rerun);
        ASSERT_EQ(reports.size(), 1u);
        EXPECT_TRUE(scrubbed);
        if (claims_reproduced) {
            // Trusted (its checksums matched, by its word): the garbage is
            // what the candidate is compared against, and every element differs.
            EXPECT_EQ(reports[0].reference_on_gpu, "rerun");
            EXPECT_EQ(reports[0].mismatches, reports[0].elements);
        } else {
            EXPECT_EQ(reports[0].reference_on_gpu, "uploaded");
            EXPECT_EQ(reports[0].mismatches, 0u) << reports[0].describe();
        }
        // The candidate's output is back where it wrote it.
        EXPECT_EQ(bufs.download(c).bytes, ref->outputs[0].bytes);
    }
}

// A worker asked for a reference's run time alone (before a comparison) keeps
// its outputs; asked later for the reference itself, it still describes every
// output: the statistics were skipped for the host's question, not lost.
TEST(ReferenceInWorker, StatisticsAfterARunTimeOnlyRequest) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(test::task_file("vector_add_f32").c_str(), &t), KB_OK) << kb_last_error();
    std::string cand = test::candidate_file("vector_add_f32", "correct.cu");
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = cand.c_str();
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = KB_SCORE_SKIP_TIMING;
    kb_result* r = nullptr;
    // The score's comparisons ask the worker for the references' run times.
    ASSERT_EQ(kb_score(ctx, t, &c, &so, &r), KB_OK) << kb_last_error();
    EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_PASS) << kb_result_message(r);
    kb_result_destroy(r);
    r = nullptr;
    // Case 2 (100003 elements) at the default seed: a reference the score
    // compared against.
    ASSERT_EQ(kb_run_reference(ctx, t, 2, 0, &r), KB_OK) << kb_last_error();
    Json j = Json::parse(kb_result_json(r));
    ASSERT_TRUE(j.contains("outputs") && j["outputs"].is_array() && !j["outputs"].empty()) << j.dump();
    const Json& out = j["outputs"][0];
    EXPECT_GT(out.value("elements", 0), 0) << j.dump();
    EXPECT_TRUE(out.contains("min") && out.contains("max") && out.contains("digest")) << j.dump();
    EXPECT_LT(out.value("min", 0.0), out.value("max", 0.0)) << j.dump();
    kb_result_destroy(r);
    kb_task_destroy(t);
    kb_context_destroy(ctx);
}
