// The example solutions (examples/solutions/solutions.json) on a GPU, CUDA and
// Triton (skipped where Triton is not installed): each must get its declared
// verdict (pass) against its task, with timing, and its speedup over the task's baseline is printed as one JSON line
// ("KB_EXAMPLE_RESULT {...}") for bench/RESULTS.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kbench.h"
#include "util/json.h"

namespace {

struct Solution {
    std::string task;       // tasks/<family>/<task>
    std::string candidate;  // examples/solutions/...
    std::string expect;
    std::string technique;
    std::string language;  // "cuda" or "triton"
};

std::vector<Solution> solutions() {
    std::vector<Solution> out;
    std::ifstream in(std::string(KB_SOURCE_DIR) + "/examples/solutions/solutions.json");
    if (!in) return out;
    kb::Json doc = kb::Json::parse(in);
    for (const auto& s : doc["solutions"])
        out.push_back({s["task"].get<std::string>(), s["candidate"].get<std::string>(), s.value("expect", "pass"),
                       s.value("technique", ""), s.value("language", "cuda")});
    return out;
}

void PrintTo(const Solution& s, std::ostream* os) { *os << s.candidate; }

class ExampleSolution : public ::testing::TestWithParam<Solution> {};

}  // namespace

TEST_P(ExampleSolution, GetsItsVerdictAndReportsItsSpeedup) {
    const Solution& s = GetParam();
    if (s.language == "triton" && !kb::test::triton_missing().empty()) GTEST_SKIP() << kb::test::triton_missing();
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    kb_task* task = nullptr;
    const std::string task_path = std::string(KB_SOURCE_DIR) + "/tasks/" + s.task + "/task.json";
    ASSERT_EQ(kb_load_task(task_path.c_str(), &task), KB_OK) << kb_last_error();
    const std::string path = std::string(KB_SOURCE_DIR) + "/examples/solutions/" + s.candidate;
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = path.c_str();
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    kb_result* r = nullptr;
    ASSERT_EQ(kb_score(ctx, task, &c, &so, &r), KB_OK) << kb_last_error();
    kb::Json j = kb::Json::parse(kb_result_json(r));
    const std::string verdict = kb_verdict_string(kb_result_verdict(r));
    EXPECT_EQ(verdict, s.expect) << s.candidate << ": " << kb_result_message(r);
    kb::Json line = {{"task", s.task},       {"candidate", s.candidate}, {"language", s.language},
                     {"technique", s.technique}, {"verdict", verdict}};
    if (j.contains("timing")) {
        const kb::Json& t = j["timing"];
        if (t.contains("speedup")) line["speedup"] = t["speedup"];
        if (t.contains("candidate")) line["candidate_median_us"] = t["candidate"]["median_us"];
        if (t.contains("baseline")) line["baseline_median_us"] = t["baseline"]["median_us"];
        if (t.contains("candidate") && t["candidate"].contains("gbps")) line["candidate_gbps"] = t["candidate"]["gbps"];
    }
    std::printf("KB_EXAMPLE_RESULT %s\n", line.dump().c_str());
    if (line.contains("speedup")) RecordProperty("speedup", std::to_string(line["speedup"].get<double>()));
    kb_result_destroy(r);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleSolution, ::testing::ValuesIn(solutions()), [](const auto& info) {
    std::string n = info.param.candidate;
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});
