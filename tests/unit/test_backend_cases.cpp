// Backend::compare_cases as every backend without its own gets it: compare()
// on each case in order, up to and including the first that fails.
#include <gtest/gtest.h>

#include "engine/backend.h"

using namespace kb;

namespace {

// Answers compare() from a script of verdicts, one per case index, and
// records what it was asked.
class ScriptedBackend : public Backend {
public:
    explicit ScriptedBackend(std::vector<kb_verdict> verdicts) : verdicts_(std::move(verdicts)) {}
    Json device_info() override { return Json::object(); }
    ReferenceResult run_reference(const TaskBinding&, int, uint64_t) override { return {}; }
    CompareResult compare(const TaskBinding&, const KernelPtr&, int case_index, uint64_t seed, unsigned runs) override {
        asked.push_back({case_index, runs});
        CompareResult r;
        r.verdict = verdicts_.at(size_t(case_index));
        r.message = "case " + std::to_string(case_index) + " seed " + std::to_string(seed);
        return r;
    }
    TimeResult time(const TaskBinding&, const KernelPtr&, const TimeRequest&) override { return {}; }
    std::vector<std::pair<int, unsigned>> asked;

private:
    std::vector<kb_verdict> verdicts_;
};

}  // namespace

TEST(BackendCases, EveryCaseInOrderWhenAllPass) {
    ScriptedBackend b({KB_VERDICT_PASS, KB_VERDICT_PASS, KB_VERDICT_PASS});
    auto r = b.compare_cases(TaskBinding{}, nullptr, {{0, 2}, {1, 2}, {2, 1}}, 7);
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[2].message, "case 2 seed 7");
    EXPECT_EQ(b.asked, (std::vector<std::pair<int, unsigned>>{{0, 2}, {1, 2}, {2, 1}}));
}

TEST(BackendCases, StopsAfterTheFirstFailure) {
    ScriptedBackend b({KB_VERDICT_PASS, KB_VERDICT_WRONG_ANSWER, KB_VERDICT_PASS});
    auto r = b.compare_cases(TaskBinding{}, nullptr, {{0, 1}, {1, 1}, {2, 1}}, 7);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].verdict, KB_VERDICT_PASS);
    EXPECT_EQ(r[1].verdict, KB_VERDICT_WRONG_ANSWER);
    EXPECT_EQ(b.asked.size(), 2u) << "case 2 ran after case 1 failed";
}
