// Benchmark figures from results (src/evaluate/metrics, report): pass@k and
// fast_p against values computed by hand (the arithmetic is in the
// comments), KernelBench's own test vectors, and the renderings.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "evaluate/metrics.h"
#include "evaluate/report.h"

namespace {

using kb::Json;
using namespace kb::evaluate;

ResultRecord rec(const std::string& task, const std::string& verdict, std::optional<double> speedup = std::nullopt,
                 const std::string& model = "", const std::string& family = "") {
    static int id = 0;
    ResultRecord r;
    r.task = task;
    r.id = ++id;
    r.verdict = verdict;
    r.speedup = speedup;
    r.model = model;
    r.family = family;
    return r;
}

Metrics of(const std::vector<ResultRecord>& rs) {
    std::vector<const ResultRecord*> p;
    for (const ResultRecord& r : rs) p.push_back(&r);
    return compute_metrics(p);
}

double fast(const Metrics& m, double p) {
    for (const auto& [t, v] : m.fast_p)
        if (t == p) return v;
    ADD_FAILURE() << "no fast_" << p;
    return -1;
}

TEST(PassAtK, HandComputedValues) {
    // n = 5 samples, c = 2 correct: pass@k = 1 - C(3, k) / C(5, k).
    EXPECT_NEAR(pass_at_k(5, 2, 1), 1 - 3.0 / 5, 1e-15);   // C(3,1)/C(5,1) = 3/5  -> 0.4
    EXPECT_NEAR(pass_at_k(5, 2, 2), 1 - 3.0 / 10, 1e-15);  // C(3,2)/C(5,2) = 3/10 -> 0.7
    EXPECT_NEAR(pass_at_k(5, 2, 3), 1 - 1.0 / 10, 1e-15);  // C(3,3)/C(5,3) = 1/10 -> 0.9
    EXPECT_EQ(pass_at_k(5, 2, 4), 1.0);                    // only 3 wrong: any 4 hold a correct one
    EXPECT_EQ(pass_at_k(5, 5, 1), 1.0);
    for (int k = 1; k <= 10; ++k) EXPECT_EQ(pass_at_k(10, 0, k), 0.0);
    // n = 20, c = 1, k = 10: C(19,10)/C(20,10) = (20-10)/20 = 1/2 -> 0.5.
    EXPECT_NEAR(pass_at_k(20, 1, 10), 0.5, 1e-15);
    // n = 200, c = 3, k = 100, where C(200, 100) ~ 9e58 would lose everything in doubles if formed:
    // C(197,100)/C(200,100) = (100*99*98)/(200*199*198) = 970200/7880400 -> 1 - 0.12311557...
    EXPECT_NEAR(pass_at_k(200, 3, 100), 1 - 970200.0 / 7880400.0, 1e-14);
    // And against the binomials through lgamma where they fit.
    auto binom_ratio = [](int n, int c, int k) {
        return std::exp(std::lgamma(n - c + 1) - std::lgamma(k + 1) - std::lgamma(n - c - k + 1) -
                        (std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)));
    };
    for (int n : {7, 20, 50})
        for (int c = 0; c <= n; c += 3)
            for (int k = 1; k <= n - c; ++k) EXPECT_NEAR(pass_at_k(n, c, k), 1 - binom_ratio(n, c, k), 1e-9);
}

TEST(Metrics, FastPAndGeomeanMatchKernelBenchsOwnTestVectors) {
    // KernelBench src/kernelbench/unit_tests/test_score.py (@15a2b4f6), first vector:
    // is_correct [1,0,1,1,0], baseline [0.1,0.15,0.2,0.05,0.3], actual [0.2,0.15,0.3,0.01,0.2]
    // speedup = baseline / actual = [0.5, 1.0, 0.6667, 5.0, 1.5]; correct: 0.5, 0.6667, 5.0.
    std::vector<ResultRecord> a = {rec("t", "pass", 0.1 / 0.2), rec("t", "wrong_answer", 0.15 / 0.15),
                                   rec("t", "pass", 0.2 / 0.3), rec("t", "pass", 0.05 / 0.01),
                                   rec("t", "wrong_answer", 0.3 / 0.2)};
    Metrics m = of(a);
    // fast_p = #(correct and speedup > p) / 5 (all candidates):
    EXPECT_NEAR(fast(m, 0.0), 3.0 / 5, 1e-12);  // 0.5, 0.667, 5 > 0
    EXPECT_NEAR(fast(m, 1.0), 1.0 / 5, 1e-12);  // only 5 > 1 (KernelBench's test: 0.2)
    EXPECT_NEAR(fast(m, 1.5), 1.0 / 5, 1e-12);  // a wrong answer's 1.5 never counts
    EXPECT_NEAR(fast(m, 2.0), 1.0 / 5, 1e-12);
    // geomean over the correct: (0.5 * 0.6667 * 5)^(1/3) = (5/3)^(1/3) = 1.185631101 (KernelBench's test value).
    ASSERT_TRUE(m.geomean_speedup);
    EXPECT_NEAR(*m.geomean_speedup, 1.185631101, 1e-9);

    // Second vector: is_correct [1,1,1,1,0], baseline [0.24,0.31,100,0.0001,0.3], actual [0.3,0.3,200,0.0001,0.3]
    // speedups [0.8, 1.0333, 0.5, 1.0, 1.0]; correct: the first four.
    std::vector<ResultRecord> b = {rec("t", "pass", 0.24 / 0.3), rec("t", "pass", 0.31 / 0.3),
                                   rec("t", "pass", 100.0 / 200.0), rec("t", "pass", 0.0001 / 0.0001),
                                   rec("t", "timeout", 1.0)};
    Metrics n = of(b);
    EXPECT_NEAR(fast(n, 1.0), 1.0 / 5, 1e-12);  // 1.0333 > 1; 1.0 is not strictly greater (test value 0.2)
    EXPECT_NEAR(fast(n, 0.0), 4.0 / 5, 1e-12);
    // (0.8 * 1.0333 * 0.5 * 1.0)^(1/4) = 0.41333^(1/4) = 0.801816719 (KernelBench's test value).
    EXPECT_NEAR(*n.geomean_speedup, 0.801816719, 1e-9);
}

TEST(Metrics, AccuracyCountsAndVerdicts) {
    // 8 candidates: pass x3 (speedups 2.0, 0.5, none), wrong_answer, runtime_error, compile_error, no_code, error.
    std::vector<ResultRecord> rs = {rec("t", "pass", 2.0),          rec("t", "pass", 0.5),    rec("t", "pass"),
                                    rec("t", "wrong_answer", 3.0),  rec("t", "runtime_error"), rec("t", "compile_error"),
                                    rec("t", "no_code"),            rec("t", "error")};
    rs[0].efficiency = 0.9;
    rs[1].efficiency = 0.3;
    rs[3].efficiency = 0.6;
    Metrics m = of(rs);
    EXPECT_EQ(m.candidates, 8);
    // compiled: every verdict but compile_error, no_code and error -> 5 of 8.
    EXPECT_EQ(m.compiled, 5);
    EXPECT_NEAR(*m.call_accuracy, 5.0 / 8, 1e-15);
    EXPECT_NEAR(*m.exec_accuracy, 3.0 / 8, 1e-15);
    // fast_1: only the 2.0 (the wrong answer's 3.0 is not correct; the untimed pass counts for nothing) -> 1/8.
    EXPECT_NEAR(fast(m, 1.0), 1.0 / 8, 1e-15);
    EXPECT_NEAR(fast(m, 0.0), 2.0 / 8, 1e-15);
    EXPECT_EQ(m.passed_without_speedup, 1);
    // geomean of 2.0 and 0.5 = 1.
    EXPECT_NEAR(*m.geomean_speedup, 1.0, 1e-15);
    // median efficiency of 0.3, 0.6, 0.9 = 0.6.
    EXPECT_NEAR(*m.efficiency_median, 0.6, 1e-15);
    EXPECT_EQ(m.verdicts.at("pass"), 3);
    EXPECT_EQ(m.verdicts.at("error"), 1);
    EXPECT_EQ(m.verdicts.size(), 6u);
}

TEST(Metrics, PassAtKAveragesOverProblemsWithEnoughSamples) {
    // Problem (A, m): 4 samples, 1 correct. Problem (B, m): 2 samples, both correct.
    std::vector<ResultRecord> rs = {rec("A", "pass", 1.0, "m"), rec("A", "wrong_answer", {}, "m"),
                                    rec("A", "wrong_answer", {}, "m"), rec("A", "compile_error", {}, "m"),
                                    rec("B", "pass", 1.0, "m"), rec("B", "pass", 1.0, "m")};
    Metrics m = of(rs);
    EXPECT_EQ(m.problems, 2);
    ASSERT_EQ(m.pass_at_k.size(), 4u);
    // k=1: A 1/4, B 1 -> (0.25 + 1) / 2 = 0.625
    EXPECT_NEAR(m.pass_at_k[0].value, 0.625, 1e-15);
    EXPECT_EQ(m.pass_at_k[0].problems, 2);
    // k=2: A 1 - C(3,2)/C(4,2) = 1 - 3/6 = 0.5; B 1 -> 0.75
    EXPECT_NEAR(m.pass_at_k[1].value, 0.75, 1e-15);
    // k=3: only A (n=4): 1 - C(3,3)/C(4,3) = 1 - 1/4 = 0.75
    EXPECT_NEAR(m.pass_at_k[2].value, 0.75, 1e-15);
    EXPECT_EQ(m.pass_at_k[2].problems, 1);
    // k=4: A, 3 wrong < 4 -> 1
    EXPECT_NEAR(m.pass_at_k[3].value, 1.0, 1e-15);
    // The same samples under two models are two problems.
    rs[4].model = rs[5].model = "other";
    rs[4].task = rs[5].task = "A";
    EXPECT_EQ(of(rs).problems, 2);
}

TEST(Metrics, CompileOnlyResultsHaveCallAccuracyOnly) {
    std::vector<ResultRecord> rs = {rec("t", "compiled"), rec("t", "compiled"), rec("t", "compile_error"),
                                    rec("t", "no_code")};
    Metrics m = of(rs);
    EXPECT_FALSE(m.run);
    EXPECT_NEAR(*m.call_accuracy, 0.5, 1e-15);
    EXPECT_FALSE(m.exec_accuracy);
    EXPECT_TRUE(m.fast_p.empty());
    EXPECT_TRUE(m.pass_at_k.empty());
    Json j = metrics_json(m);
    EXPECT_TRUE(j["exec_accuracy"].is_null());
    EXPECT_TRUE(j["fast_p"].is_null());
    EXPECT_TRUE(j["pass_at_k"].is_null());
    Metrics none = of({});
    EXPECT_FALSE(none.call_accuracy);
    EXPECT_TRUE(metrics_json(none)["call_accuracy"].is_null());
}

TEST(Metrics, GroupsByTaskFamilyAndModel) {
    std::vector<ResultRecord> rs = {rec("a", "pass", 1.0, "m1", "elementwise"), rec("b", "wrong_answer", {}, "m1"),
                                    rec("a", "pass", 1.0, "m2", "elementwise")};
    rs[1].task = "tasks/b/task.json";
    rs[1].task_name = "b";
    auto by_family = group_records(rs, GroupBy::family);
    ASSERT_EQ(by_family.size(), 2u);
    EXPECT_EQ(by_family[0].first, "(none)");
    EXPECT_EQ(by_family[1].first, "elementwise");
    EXPECT_EQ(by_family[1].second.size(), 2u);
    auto by_task = group_records(rs, GroupBy::task);
    EXPECT_EQ(by_task[1].first, "b");  // the declared name, not the path
    EXPECT_EQ(group_records(rs, GroupBy::model).size(), 2u);
    GroupBy g;
    EXPECT_TRUE(parse_group_by("family", &g));
    EXPECT_EQ(g, GroupBy::family);
    EXPECT_FALSE(parse_group_by("gpu", &g));
}

// ---- renderings ---------------------------------------------------------------

Report sample_report() {
    Report r;
    r.source = "results <1>.jsonl";  // a name that needs escaping in HTML
    r.by = GroupBy::task;
    r.records = {rec("vector_add_f32", "pass", 1.5, "m"), rec("vector_add_f32", "pass", 0.8, "m"),
                 rec("vector_add_f32", "wrong_answer", {}, "m"), rec("softmax_f32", "pass", 3.0, "m"),
                 rec("softmax_f32", "compile_error", {}, "m"), rec("softmax_f32", "timeout", {}, "m")};
    r.warnings = {"the last line was cut off"};
    return r;
}

TEST(Report, JsonHasTheDocumentedKeysAtTheTopAndPerGroup) {
    Json j = report_json(sample_report());
    for (const char* k : {"call_accuracy", "exec_accuracy", "fast_p", "geomean_speedup", "pass_at_k", "verdicts"}) {
        EXPECT_TRUE(j.contains(k)) << k;
        for (const auto& g : j["groups"].items()) EXPECT_TRUE(g.value().contains(k)) << g.key() << "." << k;
    }
    EXPECT_EQ(j["groups"].size(), 2u);
    // 6 candidates, 3 pass: exec 0.5; fast_1: 1.5 and 3.0 -> 2/6.
    EXPECT_NEAR(j["exec_accuracy"].get<double>(), 0.5, 1e-15);
    EXPECT_NEAR(j["fast_p"]["1"].get<double>(), 2.0 / 6, 1e-15);
    EXPECT_NEAR(j["fast_p"]["1.5"].get<double>(), 1.0 / 6, 1e-15);  // 1.5 is not > 1.5
    EXPECT_NEAR(j["groups"]["softmax_f32"]["exec_accuracy"].get<double>(), 1.0 / 3, 1e-15);
    EXPECT_EQ(j["verdicts"]["pass"], 3);
    EXPECT_EQ(j["warnings"].size(), 1u);
    // pass@k over the two problems (3 samples each, c = 2 and 1): pass@1 = (2/3 + 1/3) / 2 = 0.5.
    EXPECT_NEAR(j["pass_at_k"]["1"].get<double>(), 0.5, 1e-15);
}

TEST(Report, CsvHasAHeaderAllAndOneRowPerGroup) {
    std::string csv = report_csv(sample_report());
    std::vector<std::string> lines;
    for (size_t p = 0, e; (e = csv.find('\n', p)) != std::string::npos; p = e + 1) lines.push_back(csv.substr(p, e - p));
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].rfind("group,candidates,problems,call_accuracy,exec_accuracy,fast_0,fast_1,fast_1.5,fast_2,", 0), 0u);
    EXPECT_EQ(lines[1].rfind("all,6,2,", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("softmax_f32,3,1,", 0), 0u) << lines[2];
    size_t columns = std::count(lines[0].begin(), lines[0].end(), ',');
    for (const std::string& l : lines) EXPECT_EQ(size_t(std::count(l.begin(), l.end(), ',')), columns) << l;
}

TEST(Report, TextShowsTheHeadlineAndGroups) {
    std::string t = report_text(sample_report());
    EXPECT_NE(t.find("exec accuracy         50.0%"), std::string::npos) << t;
    EXPECT_NE(t.find("fast_1                33.3%"), std::string::npos) << t;
    EXPECT_NE(t.find("by task"), std::string::npos);
    EXPECT_NE(t.find("softmax_f32"), std::string::npos);
    EXPECT_NE(t.find("warning: the last line was cut off"), std::string::npos);
}

// Tags open and close in order (void elements and self-closed ones aside).
testing::AssertionResult WellFormed(const std::string& html) {
    static const std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*?)(/?)>)");
    static const std::set<std::string> void_tags = {"meta", "br", "hr", "img", "link", "input"};
    std::vector<std::string> stack;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        std::string name = m[2];
        if (m[1] == "/") {
            if (stack.empty() || stack.back() != name)
                return testing::AssertionFailure() << "</" << name << "> closes " << (stack.empty() ? "nothing" : stack.back());
            stack.pop_back();
        } else if (m[4] != "/" && !void_tags.count(name)) {
            stack.push_back(name);
        }
    }
    if (!stack.empty()) return testing::AssertionFailure() << "<" << stack.back() << "> never closed";
    return testing::AssertionSuccess();
}

TEST(Report, HtmlIsOneWellFormedSelfContainedPageWithTheNumbers) {
    std::string h = report_html(sample_report());
    EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_TRUE(WellFormed(h));
    EXPECT_EQ(std::count(h.begin(), h.end(), '\0'), 0);
    // Nothing is fetched: no scripts, no stylesheets or images from elsewhere.
    EXPECT_EQ(h.find("<script"), std::string::npos);
    EXPECT_EQ(h.find("<link"), std::string::npos);
    EXPECT_EQ(h.find("src="), std::string::npos);
    EXPECT_EQ(h.find("url("), std::string::npos);
    std::string without_ns = std::regex_replace(h, std::regex("xmlns=\"http://www.w3.org/2000/svg\""), "");
    EXPECT_EQ(without_ns.find("http"), std::string::npos);
    // The figures and both plots.
    EXPECT_NE(h.find("50.0%"), std::string::npos);  // exec accuracy
    EXPECT_NE(h.find("33.3%"), std::string::npos);  // fast_1
    EXPECT_NE(h.find("aria-label=\"Histogram of the speedups of correct candidates\""), std::string::npos);
    EXPECT_NE(h.find("aria-label=\"Results per task\""), std::string::npos);
    EXPECT_NE(h.find(">softmax_f32</text>"), std::string::npos);
    EXPECT_NE(h.find("results &lt;1&gt;.jsonl"), std::string::npos);  // escaped
    EXPECT_EQ(h.find("results <1>"), std::string::npos);
    // Three correct speedups, three histogram bars (1.5x, 0.8x and 3x fall in different bins).
    std::regex bar("fill=\"#1565c0\"");
    EXPECT_EQ(std::distance(std::sregex_iterator(h.begin(), h.end(), bar), std::sregex_iterator()), 3);
}

TEST(Report, HtmlWithoutTimingsSaysSo) {
    Report r;
    r.source = "r.jsonl";
    r.records = {rec("t", "compiled"), rec("t", "compile_error")};
    std::string h = report_html(r);
    EXPECT_TRUE(WellFormed(h));
    EXPECT_NE(h.find("nothing was timed"), std::string::npos);
    EXPECT_NE(h.find("compile-only results"), std::string::npos);
}

}  // namespace
