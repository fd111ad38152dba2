// Kernel candidates against a Python reference (engine/kernel_program.h,
// docs/programs.md): the launch table the candidate worker runs them by, the
// check of the task's kernel signature against what the reference showed,
// and which candidates count as kernels.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/kernel_program.h"
#include "util/error.h"

using namespace kb;

namespace {

// ReLU as a KernelBench problem with a kernel signature: x in, out out, n.
Json relu_doc() {
    return {
        {"format", "kbench-task/1"},
        {"name", "relu_k"},
        {"dims", {{"rows", "batch"}, {"cols", "width"}}},
        {"cases", {{{"name", "small"}, {"dims", {{"rows", 3}, {"cols", 5}}}}}},
        {"perf_case", {{"name", "faithful"}, {"dims", {{"rows", 64}, {"cols", 1000}}}}},
        {"tolerance", {{"f32", {{"atol", 1e-4}, {"rtol", 1e-4}}}}},
        {"args",
         {{{"name", "x"}, {"role", "in"}, {"dtype", "f32"}, {"shape", {"rows", "cols"}}},
          {{"name", "out"}, {"role", "out"}, {"dtype", "f32"}, {"shape", {"rows", "cols"}}},
          {{"name", "n"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "rows * cols"}}}},
        {"candidate",
         {{"launch",
           {{{"kernel", "relu"},
             {"grid", "ceil_div(rows * cols, 256)"},
             {"block", 256},
             {"args", {"x", "out", "n", {{"value", 0.5}, {"dtype", "f32"}}}}}}}}},
        {"reference",
         {{"language", "python"},
          {"style", "kernelbench"},
          {"source", "import torch\nrows = 64\ncols = 1000\n"},
          {"precision", "f32"}}},
    };
}

TaskPtr relu_task() { return load_task_json(relu_doc().dump(), ""); }

Kernel compiled_relu(const Task& t) {
    Kernel k;
    k.program = *t.candidate_default;
    k.image.bytes = "\x7f" "ELF fake image";
    k.image.symbols["relu"] = "_Z4reluPKfPfif";
    return k;
}

}  // namespace

TEST(KernelProgram, TheCudaTableIsThePlanEvaluatedAtEveryCase) {
    TaskPtr t = relu_task();
    Kernel k = compiled_relu(*t);
    KernelCandidate kc = make_kernel_candidate(*t, k.program, &k);
    EXPECT_EQ(kc.image, k.image.bytes);
    const Json& tb = kc.table;
    EXPECT_EQ(tb["language"], "cuda");
    EXPECT_EQ(tb["image"], "cubin");
    ASSERT_EQ(tb["inputs"].size(), 1u);
    EXPECT_EQ(tb["inputs"][0]["name"], "x");
    ASSERT_EQ(tb["outputs"].size(), 1u);
    EXPECT_EQ(tb["outputs"][0]["name"], "out");
    ASSERT_EQ(tb["cases"].size(), 2u);  // the correctness case, then the perf case
    const Json& perf = tb["cases"][1];
    EXPECT_EQ(perf["name"], "faithful");
    EXPECT_EQ(perf["buffers"]["x"]["shape"], Json({64, 1000}));
    EXPECT_EQ(perf["buffers"]["out"]["dtype"], "f32");
    ASSERT_EQ(perf["steps"].size(), 1u);
    const Json& s = perf["steps"][0];
    EXPECT_EQ(s["function"], "_Z4reluPKfPfif");  // the image's symbol, as the driver resolves it
    EXPECT_EQ(s["grid"], Json({250, 1, 1}));       // ceil_div(64000, 256)
    EXPECT_EQ(s["block"], Json({256, 1, 1}));
    EXPECT_EQ(s["shared_mem"], 0);
    ASSERT_EQ(s["args"].size(), 4u);
    EXPECT_EQ(s["args"][0], Json({{"buffer", "x"}}));
    EXPECT_EQ(s["args"][2], Json({{"scalar", 64000}, {"dtype", "i32"}}));
    EXPECT_EQ(s["args"][3], Json({{"scalar", 0.5}, {"dtype", "f32"}}));
    EXPECT_EQ(tb["cases"][0]["steps"][0]["grid"], Json({1, 1, 1}));
}

TEST(KernelProgram, ATritonTableCarriesConstexprsAndOptionsAndNoImage) {
    Json doc = relu_doc();
    TaskPtr t = load_task_json(doc.dump(), "");
    Json plan = {{"launch",
                  {{{"kernel", "relu_kernel"},
                    {"grid", "ceil_div(rows * cols, BLOCK)"},
                    {"args", {"x", "out", "n"}},
                    {"constexprs", {{"BLOCK", 1024}}},
                    {"num_warps", 8}}}}};
    Program p = parse_launch_plan(plan, *t, "launch", false, Language::triton);
    p.language = Language::triton;
    KernelCandidate kc = make_kernel_candidate(*t, p, nullptr);
    EXPECT_TRUE(kc.image.empty());
    EXPECT_EQ(kc.table["language"], "triton");
    const Json& s = kc.table["cases"][1]["steps"][0];
    EXPECT_EQ(s["kernel"], "relu_kernel");
    EXPECT_EQ(s["grid"], Json({63, 1, 1}));  // ceil_div(64000, 1024)
    EXPECT_EQ(s["constexprs"], Json({{"BLOCK", 1024}}));
    EXPECT_EQ(s["num_warps"], 8);
    EXPECT_FALSE(s.contains("block"));  // Triton decides the block
}

TEST(KernelProgram, ATaskWithoutArgsIsRefusedWithTheFix) {
    Json doc = relu_doc();
    doc.erase("args");
    doc.erase("candidate");
    TaskPtr bare = load_task_json(doc.dump(), "");
    Program p;
    p.language = Language::triton;
    try {
        make_kernel_candidate(*bare, p, nullptr);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
        EXPECT_NE(std::string(e.what()).find("add `args`"), std::string::npos) << e.what();
    }
}

TEST(KernelProgram, TheSignatureIsCheckedAgainstWhatTheReferenceShowed) {
    TaskPtr t = relu_task();
    ProgramRunReply ref;
    ProgramInput in;
    in.dtype = "f32";
    in.shape = {3, 5};
    ref.inputs.push_back(in);
    ProgramOutputMeta out;
    out.label = "output";
    out.dtype = "f32";
    out.shape = {3, 5};
    ref.outputs.push_back(out);
    EXPECT_NO_THROW(check_kernel_signature(*t, 0, ref));

    auto message = [&](ProgramRunReply r) {
        try {
            check_kernel_signature(*t, 0, r);
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    ProgramRunReply wrong_shape = ref;
    wrong_shape.outputs[0].shape = {15};
    EXPECT_NE(message(wrong_shape).find("args 'out' is f32 [3, 5] at case 'small', but the reference's output is f32 "
                                        "[15]"),
              std::string::npos)
        << message(wrong_shape);
    ProgramRunReply wrong_dtype = ref;
    wrong_dtype.inputs[0].dtype = "f16";
    EXPECT_NE(message(wrong_dtype).find("make the arg match the tensor"), std::string::npos);
    ProgramRunReply two_outputs = ref;
    two_outputs.outputs.push_back(out);
    EXPECT_NE(message(two_outputs).find("returns 2 output(s)"), std::string::npos);
    ProgramRunReply with_weights = ref;
    with_weights.model_state = {"weight", "bias"};
    EXPECT_NE(message(with_weights).find("parameters or buffers (weight, bias)"), std::string::npos);
    ProgramRunReply scalar_input = ref;  // non-tensor inputs are not kernel buffers
    ProgramInput dim;
    dim.is_tensor = false;
    dim.value = "1";
    scalar_input.inputs.push_back(dim);
    EXPECT_NO_THROW(check_kernel_signature(*t, 0, scalar_input));
}

TEST(KernelProgram, WhichCandidatesAreKernels) {
    TaskPtr t = relu_task();
    CandidateInput in;
    in.path = "k.cu";
    EXPECT_TRUE(is_kernel_candidate(in, *t));
    in.path = "cand.json";
    EXPECT_TRUE(is_kernel_candidate(in, *t));
    in.path = "model_new.py";
    in.code = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n";
    EXPECT_FALSE(is_kernel_candidate(in, *t));
    in.code = "# kbench: launch kernel=k grid=1 args=x,out,n\nimport triton\n";
    EXPECT_TRUE(is_kernel_candidate(in, *t));
    in.code = "import torch\n";
    EXPECT_FALSE(is_kernel_candidate(in, *t));  // no launch: a program (which must define ModelNew)
    in.launch_json = std::string("{\"launch\": []}");
    EXPECT_TRUE(is_kernel_candidate(in, *t));
    // Given languages: Python is a program; CUDA a kernel; Triton (what
    // `kbench run` says of every Python answer) is decided by the text.
    CandidateInput given;
    given.path = "k.cu";
    given.language = Language::python;
    given.language_given = true;
    EXPECT_FALSE(is_kernel_candidate(given, *t));
    given.language = Language::cuda;
    EXPECT_TRUE(is_kernel_candidate(given, *t));
    given.language = Language::triton;
    given.code = "import triton\nclass ModelNew:\n    pass\n# kbench: launch kernel=k grid=1\n";
    EXPECT_FALSE(is_kernel_candidate(given, *t));
    given.code = "import triton\n# kbench: launch kernel=k grid=1\n";
    EXPECT_TRUE(is_kernel_candidate(given, *t));
}
