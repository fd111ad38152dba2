// The validation lint (task/output_lint.h): which reference outputs cannot
// tell right from wrong, and when that fails a task.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "task/output_lint.h"

namespace {

using kb::Json;

kb::TaskPtr two_case_task() {
    return kb::load_task_json(R"J({
      "format": "kbench-task/1", "name": "lint_t", "dims": {"n": "elements"},
      "cases": [{"name": "small", "dims": {"n": 4}}, {"name": "other", "dims": {"n": 4}}],
      "perf_case": {"name": "perf", "dims": {"n": 4}},
      "args": [
        {"name": "x", "role": "in", "dtype": "f32", "shape": ["n"]},
        {"name": "y", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 1e-3, "rtol": 1e-3}},
        {"name": "k", "role": "out", "dtype": "i32", "shape": ["n"]}
      ],
      "reference": {"source": "__global__ void r(const float* x, float* y, int* k) {}",
                    "launch": [{"kernel": "r", "grid": 1, "block": 1, "args": ["x", "y", "k"]}]}
    })J",
                              "");
}

kb::OutputSummary summarize(const kb::Task& t, int ci, const char* arg, const std::vector<float>& v) {
    return kb::summarize_output(t, t.cases[size_t(ci)], *t.find_arg(arg), v.data(), v.size());
}
kb::OutputSummary summarize_ints(const kb::Task& t, int ci, const char* arg, const std::vector<int32_t>& v) {
    return kb::summarize_output(t, t.cases[size_t(ci)], *t.find_arg(arg), v.data(), v.size());
}

std::vector<kb::OutputFinding::Kind> kinds(const kb::OutputSummary& s) {
    std::vector<kb::OutputFinding::Kind> k;
    for (const auto& f : s.findings) k.push_back(f.kind);
    return k;
}

using K = kb::OutputFinding::Kind;

TEST(OutputLint, Findings) {
    auto t = two_case_task();
    EXPECT_TRUE(summarize(*t, 0, "y", {0.5f, -2.0f, 3.0f, 0.25f}).findings.empty());
    EXPECT_EQ(kinds(summarize(*t, 0, "y", {1.0f, 1.0f, 1.0f, 1.0f})), std::vector<K>{K::constant});
    EXPECT_EQ(kinds(summarize(*t, 0, "y", {1e-4f, -2e-4f, 3e-4f, 0.0f})), std::vector<K>{K::near_zero});
    EXPECT_EQ(kinds(summarize(*t, 0, "y", {100.0f, 100.01f, 99.99f, 100.0f})), std::vector<K>{K::near_mean});
    EXPECT_EQ(kinds(summarize(*t, 0, "y", {NAN, 1.0f, 2.0f, 3.0f})), std::vector<K>{K::nan});
    // Integers compare exactly: all zeros is constant; distinct values are fine.
    EXPECT_EQ(kinds(summarize_ints(*t, 0, "k", {0, 0, 0, 0})), std::vector<K>{K::constant});
    EXPECT_TRUE(summarize_ints(*t, 0, "k", {0, 1, 0, 0}).findings.empty());
    // Messages name the task, case, output and the fix.
    const std::string m = summarize(*t, 2, "y", {0.0f, 0.0f, 0.0f, 0.0f}).findings.at(0).message;
    for (const char* part : {"task lint_t", "the perf case 'perf'", "output 'y'", "draw inputs"})
        EXPECT_NE(m.find(part), std::string::npos) << m;
    // The digest covers every element.
    EXPECT_NE(summarize(*t, 0, "y", {1, 2, 3, 4}).digest, summarize(*t, 0, "y", {1, 2, 3, 5}).digest);
}

kb::CheckedOutput checked(const kb::Task& t, int ci, const char* arg, const std::vector<float>& a,
                          const std::vector<float>& b) {
    kb::CheckedOutput c;
    c.case_index = ci;
    c.output = arg;
    c.summary = summarize(t, ci, arg, a);
    c.second_seed = true;
    c.second_digest = summarize(t, ci, arg, b).digest;
    return c;
}

TEST(OutputLint, WhenFindingsFailTheTask) {
    auto t = two_case_task();
    const std::vector<float> good = {0.5f, -2.0f, 3.0f, 0.25f}, good2 = {1.5f, 2.0f, -3.0f, 0.75f};
    const std::vector<float> ones = {1, 1, 1, 1};
    // Discriminating everywhere, different at two seeds: no failure.
    EXPECT_TRUE(kb::lint_failures(*t, {checked(*t, 0, "y", good, good2), checked(*t, 1, "y", good, good2),
                                       checked(*t, 2, "y", good, good2)})
                    .empty());
    // A constant correctness case, others fine: allowed (softmax over one column).
    EXPECT_TRUE(kb::lint_failures(*t, {checked(*t, 0, "y", ones, good2), checked(*t, 1, "y", good, good2),
                                       checked(*t, 2, "y", good, good2)})
                    .empty());
    // A constant perf case fails.
    auto f = kb::lint_failures(*t, {checked(*t, 0, "y", good, good2), checked(*t, 2, "y", ones, good2)});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].find("perf case"), std::string::npos) << f[0];
    // Constant at every checked case (the CPU check sees no perf case) fails.
    f = kb::lint_failures(*t, {checked(*t, 0, "y", ones, good2), checked(*t, 1, "y", ones, good2)});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].find("at every case checked (2)"), std::string::npos) << f[0];
    // The same output at two seeds everywhere fails; at one case only, not.
    f = kb::lint_failures(*t, {checked(*t, 0, "y", good, good), checked(*t, 1, "y", good, good)});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].find("bit-identical at two seeds"), std::string::npos) << f[0];
    EXPECT_TRUE(kb::lint_failures(*t, {checked(*t, 0, "y", good, good), checked(*t, 1, "y", good, good2)}).empty());
    // At the perf case, identical at two seeds fails on its own.
    f = kb::lint_failures(*t, {checked(*t, 0, "y", good, good2), checked(*t, 2, "y", good, good)});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].find("the perf case 'perf'"), std::string::npos) << f[0];
    // NaN findings are warnings, not failures.
    EXPECT_TRUE(kb::lint_failures(*t, {checked(*t, 0, "y", {NAN, 1, 2, 3}, good2)}).empty());
}

}  // namespace
