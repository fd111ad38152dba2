// Built-in baselines ({"builtin": "cublas_gemm"}): the loader accepts them in
// a task's baseline only and checks every field at every case; the
// row-major -> column-major mapping computes the row-major product (run
// through a CPU model of cuBLAS's column-major GEMM); a missing cuBLAS gives a
// message that names what was tried and the fix; the hand-declared ABI
// constants agree with cuBLAS's headers; the installed cuBLAS (if any) has
// every entry point kbench calls. The GPU side: tests/gpu/test_builtin_gemm.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/result_json.h"
#include "device/cublas_library.h"
#include "exec/cublas_gemm_args.h"
#include "exec/kernel.h"
#include "task/task.h"
#include "util/error.h"
#include "protocol/wire.h"

#if __has_include(<cublas_api.h>)
#include <cublas_api.h>
#define KB_HAVE_CUBLAS_HEADERS 1
#endif

namespace {

using kb::Json;

// A batched GEMM task whose baseline is the shorthand built-in form.
Json gemm_task() {
    return Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "bgemm",
      "dims": {"B": "batch", "M": "rows", "N": "cols", "K": "depth"},
      "cases": [{"name": "one", "dims": {"B": 1, "M": 1, "N": 1, "K": 1}},
                {"name": "odd", "dims": {"B": 3, "M": 17, "N": 5, "K": 33}}],
      "perf_case": {"dims": {"B": 8, "M": 256, "N": 256, "K": 256}},
      "args": [
        {"name": "A", "role": "in", "dtype": "f16", "shape": ["B", "M", "K"]},
        {"name": "Bm", "role": "in", "dtype": "f16", "shape": ["B", "K", "N"]},
        {"name": "C", "role": "out", "dtype": "f16", "shape": ["B", "M", "N"], "tolerance": {"atol": 1e-3, "rtol": 1e-3}},
        {"name": "M", "role": "scalar", "dtype": "i32", "value": "M"},
        {"name": "N", "role": "scalar", "dtype": "i32", "value": "N"},
        {"name": "K", "role": "scalar", "dtype": "i32", "value": "K"}
      ],
      "reference": {
        "source": "__global__ void ref(const __half* a, const __half* b, __half* c, int m, int n, int k) {}",
        "launch": [{"kernel": "ref", "grid": ["N", "M", "B"], "block": 1, "args": ["A", "Bm", "C", "M", "N", "K"]}]
      },
      "baseline": {"builtin": "cublas_gemm",
                   "args": {"a": "A", "b": "Bm", "c": "C", "m": "M", "n": "N", "k": "K", "batch": "B"}}
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

// Sets one argument of the shorthand baseline (null erases it).
Json with_arg(const char* key, const Json& value) {
    Json doc = gemm_task();
    if (value.is_null()) doc["baseline"]["args"].erase(key);
    else doc["baseline"]["args"][key] = value;
    return doc;
}

// ------------------------------------------------------------------------
// Loading
// ------------------------------------------------------------------------

TEST(BuiltinGemmLoader, ShorthandBecomesAOneStepPlanWithoutCode) {
    kb::TaskPtr t = load(gemm_task());
    ASSERT_TRUE(t->baseline);
    const kb::Program& p = *t->baseline;
    EXPECT_FALSE(p.has_code());
    EXPECT_TRUE(p.has_builtin_steps());
    EXPECT_TRUE(p.kernel_names().empty());
    ASSERT_EQ(p.launch.size(), 1u);
    const kb::LaunchStep& s = p.launch[0];
    EXPECT_EQ(s.kind, kb::LaunchStep::Kind::builtin);
    EXPECT_EQ(s.builtin, "cublas_gemm");
    EXPECT_EQ(s.gemm.a, "A");
    EXPECT_EQ(s.gemm.b, "Bm");
    EXPECT_EQ(s.gemm.c, "C");
    EXPECT_EQ(s.gemm.batch.text(), "B");
    EXPECT_FALSE(s.gemm.transpose_a);
    EXPECT_FALSE(s.gemm.stride_a);
    EXPECT_EQ(s.gemm.alpha, 1.0);
    EXPECT_EQ(s.gemm.beta, 0.0);

    // The normalised task spells the plan out, with no code, and loads again
    // to the same document (a worker receives exactly this).
    Json n = Json::parse(t->normalized_json);
    const Json& b = n["baseline"];
    EXPECT_FALSE(b.contains("source"));
    EXPECT_FALSE(b.contains("language"));
    ASSERT_EQ(b["launch"].size(), 1u);
    EXPECT_EQ(b["launch"][0]["builtin"], "cublas_gemm");
    EXPECT_EQ(b["launch"][0]["args"]["batch"], "B");
    EXPECT_EQ(b["launch"][0]["args"]["transpose_b"], false);
    EXPECT_EQ(b["launch"][0]["args"]["beta"], 0.0);
    kb::TaskPtr again = kb::load_task_json(t->normalized_json, "");
    EXPECT_EQ(again->normalized_json, t->normalized_json);
    EXPECT_EQ(again->hash, t->hash);
}

TEST(BuiltinGemmLoader, PlanFormMixesBuiltinsKernelsAndScratch) {
    // Attention's shape: scores = Q K^T into f32 scratch, a kernel, then P V.
    Json doc = gemm_task();
    doc["baseline"] = Json::parse(R"J({
      "source": "__global__ void softmax(float* s, __half* p) {}",
      "scratch": [{"name": "S", "dtype": "f32", "shape": ["B", "M", "M"]},
                  {"name": "P", "dtype": "f16", "shape": ["B", "M", "M"]}],
      "launch": [
        {"builtin": "cublas_gemm", "args": {"a": "A", "b": "A", "c": "S", "m": "M", "n": "M", "k": "K",
                                            "batch": "B", "transpose_b": true}},
        {"kernel": "softmax", "grid": "B * M", "block": 128, "args": ["S", "P"]},
        {"builtin": "cublas_gemm", "args": {"a": "P", "b": "Bm", "c": "C", "m": "M", "n": "N", "k": "M",
                                            "batch": "B", "stride_b": "K * N"}}
      ]})J");
    // P @ Bm reads Bm as [M, N] per batch entry: K must equal M for that to fit.
    for (auto& c : doc["cases"]) c["dims"]["K"] = c["dims"]["M"];
    doc["perf_case"]["dims"]["K"] = 256;
    kb::TaskPtr t = load(doc);
    ASSERT_TRUE(t->baseline);
    EXPECT_TRUE(t->baseline->has_code());
    EXPECT_EQ(t->baseline->kernel_names(), std::vector<std::string>{"softmax"});
    ASSERT_EQ(t->baseline->launch.size(), 3u);
    EXPECT_TRUE(t->baseline->launch[0].gemm.transpose_b);
    EXPECT_EQ(t->baseline->launch[2].gemm.a, "P");
    ASSERT_TRUE(t->baseline->launch[2].gemm.stride_b);
    kb::TaskPtr again = kb::load_task_json(t->normalized_json, "");
    EXPECT_EQ(again->hash, t->hash);
}

TEST(BuiltinGemmLoader, OnlyTheBaselineMayCallABuiltin) {
    Json doc = gemm_task();
    doc["reference"] = doc["baseline"];
    EXPECT_TRUE(Rejects(doc, {"reference.builtin:", "cannot be the reference", "baseline"}));
    doc = gemm_task();
    doc["reference"]["launch"][0] = Json::parse(
        R"J({"builtin": "cublas_gemm", "args": {"a": "A", "b": "Bm", "c": "C", "m": "M", "n": "N", "k": "K"}})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].builtin:", "only a task's baseline"}));
    doc = gemm_task();
    doc["candidate"] = Json::parse(R"J({"launch": [{"builtin": "cublas_gemm",
        "args": {"a": "A", "b": "Bm", "c": "C", "m": "M", "n": "N", "k": "K"}}]})J");
    EXPECT_TRUE(Rejects(doc, {"candidate.launch[0].builtin:", "only a task's baseline"}));

    // A candidate's own plan (launch_json, candidate documents) cannot either.
    kb::TaskPtr t = load(gemm_task());
    Json plan = Json::parse(R"J([{"builtin": "cublas_gemm",
        "args": {"a": "A", "b": "Bm", "c": "C", "m": "M", "n": "N", "k": "K"}}])J");
    try {
        kb::parse_launch_plan(plan, *t, "launch_json");
        ADD_FAILURE() << "a candidate plan called cuBLAS";
    } catch (const kb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("launch_json.launch[0].builtin: only a task's baseline"), std::string::npos)
            << e.what();
    }
    Json cand = {{"format", "kbench-candidate/1"}, {"source", "__global__ void k() {}"}, {"launch", plan}};
    EXPECT_THROW(kb::parse_candidate_document(cand, *t, ""), kb::Error);
    // What a worker re-reads from the host may have them.
    EXPECT_EQ(kb::parse_launch_plan(plan, *t, "plan", true).launch.size(), 1u);
}

TEST(BuiltinGemmLoader, StepShapeErrors) {
    Json doc = gemm_task();
    doc["baseline"]["args"]["m"] = "M";
    doc["baseline"]["builtin"] = "cublas_gemv";
    EXPECT_TRUE(Rejects(doc, {"baseline.builtin:", "unknown built-in 'cublas_gemv'", "did you mean 'cublas_gemm'?"}));
    doc["baseline"]["builtin"] = 3;
    EXPECT_TRUE(Rejects(doc, {"baseline.builtin:", "got the number 3", "cublas_gemm"}));
    doc = gemm_task();
    doc["baseline"].erase("args");
    EXPECT_TRUE(Rejects(doc, {"baseline.args:", "missing required field 'args'"}));
    doc = gemm_task();
    doc["baseline"]["args"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"baseline.args:", "expected the arguments of cublas_gemm"}));
    doc = gemm_task();
    doc["baseline"]["launch"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"baseline.launch:", "unknown field 'launch' in a built-in baseline"}));
    doc = gemm_task();
    doc["baseline"]["args"]["transpose"] = true;
    EXPECT_TRUE(Rejects(doc, {"baseline.args.transpose:", "unknown field", "did you mean"}));
    // In a plan: one kind per step, and nothing else beside builtin and args.
    doc = gemm_task();
    Json step = doc["baseline"];
    step["kernel"] = "k";
    doc["baseline"] = {{"launch", Json::array({step})}};
    EXPECT_TRUE(Rejects(doc, {"baseline.launch[0]:", "both \"kernel\" and \"builtin\""}));
    step.erase("kernel");
    step["grid"] = 1;
    doc["baseline"] = {{"launch", Json::array({step})}};
    EXPECT_TRUE(Rejects(doc, {"baseline.launch[0].grid:", "unknown field 'grid' in a built-in step"}));
}

TEST(BuiltinGemmLoader, CodeGoesWithKernelsOnly) {
    Json doc = gemm_task();
    Json step = doc["baseline"];
    doc["baseline"] = {{"source", "__global__ void k() {}"}, {"launch", Json::array({step})}};
    EXPECT_TRUE(Rejects(doc, {"baseline:", "launches no kernel, yet the baseline gives code"}));
    doc["baseline"] = {{"launch", Json::array({step, {{"kernel", "k"}, {"grid", 1}, {"block", 1}}})}};
    EXPECT_TRUE(Rejects(doc, {"baseline.source_file:", "gives no code"}));
    // A code-less plan must call a built-in: zero steps alone are no baseline.
    doc["baseline"] = {{"launch", Json::array({{{"zero", "C"}}})}};
    EXPECT_TRUE(Rejects(doc, {"baseline.source_file:", "gives no code"}));
}

TEST(BuiltinGemmLoader, OperandErrors) {
    EXPECT_TRUE(Rejects(with_arg("a", nullptr), {"baseline.args.a:", "missing required field 'a'"}));
    EXPECT_TRUE(Rejects(with_arg("a", "Q"), {"baseline.args.a:", "'Q' is neither", "expected one of: A, Bm, C"}));
    EXPECT_TRUE(Rejects(with_arg("b", "Bn"), {"baseline.args.b:", "did you mean 'Bm'?"}));
    EXPECT_TRUE(Rejects(with_arg("a", "M"), {"baseline.args.a:", "'M' is a scalar"}));
    EXPECT_TRUE(Rejects(with_arg("b", 2), {"baseline.args.b:", "got the number 2"}));
    EXPECT_TRUE(Rejects(with_arg("c", "A"), {"baseline.args.c:", "would modify an input"}));
    Json doc = gemm_task();
    doc["args"][0]["role"] = "inout";
    doc["args"][0]["tolerance"] = {{"atol", 0}, {"rtol", 0}};
    doc["baseline"]["args"]["c"] = "A";
    EXPECT_TRUE(Rejects(doc, {"baseline.args.c:", "is also operand a", "alias"}));

    // dtypes: f32, f16 or bf16; A and B alike; C alike or f32.
    doc = gemm_task();
    doc["args"][0]["dtype"] = "f64";
    EXPECT_TRUE(Rejects(doc, {"baseline.args.a:", "'A' is f64", "expected an f32, f16 or bf16 buffer"}));
    doc = gemm_task();
    doc["args"][1]["dtype"] = "bf16";
    EXPECT_TRUE(Rejects(doc, {"baseline.args.b:", "'Bm' is bf16 but A ('A') is f16", "one dtype"}));
    doc = gemm_task();
    doc["args"][2]["dtype"] = "bf16";
    EXPECT_TRUE(Rejects(doc, {"baseline.args.c:", "'C' is bf16 for f16 operands", "or f32"}));
    doc["args"][2]["dtype"] = "f32";
    EXPECT_NO_THROW(load(doc));  // f16 x f16 -> f32 is allowed
}

TEST(BuiltinGemmLoader, SizeAndScalarErrors) {
    EXPECT_TRUE(Rejects(with_arg("m", nullptr), {"baseline.args.m:", "missing required field 'm'"}));
    EXPECT_TRUE(Rejects(with_arg("k", 0), {"baseline.args.k:", "below 1", "a size >= 1"}));
    EXPECT_TRUE(Rejects(with_arg("n", "N +"), {"baseline.args.n:", "cannot parse"}));
    EXPECT_TRUE(Rejects(with_arg("n", "X"), {"baseline.args.n:"}));
    EXPECT_TRUE(Rejects(with_arg("batch", "B - 1"), {"baseline.args.batch:", "evaluates to 0", "at case 'one'"}));
    // 1 at the small cases, 2^31 at the perf case (M = 256).
    EXPECT_TRUE(Rejects(with_arg("m", "M / 256 * 2147483647 + 1"),
                        {"baseline.args.m:", "evaluates to 2147483648", "perf case", "cuBLAS takes int sizes"}));
    EXPECT_TRUE(Rejects(with_arg("stride_a", -1), {"baseline.args.stride_a:", "negative"}));
    EXPECT_TRUE(Rejects(with_arg("transpose_a", 1), {"baseline.args.transpose_a:"}));
    EXPECT_TRUE(Rejects(with_arg("alpha", "two"), {"baseline.args.alpha:"}));
    // beta != 0 reads C, which an out argument never holds (it is poisoned).
    EXPECT_TRUE(Rejects(with_arg("beta", 1.0), {"baseline.args.beta:", "C is read", "out argument"}));
    Json doc = with_arg("beta", 1.0);
    doc["args"][2]["role"] = "inout";
    EXPECT_NO_THROW(load(doc));
}

TEST(BuiltinGemmLoader, OperandsMustHoldWhatTheCallTouches) {
    // m and n swapped: at 'odd' (B=3 M=17 N=5 K=33) B is read as 3 matrices of 33 x 17.
    Json doc = with_arg("m", "N");
    doc["baseline"]["args"]["n"] = "M";
    EXPECT_TRUE(Rejects(doc, {"baseline.args.b:", "'Bm' has 495 elements but the call reads 1683", "at case 'odd'",
                              "33 x 17 per matrix"}));
    EXPECT_NO_THROW(load(with_arg("m", "min(M, N)")));
    EXPECT_TRUE(Rejects(with_arg("k", "K + 1"),
                        {"baseline.args.a:", "'A' has 1 elements but the call reads 2", "at case 'one'",
                         "(batch - 1) * stride + rows * cols"}));
    EXPECT_TRUE(Rejects(with_arg("batch", "B + 1"), {"baseline.args.a:", "batch 2", "at case 'one'"}));
    EXPECT_TRUE(Rejects(with_arg("stride_b", "K * N + 1"), {"baseline.args.b:", "'Bm' has 495 elements but the call reads 497", "at case 'odd'"}));
    // Transposing reads B as [N, K]: the same count, so it loads; C may not overlap itself.
    EXPECT_NO_THROW(load(with_arg("transpose_b", true)));
    EXPECT_TRUE(Rejects(with_arg("stride_c", "M * N - 1"), {"baseline.args.stride_c:", "matrices of C overlap"}));
    EXPECT_TRUE(Rejects(with_arg("stride_c", 0), {"baseline.args.stride_c:", "matrices of C overlap"}));
    // A stride of 0 reuses one matrix for every entry of the batch: fine for A and B.
    EXPECT_NO_THROW(load(with_arg("stride_a", 0)));
    // Sizes that overflow 64 bits are an error, not a wrap.
    EXPECT_TRUE(Rejects(with_arg("stride_a", "4611686018427387904"), {"baseline.args.a:", "more than 2^63"}));
}

TEST(BuiltinGemmLoader, ABuiltinBaselineTravelsToTheWorker) {
    // What Context::compile makes of a code-less baseline, through the wire
    // codec the host and the worker use.
    kb::TaskPtr t = load(with_arg("transpose_b", true));
    kb::Kernel k;
    k.label = "baseline";
    k.program = *t->baseline;
    kb::KernelPtr sent = kb::finish_kernel(k);
    EXPECT_EQ(kb::kernel_json(*sent)["image"], "none");
    std::vector<std::string> blobs;
    Json j = kb::wire::kernel_to_json(*sent, &blobs);
    kb::KernelPtr got = kb::wire::kernel_from_json(j, blobs, *t);
    EXPECT_EQ(got->id, sent->id);
    ASSERT_EQ(got->program.launch.size(), 1u);
    const kb::LaunchStep& s = got->program.launch[0];
    EXPECT_EQ(s.kind, kb::LaunchStep::Kind::builtin);
    EXPECT_EQ(s.builtin, "cublas_gemm");
    EXPECT_EQ(s.gemm.b, "Bm");
    EXPECT_TRUE(s.gemm.transpose_b);
    EXPECT_EQ(s.gemm.batch.text(), "B");
    EXPECT_TRUE(got->program.kernel_names().empty());
    EXPECT_EQ(kb::launch_plan_to_json(got->program), kb::launch_plan_to_json(sent->program));
}

// ------------------------------------------------------------------------
// Row-major -> column-major
// ------------------------------------------------------------------------

// cuBLAS's column-major GEMM as its documentation defines it, on doubles:
// C[i + j*ldc] = alpha * sum_l op(A)[i, l] op(B)[l, j] + beta * C[...], where
// op(X)[r, c] is X[r + c*ld] (N) or X[c + r*ld] (T).
void column_major_gemm(const kb::CublasGemmArgs& g, const std::vector<double>& A, const std::vector<double>& B,
                       std::vector<double>& C) {
    auto at = [](const std::vector<double>& X, int op, int ld, long long base, int r, int c) {
        size_t idx = size_t(base + (op == kb::cublas_abi::kOpN ? r + (long long)c * ld : c + (long long)r * ld));
        EXPECT_LT(idx, X.size()) << "cuBLAS would read outside the buffer";
        return idx < X.size() ? X[idx] : 0.0;
    };
    for (int b = 0; b < g.batch; ++b)
        for (int i = 0; i < g.m; ++i)
            for (int j = 0; j < g.n; ++j) {
                double s = 0;
                for (int l = 0; l < g.k; ++l)
                    s += at(A, g.transa, g.lda, b * g.stride_a, i, l) * at(B, g.transb, g.ldb, b * g.stride_b, l, j);
                size_t idx = size_t(b * g.stride_c + i + (long long)j * g.ldc);
                ASSERT_LT(idx, C.size());
                C[idx] = s;
            }
}

// The task's meaning: C_b[i, j] = sum_l op(A_b)[i, l] op(B_b)[l, j], row-major.
std::vector<double> row_major_gemm(const kb::RowMajorGemm& g, const std::vector<double>& A,
                                   const std::vector<double>& B) {
    std::vector<double> C(size_t((g.batch - 1) * g.stride_c + g.m * g.n), 0.0);
    for (int64_t b = 0; b < g.batch; ++b)
        for (int64_t i = 0; i < g.m; ++i)
            for (int64_t j = 0; j < g.n; ++j) {
                double s = 0;
                for (int64_t l = 0; l < g.k; ++l) {
                    double a = g.transpose_a ? A[b * g.stride_a + l * g.m + i] : A[b * g.stride_a + i * g.k + l];
                    double x = g.transpose_b ? B[b * g.stride_b + j * g.k + l] : B[b * g.stride_b + l * g.n + j];
                    s += a * x;
                }
                C[b * g.stride_c + i * g.n + j] = s;
            }
    return C;
}

TEST(BuiltinGemmMapping, RowMajorBecomesTheTransposedColumnMajorProduct) {
    kb::RowMajorGemm g;
    g.m = 3, g.n = 5, g.k = 7;
    g.stride_a = 21, g.stride_b = 35, g.stride_c = 15;
    kb::CublasGemmArgs c = kb::to_cublas(g);
    EXPECT_EQ(c.m, 5);  // cuBLAS's m is the task's n
    EXPECT_EQ(c.n, 3);
    EXPECT_EQ(c.k, 7);
    EXPECT_EQ(c.transa, kb::cublas_abi::kOpN);
    EXPECT_EQ(c.transb, kb::cublas_abi::kOpN);
    EXPECT_EQ(c.lda, 5);  // B [k, n]: rows of n
    EXPECT_EQ(c.ldb, 7);  // A [m, k]: rows of k
    EXPECT_EQ(c.ldc, 5);
    EXPECT_FALSE(c.strided_batched);

    g.transpose_a = true;  // A stored [k, m]
    g.transpose_b = true;  // B stored [n, k]
    g.batch = 4;
    c = kb::to_cublas(g);
    EXPECT_EQ(c.transa, kb::cublas_abi::kOpT);
    EXPECT_EQ(c.transb, kb::cublas_abi::kOpT);
    EXPECT_EQ(c.lda, 7);  // B [n, k]: rows of k
    EXPECT_EQ(c.ldb, 3);  // A [k, m]: rows of m
    EXPECT_EQ(c.ldc, 5);
    EXPECT_EQ(c.stride_a, 35);  // cuBLAS's A is the task's B
    EXPECT_EQ(c.stride_b, 21);
    EXPECT_EQ(c.stride_c, 15);
    EXPECT_EQ(c.batch, 4);
    EXPECT_TRUE(c.strided_batched);
}

TEST(BuiltinGemmMapping, EveryLayoutComputesTheTasksProduct) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> v(-4, 4);
    const int shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {7, 2, 1}, {1, 9, 4}, {6, 6, 6}, {2, 3, 11}};
    for (const auto& s : shapes)
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb)
                for (int batch : {1, 3})
                    for (int shared_b = 0; shared_b < 2; ++shared_b) {
                        kb::RowMajorGemm g;
                        g.m = s[0], g.n = s[1], g.k = s[2], g.batch = batch;
                        g.transpose_a = ta, g.transpose_b = tb;
                        g.stride_a = g.m * g.k + 2;  // padded, to catch a stride taken from the wrong side
                        g.stride_b = shared_b ? 0 : g.k * g.n;
                        g.stride_c = g.m * g.n + 1;
                        std::vector<double> A(size_t((batch - 1) * g.stride_a + g.m * g.k));
                        std::vector<double> B(size_t((batch - 1) * g.stride_b + g.k * g.n));
                        for (double& x : A) x = v(rng);
                        for (double& x : B) x = v(rng);
                        std::vector<double> want = row_major_gemm(g, A, B);
                        std::vector<double> got(want.size(), 0.0);
                        // cuBLAS's A is the task's B, its B the task's A.
                        column_major_gemm(kb::to_cublas(g), B, A, got);
                        SCOPED_TRACE("m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) + " k=" +
                                     std::to_string(g.k) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                                     " batch=" + std::to_string(batch) + " shared_b=" + std::to_string(shared_b));
                        ASSERT_EQ(got, want);
                    }
}

TEST(BuiltinGemmMapping, ResolvesSizesAndDefaultStridesAtACase) {
    kb::TaskPtr t = load(with_arg("transpose_a", true));
    const kb::LaunchStep& s = t->baseline->launch[0];
    kb::RowMajorGemm g = kb::resolve_gemm(s.gemm, t->cases[1].dims);  // B=3 M=17 N=5 K=33
    EXPECT_EQ(g.m, 17);
    EXPECT_EQ(g.n, 5);
    EXPECT_EQ(g.k, 33);
    EXPECT_EQ(g.batch, 3);
    EXPECT_TRUE(g.transpose_a);
    EXPECT_EQ(g.stride_a, 17 * 33);
    EXPECT_EQ(g.stride_b, 33 * 5);
    EXPECT_EQ(g.stride_c, 17 * 5);
    t = load(with_arg("stride_b", 0));
    EXPECT_EQ(kb::resolve_gemm(t->baseline->launch[0].gemm, t->cases[1].dims).stride_b, 0);
}

// ------------------------------------------------------------------------
// The library
// ------------------------------------------------------------------------

TEST(CublasLibrary, MissingLibraryNamesWhatWasTriedAndTheFix) {
    kb::CublasLibrary lib;
    std::string why;
    ASSERT_FALSE(kb::CublasLibrary::load({"/nonexistent/libcublas.so.13", "/nonexistent/other/libcublas.so"}, &lib, &why));
    EXPECT_NE(why.find("cuBLAS could not be loaded"), std::string::npos) << why;
    EXPECT_NE(why.find("/nonexistent/libcublas.so.13"), std::string::npos) << why;
    EXPECT_NE(why.find("/nonexistent/other/libcublas.so"), std::string::npos) << why;
    EXPECT_NE(why.find("cublas_gemm"), std::string::npos) << why;
    EXPECT_NE(why.find("KBENCH_CUBLAS_LIBRARY"), std::string::npos) << why;
    EXPECT_NE(why.find("LD_LIBRARY_PATH"), std::string::npos) << why;
}

TEST(CublasLibrary, ALibraryWithoutTheEntryPointsIsRefused) {
    // libc loads but is no cuBLAS: the message says which symbol is missing.
    kb::CublasLibrary lib;
    std::string why;
    ASSERT_FALSE(kb::CublasLibrary::load({"libc.so.6"}, &lib, &why));
    EXPECT_NE(why.find("libc.so.6: loaded, but it lacks cublasCreate_v2"), std::string::npos) << why;
}

TEST(CublasLibrary, SearchListHonoursTheEnvironment) {
    const char* old = std::getenv("KBENCH_CUBLAS_LIBRARY");
    std::string saved = old ? old : "";
    ::setenv("KBENCH_CUBLAS_LIBRARY", "/opt/nowhere/libcublas.so.12", 1);
    EXPECT_EQ(kb::cublas_search_list(), std::vector<std::string>{"/opt/nowhere/libcublas.so.12"});
    ::unsetenv("KBENCH_CUBLAS_LIBRARY");
    std::vector<std::string> list = kb::cublas_search_list();
    ASSERT_GE(list.size(), 3u);
    EXPECT_EQ(list[0], "libcublas.so.13");
    EXPECT_EQ(list[1], "libcublas.so.12");
    EXPECT_EQ(list[2], "libcublas.so");
    if (old) ::setenv("KBENCH_CUBLAS_LIBRARY", saved.c_str(), 1);
}

TEST(CublasLibrary, InstalledLibraryHasEveryEntryPoint) {
    // Loading needs no GPU. Where no cuBLAS is installed there is nothing to check.
    kb::CublasLibrary lib;
    std::string why;
    if (!kb::CublasLibrary::load(kb::cublas_search_list(), &lib, &why)) GTEST_SKIP() << why;
    EXPECT_NE(lib.cublasCreate_v2, nullptr);
    EXPECT_NE(lib.cublasGemmEx, nullptr);
    EXPECT_NE(lib.cublasGemmStridedBatchedEx, nullptr);
    EXPECT_NE(lib.cublasSetWorkspace_v2, nullptr);
    EXPECT_FALSE(lib.path.empty());
    if (lib.cublasGetStatusName) EXPECT_NE(lib.status_text(7).find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos);
}

#ifdef KB_HAVE_CUBLAS_HEADERS
TEST(CublasLibrary, HandDeclaredAbiMatchesTheHeaders) {
    using namespace kb::cublas_abi;
    EXPECT_EQ(kSuccess, int(CUBLAS_STATUS_SUCCESS));
    EXPECT_EQ(kOpN, int(CUBLAS_OP_N));
    EXPECT_EQ(kOpT, int(CUBLAS_OP_T));
    EXPECT_EQ(kR32F, int(CUDA_R_32F));
    EXPECT_EQ(kR16F, int(CUDA_R_16F));
    EXPECT_EQ(kR16BF, int(CUDA_R_16BF));
    EXPECT_EQ(kCompute32F, int(CUBLAS_COMPUTE_32F));
    EXPECT_EQ(kGemmDefault, int(CUBLAS_GEMM_DEFAULT));
    EXPECT_EQ(kDefaultMath, int(CUBLAS_DEFAULT_MATH));
    EXPECT_EQ(kDisallowReducedPrecisionReduction, int(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    EXPECT_EQ(sizeof(cublasOperation_t), sizeof(int));
    EXPECT_EQ(sizeof(cudaDataType), sizeof(int));
    EXPECT_EQ(sizeof(cublasComputeType_t), sizeof(int));
    EXPECT_EQ(sizeof(cublasGemmAlgo_t), sizeof(int));
    EXPECT_EQ(sizeof(cublasMath_t), sizeof(int));
}
#endif

}  // namespace
