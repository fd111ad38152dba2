// The kbench-task/1 loader and validator (src/task/task_loader.cpp and
// friends): the canonical task loads as documented, every documented error is
// reported with its status, JSON path and fix, and the normalised document
// round-trips.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "task/task.h"
#include "util/error.h"
#include "support/task_paths.h"
#include "util/sha256.h"

namespace {

using kb::Json;

const std::string kVectorAdd = std::string(KB_SOURCE_DIR) + "/tasks/elementwise/vector_add_f32/task.json";

// A small valid task that each error test breaks in one place.
Json base_task() {
    return Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "t",
      "dims": {"n": "elements"},
      "cases": [{"name": "one", "dims": {"n": 1}}, {"name": "prime", "dims": {"n": 1009}}],
      "perf_case": {"dims": {"n": 4096}},
      "args": [
        {"name": "a", "role": "in", "dtype": "f32", "shape": ["n"]},
        {"name": "c", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 1e-6, "rtol": 1e-6}},
        {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}
      ],
      "reference": {
        "source": "__global__ void ref(const float* a, float* c, int n) {}",
        "launch": [{"kernel": "ref", "grid": "ceil_div(n, 256)", "block": 256, "args": ["a", "c", "n"]}]
      }
    })J");
}

// Loads and reports failure as an AssertionResult, so EXPECT_TRUE shows the
// message that did (or did not) come back.
testing::AssertionResult RejectsText(const std::string& text, const std::vector<std::string>& parts,
                                     kb_status status = KB_ERR_TASK_INVALID, const std::string& base_dir = "") {
    try {
        kb::load_task_json(text, base_dir);
    } catch (const kb::Error& e) {
        std::string msg = e.what();
        if (e.status() != status)
            return testing::AssertionFailure() << "status " << e.status() << " instead of " << status << ": " << msg;
        for (const auto& p : parts)
            if (msg.find(p) == std::string::npos)
                return testing::AssertionFailure() << "message lacks \"" << p << "\": " << msg;
        // Every message says what is wrong and what is expected.
        if (msg.find("; ") == std::string::npos)
            return testing::AssertionFailure() << "message has no '; <expected>' part: " << msg;
        return testing::AssertionSuccess() << msg;
    }
    return testing::AssertionFailure() << "the task loaded";
}

testing::AssertionResult Rejects(const Json& doc, const std::vector<std::string>& parts,
                                 kb_status status = KB_ERR_TASK_INVALID, const std::string& base_dir = "") {
    return RejectsText(doc.dump(), parts, status, base_dir);
}

kb::TaskPtr load(const Json& doc, const std::string& base_dir = "") { return kb::load_task_json(doc.dump(), base_dir); }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const kb::Error& e) {
        return e.what();
    }
    return "";
}

// A scratch folder for tests that need files next to a task.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "kbench_loader_XXXXXX").string();
        path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
    }
    ~TempDir() {
        std::error_code ec;
        if (!path_.empty()) std::filesystem::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }
    std::string write(const std::string& name, const std::string& bytes) const {
        std::string p = path_ + "/" + name;
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }

private:
    std::string path_;
};

// ------------------------------------------------------------------------
// Happy paths
// ------------------------------------------------------------------------

TEST(TaskLoader, VectorAddLoadsAsDocumented) {
    kb::TaskPtr t = kb::load_task(kVectorAdd);
    EXPECT_EQ(t->name, "vector_add_f32");
    EXPECT_NE(t->description.find("Elementwise sum"), std::string::npos);
    EXPECT_EQ(t->dims, std::vector<std::string>{"n"});
    EXPECT_EQ(t->base_dir, std::string(KB_SOURCE_DIR) + "/tasks/elementwise/vector_add_f32");

    ASSERT_EQ(t->cases.size(), 4u);
    EXPECT_EQ(t->cases[0].name, "one");
    EXPECT_EQ(t->cases[0].dims.at("n"), 1);
    EXPECT_EQ(t->cases[1].name, "prime");
    EXPECT_EQ(t->cases[2].dims.at("n"), 100003);
    for (int i = 0; i < 3; ++i) EXPECT_FALSE(t->cases[size_t(i)].perf);
    EXPECT_EQ(t->perf_index, 3);
    EXPECT_TRUE(t->cases[3].perf);
    EXPECT_EQ(t->cases[3].name, "perf");
    EXPECT_EQ(t->cases[3].dims.at("n"), 16777216);

    ASSERT_EQ(t->args.size(), 4u);
    const kb::Arg& a = t->args[0];
    EXPECT_EQ(a.name, "a");
    EXPECT_EQ(a.role, kb::Role::in);
    EXPECT_EQ(a.dtype, kb::DType::f32);
    ASSERT_EQ(a.shape.size(), 1u);
    EXPECT_EQ(a.shape[0].text(), "n");
    EXPECT_EQ(a.init.dist, kb::InitSpec::Dist::uniform);
    EXPECT_EQ(a.init.a, -1.0);
    EXPECT_EQ(a.init.b, 1.0);
    EXPECT_FALSE(a.tolerance.has_value());
    EXPECT_EQ(t->args[1].init.dist, kb::InitSpec::Dist::normal);
    EXPECT_EQ(t->args[1].init.a, 0.0);
    EXPECT_EQ(t->args[1].init.b, 1.0);
    const kb::Arg& c = t->args[2];
    EXPECT_EQ(c.role, kb::Role::out);
    ASSERT_TRUE(c.tolerance.has_value());
    EXPECT_EQ(c.tolerance->atol, 1e-6);
    EXPECT_EQ(c.tolerance->rtol, 1e-6);
    EXPECT_TRUE(c.tolerance->equal_nan);
    const kb::Arg& n = t->args[3];
    EXPECT_EQ(n.role, kb::Role::scalar);
    EXPECT_EQ(n.dtype, kb::DType::i32);
    EXPECT_FALSE(n.scalar_is_float);
    EXPECT_EQ(n.scalar_expr.eval(t->cases[1].dims), 1009);
    EXPECT_FALSE(n.is_buffer());

    EXPECT_EQ(t->find_arg("c"), &t->args[2]);
    EXPECT_EQ(t->find_arg("zz"), nullptr);
    EXPECT_EQ(t->arg_index("n"), 3);
    EXPECT_EQ(t->arg_index("zz"), -1);

    const kb::Program& ref = t->reference;
    EXPECT_EQ(ref.language, kb::Language::cuda);
    EXPECT_NE(ref.source.find("vector_add_ref"), std::string::npos);
    EXPECT_EQ(ref.source_name, "reference.cu");
    ASSERT_EQ(ref.launch.size(), 1u);
    const kb::LaunchStep& s = ref.launch[0];
    EXPECT_EQ(s.kind, kb::LaunchStep::Kind::kernel);
    EXPECT_EQ(s.kernel, "vector_add_ref");
    EXPECT_EQ(s.grid[0].eval({{"n", 1000}}), 4);
    EXPECT_EQ(s.grid[1].eval({}), 1);
    EXPECT_EQ(s.grid[2].eval({}), 1);
    EXPECT_EQ(s.block[0].eval({}), 256);
    EXPECT_EQ(s.shared_mem_bytes.eval({}), 0);
    ASSERT_EQ(s.args.size(), 4u);
    EXPECT_EQ(s.args[0].kind, kb::LaunchArg::Kind::named);
    EXPECT_EQ(s.args[3].name, "n");
    EXPECT_EQ(s.json_path, "reference.launch[0]");
    EXPECT_EQ(ref.kernel_names(), std::vector<std::string>{"vector_add_ref"});
    EXPECT_TRUE(ref.scratch.empty());
    EXPECT_FALSE(t->baseline.has_value());
    EXPECT_EQ(&t->baseline_or_reference(), &t->reference);

    ASSERT_TRUE(t->candidate_default.has_value());
    EXPECT_EQ(t->candidate_default->kernel_names(), std::vector<std::string>{"vector_add"});
    EXPECT_TRUE(t->candidate_default->source.empty());

    ASSERT_TRUE(t->flops && t->bytes);
    EXPECT_EQ(t->flops->eval({{"n", 10}}), 10);
    EXPECT_EQ(t->bytes->eval({{"n", 10}}), 120);
    EXPECT_EQ(t->policy.std, "c++17");
    EXPECT_FALSE(t->policy.fast_math);
    EXPECT_FALSE(t->policy.deterministic);
    EXPECT_EQ(t->policy.max_registers, 0);

    EXPECT_EQ(t->hash, kb::sha256_hex(t->normalized_json));
    EXPECT_EQ(t->hash.size(), 64u);
}

TEST(TaskLoader, EveryShippedTaskLoadsAndRoundTrips) {
    // Found recursively: tasks/<family>/<task>/task.json.
    const std::vector<std::string> dirs = kb::test::builtin_task_dirs();
    for (const std::string& dir : dirs) {
        const std::string path = dir + "/task.json";
        SCOPED_TRACE(path);
        kb::TaskPtr t;
        ASSERT_NO_THROW(t = kb::load_task(path));
        // The folder is named after the task (tests and docs find it by name).
        EXPECT_EQ(dir.substr(dir.rfind('/') + 1), t->name);
        kb::TaskPtr again = kb::load_task_json(t->normalized_json, "");
        EXPECT_EQ(again->normalized_json, t->normalized_json);
        // What every built-in task gives its users (docs/tasks.md): prompts
        // for both languages, the Triton argument order, a default CUDA plan,
        // cost formulas, and at least three correctness cases besides the
        // perf case.
        EXPECT_FALSE(t->prompt_cuda.empty());
        EXPECT_FALSE(t->prompt_triton.empty());
        EXPECT_FALSE(t->triton_args.empty());
        EXPECT_FALSE(t->candidate_signature.empty());
        EXPECT_TRUE(t->candidate_default.has_value());
        EXPECT_TRUE(t->flops.has_value() && t->bytes.has_value());
        EXPECT_GE(t->cases.size(), 4u);
    }
    EXPECT_GE(dirs.size(), 6u);
}

TEST(TaskLoader, JsonTextAndPathsAreBothAccepted) {
    kb::TaskPtr t = kb::load_task("  \n\t" + base_task().dump());
    EXPECT_EQ(t->name, "t");
    EXPECT_EQ(t->base_dir, "");
    // The perf case is named "perf" when the task does not name it.
    EXPECT_EQ(t->cases.back().name, "perf");
    EXPECT_EQ(t->perf_index, 2);
    // No "candidate" section: no default plan.
    EXPECT_FALSE(t->candidate_default.has_value());
    EXPECT_FALSE(t->flops.has_value());
}

TEST(TaskLoader, NormalizedJsonRoundTrips) {
    kb::TaskPtr t = kb::load_task(kVectorAdd);
    Json doc = Json::parse(t->normalized_json);
    // Self-contained: the source is inline, no file reference remains.
    EXPECT_FALSE(doc["reference"].contains("source_file"));
    EXPECT_NE(doc["reference"]["source"].get<std::string>().find("vector_add_ref"), std::string::npos);
    // Defaults are explicit.
    EXPECT_EQ(doc["reference"]["language"], "cuda");
    EXPECT_EQ(doc["reference"]["launch"][0]["block"], Json::parse("[256, 1, 1]"));
    EXPECT_EQ(doc["reference"]["launch"][0]["shared_mem"], 0);
    EXPECT_EQ(doc["policy"]["deterministic"], false);
    EXPECT_EQ(doc["args"][2]["tolerance"]["equal_nan"], true);

    // Loading the normalised document from anywhere gives the same task.
    kb::TaskPtr u = kb::load_task_json(t->normalized_json, "");
    EXPECT_EQ(u->normalized_json, t->normalized_json);
    EXPECT_EQ(u->hash, t->hash);
    EXPECT_EQ(u->reference.source, t->reference.source);
    EXPECT_EQ(u->reference.source_name, t->reference.source_name);
    EXPECT_EQ(u->cases.size(), t->cases.size());
    EXPECT_EQ(u->perf_index, t->perf_index);
    EXPECT_EQ(u->args[1].init.dist, t->args[1].init.dist);
    EXPECT_EQ(u->candidate_default->launch[0].grid[0].text(), "ceil_div(n, 256)");
    // Field order and comments do not change the hash; content does.
    Json reordered = Json::parse(t->normalized_json);
    reordered["_comment"] = "a comment";
    reordered.erase("tolerance");
    EXPECT_EQ(load(reordered)->hash, t->hash);
    reordered["name"] = "other";
    EXPECT_NE(load(reordered)->hash, t->hash);
}

TEST(TaskLoader, RichTaskRoundTrips) {
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    // A binary image with NULs and bytes that are not UTF-8, and a text
    // source that is not UTF-8 (a Latin-1 comment): both must survive.
    std::string cubin(
        "\x7f"
        "ELF\0\x01\xff\xfe\x80",
        9);
    dir.write("k.cubin", cubin);
    dir.write("meta.json", R"J({"name": "k", "num_warps": 4, "shared": 0})J");
    std::string latin1 = "// caf\xe9\n__global__ void base(float* c, int n) {}\n";
    dir.write("base.cu", latin1);
    Json doc = base_task();
    doc["description"] = "rich";
    doc["dims"]["m"] = "rows";
    for (auto& c : doc["cases"]) c["dims"]["m"] = 3;
    doc["perf_case"] = Json::parse(R"J({"name": "big", "dims": {"n": 4096, "m": 64}})J");
    doc["tolerance"] = Json::parse(R"J({"f16": {"atol": 1e-3, "rtol": 1e-2, "equal_nan": false}})J");
    doc["args"] = Json::parse(R"J([
      {"name": "x", "role": "in", "dtype": "f16", "shape": ["m", "n"], "init": {"dist": "uniform", "low": -5, "high": 5}},
      {"name": "idx", "role": "in", "dtype": "i32", "shape": ["n"], "init": {"dist": "randint", "low": 0, "high": "7"}},
      {"name": "mask", "role": "in", "dtype": "bool", "shape": ["n"]},
      {"name": "y", "role": "inout", "dtype": "f16", "shape": ["m", "n"]},
      {"name": "hist", "role": "out", "dtype": "i64", "shape": [8]},
      {"name": "alpha", "role": "scalar", "dtype": "f32", "value": 0.5},
      {"name": "n", "role": "scalar", "dtype": "i64", "value": "n * m"},
      {"name": "flag", "role": "scalar", "dtype": "bool", "value": true}
    ])J");
    doc["args"][1]["init"]["high"] = 7;
    doc["reference"] = Json::parse(R"J({
      "source": "__global__ void partial(...) {}\n__global__ void finish(...) {}",
      "source_name": "ref_kernels.cu",
      "scratch": [{"name": "partials", "dtype": "f32", "shape": ["ceil_div(n, 256)", "m"], "zero": true}],
      "launch": [
        {"zero": "hist"},
        {"kernel": "partial", "grid": ["ceil_div(n, 256)", "m"], "block": [256], "shared_mem": "256 * 4",
         "args": ["x", "partials", "n", {"value": "n - 1", "dtype": "i64"}, {"value": 2.5, "dtype": "f32"}]},
        {"kernel": "finish<float, 256>", "grid": 1, "block": [32, 8, 1],
         "args": ["partials", "y", "hist", "idx", "mask", "alpha", "flag", {"value": true, "dtype": "bool"}]}
      ]
    })J");
    doc["baseline"] = Json::parse(R"J({"source_file": "base.cu",
      "launch": [{"kernel": "base", "grid": 1, "block": 1, "args": ["y", "n"]}]})J");
    doc["candidate"] =
        Json::parse(R"J({"launch": [{"kernel": "k", "grid": 1, "block": 128, "args": ["x", "y", "hist"]}],
      "scratch": [{"name": "tmp", "dtype": "u8", "shape": []}]})J");
    doc["cost"] = Json::parse(R"J({"bytes": "2 * n * m"})J");
    doc["policy"] = Json::parse(R"J({"std": "c++20", "fast_math": true, "deterministic": true,
                                    "defines": ["TILE=32", "USE_FAST"], "max_registers": 64})J");
    kb::TaskPtr t = load(doc, dir.path());

    // Defaults and parsed values.
    EXPECT_EQ(t->cases.back().name, "big");
    EXPECT_EQ(t->args[1].init.dist, kb::InitSpec::Dist::randint);
    EXPECT_EQ(t->args[1].init.b, 7.0);
    EXPECT_EQ(t->args[2].init.dist, kb::InitSpec::Dist::bernoulli);  // bool default
    EXPECT_EQ(t->args[2].init.a, 0.5);
    EXPECT_EQ(t->args[3].init.dist, kb::InitSpec::Dist::uniform);  // f16 default
    ASSERT_TRUE(t->args[3].tolerance.has_value());                 // from the task default
    EXPECT_EQ(t->args[3].tolerance->rtol, 1e-2);
    EXPECT_FALSE(t->args[3].tolerance->equal_nan);
    EXPECT_FALSE(t->args[4].tolerance.has_value());  // integers compare exactly
    EXPECT_TRUE(t->args[5].scalar_is_float);
    EXPECT_EQ(t->args[5].scalar_float, 0.5);
    EXPECT_EQ(t->args[6].scalar_expr.eval({{"n", 10}, {"m", 3}}), 30);
    EXPECT_EQ(t->args[7].scalar_expr.eval({}), 1);
    const kb::Program& ref = t->reference;
    EXPECT_EQ(ref.source_name, "ref_kernels.cu");
    ASSERT_EQ(ref.scratch.size(), 1u);
    EXPECT_TRUE(ref.scratch[0].zero);
    ASSERT_EQ(ref.launch.size(), 3u);
    EXPECT_EQ(ref.launch[0].kind, kb::LaunchStep::Kind::zero);
    EXPECT_EQ(ref.launch[0].target, "hist");
    EXPECT_EQ(ref.launch[1].grid[1].text(), "m");
    EXPECT_EQ(ref.launch[1].grid[2].eval({}), 1);
    EXPECT_EQ(ref.launch[1].shared_mem_bytes.eval({}), 1024);
    EXPECT_EQ(ref.launch[1].args[3].kind, kb::LaunchArg::Kind::scalar);
    EXPECT_EQ(ref.launch[1].args[3].dtype, kb::DType::i64);
    EXPECT_TRUE(ref.launch[1].args[4].is_float);
    EXPECT_EQ(ref.launch[1].args[4].float_value, 2.5);
    EXPECT_EQ(ref.launch[2].block[1].eval({}), 8);
    EXPECT_EQ(ref.kernel_names(), (std::vector<std::string>{"partial", "finish<float, 256>"}));
    ASSERT_TRUE(t->baseline.has_value());
    EXPECT_EQ(t->baseline->source, latin1);
    EXPECT_EQ(t->baseline->source_name, "base.cu");
    EXPECT_EQ(&t->baseline_or_reference(), &*t->baseline);
    EXPECT_EQ(t->candidate_default->scratch[0].name, "tmp");
    EXPECT_FALSE(t->flops.has_value());
    EXPECT_EQ(t->policy.std, "c++20");
    EXPECT_EQ(t->policy.defines, (std::vector<std::string>{"TILE=32", "USE_FAST"}));
    EXPECT_EQ(t->policy.max_registers, 64);

    // The non-UTF-8 text travels as base64 and comes back byte for byte.
    Json norm = Json::parse(t->normalized_json);
    EXPECT_TRUE(norm["baseline"].contains("source_base64"));
    EXPECT_FALSE(norm["baseline"].contains("source"));
    kb::TaskPtr u = kb::load_task_json(t->normalized_json, "");
    EXPECT_EQ(u->normalized_json, t->normalized_json);
    EXPECT_EQ(u->hash, t->hash);
    EXPECT_EQ(u->baseline->source, latin1);
    EXPECT_EQ(u->reference.launch[2].kernel, "finish<float, 256>");

    // A precompiled Triton reference: binary code and metadata, both read from files.
    Json tri = base_task();
    tri["reference"]["language"] = "triton_binary";
    tri["reference"].erase("source");
    tri["reference"]["source_file"] = "k.cubin";
    tri["reference"]["metadata_file"] = "meta.json";
    kb::TaskPtr tt = load(tri, dir.path());
    EXPECT_EQ(tt->reference.language, kb::Language::triton_binary);
    EXPECT_EQ(tt->reference.source, cubin);
    EXPECT_EQ(Json::parse(tt->reference.triton_metadata)["num_warps"], 4);
    Json tnorm = Json::parse(tt->normalized_json);
    EXPECT_TRUE(tnorm["reference"].contains("source_base64"));
    EXPECT_EQ(tnorm["reference"]["metadata"]["name"], "k");
    kb::TaskPtr tu = kb::load_task_json(tt->normalized_json, "");
    EXPECT_EQ(tu->reference.source, cubin);
    EXPECT_EQ(tu->normalized_json, tt->normalized_json);
}

TEST(TaskLoader, DefaultInitsFollowTheDtype) {
    Json doc = base_task();
    doc["args"].insert(doc["args"].begin(),
                       Json::parse(R"J({"name": "i", "role": "in", "dtype": "i8", "shape": [4]})J"));
    doc["args"].insert(doc["args"].begin(),
                       Json::parse(R"J({"name": "u", "role": "in", "dtype": "u16", "shape": []})J"));
    doc["args"].insert(doc["args"].begin(),
                       Json::parse(R"J({"name": "h", "role": "inout", "dtype": "bf16", "shape": ["n"],
                                                             "tolerance": {"atol": 0.01}})J"));
    doc["reference"]["launch"][0]["args"].push_back("h");
    kb::TaskPtr t = load(doc);
    EXPECT_EQ(t->args[0].init.dist, kb::InitSpec::Dist::uniform);
    EXPECT_EQ(t->args[0].init.a, -1.0);
    EXPECT_EQ(t->args[0].init.b, 1.0);
    EXPECT_EQ(t->args[0].tolerance->rtol, 0.0);  // unspecified: 0
    EXPECT_EQ(t->args[1].init.dist, kb::InitSpec::Dist::randint);
    EXPECT_EQ(t->args[1].init.a, 0.0);  // unsigned: 0..100
    EXPECT_EQ(t->args[1].init.b, 100.0);
    EXPECT_TRUE(t->args[1].shape.empty());
    EXPECT_EQ(kb::element_count(t->args[1].shape, {}, "x"), 1);
    EXPECT_EQ(t->args[2].init.dist, kb::InitSpec::Dist::randint);
    EXPECT_EQ(t->args[2].init.a, -100.0);  // signed: -100..100
    EXPECT_EQ(t->args[2].init.b, 100.0);
}

TEST(TaskLoader, EveryDistributionIsRead) {
    struct Case {
        const char* dtype;
        const char* init;
        kb::InitSpec::Dist dist;
        double a, b;
    };
    const Case cases[] = {
        {"f32", R"J({"dist": "uniform", "low": 2, "high": 3.5})J", kb::InitSpec::Dist::uniform, 2, 3.5},
        {"f64", R"J({"dist": "normal", "mean": 100, "std": 2})J", kb::InitSpec::Dist::normal, 100, 2},
        {"f32", R"J({"dist": "normal"})J", kb::InitSpec::Dist::normal, 0, 1},
        {"u8", R"J({"dist": "randint", "low": 0, "high": 255})J", kb::InitSpec::Dist::randint, 0, 255},
        {"bool", R"J({"dist": "bernoulli", "p": 0.25})J", kb::InitSpec::Dist::bernoulli, 0.25, 0},
        {"f16", R"J({"dist": "constant", "value": -3.5})J", kb::InitSpec::Dist::constant, -3.5, 0},
        {"bool", R"J({"dist": "constant", "value": true})J", kb::InitSpec::Dist::constant, 1, 0},
        {"i32", R"J({"dist": "arange", "start": 5, "step": -2})J", kb::InitSpec::Dist::arange, 5, -2},
        {"f32", R"J({"dist": "arange"})J", kb::InitSpec::Dist::arange, 0, 1},
        {"i16", R"J({"dist": "uniform", "low": -10, "high": 10})J", kb::InitSpec::Dist::uniform, -10, 10},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(std::string(c.dtype) + " " + c.init);
        Json doc = base_task();
        doc["args"][0]["dtype"] = c.dtype;
        doc["args"][0]["init"] = Json::parse(c.init);
        kb::TaskPtr t = load(doc);
        EXPECT_EQ(t->args[0].init.dist, c.dist);
        EXPECT_EQ(t->args[0].init.a, c.a);
        EXPECT_EQ(t->args[0].init.b, c.b);
        EXPECT_EQ(kb::load_task_json(t->normalized_json, "")->normalized_json, t->normalized_json);
    }
}

TEST(TaskLoader, CommentsAreAllowedEverywhere) {
    Json doc = base_task();
    doc["_comment"] = "top";
    doc["comment"] = "top";
    doc["comments"] = Json::array({"many"});
    doc["dims"]["_why"] = "not a dim";
    doc["cases"][0]["dims"]["_note"] = 1;
    doc["args"][0]["comment"] = "input";
    doc["args"][1]["tolerance"]["_derivation"] = "two ulps";
    doc["reference"]["launch"][0]["_note"] = "one thread per element";
    kb::TaskPtr t = load(doc);
    EXPECT_EQ(t->dims, std::vector<std::string>{"n"});
    EXPECT_EQ(t->normalized_json.find("_comment"), std::string::npos);
    // A repeated comment key is not a duplicate.
    EXPECT_NO_THROW(kb::load_task_json(R"J({"_c": 1, "_c": 2, )J" + base_task().dump().substr(1), ""));
}

TEST(TaskLoader, PlansMayUseEveryFeature) {
    Json doc = base_task();
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "s", "dtype": "f64", "shape": ["n", 2]}])J");
    doc["reference"]["launch"] = Json::parse(R"J([
      {"zero": "c"}, {"zero": "s"},
      {"kernel": "k", "grid": [1, 2, 3], "block": [4, 5, 6], "shared_mem": 48, "args": []},
      {"kernel": "k2", "grid": "min(ceil_div(n, 128), 65535)", "block": "max(32, min(n, 1024))", "args": ["c", "s"]}
    ])J");
    kb::TaskPtr t = load(doc);
    EXPECT_EQ(t->reference.launch[1].target, "s");
    EXPECT_FALSE(t->reference.scratch[0].zero);
    EXPECT_EQ(t->reference.launch[2].block[2].eval({}), 6);
    EXPECT_EQ(t->reference.kernel_names(), (std::vector<std::string>{"k", "k2"}));
}

TEST(TaskLoader, NamesOfEnums) {
    EXPECT_STREQ(kb::role_name(kb::Role::in), "in");
    EXPECT_STREQ(kb::role_name(kb::Role::out), "out");
    EXPECT_STREQ(kb::role_name(kb::Role::inout), "inout");
    EXPECT_STREQ(kb::role_name(kb::Role::scalar), "scalar");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::uniform), "uniform");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::normal), "normal");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::randint), "randint");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::bernoulli), "bernoulli");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::constant), "constant");
    EXPECT_STREQ(kb::dist_name(kb::InitSpec::Dist::arange), "arange");
    EXPECT_STREQ(kb::language_name(kb::Language::cuda), "cuda");
    EXPECT_STREQ(kb::language_name(kb::Language::ptx), "ptx");
    EXPECT_STREQ(kb::language_name(kb::Language::cubin), "cubin");
    EXPECT_STREQ(kb::language_name(kb::Language::triton), "triton");
    EXPECT_STREQ(kb::language_name(kb::Language::triton_binary), "triton_binary");
}

TEST(TaskLoader, ElementCount) {
    std::vector<kb::Expr> shape = {kb::Expr::parse("n"), kb::Expr::constant(3)};
    EXPECT_EQ(kb::element_count(shape, {{"n", 5}}, "x"), 15);
    EXPECT_EQ(kb::element_count({}, {}, "x"), 1);
    EXPECT_EQ(kb::element_count({kb::Expr::parse("n - 5"), kb::Expr::constant(1)}, {{"n", 5}}, "x"), 0);
    // A zero extent makes the buffer empty even beside huge ones.
    EXPECT_EQ(
        kb::element_count({kb::Expr::parse("n"), kb::Expr::parse("n"), kb::Expr::parse("n"), kb::Expr::constant(0)},
                          {{"n", int64_t(1) << 40}}, "x"),
        0);
    EXPECT_EQ(kb::element_count({kb::Expr::parse("n"), kb::Expr::parse("n")}, {{"n", int64_t(1) << 31}}, "x"),
              int64_t(1) << 62);

    std::string neg = error_of([] { kb::element_count({kb::Expr::parse("n - 6")}, {{"n", 5}}, "args[0].shape"); });
    EXPECT_NE(neg.find("args[0].shape[0]"), std::string::npos) << neg;
    EXPECT_NE(neg.find("-1"), std::string::npos) << neg;
    std::string big = error_of([] {
        kb::element_count({kb::Expr::parse("n"), kb::Expr::parse("n"), kb::Expr::constant(2)},
                          {{"n", int64_t(1) << 31}}, "s");
    });
    EXPECT_NE(big.find("overflows"), std::string::npos) << big;
    std::string ovf = error_of([] { kb::element_count({kb::Expr::parse("n * n")}, {{"n", int64_t(1) << 40}}, "s"); });
    EXPECT_NE(ovf.find("overflow"), std::string::npos) << ovf;
    try {
        kb::element_count({kb::Expr::parse("-1")}, {}, "s");
        FAIL() << "no error";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
    }
}

// ------------------------------------------------------------------------
// Errors: the document
// ------------------------------------------------------------------------

TEST(TaskLoaderErrors, NotJsonOrNotAnObject) {
    EXPECT_TRUE(RejectsText("{\"format\": ", {"task:", "not valid JSON", "line 1, column 12"}));
    EXPECT_TRUE(RejectsText("{\n  \"format\": \"kbench-task/1\",\n  \"name\": oops\n}", {"line 3, column"}));
    EXPECT_TRUE(RejectsText("", {"not valid JSON"}));
    EXPECT_TRUE(RejectsText("[1, 2]", {"task: got an array", "JSON object"}));
    EXPECT_TRUE(RejectsText("\"text\"", {"task: got the string"}));
}

TEST(TaskLoaderErrors, DuplicateKeysAreReportedWithTheirPath) {
    std::string text = base_task().dump();
    // dims {"n": ..., "n": ...}
    std::string dup = text;
    dup.replace(dup.find("\"dims\":{\"n\":\"elements\"}"), std::string("\"dims\":{\"n\":\"elements\"}").size(),
                "\"dims\":{\"n\":\"elements\",\"n\":\"again\"}");
    EXPECT_TRUE(RejectsText(dup, {"dims.n:", "more than once"}));
    std::string arg = text;
    size_t at = arg.find("\"dtype\":\"f32\"", arg.find("\"name\":\"c\""));
    arg.insert(at, "\"dtype\":\"f16\",");
    EXPECT_TRUE(RejectsText(arg, {"args[1].dtype:", "more than once"}));
}

TEST(TaskLoaderErrors, Format) {
    Json doc = base_task();
    doc["format"] = "kbench-task/2";
    EXPECT_TRUE(Rejects(doc, {"format:", "kbench-task/2", "expected \"format\": \"kbench-task/1\""}));
    doc["format"] = "kbench-candidate/1";
    EXPECT_TRUE(Rejects(doc, {"format:", "candidate document"}));
    doc.erase("format");
    EXPECT_TRUE(Rejects(doc, {"format:", "missing required field"}));
    doc["format"] = 1;
    EXPECT_TRUE(Rejects(doc, {"format:", "got the number 1"}));
}

TEST(TaskLoaderErrors, MissingRequiredFields) {
    for (const char* key : {"name", "dims", "cases", "perf_case", "args", "reference"}) {
        Json doc = base_task();
        doc.erase(key);
        EXPECT_TRUE(Rejects(doc, {std::string(key) + ": missing required field '" + key + "'"})) << key;
    }
    Json doc = base_task();
    doc["args"][0].erase("dtype");
    EXPECT_TRUE(Rejects(doc, {"args[0].dtype: missing required field", "f16, bf16"}));
    doc = base_task();
    doc["args"][2].erase("value");
    EXPECT_TRUE(Rejects(doc, {"args[2].value: missing required field"}));
    doc = base_task();
    doc["args"][0].erase("shape");
    EXPECT_TRUE(Rejects(doc, {"args[0].shape: missing required field"}));
    doc = base_task();
    doc["reference"]["launch"][0].erase("grid");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid: missing required field"}));
    doc = base_task();
    doc["reference"]["launch"][0].erase("block");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].block: missing required field"}));
    doc = base_task();
    doc["reference"].erase("launch");
    EXPECT_TRUE(Rejects(doc, {"reference.launch: missing required field"}));
    doc = base_task();
    doc["cases"][0].erase("name");
    EXPECT_TRUE(Rejects(doc, {"cases[0].name: missing required field"}));
}

TEST(TaskLoaderErrors, UnknownFieldsWithSuggestions) {
    Json doc = base_task();
    doc["tolerence"] = Json::object();
    EXPECT_TRUE(Rejects(doc, {"tolerence: unknown field 'tolerence'", "did you mean 'tolerance'?"}));
    doc = base_task();
    doc["args"][1]["tolerence"] = doc["args"][1]["tolerance"];
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerence: unknown field", "did you mean 'tolerance'?"}));
    doc = base_task();
    doc["reference"]["launch"][0]["shared_memory"] = 0;
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].shared_memory", "did you mean 'shared_mem'?"}));
    doc = base_task();
    doc["reference"]["soruce_file"] = "x.cu";  // a transposition is one edit
    EXPECT_TRUE(Rejects(doc, {"reference.soruce_file", "did you mean 'source_file'?"}));
    doc = base_task();
    doc["policy"] = Json::parse(R"J({"fastmath": true})J");
    EXPECT_TRUE(Rejects(doc, {"policy.fastmath", "did you mean 'fast_math'?"}));
    doc = base_task();
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "uniform", "lo": 0})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.lo", "low, high"}));
    // Nothing close: no suggestion, but the list of fields.
    doc = base_task();
    doc["zzzzzzzz"] = 1;
    std::string msg = error_of([&] { load(doc); });
    EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;
    EXPECT_NE(msg.find("perf_case"), std::string::npos) << msg;
    EXPECT_NE(msg.find("comment"), std::string::npos) << msg;
}

TEST(TaskLoaderErrors, WrongJsonTypes) {
    Json doc = base_task();
    doc["name"] = 3;
    EXPECT_TRUE(Rejects(doc, {"name: got the number 3", "expected a string"}));
    doc = base_task();
    doc["dims"] = Json::array({"n"});
    EXPECT_TRUE(Rejects(doc, {"dims: got an array", "expected an object"}));
    doc = base_task();
    doc["args"] = Json::object();
    EXPECT_TRUE(Rejects(doc, {"args: got an object"}));
    doc = base_task();
    doc["reference"]["launch"][0]["grid"] = true;
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid: got true"}));
    doc = base_task();
    doc["policy"] = Json::parse(R"J({"fast_math": "yes"})J");
    EXPECT_TRUE(Rejects(doc, {"policy.fast_math: got the string \"yes\"", "true or false"}));
    doc = base_task();
    doc["args"][1]["tolerance"]["atol"] = "1e-6";
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance.atol", "expected a number"}));
    doc = base_task();
    doc["dims"]["n"] = 5;
    EXPECT_TRUE(Rejects(doc, {"dims.n: got the number 5", "description"}));
    doc = base_task();
    doc["reference"]["launch"][0]["args"] = "a";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args: got the string"}));
    doc = base_task();
    doc["reference"]["launch"][0]["args"][0] = 7;
    EXPECT_TRUE(
        Rejects(doc, {"reference.launch[0].args[0]: got the number 7", "inline scalar", "or the name of an argument"}));
    doc = base_task();
    doc["reference"]["launch"][0] = "ref";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0]: got the string", "launch step"}));
    doc = base_task();
    doc["cases"][0] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"cases[0]: got an array"}));
}

TEST(TaskLoaderErrors, NamesMustBeWellFormed) {
    Json doc = base_task();
    doc["name"] = "my task";
    EXPECT_TRUE(Rejects(doc, {"name:", "not a valid task name"}));
    doc = base_task();
    doc["dims"] = Json::parse(R"J({"2n": "x"})J");
    EXPECT_TRUE(Rejects(doc, {"dims.2n", "C identifier"}));
    doc = base_task();
    doc["dims"]["min"] = "reserved";
    EXPECT_TRUE(Rejects(doc, {"dims.min", "ceil_div, min and max"}));
    doc = base_task();
    doc["args"][0]["name"] = "a-b";
    EXPECT_TRUE(Rejects(doc, {"args[0].name", "C identifier"}));
    doc = base_task();
    doc["cases"][1]["name"] = "has space";
    EXPECT_TRUE(Rejects(doc, {"cases[1].name", "case name"}));
}

// ------------------------------------------------------------------------
// Errors: dims and cases
// ------------------------------------------------------------------------

TEST(TaskLoaderErrors, Cases) {
    Json doc = base_task();
    doc["cases"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"cases:", "no correctness cases", "at least one"}));

    doc = base_task();
    doc["dims"]["m"] = "rows";
    EXPECT_TRUE(Rejects(doc, {"cases[0].dims:", "no value for dim 'm'", "n, m"}));

    doc = base_task();
    doc["cases"][1]["dims"]["k"] = 3;
    EXPECT_TRUE(Rejects(doc, {"cases[1].dims.k:", "'k' is not a declared dim", "declared dims are: n"}));

    doc = base_task();
    doc["cases"][1]["dims"]["n"] = 0;
    EXPECT_TRUE(Rejects(doc, {"cases[1].dims.n:", "not positive", "positive integer"}));
    doc["cases"][1]["dims"]["n"] = -4;
    EXPECT_TRUE(Rejects(doc, {"cases[1].dims.n:", "-4"}));
    doc["cases"][1]["dims"]["n"] = 2.5;
    EXPECT_TRUE(Rejects(doc, {"cases[1].dims.n:", "got the number 2.5", "positive integer"}));
    doc["cases"][1]["dims"]["n"] = "1009";
    EXPECT_TRUE(Rejects(doc, {"cases[1].dims.n:", "got the string"}));
    doc = base_task();
    doc["perf_case"]["dims"]["n"] = 0;
    EXPECT_TRUE(Rejects(doc, {"perf_case.dims.n:", "not positive"}));
    doc = base_task();
    doc["perf_case"].erase("dims");
    EXPECT_TRUE(Rejects(doc, {"perf_case.dims: missing required field"}));
}

TEST(TaskLoaderErrors, DuplicateNames) {
    Json doc = base_task();
    doc["cases"][1]["name"] = "one";
    EXPECT_TRUE(Rejects(doc, {"cases[1].name:", "duplicate case name 'one'", "cases[0].name"}));
    doc = base_task();
    doc["perf_case"]["name"] = "prime";
    EXPECT_TRUE(Rejects(doc, {"perf_case.name:", "duplicate case name 'prime'"}));

    doc = base_task();
    doc["args"][1]["name"] = "a";
    EXPECT_TRUE(Rejects(doc, {"args[1].name:", "duplicate argument name 'a'", "args[0]"}));

    doc = base_task();
    doc["reference"]["scratch"] =
        Json::parse(R"J([{"name": "s", "dtype": "f32", "shape": [1]}, {"name": "s", "dtype": "f32", "shape": [2]}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[1].name:", "duplicate scratch buffer name 's'"}));

    doc = base_task();
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "c", "dtype": "f32", "shape": [1]}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[0].name:", "name of a task argument", "a, c, n"}));
}

// ------------------------------------------------------------------------
// Errors: args
// ------------------------------------------------------------------------

TEST(TaskLoaderErrors, DtypeAndRole) {
    Json doc = base_task();
    doc["args"][0]["dtype"] = "f33";
    EXPECT_TRUE(Rejects(doc, {"args[0].dtype:", "unknown dtype 'f33'", "did you mean 'f32'?",
                              "f16, bf16, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, bool"}));
    doc["args"][0]["dtype"] = "float";
    EXPECT_TRUE(Rejects(doc, {"args[0].dtype:", "unknown dtype 'float'"}));

    doc = base_task();
    doc["args"][1]["role"] = "output";
    EXPECT_TRUE(Rejects(doc, {"args[1].role:", "unknown role 'output'", "in, out, inout, scalar"}));
}

TEST(TaskLoaderErrors, Shapes) {
    Json doc = base_task();
    doc["args"][0]["shape"] = Json::array({"m"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "'m'", "not a declared dim", "declared dims are: n"}));
    doc["args"][0]["shape"] = Json::array({"n +"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "cannot parse 'n +'", "column 4"}));
    doc["args"][0]["shape"] = Json::array({"sqrt(n)"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "unknown function 'sqrt'", "column 1"}));
    doc["args"][0]["shape"] = Json::array({-3});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "negative"}));
    doc["args"][0]["shape"] = Json::array({2.5});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "got the number 2.5"}));
    doc["args"][0]["shape"] = "n";
    EXPECT_TRUE(Rejects(doc, {"args[0].shape:", "array of sizes"}));
}

TEST(TaskLoaderErrors, ShapesAreEvaluatedAtEveryCase) {
    Json doc = base_task();
    doc["args"][0]["shape"] = Json::array({"n - 2"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "evaluates to -1", "at case 'one' (n=1)", "size >= 0"}));
    // The perf case is checked too.
    doc["args"][0]["shape"] = Json::array({"n", "n", "n", "n", "n", "n"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape:", "overflows", "perf case 'perf' (n=4096)"}));
    doc["args"][0]["shape"] = Json::array({"n * n * n * n * n * n"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "cannot be evaluated at the perf case 'perf'", "overflow"}));
    doc["args"][0]["shape"] = Json::array({"4096 / (n - 1)"});
    EXPECT_TRUE(Rejects(doc, {"args[0].shape[0]:", "at case 'one'", "division by zero"}));
    // Elements fit, bytes do not: 2^61 f64 elements are 2^64 bytes.
    doc["args"][0]["shape"] = Json::array({"n * 0 + 2305843009213693952"});
    doc["args"][0]["dtype"] = "f64";
    EXPECT_TRUE(Rejects(doc, {"args[0].shape:", "byte count", "2^62 bytes"}));
}

TEST(TaskLoaderErrors, ScalarValues) {
    Json doc = base_task();
    doc["args"][2]["value"] = 1.5;
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "got the number 1.5", "integer expression", "i32 scalar"}));
    doc["args"][2]["value"] = "n / 2.0";
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "cannot parse", "integer-only"}));
    doc["args"][2]["value"] = true;
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "got true"}));
    doc["args"][2]["value"] = "m";
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "not a declared dim"}));
    doc["args"][2]["value"] = 3000000000LL;
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "does not fit i32", "[-2147483648, 2147483647]"}));
    // Evaluated at every case: n*n*n at the perf case is 2^36.
    doc["args"][2]["value"] = "n * n * n";
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "does not fit i32", "at the perf case 'perf' (n=4096)"}));
    doc["args"][2]["value"] = "n - 2";
    doc["args"][2]["dtype"] = "u32";
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "-1 at case 'one'", "does not fit u32"}));
    doc["args"][2]["dtype"] = "f16";
    doc["args"][2]["value"] = 1e6;
    EXPECT_TRUE(Rejects(doc, {"args[2].value:", "overflows f16"}));

    // Scalars have no shape, init or tolerance; buffers have no value.
    doc = base_task();
    doc["args"][2]["shape"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"args[2].shape:", "a scalar has no shape"}));
    doc = base_task();
    doc["args"][2]["init"] = Json::parse(R"J({"dist": "constant", "value": 1})J");
    EXPECT_TRUE(Rejects(doc, {"args[2].init:", "a scalar has no init"}));
    doc = base_task();
    doc["args"][2]["tolerance"] = Json::object();
    EXPECT_TRUE(Rejects(doc, {"args[2].tolerance:", "a scalar has no tolerance"}));
    doc = base_task();
    doc["args"][0]["value"] = 3;
    EXPECT_TRUE(Rejects(doc, {"args[0].value:", "a buffer has no value"}));
}

TEST(TaskLoaderErrors, Tolerances) {
    Json doc = base_task();
    doc["args"][1].erase("tolerance");
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance:", "f32 output 'c' has no tolerance", "no default for f32",
                              "\"tolerance\": {\"f32\""}));
    // A task default for another dtype does not help.
    doc["tolerance"] = Json::parse(R"J({"f16": {"atol": 1e-3}})J");
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance:", "no default for f32"}));
    doc["tolerance"]["f32"] = Json::parse(R"J({"rtol": 1e-5})J");
    EXPECT_EQ(load(doc)->args[1].tolerance->rtol, 1e-5);

    doc = base_task();
    doc["args"][1]["dtype"] = "i32";
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance:", "i32 outputs always compare exactly"}));
    doc["args"][1]["dtype"] = "bool";
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance:", "bool outputs always compare exactly"}));
    doc["args"][1].erase("tolerance");
    EXPECT_NO_THROW(load(doc));

    doc = base_task();
    doc["args"][0]["tolerance"] = Json::parse(R"J({"atol": 1})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].tolerance:", "an input is not compared"}));

    doc = base_task();
    doc["args"][1]["tolerance"]["atol"] = -1e-6;
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance.atol:", "negative", ">= 0"}));
    doc["args"][1]["tolerance"] = Json::parse(R"J({"rtol": -1})J");
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance.rtol:", "negative"}));
    doc["args"][1]["tolerance"] = Json::parse(R"J({"equal_nan": 1})J");
    EXPECT_TRUE(Rejects(doc, {"args[1].tolerance.equal_nan:", "true or false"}));

    doc = base_task();
    doc["tolerance"] = Json::parse(R"J({"i32": {"atol": 0}})J");
    EXPECT_TRUE(Rejects(doc, {"tolerance.i32:", "always compare exactly", "float dtype"}));
    doc["tolerance"] = Json::parse(R"J({"fp32": {"atol": 0}})J");
    EXPECT_TRUE(Rejects(doc, {"tolerance.fp32:", "unknown dtype 'fp32'"}));
    doc["tolerance"] = Json::parse(R"J([1])J");
    EXPECT_TRUE(Rejects(doc, {"tolerance:", "got an array"}));
}

TEST(TaskLoaderErrors, Inits) {
    Json doc = base_task();
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "gaussian"})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.dist:", "unknown distribution 'gaussian'",
                              "uniform, normal, randint, bernoulli, constant, arange"}));
    doc["args"][0]["init"] = Json::parse(R"J({"low": 0})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.dist: missing required field"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "uniform", "low": 1, "high": 1})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init:", "not below high", "low < high"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "normal", "std": -1})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.std:", "negative"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "bernoulli", "p": 1.5})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.p:", "outside [0, 1]"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "randint", "low": 5, "high": 4})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init:", "above high"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "constant"})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.value: missing required field"}));
    doc["args"][0]["dtype"] = "f16";
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "constant", "value": 1e6})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.value:", "overflows f16"}));

    doc = base_task();
    doc["args"][0]["dtype"] = "u8";
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "randint", "low": -1, "high": 10})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.low:", "does not fit u8", "[0, 255]"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "randint", "low": 0, "high": 2.5})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.high:", "integer"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "normal"})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.dist:", "cannot fill a u8 buffer"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "uniform", "low": 0, "high": 300})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init:", "exceeds the range of u8"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "arange", "start": 0.5})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.start:", "integer"}));

    doc = base_task();
    doc["args"][0]["dtype"] = "bool";
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "uniform"})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.dist:", "cannot fill a bool buffer", "bernoulli"}));
    doc["args"][0]["init"] = Json::parse(R"J({"dist": "constant", "value": 2})J");
    EXPECT_TRUE(Rejects(doc, {"args[0].init.value:", "does not fit bool"}));

    // Outputs are poisoned, never initialised.
    doc = base_task();
    doc["args"][1]["init"] = Json::parse(R"J({"dist": "constant", "value": 0})J");
    EXPECT_TRUE(Rejects(doc, {"args[1].init:", "an output is not initialised", "inout"}));
}

TEST(TaskLoaderErrors, ArgsNeedAnOutput) {
    Json doc = base_task();
    doc["args"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"args:", "empty"}));
    doc = base_task();
    doc["args"][1]["role"] = "in";
    doc["args"][1].erase("tolerance");
    EXPECT_TRUE(Rejects(doc, {"args:", "no argument is an output"}));
}

// ------------------------------------------------------------------------
// Errors: programs and launch plans
// ------------------------------------------------------------------------

TEST(TaskLoaderErrors, ProgramCode) {
    Json doc = base_task();
    doc["reference"]["source_file"] = "ref.cu";
    EXPECT_TRUE(Rejects(doc, {"reference:", "more than once", "source, source_file", "exactly one"}));
    doc["reference"].erase("source");
    doc["reference"].erase("source_file");
    EXPECT_TRUE(Rejects(doc, {"reference.source_file:", "no code", "exactly one"}));
    doc["reference"]["source"] = "";
    EXPECT_TRUE(Rejects(doc, {"reference:", "the code is empty"}));
    doc["reference"]["language"] = "cuda++";
    EXPECT_TRUE(Rejects(doc, {"reference.language:", "unknown language 'cuda++'", "cuda, ptx, cubin, triton", "triton_binary"}));
    doc["reference"]["language"] = "cubin";
    doc["reference"]["source"] = "ELF";
    EXPECT_TRUE(Rejects(doc, {"reference.source:", "binary image", "source_file"}));
    doc["reference"].erase("source");
    doc["reference"]["source_base64"] = "not base64!";
    EXPECT_TRUE(Rejects(doc, {"reference.source_base64:", "not valid base64"}));
    doc["reference"]["source_base64"] = "f0VMRg==";  // "\x7f" "ELF"
    EXPECT_EQ(load(doc)->reference.source,
              "\x7f"
              "ELF");
    doc["reference"]["language"] = "triton_binary";
    EXPECT_TRUE(Rejects(doc, {"reference.metadata_file:", "Triton", "metadata"}));
    doc["reference"]["metadata"] = Json::parse(R"J({"name": "ref"})J");
    EXPECT_NO_THROW(load(doc));
    doc["reference"]["metadata"] = "{}";
    EXPECT_TRUE(Rejects(doc, {"reference.metadata:", "JSON object"}));
    // "triton" is Python source now: metadata points at the binary language.
    doc["reference"]["language"] = "triton";
    EXPECT_TRUE(Rejects(doc, {"reference.metadata:", "\"language\": \"triton_binary\""}));

    doc = base_task();
    doc["reference"]["metadata"] = Json::object();
    EXPECT_TRUE(Rejects(doc, {"reference.metadata:", "only for Triton"}));
    doc = base_task();
    doc["reference"]["source_name"] = "dir/ref.cu";
    EXPECT_TRUE(Rejects(doc, {"reference.source_name:", "plain file name"}));
    doc = base_task();
    doc["reference"]["source"] = std::string("__global__ void ref() {}\0junk", 29);
    EXPECT_TRUE(Rejects(doc, {"reference:", "NUL byte"}));
}

TEST(TaskLoaderErrors, UnreadableSourceFile) {
    TempDir dir;
    Json doc = base_task();
    doc["reference"].erase("source");
    doc["reference"]["source_file"] = "missing.cu";
    EXPECT_TRUE(Rejects(doc, {"reference.source_file:", "missing.cu", dir.path()}, KB_ERR_IO, dir.path()));
    // Relative paths resolve against the task's folder.
    dir.write("missing.cu", "__global__ void ref(const float* a, float* c, int n) {}");
    EXPECT_EQ(load(doc, dir.path())->reference.source_name, "missing.cu");
    // A Triton metadata file that is not JSON names the field and the file.
    doc["reference"]["language"] = "triton_binary";
    doc["reference"]["metadata_file"] = "meta.json";
    dir.write("meta.json", "{not json");
    EXPECT_TRUE(
        Rejects(doc, {"reference.metadata_file", "meta.json", "not valid JSON"}, KB_ERR_TASK_INVALID, dir.path()));
    doc["reference"]["metadata_file"] = "nope.json";
    EXPECT_TRUE(Rejects(doc, {"reference.metadata_file:", "nope.json"}, KB_ERR_IO, dir.path()));
}

// Built-in baselines ({"builtin": "cublas_gemm"}): tests/unit/test_builtin_gemm.cpp.

TEST(TaskLoaderErrors, LaunchArgs) {
    Json doc = base_task();
    doc["reference"]["launch"][0]["args"][1] = "q";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[1]:", "'q' is neither a task argument nor a scratch buffer",
                              "expected one of: a, c, n"}));
    doc["reference"]["launch"][0]["args"][1] = "cc";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[1]:", "did you mean 'c'?"}));
    // A dim that is not an argument: say how to pass it.
    doc = base_task();
    doc["args"].erase(2);
    doc["reference"]["launch"][0]["args"] = Json::parse(R"J(["a", "c", "n"])J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[2]:", "is a dim", "{\"value\": \"n\", \"dtype\": \"i32\"}"}));

    doc = base_task();
    doc["reference"]["launch"][0]["args"][2] = Json::parse(R"J({"value": "n"})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[2].dtype: missing required field"}));
    doc["reference"]["launch"][0]["args"][2] = Json::parse(R"J({"value": 1.5, "dtype": "i32"})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[2].value:", "got the number 1.5"}));
    doc["reference"]["launch"][0]["args"][2] = Json::parse(R"J({"value": "n * 300", "dtype": "u8"})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[2].value:", "does not fit u8", "at case 'one'"}));
    doc["reference"]["launch"][0]["args"][2] = Json::parse(R"J({"value": "n", "dtype": "i32", "name": "n"})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].args[2].name:", "unknown field"}));
}

TEST(TaskLoaderErrors, ZeroSteps) {
    Json doc = base_task();
    doc["reference"]["launch"].insert(doc["reference"]["launch"].begin(), Json::parse(R"J({"zero": "a"})J"));
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].zero:", "would modify an input"}));
    doc["reference"]["launch"][0]["zero"] = "nothing";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].zero:", "'nothing' is neither", "c"}));
    doc["reference"]["launch"][0]["zero"] = "n";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].zero:", "scalar"}));
    doc["reference"]["launch"][0] = Json::parse(R"J({"zero": "c", "kernel": "k"})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0]:", "both \"kernel\" and \"zero\""}));
    doc["reference"]["launch"][0] = Json::parse(R"J({"zero": "c", "grid": 1})J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "unknown field", "zero step"}));
}

TEST(TaskLoaderErrors, LaunchLists) {
    Json doc = base_task();
    doc["reference"]["launch"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"reference.launch:", "empty", "at least one"}));
    doc["reference"]["launch"] = Json::object();
    EXPECT_TRUE(Rejects(doc, {"reference.launch:", "got an object"}));
    doc = base_task();
    doc["reference"]["launch"][0]["kernel"] = "";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].kernel:", "empty"}));
    doc["reference"]["launch"][0].erase("kernel");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].kernel: missing required field", "zero step"}));
}

TEST(TaskLoaderErrors, GridAndBlock) {
    Json doc = base_task();
    doc["reference"]["launch"][0]["grid"] = 0;
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", ">= 1"}));
    doc["reference"]["launch"][0]["grid"] = -2;
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "-2"}));
    doc["reference"]["launch"][0]["grid"] = Json::parse(R"J(["ceil_div(n, 16)", "0"])J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid[1]:", ">= 1"}));
    doc["reference"]["launch"][0]["grid"] = Json::parse("[1, 1, 1, 1]");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "1 to 3 values"}));
    doc["reference"]["launch"][0]["grid"] = Json::array();
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "1 to 3 values"}));
    doc["reference"]["launch"][0]["grid"] = "ceil_div(n, 256";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "cannot parse", "column 16"}));

    doc = base_task();
    doc["reference"]["launch"][0]["block"] = Json::parse("[256, 0]");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].block[1]:", ">= 1"}));
    doc["reference"]["launch"][0]["block"] = Json::parse("[32, 64]");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].block:", "2048 threads per block", "at most 1024"}));
    doc["reference"]["launch"][0]["block"] = Json::parse("[1, 1, 128]");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].block[2]:", "block.z = 128", "1 to 64"}));

    // Evaluated at every case.
    doc = base_task();
    doc["reference"]["launch"][0]["grid"] = "n - 1";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid:", "grid.x = 0", "at case 'one' (n=1)"}));
    doc["reference"]["launch"][0]["grid"] = Json::parse(R"J([1, "n * 16"])J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].grid[1]:", "grid.y = 65536", "perf case", "65535"}));
    doc = base_task();
    doc["reference"]["launch"][0]["block"] = "n";
    EXPECT_TRUE(Rejects(
        doc, {"reference.launch[0].block:", "block.x = 4096", "at the perf case 'perf' (n=4096)", "1 to 1024"}));
    doc = base_task();
    doc["reference"]["launch"][0]["shared_mem"] = "4 * (n - 2)";
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].shared_mem:", "-4 bytes", "at case 'one'"}));
    doc["reference"]["launch"][0]["shared_mem"] = -1;
    EXPECT_TRUE(Rejects(doc, {"reference.launch[0].shared_mem:", "negative"}));
}

TEST(TaskLoaderErrors, ScratchBuffers) {
    Json doc = base_task();
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "s", "dtype": "f32", "shape": ["n - 3"]}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[0].shape[0]:", "evaluates to -2", "at case 'one'"}));
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "s", "dtype": "f32"}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[0].shape: missing required field"}));
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "s", "dtype": "f32", "shape": [1], "zero": "yes"}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[0].zero:", "true or false"}));
    doc["reference"]["scratch"] = Json::parse(R"J([{"name": "s", "dtype": "f32", "shape": ["k"]}])J");
    EXPECT_TRUE(Rejects(doc, {"reference.scratch[0].shape[0]:", "not a declared dim"}));
}

TEST(TaskLoaderErrors, ReferenceMustWriteEveryOutput) {
    Json doc = base_task();
    doc["reference"]["launch"][0]["args"] = Json::parse(R"J(["a", "n"])J");
    EXPECT_TRUE(Rejects(doc, {"reference.launch:", "output 'c' is never passed to a kernel"}));
}

TEST(TaskLoaderErrors, CandidateSection) {
    Json doc = base_task();
    doc["candidate"] = Json::parse(R"J({"signature": "__global__ void k()", "language": "cuda"})J");
    EXPECT_TRUE(Rejects(doc, {"candidate.language:", "unknown field"}));
    doc["candidate"] = Json::parse(R"J({"scratch": []})J");
    EXPECT_TRUE(Rejects(doc, {"candidate.scratch:", "without a launch plan"}));
    doc["candidate"] = Json::parse(R"J({"launch": [{"kernel": "k", "grid": 1, "block": 1, "args": ["zz"]}]})J");
    EXPECT_TRUE(Rejects(doc, {"candidate.launch[0].args[0]:", "'zz'"}));
    doc["candidate"] = Json::parse(R"J({"signature": "__global__ void k()"})J");
    kb::TaskPtr t = load(doc);
    EXPECT_FALSE(t->candidate_default.has_value());
    EXPECT_NE(t->normalized_json.find("__global__ void k()"), std::string::npos);
}

TEST(TaskLoaderErrors, CostAndPolicy) {
    Json doc = base_task();
    doc["cost"] = Json::parse(R"J({"flops": "n - 5"})J");
    EXPECT_TRUE(Rejects(doc, {"cost.flops:", "evaluates to -4", "at case 'one'"}));
    doc["cost"] = Json::parse(R"J({"flops": "2 * q"})J");
    EXPECT_TRUE(Rejects(doc, {"cost.flops:", "not a declared dim"}));
    doc["cost"] = Json::parse(R"J({"flop": "n"})J");
    EXPECT_TRUE(Rejects(doc, {"cost.flop:", "did you mean 'flops'?"}));

    doc = base_task();
    doc["policy"] = Json::parse(R"J({"std": "c++11"})J");
    EXPECT_TRUE(Rejects(doc, {"policy.std:", "c++11", "c++14, c++17, c++20"}));
    doc["policy"] = Json::parse(R"J({"max_registers": -1})J");
    EXPECT_TRUE(Rejects(doc, {"policy.max_registers:", "out of range"}));
    doc["policy"] = Json::parse(R"J({"max_registers": 256})J");
    EXPECT_TRUE(Rejects(doc, {"policy.max_registers:", "up to 255"}));
    doc["policy"] = Json::parse(R"J({"defines": ["1BAD=2"]})J");
    EXPECT_TRUE(Rejects(doc, {"policy.defines[0]:", "macro name"}));
    doc["policy"] = Json::parse(R"J({"defines": ["A=1", "A=2"]})J");
    EXPECT_TRUE(Rejects(doc, {"policy.defines[1]:", "defined twice"}));
    doc["policy"] = Json::parse(R"J({"defines": "A=1"})J");
    EXPECT_TRUE(Rejects(doc, {"policy.defines:", "got the string"}));
    doc["policy"] = Json::parse(R"J({"defines": ["A=1\nB"]})J");
    EXPECT_TRUE(Rejects(doc, {"policy.defines[0]:", "spans lines"}));
}

TEST(TaskLoaderErrors, LoadTaskFromPaths) {
    try {
        kb::load_task("/nonexistent/kbench/task.json");
        FAIL() << "loaded";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_IO);
        EXPECT_NE(std::string(e.what()).find("/nonexistent/kbench/task.json"), std::string::npos);
    }
    try {
        kb::load_task("   ");
        FAIL() << "loaded";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
    }
    // Errors in a task file name the file first, as compilers do.
    TempDir dir;
    Json doc = base_task();
    doc["args"][0]["dtype"] = "f33";
    std::string path = dir.write("task.json", doc.dump(2));
    std::string msg = error_of([&] { kb::load_task(path); });
    EXPECT_EQ(msg.rfind(path + ": args[0].dtype:", 0), 0u) << msg;
}

// ------------------------------------------------------------------------
// Launch plans and candidate documents
// ------------------------------------------------------------------------

TEST(LoaderLaunchPlan, ParsesPlansAgainstTheTask) {
    kb::TaskPtr t = kb::load_task(kVectorAdd);
    Json plan = Json::parse(
        R"J({"launch": [{"kernel": "vadd<float>", "grid": [64], "block": 128, "args": ["a", "b", "c", "n"]}],
                                "scratch": [{"name": "tmp", "dtype": "f32", "shape": ["ceil_div(n, 128)"], "zero": true}]})J");
    kb::Program p = kb::parse_launch_plan(plan, *t, "launch_json");
    EXPECT_EQ(p.kernel_names(), std::vector<std::string>{"vadd<float>"});
    EXPECT_EQ(p.launch[0].json_path, "launch_json.launch[0]");
    ASSERT_EQ(p.scratch.size(), 1u);
    EXPECT_TRUE(p.scratch[0].zero);

    // A bare array of steps is a plan too.
    kb::Program bare = kb::parse_launch_plan(plan["launch"], *t, "");
    EXPECT_EQ(bare.launch.size(), 1u);
    EXPECT_EQ(bare.launch[0].json_path, "launch[0]");

    // A whole program section (with its code fields) is accepted; a typo is not.
    Json section = plan;
    section["source"] = "ignored here";
    section["language"] = "cuda";
    EXPECT_NO_THROW(kb::parse_launch_plan(section, *t, "x"));
    section["lanuch"] = Json::array();
    std::string msg = error_of([&] { kb::parse_launch_plan(section, *t, "x"); });
    EXPECT_NE(msg.find("x.lanuch"), std::string::npos) << msg;
    EXPECT_NE(msg.find("did you mean 'launch'?"), std::string::npos) << msg;

    // Per-case checks apply to candidate plans too.
    Json bad = Json::parse(R"J([{"kernel": "k", "grid": [1, "n"], "block": 1, "args": []}])J");
    msg = error_of([&] { kb::parse_launch_plan(bad, *t, "plan"); });
    EXPECT_NE(msg.find("plan.launch[0].grid[1]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid.y = 100003 at case 'not_a_block_multiple'"), std::string::npos) << msg;
    msg = error_of([&] { kb::parse_launch_plan(Json::parse("42"), *t, ""); });
    EXPECT_NE(msg.find("launch plan: got the number 42"), std::string::npos) << msg;

    // The JSON form has every default explicit and reads back the same.
    Json j = kb::launch_plan_to_json(p);
    EXPECT_EQ(j["launch"][0]["grid"], Json::parse("[64, 1, 1]"));
    EXPECT_EQ(j["launch"][0]["shared_mem"], 0);
    EXPECT_EQ(j["scratch"][0]["shape"][0], "ceil_div(n, 128)");
    EXPECT_EQ(kb::launch_plan_to_json(kb::parse_launch_plan(j, *t, "")), j);
}

TEST(LoaderCandidateDocument, CodeWithAndWithoutAPlan) {
    kb::TaskPtr t = kb::load_task(kVectorAdd);
    Json doc = Json::parse(R"J({"format": "kbench-candidate/1", "source": "__global__ void vector_add() {}"})J");
    kb::Program p = kb::parse_candidate_document(doc, *t, "");
    EXPECT_EQ(p.language, kb::Language::cuda);
    EXPECT_EQ(p.source_name, "candidate.cu");
    // No plan: the task's default candidate plan.
    EXPECT_EQ(p.kernel_names(), std::vector<std::string>{"vector_add"});

    doc["launch"] = Json::parse(R"J([{"kernel": "mine", "grid": 8, "block": 1024, "args": ["a", "b", "c", "n"]}])J");
    doc["scratch"] = Json::array();
    p = kb::parse_candidate_document(doc, *t, "");
    EXPECT_EQ(p.kernel_names(), std::vector<std::string>{"mine"});

    TempDir dir;
    dir.write("cand.ptx", ".version 8.0\n.target sm_90\n");
    Json file_doc = Json::parse(R"J({"format": "kbench-candidate/1", "language": "ptx", "source_file": "cand.ptx"})J");
    p = kb::parse_candidate_document(file_doc, *t, dir.path());
    EXPECT_EQ(p.language, kb::Language::ptx);
    EXPECT_EQ(p.source_name, "cand.ptx");
    EXPECT_NE(p.source.find(".target sm_90"), std::string::npos);
}

TEST(LoaderCandidateDocument, Errors) {
    kb::TaskPtr t = kb::load_task(kVectorAdd);
    Json task_without_default = base_task();
    kb::TaskPtr bare = load(task_without_default);

    auto reject = [](const std::function<void()>& f, const std::vector<std::string>& parts,
                     kb_status status = KB_ERR_TASK_INVALID) -> testing::AssertionResult {
        try {
            f();
        } catch (const kb::Error& e) {
            std::string msg = e.what();
            if (e.status() != status) return testing::AssertionFailure() << "status " << e.status() << ": " << msg;
            for (const auto& p : parts)
                if (msg.find(p) == std::string::npos)
                    return testing::AssertionFailure() << "lacks " << p << ": " << msg;
            return testing::AssertionSuccess();
        }
        return testing::AssertionFailure() << "accepted";
    };

    Json doc = Json::parse(R"J({"format": "kbench-candidate/1", "source": "__global__ void k() {}"})J");
    EXPECT_TRUE(reject(
        [&] { kb::parse_candidate_document(doc, *bare, ""); },
        {"candidate.launch:", "candidate has no launch plan and the task defines no default (task.candidate.launch)"}));
    Json d = doc;
    d["scratch"] = Json::array();
    EXPECT_TRUE(
        reject([&] { kb::parse_candidate_document(d, *t, ""); }, {"candidate.scratch:", "without a launch plan"}));
    d = doc;
    d["format"] = "kbench-task/1";
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(d, *t, ""); }, {"candidate.format:", "this is a task"}));
    d.erase("format");
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(d, *t, ""); }, {"candidate.format: missing required field"}));
    d = doc;
    d["sorce"] = "x";
    EXPECT_TRUE(
        reject([&] { kb::parse_candidate_document(d, *t, ""); }, {"candidate.sorce:", "did you mean 'source'?"}));
    d = doc;
    d.erase("source");
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(d, *t, ""); }, {"candidate.source_file:", "no code"}));
    d["source_file"] = "nope.cu";
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(d, *t, "/nonexistent"); },
                       {"candidate.source_file:", "/nonexistent/nope.cu"}, KB_ERR_IO));
    d = doc;
    d["launch"] = Json::parse(R"J([{"zero": "a"}])J");
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(d, *t, ""); },
                       {"candidate.launch[0].zero:", "would modify an input"}));
    EXPECT_TRUE(reject([&] { kb::parse_candidate_document(Json::array(), *t, ""); }, {"candidate: got an array"}));
}

TEST(LoaderJsonText, DuplicateKeysAndSyntaxErrors) {
    std::string msg =
        error_of([] { kb::parse_json_text(R"J({"launch": [{"kernel": "a", "kernel": "b"}]})J", "launch_json"); });
    EXPECT_NE(msg.find("launch[0].kernel:"), std::string::npos) << msg;
    msg = error_of([] { kb::parse_json_text("{\n\n  \"a\": ,\n}", "launch_json"); });
    EXPECT_NE(msg.find("launch_json: not valid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
    EXPECT_EQ(kb::parse_json_text(R"J({"a": [1, {"b": 2}]})J", "x")["a"][1]["b"], 2);
}

}  // namespace
