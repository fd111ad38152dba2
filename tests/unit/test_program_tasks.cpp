// Tasks whose reference is Python (docs/programs.md, task-format section 18):
// the reference section, the optional kernel signature, the program section
// and the torch_compute rule, their errors, and the normalised document.
#include <gtest/gtest.h>

#include "task/task.h"
#include "util/error.h"

using namespace kb;

namespace {

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

Json python_task() {
    return Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "kernelbench_l1_19_relu",
      "dims": {"batch_size": "rows", "dim": "columns"},
      "cases": [{"name": "small_primes", "dims": {"batch_size": 31, "dim": 1031}}],
      "perf_case": {"name": "faithful", "dims": {"batch_size": 4096, "dim": 393216}},
      "tolerance": {"f32": {"atol": 1e-4, "rtol": 1e-4, "equal_nan": false}},
      "reference": {"language": "python", "source": "import torch\nbatch_size = 4096\ndim = 393216\n",
                    "source_name": "19_ReLU.py"},
      "origin": {"benchmark": "kernelbench", "findings": []}
    })J");
}

std::string rejects(const Json& doc) {
    try {
        load_task_json(doc.dump(), "");
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "the task was accepted";
    return "";
}

}  // namespace

TEST(ProgramTasks, APythonReferenceNeedsNoKernelSignature) {
    TaskPtr t = load_task_json(python_task().dump(), "");
    ASSERT_TRUE(t->python);
    EXPECT_EQ(t->python->style, "kernelbench");
    EXPECT_EQ(t->python->entry, "Model");
    EXPECT_EQ(t->python->candidate_entry, "ModelNew");
    EXPECT_EQ(t->python->get_inputs, "get_inputs");
    EXPECT_EQ(t->python->precision, DType::f32);
    EXPECT_EQ(t->reference.language, Language::python);
    EXPECT_EQ(t->reference.source_name, "19_ReLU.py");
    EXPECT_TRUE(t->args.empty());
    EXPECT_EQ(t->program.torch_compute, "report");
    EXPECT_TRUE(t->program.timing);
    EXPECT_EQ(t->cases[size_t(t->perf_index)].dims.at("dim"), 393216);
    EXPECT_EQ(t->default_tolerances.at(DType::f32).atol, 1e-4);
    EXPECT_EQ(t->origin["benchmark"], "kernelbench");
}

TEST(ProgramTasks, TheNormalisedTaskRoundTripsWithTheSourceInline) {
    Json doc = python_task();
    doc["policy"] = {{"torch_compute", "forbid"}};
    doc["program"] = {{"timing", false}};
    doc["reference"]["input_transforms"] = Json::parse(R"([{"input": 0, "scale": 2.0, "shift": -1.0}])");
    TaskPtr t = load_task_json(doc.dump(), "");
    Json n = Json::parse(t->normalized_json);
    EXPECT_EQ(n["reference"]["language"], "python");
    EXPECT_EQ(n["reference"]["style"], "kernelbench");
    EXPECT_TRUE(has(n["reference"]["source"].get<std::string>(), "batch_size = 4096"));
    EXPECT_EQ(n["policy"]["torch_compute"], "forbid");
    EXPECT_EQ(n["program"]["timing"], false);
    EXPECT_EQ(n["reference"]["input_transforms"][0]["shift"], -1.0);
    EXPECT_FALSE(n.contains("args"));
    TaskPtr again = load_task_json(t->normalized_json, "");
    EXPECT_EQ(again->hash, t->hash);
    EXPECT_EQ(again->program.torch_compute, "forbid");
    EXPECT_FALSE(again->program.timing);
}

TEST(ProgramTasks, TheReferenceFileResolvesAgainstTheTaskFolder) {
    TaskPtr t = load_task(std::string(KB_SOURCE_DIR) + "/tests/programs/tasks/softmax_rows/task.json");
    ASSERT_TRUE(t->python);
    EXPECT_TRUE(has(t->reference.source, "torch.softmax(x, dim=1)"));
    EXPECT_EQ(t->reference.source_name, "2_softmax_rows.py");
}

TEST(ProgramTasks, TritonBenchReferencesAndTheirDefaults) {
    Json doc = python_task();
    doc["reference"]["style"] = "tritonbench";
    std::string e = rejects(doc);
    EXPECT_TRUE(has(e, "reference.entry")) << e;
    doc["reference"]["entry"] = "test_relu";
    e = rejects(doc);
    EXPECT_TRUE(has(e, "reference.candidate_functions")) << e;
    doc["reference"]["candidate_functions"] = {"relu"};
    e = rejects(doc);
    EXPECT_TRUE(has(e, "reference.test_source")) << e;
    doc["reference"]["test_source"] = "def test_relu():\n    return {}\n";
    TaskPtr t = load_task_json(doc.dump(), "");
    EXPECT_EQ(t->program.torch_compute, "forbid");  // TritonBench-style tasks forbid torch compute
    EXPECT_EQ(t->python->candidate_functions, std::vector<std::string>{"relu"});
    EXPECT_TRUE(t->python->candidate_entry.empty());
}

TEST(ProgramTasks, APerformanceScriptBelongsToATritonBenchReferenceOnly) {
    TaskPtr t = load_task(std::string(KB_SOURCE_DIR) + "/tests/programs/tasks/vec_add_tb/task.json");
    ASSERT_TRUE(t->python);
    EXPECT_TRUE(has(t->python->perf_source, "class performance_metrics(Performance_Metrics)"));
    EXPECT_EQ(t->cases[size_t(t->perf_index)].name, "perf_script");
    EXPECT_TRUE(has(t->normalized_json, "perf_source"));  // the workers get it
    Json kb = python_task();
    kb["reference"]["perf_source"] = "class performance_metrics: pass\n";
    std::string e = rejects(kb);
    EXPECT_TRUE(has(e, "reference.perf_source") && has(e, "only in a TritonBench reference")) << e;
}

TEST(ProgramTasks, MistakesAreNamedWithTheirPlace) {
    Json a = python_task();
    a["reference"]["style"] = "kernelbenh";
    std::string e = rejects(a);
    EXPECT_TRUE(has(e, "reference.style") && has(e, "did you mean 'kernelbench'")) << e;

    Json b = python_task();
    b["policy"] = {{"torch_compute", "sometimes"}};
    e = rejects(b);
    EXPECT_TRUE(has(e, "policy.torch_compute") && has(e, "allow, report, forbid")) << e;

    Json c = python_task();
    c["baseline"] = {{"source", "x"}};
    e = rejects(c);
    EXPECT_TRUE(has(e, "baseline") && has(e, "PyTorch eager")) << e;

    Json d = python_task();
    d["candidate"] = {{"signature", "x"}};
    e = rejects(d);
    EXPECT_TRUE(has(e, "candidate") && has(e, "\"args\"")) << e;

    Json f = python_task();
    f["reference"]["precision"] = "i32";
    e = rejects(f);
    EXPECT_TRUE(has(e, "reference.precision") && has(e, "floating")) << e;

    Json g = python_task();
    g["reference"]["input_transforms"] = Json::parse(R"([{"input": -1}])");
    e = rejects(g);
    EXPECT_TRUE(has(e, "reference.input_transforms[0].input")) << e;

    Json h = python_task();
    h["reference"]["entry"] = "not an identifier";
    e = rejects(h);
    EXPECT_TRUE(has(e, "reference.entry")) << e;

    Json i = python_task();
    i["reference"]["launch"] = Json::array();
    e = rejects(i);
    EXPECT_TRUE(has(e, "reference") && has(e, "launch")) << e;
}

TEST(ProgramTasks, ProgramRulesBelongToPythonReferences) {
    Json cuda = Json::parse(R"J({
      "format": "kbench-task/1", "name": "t", "dims": {"n": "elements"},
      "cases": [{"name": "one", "dims": {"n": 1}}], "perf_case": {"dims": {"n": 8}},
      "args": [{"name": "c", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}},
               {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}],
      "reference": {"source": "__global__ void ref(float* c, int n) {}",
                    "launch": [{"kernel": "ref", "grid": 1, "block": 1, "args": ["c", "n"]}]}
    })J");
    Json a = cuda;
    a["policy"] = {{"torch_compute", "forbid"}};
    std::string e = rejects(a);
    EXPECT_TRUE(has(e, "policy.torch_compute") && has(e, "Python")) << e;
    Json b = cuda;
    b["program"] = {{"timing", false}};
    e = rejects(b);
    EXPECT_TRUE(has(e, "program") && has(e, "Python")) << e;
}

TEST(ProgramTasks, AKernelSignatureBesideAPythonReference) {
    Json doc = python_task();
    doc["args"] = Json::parse(R"([
        {"name": "x", "role": "in", "dtype": "f32", "shape": ["batch_size", "dim"]},
        {"name": "y", "role": "out", "dtype": "f32", "shape": ["batch_size", "dim"]}])");
    TaskPtr t = load_task_json(doc.dump(), "");
    EXPECT_EQ(t->args.size(), 2u);
    EXPECT_EQ(t->args[1].tolerance->atol, 1e-4);  // the task's default
}
