// Negative controls (compare/controls.h) on hand-made tensors: which answers
// that must fail pass at a case, and the magnitude-aware tolerance that makes
// a softmax over many columns tell a constant from the real thing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "compare/comparator.h"
#include "compare/controls.h"
#include "engine/program_protocol.h"
#include "util/error.h"

using namespace kb;

namespace {

HostTensor tensor(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& v) {
    HostTensor t;
    t.name = name;
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.bytes.resize(v.size() * 4);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
}

Arg output(const std::string& name, double atol, double rtol) {
    Arg a;
    a.name = name;
    a.role = Role::out;
    a.dtype = DType::f32;
    a.tolerance = Tolerance{atol, rtol, false};
    return a;
}

std::vector<float> uniform(size_t n, unsigned seed, float lo, float hi) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = d(g);
    return v;
}

std::vector<float> relu(std::vector<float> v) {
    for (float& x : v) x = std::max(x, 0.0f);
    return v;
}

std::vector<float> softmax_rows(const std::vector<float>& x, size_t rows, size_t cols) {
    std::vector<float> y(x.size());
    for (size_t r = 0; r < rows; ++r) {
        double m = -1e30, s = 0;
        for (size_t c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
        for (size_t c = 0; c < cols; ++c) s += std::exp(double(x[r * cols + c]) - m);
        for (size_t c = 0; c < cols; ++c) y[r * cols + c] = float(std::exp(double(x[r * cols + c]) - m) / s);
    }
    return y;
}

bool passes(const OutputControls& c, const std::string& name) {
    auto p = c.passing();
    return std::find(p.begin(), p.end(), name) != p.end();
}

}  // namespace

TEST(Controls, ReluOnNonNegativeInputsPassesTheInputThrough) {
    const size_t n = 4 * 257;
    HostTensor x = tensor("x", {4, 257}, uniform(n, 1, 0.0f, 1.0f));  // torch.rand: all >= 0
    HostTensor y = tensor("y", {4, 257}, relu(uniform(n, 1, 0.0f, 1.0f)));
    HostTensor y2 = tensor("y", {4, 257}, relu(uniform(n, 2, 0.0f, 1.0f)));
    OutputControls c = run_controls(y, output("y", 1e-4, 1e-4), {x}, &y2);
    EXPECT_TRUE(passes(c, "input:x"));
    EXPECT_FALSE(c.discriminating());
    for (const char* other : {"zeros", "ones", "mean", "other_seed", "negated", "last_wrong"})
        EXPECT_FALSE(passes(c, other)) << other;
}

TEST(Controls, ReluOnCentredInputsDiscriminates) {
    const size_t n = 4 * 257;
    HostTensor x = tensor("x", {4, 257}, uniform(n, 1, -1.0f, 1.0f));  // the 2x-1 transform
    HostTensor y = tensor("y", {4, 257}, relu(uniform(n, 1, -1.0f, 1.0f)));
    HostTensor y2 = tensor("y", {4, 257}, relu(uniform(n, 2, -1.0f, 1.0f)));
    OutputControls c = run_controls(y, output("y", 1e-4, 1e-4), {x}, &y2);
    EXPECT_TRUE(c.discriminating()) << c.passing().front();
    EXPECT_EQ(c.controls.size(), 7u);  // zeros, ones, mean, input:x, other_seed, negated, last_wrong
}

TEST(Controls, AnInputOfAnotherShapeIsNotPassedThrough) {
    HostTensor x = tensor("x", {2, 3}, {1, 2, 3, 4, 5, 6});
    HostTensor y = tensor("y", {3, 2}, {1, 2, 3, 4, 5, 6});
    OutputControls c = run_controls(y, output("y", 1e-4, 1e-4), {x}, nullptr);
    for (const ControlOutcome& o : c.controls) EXPECT_NE(o.control, "input:x");
}

TEST(Controls, SoftmaxOverManyColumnsNeedsTheMagnitudeAwareTolerance) {
    const size_t rows = 2, cols = 65536;
    HostTensor y = tensor("y", {int64_t(rows), int64_t(cols)},
                          softmax_rows(uniform(rows * cols, 3, 0.0f, 1.0f), rows, cols));
    HostTensor y2 = tensor("y", {int64_t(rows), int64_t(cols)},
                           softmax_rows(uniform(rows * cols, 4, 0.0f, 1.0f), rows, cols));
    // KernelBench's 1e-4 is far above every element (below 3e-5):
    // zeros and the mean pass, as in KernelBench issue 165.
    const Arg a = output("y", 1e-4, 1e-4);
    OutputControls loose = run_controls(y, a, {}, &y2);
    EXPECT_TRUE(passes(loose, "zeros"));
    EXPECT_TRUE(passes(loose, "mean"));
    EXPECT_TRUE(passes(loose, "other_seed"));

    std::optional<Tolerance> t = magnitude_tolerance(y, *a.tolerance);
    ASSERT_TRUE(t.has_value());
    EXPECT_LT(t->atol, 1e-7);
    EXPECT_EQ(t->rtol, 1e-4);
    OutputControls tight = run_controls(y, a, {}, &y2, t);
    EXPECT_TRUE(tight.discriminating()) << tight.passing().front();

    // A correct candidate's rounding (float accumulation, another order)
    // still passes the tightened rule.
    std::vector<float> v(rows * cols);
    std::memcpy(v.data(), y.bytes.data(), y.bytes.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::nextafter(v[i], i % 2 ? 1.0f : 0.0f);
    Arg tightened = a;
    tightened.tolerance = *t;
    EXPECT_TRUE(compare_host(tensor("y", y.shape, v), y, tightened).ok());
}

TEST(Controls, MagnitudeToleranceLeavesLargeAndIntegerOutputsAlone) {
    HostTensor big = tensor("y", {3}, {10, -20, 30});
    EXPECT_FALSE(magnitude_tolerance(big, Tolerance{1e-4, 1e-4, false}).has_value());
    HostTensor zero = tensor("y", {3}, {0, 0, 0});
    EXPECT_FALSE(magnitude_tolerance(zero, Tolerance{1e-4, 1e-4, false}).has_value());
    HostTensor ints;
    ints.dtype = DType::i32;
    ints.shape = {2};
    ints.bytes.assign(8, 1);
    EXPECT_FALSE(magnitude_tolerance(ints, Tolerance{}).has_value());
}

TEST(Controls, AConstantOutputFailsEveryConstantControlItEquals) {
    HostTensor y = tensor("y", {2, 2}, {1, 1, 1, 1});
    OutputControls c = run_controls(y, output("y", 1e-4, 1e-4), {}, nullptr);
    EXPECT_TRUE(passes(c, "ones"));
    EXPECT_TRUE(passes(c, "mean"));
    EXPECT_FALSE(passes(c, "zeros"));
    EXPECT_FALSE(passes(c, "last_wrong"));
}

TEST(Controls, LastWrongChangesTheLastRowOfIntegers) {
    HostTensor y;
    y.name = "idx";
    y.dtype = DType::i64;
    y.shape = {2, 2};
    y.bytes.assign(32, 0);
    int64_t v[4] = {0, 3, 1, 2};
    std::memcpy(y.bytes.data(), v, 32);
    Arg a;
    a.name = "idx";
    a.role = Role::out;
    a.dtype = DType::i64;
    OutputControls c = run_controls(y, a, {}, nullptr);
    EXPECT_TRUE(c.discriminating()) << c.passing().front();
}

namespace {

// An imported task with the controls the import recorded (origin.controls).
TaskPtr task_with_controls(const Json& strict) {
    Json doc = Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "kernelbench_l1_23_softmax",
      "dims": {"batch_size": "rows", "dim": "columns"},
      "cases": [{"name": "small_primes", "dims": {"batch_size": 31, "dim": 1031}},
                {"name": "batch_of_one", "dims": {"batch_size": 1, "dim": 1031}}],
      "perf_case": {"name": "faithful", "dims": {"batch_size": 4096, "dim": 393216}},
      "tolerance": {"f32": {"atol": 1e-4, "rtol": 1e-4, "equal_nan": false}},
      "reference": {"language": "python", "source": "import torch\nbatch_size = 4096\ndim = 393216\n",
                    "source_name": "23_Softmax.py"},
      "origin": {"benchmark": "kernelbench", "findings": []}
    })J");
    doc["origin"]["controls"] = {{"format", 1}, {"strict", strict}};
    return load_task_json(doc.dump(), "");
}

std::vector<int> cases_of(const ProgramProtocol& p) {
    std::vector<int> v;
    for (const ProgramRunPlan& r : p.correctness) v.push_back(r.case_index);
    return v;
}

}  // namespace

TEST(NegativeControlsInStrict, DroppedCasesAndTheTightenedToleranceApply) {
    TaskPtr t = task_with_controls(
        {{"input_transforms", Json::array()},
         {"tolerance", {{"f32", {{"atol", 1e-9}, {"rtol", 1e-4}}}}},
         {"dropped_cases", {"faithful"}}});
    ProgramProtocolOptions o;
    ProgramProtocol strict = make_program_protocol(*t, o);
    EXPECT_EQ(cases_of(strict), (std::vector<int>{0, 1}));  // the perf case left out
    EXPECT_FALSE(strict.recheck);                           // it is the recheck's case
    EXPECT_EQ(strict.dropped_cases, std::vector<std::string>{"faithful"});
    EXPECT_EQ(program_tolerance(strict, *t, DType::f32).atol, 1e-9);
    EXPECT_FALSE(program_tolerance(strict, *t, DType::f32).equal_nan);
    EXPECT_FALSE(strict.controls_notes.empty());

    // kernelbench changes nothing.
    o.name = "kernelbench";
    ProgramProtocol kb = make_program_protocol(*t, o);
    EXPECT_EQ(program_tolerance(kb, *t, DType::f32).atol, 1e-4);
    EXPECT_TRUE(kb.dropped_cases.empty());
    EXPECT_EQ(kb.correctness.size(), 5u);
}

TEST(NegativeControlsInStrict, ARefusedTaskIsNotJudged) {
    TaskPtr t = task_with_controls({{"refused", "no case of this task can tell right from wrong"}});
    ProgramProtocolOptions o;
    try {
        make_program_protocol(*t, o);
        ADD_FAILURE() << "strict judged a refused task";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
        EXPECT_NE(std::string(e.what()).find("refused under strict"), std::string::npos) << e.what();
    }
    o.name = "kernelbench";
    EXPECT_NO_THROW(make_program_protocol(*t, o));  // reported there, not refused
}

TEST(NegativeControlsInStrict, EveryCaseDroppedIsARefusal) {
    TaskPtr t = task_with_controls({{"dropped_cases", {"small_primes", "batch_of_one", "faithful"}}});
    ProgramProtocolOptions o;
    EXPECT_THROW(make_program_protocol(*t, o), Error);
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
