// The oracle library (libkbench_oracles.so, loaded as `kbench validate
// --oracle` loads it): every built-in task has an oracle, bad calls
// come back as errors, and the gradient oracles agree with central
// differences of the forward oracles, so a backward task's truth does not
// rest on a hand derivation alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "emulate/oracle_plugin.h"
#include "support/task_paths.h"
#include "task/task.h"
#include "util/error.h"

namespace {

using kb::emulate::OraclePlugin;
using Tensors = std::map<std::string, std::vector<double>>;
using Dims = std::map<std::string, int64_t>;

const OraclePlugin& oracles() {
    static OraclePlugin p(std::string(KB_BINARY_DIR) + "/libkbench_oracles.so");
    return p;
}

std::vector<double> draws(size_t n, double lo, double hi, unsigned seed) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (double& x : v) x = u(g);
    return v;
}

// sum_i weight[i] * out[i] of the oracle's output `out` of `task`.
double weighted(const std::string& task, const Dims& d, const Tensors& in, const std::string& out,
                const std::vector<double>& weight) {
    std::vector<double> y = oracles().compute(task, d, in).at(out);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += weight[i] * y[i];
    return s;
}

// Central difference of weighted(...) with respect to in[name][i].
double numeric_grad(const std::string& task, const Dims& d, Tensors in, const std::string& out,
                    const std::vector<double>& weight, const std::string& name, size_t i) {
    const double h = 1e-6;
    const double x = in[name][i];
    in[name][i] = x + h;
    const double up = weighted(task, d, in, out, weight);
    in[name][i] = x - h;
    const double down = weighted(task, d, in, out, weight);
    return (up - down) / (2 * h);
}

TEST(Oracles, EveryBuiltInTaskHasOne) {
    for (const std::string& dir : kb::test::builtin_task_dirs()) {
        const std::string name = dir.substr(dir.rfind('/') + 1);
        EXPECT_TRUE(oracles().has(name)) << "task " << name << " has no oracle in tests/oracles/";
    }
    EXPECT_FALSE(oracles().has("no_such_task"));
}

TEST(Oracles, BadCallsAreErrorsNotCrashes) {
    kb_status st = KB_OK;
    std::string msg;
    try {
        oracles().compute("relu_f32", {{"n", 4}}, {{"x", {1, 2, 3}}});
    } catch (const kb::Error& e) {
        st = e.status();
        msg = e.what();
    }
    EXPECT_EQ(st, KB_ERR_REFERENCE_FAILED);
    EXPECT_NE(msg.find("input 'x' has 3 elements, the dims give 4"), std::string::npos) << msg;
    msg.clear();
    try {
        oracles().bound("relu_f32", "z", {{"n", 4}});
    } catch (const kb::Error& e) {
        msg = e.what();
    }
    EXPECT_NE(msg.find("has no output 'z'"), std::string::npos) << msg;
}

TEST(Oracles, LayerNormBackwardIsTheGradientOfTheForward) {
    const int64_t rows = 3, cols = 7;
    const Dims d = {{"rows", rows}, {"cols", cols}};
    Tensors fwd = {{"x", draws(rows * cols, -1, 5, 1)}, {"w", draws(cols, 0.5, 1.5, 2)}, {"b", draws(cols, -0.5, 0.5, 3)}};
    const std::vector<double> dy = draws(rows * cols, -1, 1, 4);
    Tensors bwd = {{"x", fwd["x"]}, {"w", fwd["w"]}, {"dy", dy}};
    Tensors g = oracles().compute("layernorm_backward_f32", d, bwd);
    for (size_t i = 0; i < size_t(rows * cols); ++i)
        EXPECT_NEAR(g.at("dx")[i], numeric_grad("layernorm_f32", d, fwd, "y", dy, "x", i), 1e-6) << "dx " << i;
    for (size_t c = 0; c < size_t(cols); ++c) {
        EXPECT_NEAR(g.at("dw")[c], numeric_grad("layernorm_f32", d, fwd, "y", dy, "w", c), 1e-6) << "dw " << c;
        EXPECT_NEAR(g.at("db")[c], numeric_grad("layernorm_f32", d, fwd, "y", dy, "b", c), 1e-6) << "db " << c;
    }
}

TEST(Oracles, GiouBackwardIsTheGradientOfTheForward) {
    const int64_t n = 200;
    const Dims d = {{"n", n}};
    Tensors fwd = {{"pred", draws(n * 4, 0.1, 1.0, 5)}, {"target", draws(n * 4, 0.1, 1.0, 6)}};
    const std::vector<double> gl = draws(n, -1, 1, 7);
    Tensors bwd = fwd;
    bwd["grad_loss"] = gl;
    const std::vector<double> g = oracles().compute("giou_loss_backward_f32", d, bwd).at("grad_pred");
    int overlapping = 0;
    for (size_t i = 0; i < size_t(n) * 4; ++i) {
        const double num = numeric_grad("giou_loss_f32", d, fwd, "loss", gl, "pred", i);
        EXPECT_NEAR(g[i], num, 1e-5 * (1 + std::fabs(num))) << "grad_pred " << i / 4 << "[" << i % 4 << "]";
        overlapping += i % 4 == 0 && std::fabs(g[i]) > 0;
    }
    EXPECT_GT(overlapping, n / 2);
}

}  // namespace
