// The decision rules of program candidates (compare/program_judge.h):
// whose a kernel is, which aten operators compute, one run's verdict, and the
// policy (torch compute, decoys, replaced timers, threads left running).
#include <gtest/gtest.h>

#include "compare/judge.h"

using namespace kb;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

ProgramOutputMeta out(const std::string& dtype, std::vector<int64_t> shape, const std::string& device = "cuda:0",
                      const std::string& label = "output") {
    ProgramOutputMeta m;
    m.label = label;
    m.dtype = dtype;
    m.shape = std::move(shape);
    m.device = device;
    return m;
}

OutputReport report(uint64_t mismatches, uint64_t unwritten = 0) {
    OutputReport r;
    r.name = "output";
    r.elements = 100;
    r.mismatches = mismatches;
    r.unwritten = unwritten;
    r.worst_index = {3};
    return r;
}

ProgramRunObservation passing() {
    ProgramRunObservation o;
    o.reference_outputs = {out("f32", {4, 25})};
    o.candidate_outputs = {out("f32", {4, 25})};
    o.outputs = {report(0)};
    return o;
}

ProgramRules rules() {
    ProgramRules r;
    r.case_name = "small";
    return r;
}

}  // namespace

TEST(ProgramJudge, KernelsAreTheCandidatesWhenTheirNamesSaySo) {
    std::vector<std::string> declared = {"softmax_kernel", "add"};
    EXPECT_EQ(kernel_origin("softmax_kernel", "kernel", declared), "candidate");           // Triton: the function's name
    EXPECT_EQ(kernel_origin("_Z3addPfS_S_i", "kernel", declared), "candidate");            // CUDA: <length><name>
    EXPECT_EQ(kernel_origin("void add<float>(float*)", "kernel", declared), "candidate");  // a whole identifier
    EXPECT_EQ(kernel_origin("address_kernel", "kernel", declared), "other") << "not 'add' as a part of a word";
    EXPECT_EQ(kernel_origin("_ZN2at6native29vectorized_elementwise_kernelILi4EZ", "kernel", declared), "torch");
    EXPECT_EQ(kernel_origin("void at::native::reduce_kernel<512, 1>(...)", "kernel", declared), "torch");
    EXPECT_EQ(kernel_origin("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", "kernel", declared), "cublas");
    EXPECT_EQ(kernel_origin("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NNT", "kernel", declared), "cublas");
    EXPECT_EQ(kernel_origin("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32", "kernel", declared), "cudnn");
    EXPECT_EQ(kernel_origin("cudnn::bn_fw_tr_1C11_kernel_NCHW", "kernel", declared), "cudnn");
    EXPECT_EQ(kernel_origin("triton_poi_fused_relu_0", "kernel", declared), "triton");
    EXPECT_EQ(kernel_origin("[memcpy]", "memcpy", declared), "memory");
    EXPECT_EQ(kernel_origin("mystery", "kernel", declared), "other");
}

TEST(ProgramJudge, AllocationViewsAndCopiesAreNotTorchCompute) {
    for (const char* op : {"aten.empty_like.default", "aten.empty.memory_format", "aten.view.default",
                           "aten.contiguous", "aten.clone.default", "aten.zeros_like.default", "aten.copy_.default",
                           "aten.t.default", "aten.reshape", "aten._to_copy.default", "aten.fill_.Scalar",
                           "aten.cat.default", "aten.detach.default", "aten.select.int", "aten.slice.Tensor",
                           // random fills make inputs (a TritonBench test function's torch.randn)
                           "aten.randn.default", "aten.rand.default", "aten.randint.low", "aten.normal_.default"})
        EXPECT_FALSE(aten_op_computes(op)) << op;
    for (const char* op : {"aten.relu.default", "aten.mm.default", "aten.softmax.int", "aten._softmax.default",
                           "aten.add.Tensor", "aten.sum.dim_IntList", "aten.convolution.default", "aten.exp.default",
                           "aten.addmm.default", "aten.matmul"})
        EXPECT_TRUE(aten_op_computes(op)) << op;
}

TEST(ProgramJudge, AttributionSharesAndDecoys) {
    ProgramAttribution a;
    a.cupti = true;
    a.triton_declared = {"softmax_kernel"};
    a.kernels = {{"softmax_kernel", "kernel", "", 3, 30.0, 1},
                 {"_ZN2at6native18elementwise_kernel", "kernel", "", 1, 10.0, 1},
                 {"[memcpy]", "memcpy", "", 1, 10.0, 1}};
    a.aten_ops = {{"aten.empty_like.default", 3}, {"aten.exp.default", 1}};
    a.triton_launches = {{"softmax_kernel", 3}};
    attribute(a);
    EXPECT_DOUBLE_EQ(a.share["candidate"], 0.6);
    EXPECT_DOUBLE_EQ(a.share["torch"], 0.2);
    EXPECT_DOUBLE_EQ(a.share["memory"], 0.2);
    EXPECT_EQ(a.torch_compute_ops, std::vector<std::string>{"exp"});
    EXPECT_FALSE(a.decoy);
    // A Triton kernel that never runs beside torch doing the work: a decoy.
    ProgramAttribution d;
    d.cupti = true;
    d.triton_declared = {"softmax_kernel"};
    d.kernels = {{"_ZN2at6native19softmax_warp_forward", "kernel", "", 1, 10.0, 1}};
    d.aten_ops = {{"aten._softmax.default", 1}};
    d.triton_launches = {{"softmax_kernel", 0}};
    attribute(d);
    EXPECT_TRUE(d.decoy);
    EXPECT_DOUBLE_EQ(d.share["torch"], 1.0);
    // Without CUPTI a Triton candidate is judged by its launches.
    ProgramAttribution n;
    n.triton_declared = {"k"};
    n.triton_launches = {{"k", 0}};
    attribute(n);
    EXPECT_TRUE(n.decoy);
    n.triton_launches = {{"k", 2}};
    attribute(n);
    EXPECT_FALSE(n.decoy);
    // A CUDA candidate without CUPTI cannot be told a decoy: not flagged.
    ProgramAttribution c;
    c.cuda_declared = {"my_kernel"};
    attribute(c);
    EXPECT_FALSE(c.decoy);
    // A pure torch candidate declares nothing: not a decoy (torch compute is its own rule).
    ProgramAttribution t;
    t.cupti = true;
    t.aten_ops = {{"aten.relu.default", 1}};
    attribute(t);
    EXPECT_FALSE(t.decoy);
    EXPECT_EQ(t.torch_compute_ops, std::vector<std::string>{"relu"});
}

TEST(ProgramJudge, ARunIsJudgedInOrder) {
    ProgramRules r = rules();
    EXPECT_EQ(judge_program_run(passing(), r).verdict, KB_VERDICT_PASS);

    ProgramRunObservation e = passing();
    e.error = "ValueError: nope";
    e.error_stage = "call";
    e.candidate_outputs.clear();
    Judgement j = judge_program_run(e, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_RUNTIME_ERROR);
    EXPECT_TRUE(has(j.message, "ValueError: nope")) << j.message;
    EXPECT_TRUE(has(j.message, "case 'small'")) << j.message;

    // A load_inline call of the model's construction that did not compile:
    // the answer's compile error, as at its import; any other construction
    // error is the run's.
    ProgramRunObservation b = e;
    b.error = "Error building extension 'ext': error: identifier \"k\" is undefined (the answer's line 12)";
    b.error_stage = "build";
    j = judge_program_run(b, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_COMPILE_ERROR);
    EXPECT_TRUE(has(j.message, "the answer's line 12")) << j.message;
    EXPECT_TRUE(has(j.message, "case 'small'")) << j.message;
    b.error_stage = "construction";
    EXPECT_EQ(judge_program_run(b, r).verdict, KB_VERDICT_RUNTIME_ERROR);

    ProgramRunObservation s = passing();
    s.candidate_outputs = {out("f32", {3, 25})};
    j = judge_program_run(s, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_TRUE(has(j.message, "shape [3, 25], expected [4, 25]")) << j.message;

    ProgramRunObservation d = passing();
    d.candidate_outputs = {out("f64", {4, 25})};
    j = judge_program_run(d, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_TRUE(has(j.message, "dtype f64, expected f32")) << j.message;
    ProgramRules loose = r;
    loose.check_dtype = false;  // KernelBench compares values only
    EXPECT_EQ(judge_program_run(d, loose).verdict, KB_VERDICT_PASS);

    ProgramRunObservation v = passing();
    v.candidate_outputs = {out("f32", {4, 25}, "cpu")};
    j = judge_program_run(v, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_TRUE(has(j.message, "is on cpu, expected cuda:0")) << j.message;

    ProgramRunObservation n = passing();
    n.candidate_outputs.push_back(out("f32", {1}));
    j = judge_program_run(n, r);
    EXPECT_TRUE(has(j.message, "returned 2 outputs, the reference returns 1")) << j.message;

    ProgramRunObservation none = passing();
    none.candidate_outputs[0].is_tensor = false;
    none.candidate_outputs[0].type = "NoneType";
    j = judge_program_run(none, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_TRUE(has(j.message, "is a NoneType, expected a tensor")) << j.message;

    ProgramRunObservation m = passing();
    m.inputs_modified = {"input 0 (x)"};
    m.outputs = {report(5)};  // a wrong output too: the modified input is named first
    j = judge_program_run(m, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_INPUT_MODIFIED);
    EXPECT_TRUE(has(j.message, "input 0 (x)")) << j.message;
    ProgramRules unchecked = r;
    unchecked.check_inputs = false;
    EXPECT_EQ(judge_program_run(m, unchecked).verdict, KB_VERDICT_WRONG_ANSWER);

    ProgramRunObservation u = passing();
    u.outputs = {report(100, 100)};
    j = judge_program_run(u, r);
    EXPECT_EQ(j.verdict, KB_VERDICT_OUTPUT_NOT_WRITTEN);
    EXPECT_TRUE(has(j.message, "never wrote")) << j.message;

    ProgramRunObservation w = passing();
    w.outputs = {report(3)};
    EXPECT_EQ(judge_program_run(w, r).verdict, KB_VERDICT_WRONG_ANSWER);
}

TEST(ProgramJudge, ThePolicyFailsOnlyWhatTheRuleForbids) {
    ProgramAttribution a;
    a.cupti = true;
    a.kernels = {{"_ZN2at6native18elementwise_kernel", "kernel", "", 1, 10.0, 1}};
    a.aten_ops = {{"aten.relu.default", 2}};
    attribute(a);
    ProgramIntegrity clean;
    ProgramPolicyRules report;
    std::vector<ProgramFinding> f = program_findings(a, clean, report);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rule, "torch_compute");
    EXPECT_EQ(f[0].severity, "report");
    EXPECT_TRUE(has(f[0].message, "relu")) << f[0].message;
    EXPECT_TRUE(has(f[0].message, "100% of its kernel time")) << f[0].message;
    EXPECT_EQ(judge_policy(f).verdict, KB_VERDICT_PASS);

    ProgramPolicyRules forbid;
    forbid.torch_compute = "forbid";
    f = program_findings(a, clean, forbid);
    EXPECT_EQ(f[0].severity, "fail");
    Judgement j = judge_policy(f);
    EXPECT_EQ(j.verdict, KB_VERDICT_POLICY_VIOLATION);
    EXPECT_TRUE(has(j.message, "forbids torch compute")) << j.message;

    // The kernelbench protocol enforces nothing: everything is reported.
    ProgramPolicyRules faithful = forbid;
    faithful.enforce = false;
    EXPECT_EQ(judge_policy(program_findings(a, clean, faithful)).verdict, KB_VERDICT_PASS);
}

TEST(ProgramJudge, DecoysPatchesAndThreads) {
    ProgramAttribution d;
    d.cupti = true;
    d.triton_declared = {"k"};
    d.aten_ops = {{"aten._softmax.default", 1}};
    d.kernels = {{"_ZN2at6native19softmax_warp_forward", "kernel", "", 1, 10.0, 1}};
    attribute(d);
    ProgramIntegrity clean;
    ProgramPolicyRules report;
    Judgement j = judge_policy(program_findings(d, clean, report));
    EXPECT_EQ(j.verdict, KB_VERDICT_POLICY_VIOLATION);
    EXPECT_TRUE(has(j.message, "defines k but none of them ran")) << j.message;
    ProgramPolicyRules allow;
    allow.torch_compute = "allow";
    EXPECT_EQ(judge_policy(program_findings(d, clean, allow)).verdict, KB_VERDICT_PASS);

    ProgramAttribution honest;
    ProgramIntegrity patched;
    patched.patched = {"time.perf_counter"};
    j = judge_policy(program_findings(honest, patched, allow));
    EXPECT_EQ(j.verdict, KB_VERDICT_POLICY_VIOLATION);
    EXPECT_TRUE(has(j.message, "time.perf_counter")) << j.message;

    ProgramIntegrity threads;
    threads.threads_left = {"keeps-working"};
    j = judge_policy(program_findings(honest, threads, allow));
    EXPECT_EQ(j.verdict, KB_VERDICT_POLICY_VIOLATION);
    EXPECT_TRUE(has(j.message, "keeps-working")) << j.message;

    ProgramAttribution streams;
    streams.streams = 2;
    std::vector<ProgramFinding> f = program_findings(streams, clean, report);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rule, "several_streams");
    EXPECT_EQ(f[0].severity, "report");
}

TEST(ProgramJudge, TimedCallsThatSkipTheFreshCallsKernelsReplayed) {
    CallWork fresh;
    fresh.launches = {{"matmul_kernel", 1}, {"[memset]", 1}};
    fresh.ms = {{"matmul_kernel", 2.5}, {"[memset]", 0.01}};
    // A replayed output: the timed calls launch nothing, or only a copy.
    CallWork none;
    std::optional<ProgramFinding> f = timed_replay(none, fresh, true);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->rule, "replayed_when_timed");
    EXPECT_EQ(f->severity, "fail");
    EXPECT_TRUE(has(f->message, "matmul_kernel (1 launch fresh, 0 a timed call)")) << f->message;
    EXPECT_TRUE(has(f->message, "did not do the call's work")) << f->message;
    EXPECT_EQ(judge_policy({*f}).verdict, KB_VERDICT_POLICY_VIOLATION);
    CallWork copy;
    copy.launches = {{"[memcpy]", 1}};
    copy.ms = {{"[memcpy]", 0.04}};
    EXPECT_TRUE(timed_replay(copy, fresh, true));
    // Reported only where the protocol does not enforce its rules.
    ASSERT_TRUE(timed_replay(none, fresh, false));
    EXPECT_EQ(timed_replay(none, fresh, false)->severity, "report");
    // Honest: the same kernels each call, however long each took (the
    // fresh call's durations may be stretched by other lanes' time slices).
    CallWork same = fresh;
    same.ms = {{"matmul_kernel", 0.4}, {"[memset]", 0.01}};
    EXPECT_FALSE(timed_replay(same, fresh, true));
    // A kernel launched more often fresh than timed, but under half the
    // fresh call's time: a small check of new inputs, not the work.
    CallWork checks = fresh;
    checks.launches["check_kernel"] = 1;
    checks.ms["check_kernel"] = 0.01;
    EXPECT_FALSE(timed_replay(same, checks, true));
    // Skipped work under the floor: a tiny kernel replayed says too little.
    CallWork tiny;
    tiny.launches = {{"k", 1}};
    tiny.ms = {{"k", 0.04}};
    EXPECT_FALSE(timed_replay(none, tiny, true));
    // Half as often (a kernel run every other timed call) is enough to count.
    CallWork half;
    half.launches = {{"matmul_kernel", 0.5}, {"[memset]", 1}};
    EXPECT_FALSE(timed_replay(half, fresh, true));
    half.launches["matmul_kernel"] = 0.45;
    EXPECT_TRUE(timed_replay(half, fresh, true));
}

TEST(ProgramJudge, TimedCallsFarFasterThanAFreshCallReplayedByWallTime) {
    ASSERT_TRUE(timed_replay(0.05, 40.0, true));
    EXPECT_TRUE(has(timed_replay(0.05, 40.0, true)->message, "0.05 ms each")) << timed_replay(0.05, 40.0, true)->message;
    EXPECT_EQ(timed_replay(0.05, 40.0, false)->severity, "report");
    EXPECT_FALSE(timed_replay(40.0, 60.0, true));   // a cold fresh call
    EXPECT_FALSE(timed_replay(0.056, 2.29, true));  // a thread pool waking: under the floor
    EXPECT_TRUE(timed_replay(20.0 / 3.0, 80.0 / 3.0 + 1e-9, true));
    EXPECT_FALSE(timed_replay(6.0, 25.9, true));    // 4.3x, but 19.9 ms apart
    EXPECT_FALSE(timed_replay(10.0, 39.9, true));   // 29.9 ms apart, but 3.99x
    EXPECT_FALSE(timed_replay(0.05, 0.0, true));    // nothing measured
}
