// The task fields of the task suite (docs/task-format.md): "prompt",
// "candidate.triton_args", and randint bounds given as expressions over the
// dims. Each loads as documented, round-trips through the normalised
// document, and every misuse is rejected with its JSON path and the fix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hostdev/input_gen.h"
#include "task/task.h"
#include "util/error.h"

namespace {

using kb::Json;

// An embedding-like task: an index input whose bound depends on a dim.
Json gather_task() {
    return Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "gather",
      "dims": {"n": "indices", "vocab": "rows of the table"},
      "cases": [{"name": "one", "dims": {"n": 1, "vocab": 1}}, {"name": "prime", "dims": {"n": 1009, "vocab": 31}}],
      "perf_case": {"dims": {"n": 4096, "vocab": 50000}},
      "args": [
        {"name": "idx", "role": "in", "dtype": "i32", "shape": ["n"],
         "init": {"dist": "randint", "low": 0, "high": "vocab - 1"}},
        {"name": "table", "role": "in", "dtype": "f32", "shape": ["vocab"]},
        {"name": "out", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}},
        {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}
      ],
      "reference": {
        "source": "__global__ void ref(const int* idx, const float* t, float* out, int n) {}",
        "launch": [{"kernel": "ref", "grid": "ceil_div(n, 256)", "block": 256, "args": ["idx", "table", "out", "n"]}]
      },
      "candidate": {
        "signature": "__global__ void gather(const int* idx, const float* table, float* out, int n)",
        "triton_args": ["idx", "table", "out", "n"]
      },
      "prompt": {"cuda": "Write gather(...).", "triton": "Write a @triton.jit kernel gather(...)."}
    })J");
}

kb::TaskPtr load(const Json& doc) { return kb::load_task_json(doc.dump(), ""); }

testing::AssertionResult Rejects(const Json& doc, const std::vector<std::string>& parts) {
    try {
        load(doc);
    } catch (const kb::Error& e) {
        std::string msg = e.what();
        if (e.status() != KB_ERR_TASK_INVALID)
            return testing::AssertionFailure() << "status " << e.status() << ": " << msg;
        for (const auto& p : parts)
            if (msg.find(p) == std::string::npos)
                return testing::AssertionFailure() << "message lacks \"" << p << "\": " << msg;
        if (msg.find("; ") == std::string::npos)
            return testing::AssertionFailure() << "message has no '; <expected>' part: " << msg;
        return testing::AssertionSuccess() << msg;
    }
    return testing::AssertionFailure() << "the task loaded";
}

TEST(TaskFields, PromptAndTritonArgsLoadAndRoundTrip) {
    kb::TaskPtr t = load(gather_task());
    EXPECT_EQ(t->prompt_cuda, "Write gather(...).");
    EXPECT_EQ(t->prompt_triton, "Write a @triton.jit kernel gather(...).");
    EXPECT_EQ(t->triton_args, (std::vector<std::string>{"idx", "table", "out", "n"}));
    EXPECT_EQ(t->candidate_signature, "__global__ void gather(const int* idx, const float* table, float* out, int n)");
    Json n = Json::parse(t->normalized_json);
    EXPECT_EQ(n["prompt"]["cuda"], "Write gather(...).");
    EXPECT_EQ(n["candidate"]["triton_args"], Json::array({"idx", "table", "out", "n"}));
    kb::TaskPtr again = kb::load_task_json(t->normalized_json, "");
    EXPECT_EQ(again->hash, t->hash);
    EXPECT_EQ(again->triton_args, t->triton_args);
    EXPECT_EQ(again->prompt_triton, t->prompt_triton);
}

TEST(TaskFields, TasksWithoutTheNewFieldsKeepTheirNormalisedForm) {
    Json doc = gather_task();
    doc.erase("prompt");
    doc["candidate"].erase("triton_args");
    Json n = Json::parse(load(doc)->normalized_json);
    EXPECT_FALSE(n.contains("prompt"));
    EXPECT_FALSE(n["candidate"].contains("triton_args"));
}

TEST(TaskFields, PromptErrors) {
    Json d = gather_task();
    d["prompt"]["python"] = "x";
    EXPECT_TRUE(Rejects(d, {"prompt.python", "unknown field 'python'", "cuda, triton"}));
    d = gather_task();
    d["prompt"]["cuda"] = 3;
    EXPECT_TRUE(Rejects(d, {"prompt.cuda", "the number 3"}));
    d = gather_task();
    d["prompt"]["triton"] = "  \n";
    EXPECT_TRUE(Rejects(d, {"prompt.triton", "empty"}));
    d = gather_task();
    d["prompt"] = "write a kernel";
    EXPECT_TRUE(Rejects(d, {"prompt", "object"}));
}

TEST(TaskFields, TritonArgsErrors) {
    Json d = gather_task();
    d["candidate"]["triton_args"] = Json::array({"idx", "tabel", "out", "n"});
    EXPECT_TRUE(Rejects(d, {"candidate.triton_args[1]", "'tabel' is not an argument", "did you mean 'table'"}));
    d["candidate"]["triton_args"] = Json::array({"idx", "table", "out", "idx"});
    EXPECT_TRUE(Rejects(d, {"candidate.triton_args[3]", "listed twice"}));
    d["candidate"]["triton_args"] = Json::array({"idx", "table", "n"});
    EXPECT_TRUE(Rejects(d, {"candidate.triton_args", "the output 'out' is missing"}));
    d["candidate"]["triton_args"] = "idx, table, out, n";
    EXPECT_TRUE(Rejects(d, {"candidate.triton_args", "array"}));
    d["candidate"]["triton_args"] = Json::array({"idx", 2});
    EXPECT_TRUE(Rejects(d, {"candidate.triton_args[1]"}));
}

TEST(TaskFields, ScalarsMayBeLeftOutOfTritonArgs) {
    Json d = gather_task();
    d["candidate"]["triton_args"] = Json::array({"table", "idx", "out"});
    EXPECT_EQ(load(d)->triton_args, (std::vector<std::string>{"table", "idx", "out"}));
}

TEST(TaskFields, RandintBoundsAreEvaluatedPerCase) {
    kb::TaskPtr t = load(gather_task());
    const kb::Arg& idx = t->args[0];
    ASSERT_TRUE(idx.init.depends_on_dims());
    EXPECT_FALSE(idx.init.a_expr.has_value());  // a literal low stays a number
    for (const kb::Case& c : t->cases) {
        kb::InitSpec s = idx.init.at(c.dims);
        EXPECT_FALSE(s.depends_on_dims());
        EXPECT_EQ(s.a, 0.0);
        EXPECT_EQ(s.b, double(c.dims.at("vocab") - 1)) << c.name;
        // The generator then draws within [0, vocab - 1], both ends reached.
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint64_t i = 0; i < 4096; ++i) {
            int64_t v = int32_t(uint32_t(kb::kb_input_bits(kb::KB_I32, kb::KB_DIST_RANDINT, s.a, s.b, 1, 0, i)));
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        EXPECT_GE(lo, 0) << c.name;
        if (c.dims.at("vocab") <= 64) {  // 4096 draws reach both ends
            EXPECT_EQ(lo, 0) << c.name;
            EXPECT_EQ(hi, c.dims.at("vocab") - 1) << c.name;
        }
        EXPECT_LE(hi, c.dims.at("vocab") - 1) << c.name;
    }
    Json n = Json::parse(t->normalized_json);
    EXPECT_EQ(n["args"][0]["init"], Json::parse(R"({"dist": "randint", "low": 0, "high": "vocab - 1"})"));
    EXPECT_EQ(kb::load_task_json(t->normalized_json, "")->hash, t->hash);
}

TEST(TaskFields, RandintBoundExpressionErrorsNameTheCase) {
    Json d = gather_task();
    d["args"][0]["init"]["high"] = "vocab - 2";  // -1 at case 'one'
    EXPECT_TRUE(Rejects(d, {"args[0].init", "low (0) is above high (-1)", "case 'one'", "every case"}));
    d = gather_task();
    d["args"][0]["init"]["high"] = "vocab * 100000";  // beyond i32 at the perf case
    EXPECT_TRUE(Rejects(d, {"args[0].init.high", "perf"}));
    d = gather_task();
    d["args"][0]["init"]["high"] = "vocabulary - 1";
    EXPECT_TRUE(Rejects(d, {"args[0].init.high", "'vocabulary'", "not a declared dim", "did you mean 'vocab'"}));
    d = gather_task();
    d["args"][0]["init"]["low"] = "n -";
    EXPECT_TRUE(Rejects(d, {"args[0].init.low", "cannot parse"}));
    // Expressions are for randint bounds only.
    d = gather_task();
    d["args"][1]["init"] = Json::parse(R"({"dist": "uniform", "low": 0, "high": "vocab"})");
    EXPECT_TRUE(Rejects(d, {"args[1].init.high"}));
}

}  // namespace
