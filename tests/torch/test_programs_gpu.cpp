// The adversarial program candidates of tests/programs/adversarial/ on a GPU
// (docs/programs.md): each file is scored through a context with kbench's
// Python workers and must get the verdict its header declares:
//
//     # task: softmax_gpu            (tests/programs/tasks/<task>/task.json)
//     # expect: policy_violation     (the verdict)
//     # protocol: strict             (default strict)
//     # torch_compute: forbid        (default: the task's rule)
//     # check: honest_timing         (an extra assertion, below)
//
// One test per file, then a correct candidate in a context after those that
// damage their workers. Needs torch and triton for $KBENCH_PYTHON and a CUDA device
// (label gpu; exit 77 without them).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/context.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "torch/torch_python.h"
#include "util/error.h"
#include "util/files.h"
#include "worker_host/isolation.h"

using namespace kb;

namespace {

const std::string kDir = std::string(KB_SOURCE_DIR) + "/tests/programs";

struct Adversary {
    std::string file;  // under adversarial/
    std::string task, expect, protocol = "strict", torch_compute, check;
};

// The header's "# key: value" lines, up to the first line that is not a comment.
Adversary read_adversary(const std::string& file) {
    Adversary a;
    a.file = file;
    std::istringstream in(read_file(kDir + "/adversarial/" + file));
    std::string line;
    while (std::getline(in, line) && line.rfind("#", 0) == 0) {
        size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(1, colon - 1), value = line.substr(colon + 1);
        auto trim = [](std::string& s) {
            s.erase(0, s.find_first_not_of(' '));
            s.erase(s.find_last_not_of(" \r") + 1);
        };
        trim(key);
        trim(value);
        if (key == "task") a.task = value;
        else if (key == "expect") a.expect = value;
        else if (key == "protocol") a.protocol = value;
        else if (key == "torch_compute") a.torch_compute = value;
        else if (key == "check") a.check = value;
    }
    return a;
}

// The files of a folder of tests/programs/, sorted; only those ending in
// `ext` when it is given.
std::vector<std::string> files_in(const std::string& folder, const std::string& ext = "") {
    std::vector<std::string> out;
    if (DIR* d = opendir((kDir + "/" + folder).c_str())) {
        while (dirent* e = readdir(d)) {
            std::string name = e->d_name;
            if (name[0] == '.') continue;
            if (ext.empty() || (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0))
                out.push_back(name);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> adversary_files() { return files_in("adversarial", ".py"); }

std::unique_ptr<Context>& shared_context() {
    static std::unique_ptr<Context> ctx;
    if (!ctx) {
        ::setenv("KBENCH_PYTHON", test::torch_python().c_str(), 1);
        ContextOptions o;
        o.device = 0;
        // import_hangs would otherwise wait out the default import deadline
        // (300 s, sized for a load_inline build); none of these files builds
        // an extension, and the slowest (a first Triton JIT) takes seconds.
        o.timeout_s = 45;
        ctx = std::make_unique<Context>(o, worker_isolation());
    }
    return ctx;
}

ScoreResult score(const Adversary& a) {
    TaskPtr t = load_task(kDir + "/tasks/" + a.task + "/task.json");
    CandidateInput in;
    in.language = Language::python;
    in.language_given = true;
    in.path = kDir + "/adversarial/" + a.file;
    ScoreOptions so;
    so.protocol = a.protocol;
    if (!a.torch_compute.empty()) so.torch_compute = a.torch_compute;
    return shared_context()->score(t, in, so);
}

bool has_finding(const ProgramFacts& p, const std::string& rule, const std::string& severity = "") {
    for (const ProgramFinding& f : p.findings)
        if (f.rule == rule && (severity.empty() || f.severity == severity)) return true;
    return false;
}

class Adversarial : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(AdversarialFiles, EveryFileDeclaresItsTaskAndVerdict) {
    std::vector<std::string> files = adversary_files();
    ASSERT_GE(files.size(), 20u);
    for (const std::string& f : files) {
        Adversary a = read_adversary(f);
        EXPECT_FALSE(a.task.empty()) << f;
        EXPECT_NE(verdict_from_name(a.expect), KB_VERDICT_NONE) << f << ": expect '" << a.expect << "'";
    }
}

TEST_P(Adversarial, GetsItsDeclaredVerdict) {
    const Adversary a = read_adversary(GetParam());
    ScoreResult r = score(a);
    const std::string doc = to_json(r).dump(1);
    ASSERT_EQ(verdict_name(r.verdict), a.expect) << a.file << ": " << r.message << "\n" << doc;
    ASSERT_TRUE(r.program) << doc;
    EXPECT_EQ(r.program->protocol, a.protocol);
    const ProgramAttribution& at = r.program->attribution;
    if (a.check == "candidate_kernels_ran") {
        EXPECT_FALSE(at.decoy) << doc;
        EXPECT_GT(at.share.count("candidate") ? at.share.at("candidate") : 0.0, 0.0) << doc;
    } else if (a.check == "decoy") {
        EXPECT_TRUE(at.decoy) << doc;
        EXPECT_TRUE(has_finding(*r.program, "decoy", "fail")) << doc;
    } else if (a.check == "torch_share") {
        EXPECT_FALSE(at.torch_compute_ops.empty()) << doc;
        EXPECT_TRUE(has_finding(*r.program, "torch_compute", "fail")) << doc;
    } else if (a.check == "side_stream_reported") {
        // KernelBench's protocol: events on the current stream, the side
        // stream reported and not failed.
        ASSERT_TRUE(r.program->timing) << doc;
        EXPECT_EQ(r.program->timing->method, "cuda_events") << doc;
        EXPECT_TRUE(has_finding(*r.program, "side_stream", "report")) << doc;
    } else if (a.check == "honest_timing") {
        // Every stream counts: the side stream's softmax is timed, so no
        // excessive speedup, and the time is at least what events on the
        // current stream saw.
        ASSERT_TRUE(r.program->timing) << doc;
        EXPECT_FALSE(r.program->timing->excessive_speedup) << doc;
        EXPECT_EQ(r.program->timing->method, "cupti_spans") << doc;
        if (r.program->timing->candidate_events_ms && r.program->timing->candidate_spans_ms)
            EXPECT_GE(r.program->timing->candidate_spans_ms->median, r.program->timing->candidate_events_ms->median)
                << doc;
    } else {
        EXPECT_TRUE(a.check.empty()) << a.file << ": unknown check '" << a.check << "'";
    }
}

INSTANTIATE_TEST_SUITE_P(Programs, Adversarial, ::testing::ValuesIn(adversary_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param.substr(0, info.param.size() - 3);
                             for (char& c : n)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

TEST(AdversarialAfterAll, ACorrectCandidateStillPassesInTheSameContext) {
    // Those that end, patch or leave threads in their workers.
    for (const char* f : {"import_exits.py", "patches_cuda_event.py", "patches_perf_counter.py",
                          "thread_keeps_working.py", "edits_inputs_in_place.py", "neuters_input_checksum.py"})
        score(read_adversary(f));
    Adversary a = read_adversary("correct_triton_softmax.py");
    ScoreResult r = score(a);
    EXPECT_EQ(r.verdict, KB_VERDICT_PASS) << r.message;
}

// Kernel candidates against a Python reference (docs/programs.md): plain
// CUDA and Triton kernels of tests/programs/kernels/, each scored against the
// PyTorch reference of tests/programs/tasks/relu_kernel/ with the verdict its
// first line declares ("// expect: pass" or "# expect: pass"). No language is
// given: the path (and a Triton file's launch comment) says they are kernels.
namespace {

std::string expected_verdict(const std::string& file) {
    std::istringstream in(read_file(kDir + "/kernels/" + file));
    std::string line;
    while (std::getline(in, line)) {
        size_t at = line.find("expect:");
        if (at != std::string::npos) {
            std::string v = line.substr(at + 7);
            v.erase(0, v.find_first_not_of(' '));
            v.erase(v.find_last_not_of(" \r") + 1);
            return v;
        }
    }
    return "";
}

class KernelAgainstPython : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(KernelAgainstPython, GetsItsDeclaredVerdict) {
    const std::string file = GetParam();
    const std::string expect = expected_verdict(file);
    ASSERT_NE(verdict_from_name(expect), KB_VERDICT_NONE) << file << ": expect '" << expect << "'";
    TaskPtr t = load_task(kDir + "/tasks/relu_kernel/task.json");
    CandidateInput in;
    in.path = kDir + "/kernels/" + file;
    ScoreResult r = shared_context()->score(t, in, ScoreOptions{});
    const std::string doc = to_json(r).dump(1);
    ASSERT_EQ(verdict_name(r.verdict), expect) << file << ": " << r.message << "\n" << doc;
    ASSERT_TRUE(r.program) << doc;
    EXPECT_FALSE(r.program->kernel_language.empty()) << doc;
    if (r.verdict == KB_VERDICT_PASS) {
        EXPECT_TRUE(r.compile.ok) << doc;  // CUDA compiled by kbench, Triton by its JIT in the worker
        // Its own kernel did the work, on the GPU comparison, and it was timed.
        EXPECT_FALSE(r.program->attribution.decoy) << doc;
        EXPECT_GT(r.program->attribution.share.count("candidate") ? r.program->attribution.share.at("candidate") : 0.0,
                  0.5)
            << doc;
        ASSERT_TRUE(r.program->timing && r.program->timing->speedup) << doc;
        ASSERT_TRUE(r.recheck) << doc;
        for (const CompareResult& c : r.cases)
            for (const OutputReport& o : c.outputs) EXPECT_EQ(o.compared_on, "gpu") << doc;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelAgainstPython, ::testing::ValuesIn(files_in("kernels")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param;
                             for (char& c : n)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

TEST(KernelAgainstPythonTask, ASignatureThatDoesNotFitTheProblemIsTheTasksErrorNamingTheArg) {
    Json doc = Json::parse(read_file(kDir + "/tasks/relu_kernel/task.json"));
    doc["args"][1]["shape"] = Json::array({"batch_size * dim"});  // the reference returns [batch_size, dim]
    TaskPtr t = load_task_json(doc.dump(), kDir + "/tasks/relu_kernel");
    CandidateInput in;
    in.path = kDir + "/kernels/relu_correct.cu";
    try {
        shared_context()->score(t, in, ScoreOptions{});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID) << e.what();
        EXPECT_NE(std::string(e.what()).find("args 'out'"), std::string::npos) << e.what();
    }
}

TEST(KernelAgainstPythonTask, AKernelThatBreaksItsWorkersContextLeavesTheNextCandidateAWorkingWorker) {
    // An illegal address is sticky: the candidate worker's CUDA context is
    // lost, so the next candidate must get a new worker, not a dead one.
    TaskPtr t = load_task(kDir + "/tasks/relu_kernel/task.json");
    CandidateInput bad;
    bad.path = kDir + "/kernels/relu_out_of_bounds.cu";
    ScoreResult r = shared_context()->score(t, bad, ScoreOptions{});
    ASSERT_EQ(r.verdict, KB_VERDICT_RUNTIME_ERROR) << r.message;
    for (const char* next : {"relu_triton.py", "relu_correct.cu"}) {
        CandidateInput good;
        good.path = kDir + "/kernels/" + next;
        ScoreResult g = shared_context()->score(t, good, ScoreOptions{});
        EXPECT_EQ(g.verdict, KB_VERDICT_PASS) << next << ": " << g.message;
    }
}

// TritonBench timing (docs/programs.md): tests/programs/tasks/vec_add_tb is
// the operator of tests/programs/problems/tritonbench_G/vec_add.py imported
// with its performance script; each candidate of tests/programs/tb_candidates/
// gets the verdict its header declares, and a pass is timed on the script's
// inputs against the operator's own code.
namespace {

class TritonBenchTimed : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(TritonBenchTimed, GetsItsDeclaredVerdict) {
    const std::string dir = kDir + "/tb_candidates/";
    std::istringstream head(read_file(dir + GetParam()));
    std::string line, expect;
    while (std::getline(head, line) && expect.empty())
        if (line.rfind("# expect:", 0) == 0) expect = line.substr(10);
    TaskPtr t = load_task(kDir + "/tasks/vec_add_tb/task.json");
    CandidateInput in;
    in.path = dir + GetParam();
    in.language = Language::python;
    in.language_given = true;
    ScoreResult r = shared_context()->score(t, in, ScoreOptions{});
    const std::string doc = to_json(r).dump(1);
    ASSERT_EQ(verdict_name(r.verdict), expect) << r.message << "\n" << doc;
    if (r.verdict == KB_VERDICT_PASS) {
        ASSERT_TRUE(r.program && r.program->timing && r.program->timing->speedup) << doc;
        EXPECT_GT(*r.program->timing->speedup, 0.2) << doc;  // the same work as the operator's own
        EXPECT_EQ(r.cases.size(), 2u) << doc;                  // the test function and the script's inputs
        ASSERT_TRUE(r.recheck) << doc;
    }
}

INSTANTIATE_TEST_SUITE_P(TritonBench, TritonBenchTimed, ::testing::ValuesIn(files_in("tb_candidates")),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param.substr(0, info.param.size() - 3);
                             for (char& c : n)
                                 if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                             return n;
                         });

// The precision audit on a GPU (compare/precision.h, docs/programs.md
// "Precision audit"): KernelBench's square matmul (level 1, problem 1, N =
// 4096) under a 1e-2 tolerance, where a TF32 matmul passes (CUDA-Agent issue
// 16). The reference worker recomputes the reference with TF32 allowed and
// compares the candidate's exported outputs with it on the GPU: the TF32
// candidate is "reduced", mode tf32; the reference's own fp32 matmul is "full".
namespace {

ScoreResult score_precision(const std::string& file) {
    TaskPtr t = load_task(kDir + "/tasks/matmul_kernelbench/task.json");
    CandidateInput in;
    in.language = Language::python;
    in.language_given = true;
    in.path = kDir + "/precision/" + file;
    ScoreOptions so;
    so.skip_timing = true;  // the audit is then the recheck's, the perf case's one run
    return shared_context()->score(t, in, so);
}

}  // namespace

TEST(PrecisionAudit, ATf32MatmulIsReducedAndAnFp32OneIsFull) {
    ScoreResult fp32 = score_precision("matmul_fp32.py");
    const std::string fdoc = to_json(fp32).dump(1);
    ASSERT_EQ(fp32.verdict, KB_VERDICT_PASS) << fp32.message << "\n" << fdoc;
    ASSERT_TRUE(fp32.precision) << fdoc;
    EXPECT_EQ(fp32.precision->verdict, "full") << fdoc;
    EXPECT_EQ(fp32.precision->case_name, "faithful") << fdoc;
    bool tf32_measured = false;
    for (const PrecisionProbe& p : fp32.precision->probes)
        tf32_measured = tf32_measured || (p.mode == "tf32" && !p.same_bits && p.skipped.empty());
    EXPECT_TRUE(tf32_measured) << "TF32 must change a 4096x4096 fp32 matmul on the GPU\n" << fdoc;

    ScoreResult tf32 = score_precision("matmul_tf32.py");
    const Json tj = to_json(tf32);
    const std::string tdoc = tj.dump(1);
    ASSERT_EQ(tf32.verdict, KB_VERDICT_PASS) << tf32.message << "\n" << tdoc;
    ASSERT_TRUE(tf32.precision) << tdoc;
    EXPECT_EQ(tf32.precision->verdict, "reduced") << tdoc;
    EXPECT_EQ(tf32.precision->mode, "tf32") << tdoc;
    EXPECT_GT(tf32.precision->err_full, tf32.precision->floor) << tdoc;
    EXPECT_LE(tf32.precision->err_reduced * kPrecisionRatio, tf32.precision->err_full) << tdoc;
    EXPECT_EQ(tj["precision"]["verdict"], "reduced") << tdoc;
    EXPECT_EQ(tj["precision"]["mode"], "tf32") << tdoc;
    // The comparison ran on the GPU, where the audit reads the exported outputs.
    for (const CompareResult& c : tf32.cases)
        for (const OutputReport& o : c.outputs) EXPECT_EQ(o.compared_on, "gpu") << tdoc;
}
