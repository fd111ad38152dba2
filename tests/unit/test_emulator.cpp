// The CPU emulator of CUDA references (src/emulate): kernels compiled by the
// host compiler run with CUDA's semantics where references rely on them
// (barriers, static and dynamic shared memory, atomics, f16), on exactly the
// inputs kbench draws on a GPU, and every way a reference can be broken or
// unsupported is reported, not crashed on or silently accepted.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hostdev/input_gen.h"
#include "emulate/emulated_module.h"
#include "emulate/emulator.h"
#include "util/error.h"

namespace {

using kb::Json;
using namespace kb::emulate;

ModuleOptions module_options() {
    ModuleOptions o;
    o.cache_dir = std::string(KB_BINARY_DIR) + "/kbench-cache/emulate";
    return o;
}

bool have_host_compiler() {
    try {
        find_host_compiler();
        return true;
    } catch (const kb::Error&) {
        return false;
    }
}

#define REQUIRE_HOST_COMPILER() \
    if (!have_host_compiler()) GTEST_SKIP() << "no host C++ compiler"

// A task over one f32 input x[n] and one f32 output y[n] whose reference is
// `source` launched as `launch` (JSON); extra args may be appended.
kb::TaskPtr task_with(const std::string& source, const Json& launch, const Json& extra_args = Json::array(),
                      int64_t n = 300) {
    Json t = Json::parse(R"J({
      "format": "kbench-task/1", "name": "emu_test", "dims": {"n": "elements"},
      "cases": [{"name": "c", "dims": {"n": 1}}],
      "args": [
        {"name": "x", "role": "in", "dtype": "f32", "shape": ["n"], "init": {"dist": "uniform", "low": -1, "high": 1}},
        {"name": "y", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}},
        {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}
      ]
    })J");
    t["cases"][0]["dims"]["n"] = n;
    t["perf_case"] = {{"dims", {{"n", n}}}};
    for (const auto& a : extra_args) t["args"].push_back(a);
    t["reference"] = {{"source", source}, {"launch", launch}};
    return kb::load_task_json(t.dump(), "");
}

EmulatedRun run(const kb::TaskPtr& t, uint64_t seed = 7, double timeout_s = 60) {
    auto mod = EmulatedModule::build(t->reference, t->policy, "the test reference", module_options());
    EmulateOptions eo;
    eo.timeout_s = timeout_s;
    return emulate_case(*t, t->reference, *mod, 0, seed, eo);
}

std::string error_of(const std::function<void()>& f, kb_status* status = nullptr) {
    try {
        f();
    } catch (const kb::Error& e) {
        if (status) *status = e.status();
        return e.what();
    }
    return "";
}

TEST(Emulator, BarriersOrderSharedMemoryAcrossThreads) {
    REQUIRE_HOST_COMPILER();
    // Each thread reads what another wrote before the barrier: without the
    // barrier (threads run one after another) thread 0 would read garbage.
    auto t = task_with(R"(
        __global__ void reverse(const float* x, float* y, int n) {
            __shared__ float s[128];
            int t = threadIdx.x, i = blockIdx.x * 128 + t;
            s[t] = i < n ? x[i] : 0.0f;
            __syncthreads();
            if (i < n) y[i] = s[127 - t] * 2.0f;
        })",
                       Json::parse(R"J([{"kernel": "reverse", "grid": "ceil_div(n, 128)", "block": 128, "args": ["x", "y", "n"]}])J"),
                       Json::array(), 256);
    EmulatedRun r = run(t);
    ASSERT_EQ(r.outputs.size(), 1u);
    for (uint64_t i = 0; i < 256; ++i) {
        const uint64_t mirror = i / 128 * 128 + (127 - i % 128);
        ASSERT_EQ(r.outputs[0].at(i), 2.0 * r.inputs[0].at(mirror)) << i;
    }
    EXPECT_EQ(r.unwritten[0], 0u);
    EXPECT_TRUE(r.inputs_modified.empty());
    EXPECT_TRUE(r.written_out_of_bounds.empty());
}

TEST(Emulator, TreeReductionDynamicSharedMemoryTemplatesAnd2DBlocks) {
    REQUIRE_HOST_COMPILER();
    // One row per block of 16x8 threads: a tree reduction in dynamic shared
    // memory (extern __shared__), a template kernel, and a loop of barriers.
    auto t = task_with(R"(
        template <int W>
        __global__ void row_sums(const float* x, float* y, int n) {
            extern __shared__ float red[];
            int t = threadIdx.y * blockDim.x + threadIdx.x;  // 0..127
            float s = 0.0f;
            for (int c = t; c < W; c += 128) s += x[blockIdx.x * W + c];
            red[t] = s;
            __syncthreads();
            for (int k = 64; k > 0; k >>= 1) {
                if (t < k) red[t] += red[t + k];
                __syncthreads();
            }
            if (t < W) y[blockIdx.x * W + t] = red[0];
        })",
                       Json::parse(R"J([{"kernel": "row_sums<300>", "grid": 2, "block": [16, 8], "shared_mem": 512,
                                        "args": ["x", "y", "n"]}])J"),
                       Json::array(), 600);
    EmulatedRun r = run(t);
    for (int row = 0; row < 2; ++row) {
        double sum = 0;
        for (int c = 0; c < 300; ++c) sum += r.inputs[0].at(uint64_t(row * 300 + c));
        EXPECT_NEAR(r.outputs[0].at(uint64_t(row * 300)), sum, 1e-4);
        // Threads 128.. of a 300-wide row do not exist: those stay unwritten.
    }
    EXPECT_EQ(r.unwritten[0], 2u * (300 - 128));
}

TEST(Emulator, AtomicsAndBarrierPredicates) {
    REQUIRE_HOST_COMPILER();
    auto t = task_with(R"(
        __global__ void count(const float* x, float* y, int n, int* hits) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            int positive = i < n && x[i] > 0.0f;
            int block_count = __syncthreads_count(positive);
            int all = __syncthreads_and(i < n);
            int any = __syncthreads_or(positive);
            if (positive) atomicAdd(hits, 1);
            if (i < n) y[i] = float(block_count) + 1000.0f * all + 10000.0f * any;
        })",
                       Json::parse(R"J([{"zero": "hits"}, {"kernel": "count", "grid": "ceil_div(n, 64)", "block": 64,
                                        "args": ["x", "y", "n", "hits"]}])J"),
                       Json::parse(R"J([{"name": "hits", "role": "out", "dtype": "i32", "shape": []}])J"), 100);
    EmulatedRun r = run(t);
    int total = 0, first_block = 0, second_block = 0;
    for (int i = 0; i < 100; ++i) {
        int p = r.inputs[0].at(uint64_t(i)) > 0;
        total += p;
        (i < 64 ? first_block : second_block) += p;
    }
    EXPECT_EQ(int(r.outputs[1].at(0)), total);
    // Block 0: 64 live threads, all in range; block 1: 36 of 64 in range.
    EXPECT_EQ(r.outputs[0].at(0), first_block + 1000.0 + (first_block ? 10000.0 : 0.0));
    EXPECT_EQ(r.outputs[0].at(64), second_block + 0.0 + (second_block ? 10000.0 : 0.0));
}

TEST(Emulator, WarpShufflesBallotsAndReductions) {
    REQUIRE_HOST_COMPILER();
    // Three warps: a shuffle-down sum (the usual warp reduction) broadcast
    // from lane 0, a shuffle up, an xor-butterfly maximum, a ballot and a
    // warp reduction; each thread writes five results. A block of 100 threads
    // then shows __activemask() of the partial last warp.
    auto t = task_with(R"(
        __global__ void k(const float* x, float* y, int n) {
            int i = threadIdx.x;
            float v = x[i];
            float s = v;
            for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
            float m = v;
            for (int d = 16; d > 0; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
            unsigned positive = __ballot_sync(0xffffffffu, v > 0.0f);
            int count = __reduce_add_sync(0xffffffffu, v > 0.0f ? 1 : 0);
            __syncwarp();
            y[5 * i + 0] = __shfl_sync(0xffffffffu, s, 0);
            y[5 * i + 1] = __shfl_up_sync(0xffffffffu, v, 1);
            y[5 * i + 2] = m;
            y[5 * i + 3] = (float)positive;
            y[5 * i + 4] = (float)count;
        }
        __global__ void active(const float* x, float* y, int n) {
            if (threadIdx.x >= 96) y[threadIdx.x - 96] = (float)__activemask();
        })",
                       Json::parse(R"J([{"kernel": "k", "grid": 1, "block": 96, "args": ["x", "y", "n"]},
                                        {"kernel": "active", "grid": 1, "block": 100, "args": ["x", "y", "n"]}])J"),
                       Json::array(), 480);
    EmulatedRun r = run(t);
    auto x = [&](int i) { return r.inputs[0].at(uint64_t(i)); };
    auto y = [&](int i, int k) { return r.outputs[0].at(uint64_t(5 * i + k)); };
    for (int w = 0; w < 3; ++w) {
        float sum = 0;  // the shuffle tree's own order, in f32
        std::vector<float> s(32);
        for (int l = 0; l < 32; ++l) s[size_t(l)] = float(x(32 * w + l));
        for (int d = 16; d > 0; d >>= 1)
            for (int l = 0; l < 32; ++l) s[size_t(l)] += l + d < 32 ? s[size_t(l + d)] : s[size_t(l)];
        sum = s[0];
        double mx = -1e30;
        unsigned bits = 0;
        for (int l = 0; l < 32; ++l) {
            mx = std::max(mx, x(32 * w + l));
            if (x(32 * w + l) > 0) bits |= 1u << l;
        }
        for (int l = 0; l < 32; ++l) {
            const int i = 32 * w + l;
            if (i < 4) continue;  // overwritten by the second kernel
            EXPECT_EQ(y(i, 0), double(sum)) << i;
            EXPECT_EQ(y(i, 1), l == 0 ? x(i) : x(i - 1)) << i;
            EXPECT_EQ(y(i, 2), mx) << i;
            EXPECT_EQ(y(i, 3), double(float(bits))) << i;
            EXPECT_EQ(y(i, 4), double(__builtin_popcount(bits))) << i;
        }
    }
    for (int k = 0; k < 4; ++k) EXPECT_EQ(r.outputs[0].at(uint64_t(k)), 15.0);  // lanes 0..3 of the last warp
}

TEST(Emulator, HalfAndBfloatConvertLikeKbench) {
    REQUIRE_HOST_COMPILER();
    auto t = task_with(R"(
        #include <cuda_fp16.h>
        #include <cuda_bf16.h>
        __global__ void narrow(const float* x, float* y, int n, __half* h, __nv_bfloat16* b) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) {
                h[i] = __float2half_rn(x[i] * 1000.0f);
                b[i] = __float2bfloat16_rn(x[i] * 1000.0f);
                y[i] = __half2float(h[i]) + __bfloat162float(b[i]);
            }
        })",
                       Json::parse(R"J([{"kernel": "narrow", "grid": "ceil_div(n, 256)", "block": 256,
                                        "args": ["x", "y", "n", "h", "b"]}])J"),
                       Json::parse(R"J([{"name": "h", "role": "out", "dtype": "f16", "shape": ["n"], "tolerance": {}},
                                       {"name": "b", "role": "out", "dtype": "bf16", "shape": ["n"], "tolerance": {}}])J"),
                       1000);
    EmulatedRun r = run(t);
    for (uint64_t i = 0; i < 1000; ++i) {
        float v = float(r.inputs[0].at(i)) * 1000.0f;
        ASSERT_EQ(r.outputs[1].at(i), kb::half_bits_to_float(kb::float_to_half_bits(v))) << i;
        ASSERT_EQ(r.outputs[2].at(i), kb::bf16_bits_to_float(kb::float_to_bf16_bits(v))) << i;
    }
}

TEST(Emulator, InputsAreKbenchsDrawsIncludingBoundsFromDims) {
    REQUIRE_HOST_COMPILER();
    auto t = task_with(R"(
        __global__ void k(const float* x, float* y, int n, const long long* idx) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) y[i] = x[idx[i]];
        })",
                       Json::parse(R"J([{"kernel": "k", "grid": "ceil_div(n, 256)", "block": 256, "args": ["x", "y", "n", "idx"]}])J"),
                       Json::parse(R"J([{"name": "idx", "role": "in", "dtype": "i64", "shape": ["n"],
                                        "init": {"dist": "randint", "low": 0, "high": "n - 1"}}])J"),
                       777);
    EmulatedRun r = run(t, 99);
    ASSERT_EQ(r.inputs.size(), 2u);
    for (uint64_t i = 0; i < 777; ++i) {
        uint64_t xb = kb::kb_input_bits(kb::KB_F32, kb::KB_DIST_UNIFORM, -1, 1, 99, 0, i);
        ASSERT_EQ(r.inputs[0].at(i), double(kb::kb_bits_float(uint32_t(xb))));
        int64_t idx = int64_t(kb::kb_input_bits(kb::KB_I64, kb::KB_DIST_RANDINT, 0, 776, 99, 3, i));
        ASSERT_EQ(r.inputs[1].at(i), double(idx));
        ASSERT_EQ(r.outputs[0].at(i), r.inputs[0].at(uint64_t(idx)));
    }
    // Another seed, other inputs.
    EXPECT_NE(run(t, 100).inputs[0].bytes, r.inputs[0].bytes);
}

TEST(Emulator, BrokenReferencesAreReported) {
    REQUIRE_HOST_COMPILER();
    const Json plan = Json::parse(R"J([{"kernel": "k", "grid": "ceil_div(n, 256)", "block": 256, "args": ["x", "y", "n"]}])J");
    kb_status st = KB_OK;
    // A crash past the end of a buffer names the step, kernel and block. y[n]
    // is the first byte of the guard page after y (300 floats end on a 16-byte
    // boundary, and the data ends where its pages do), so every write faults.
    // A write further out (y[i + 5000] was used) lands wherever the next
    // mapping happens to be: under ASan on CI it hit mapped memory and did not
    // fault.
    std::string e = error_of([&] {
        run(task_with("__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * 256 + threadIdx.x; "
                      "if (i < n) y[i + n] = x[i]; }",
                      plan));
    }, &st);
    EXPECT_EQ(st, KB_ERR_REFERENCE_FAILED);
    EXPECT_NE(e.find("crashed with SIGSEGV"), std::string::npos) << e;
    EXPECT_NE(e.find("kernel 'k'"), std::string::npos) << e;
    // A write just past the end: caught by the canary.
    EmulatedRun r = run(task_with("__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * 256 + "
                                  "threadIdx.x; if (i <= n) y[i] = 1.0f; }",
                                  plan, Json::array(), 299));
    EXPECT_EQ(r.written_out_of_bounds, std::vector<std::string>{"y"});
    // An input written to.
    r = run(task_with("__global__ void k(float* x, float* y, int n) { int i = blockIdx.x * 256 + threadIdx.x; "
                      "if (i < n) { y[i] = x[i]; x[i] = 0.0f; } }",
                      plan));
    EXPECT_EQ(r.inputs_modified, std::vector<std::string>{"x"});
    // A parameter of the wrong size.
    e = error_of([&] {
        run(task_with("__global__ void k(const float* x, float* y, long long n) { }", plan));
    });
    EXPECT_NE(e.find("parameter 2 of the kernel is 8 bytes but the plan passes 4 bytes"), std::string::npos) << e;
    // A spin-wait on another block never ends: a timeout, with the reason.
    e = error_of([&] {
        run(task_with("__global__ void k(const float* x, float* y, int n) { volatile float* v = y; "
                      "if (blockIdx.x == 0) { while (v[0] != 1.0f) {} } else if (threadIdx.x == 0) v[0] = 1.0f; }",
                      plan),
            7, 1.0);
    });
    EXPECT_NE(e.find("did not finish within 1 s"), std::string::npos) << e;
    EXPECT_NE(e.find("another block"), std::string::npos) << e;
}

TEST(Emulator, UnsupportedCodeIsACompileErrorSayingWhy) {
    REQUIRE_HOST_COMPILER();
    const Json plan = Json::parse(R"J([{"kernel": "k", "grid": 1, "block": 32, "args": ["x", "y", "n"]}])J");
    kb_status st = KB_OK;
    std::string e = error_of([&] {
        run(task_with("__global__ void k(const float* x, float* y, int n) { float v; "
                      "asm(\"mov.f32 %0, 1.0;\" : \"=f\"(v)); y[0] = v; }",
                      plan));
    }, &st);
    EXPECT_EQ(st, KB_ERR_COMPILE);
    EXPECT_NE(e.find("inline assembly"), std::string::npos) << e;
    // "asm(" in a comment or a string is not code.
    EXPECT_EQ(error_of([&] {
                  run(task_with("// asm(\"nop\")\n__global__ void k(const float* x, float* y, int n) { "
                                "const char* s = \"asm(\"; int i = threadIdx.x; if (i < n) y[i] = x[i] + (s[0] != 'a'); }",
                                plan, Json::array(), 32));
              }),
              "");
    e = error_of([&] {
        run(task_with("__global__ void k(const float* x, float* y, int n) { y[0] = __shfl_xor(x[0], 1); }", plan));
    }, &st);
    EXPECT_EQ(st, KB_ERR_COMPILE);
    EXPECT_NE(e.find("__shfl_xor has no mask"), std::string::npos) << e;
    EXPECT_NE(e.find("use the _sync variants"), std::string::npos) << e;
    e = error_of([&] { run(task_with("__global__ void other(const float* x, float* y, int n) {}", plan)); }, &st);
    EXPECT_EQ(st, KB_ERR_COMPILE);
    EXPECT_NE(e.find("the launch plan names kernel(s) k"), std::string::npos) << e;
}

TEST(Emulator, PreparedSourceRewritesDynamicSharedMemory) {
    kb::Program p;
    p.source_name = "r.cu";
    p.source = "__global__ void k(float* y) {\n  extern __shared__ __align__(16) float4 buf[];\n"
               "  extern __shared__ unsigned char raw[];\n}\n";
    kb::LaunchStep s;
    s.kernel = "k";
    p.launch.push_back(s);
    std::string out = prepare_source(p);
    EXPECT_NE(out.find("float4* buf = reinterpret_cast<float4*>(::kbemu::dynamic_shared());"), std::string::npos) << out;
    EXPECT_NE(out.find("unsigned char* raw = reinterpret_cast<unsigned char*>(::kbemu::dynamic_shared());"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("#line 1 \"r.cu\""), std::string::npos);
    EXPECT_NE(out.find("kbemu_kernel_0"), std::string::npos);
    p.language = kb::Language::ptx;
    EXPECT_NE(error_of([&] { prepare_source(p); }).find("runs CUDA C++ programs, not ptx"), std::string::npos);
}

}  // namespace
