// Triton candidates through the public API on a CPU machine: documents,
// bare .py files with `# kbench: launch` comments, one binary per
// specialisation key of the task's cases, the derived launch in the kernel's
// JSON, and `kbench compile` of a Triton candidate. Needs Triton, no GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "compiler/compiler.h"
#include "compiler/triton_launch.h"
#include "kbench.h"
#include "support/task_paths.h"
#include "util/files.h"
#include "util/json.h"

namespace {

using kb::Json;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

const std::string kRoot = KB_SOURCE_DIR;

// A built-in task (tasks/<family>/<name>/), or one of the Triton tests'
// fixture tasks (tests/fixtures/triton/tasks/<name>/).
std::string task_path(const std::string& name) {
    const std::string fixture = kRoot + "/tests/fixtures/triton/tasks/" + name + "/task.json";
    if (kb::file_exists(fixture)) return fixture;
    return kb::test::builtin_task_file(name);
}

struct Ctx {
    kb_context* ctx = nullptr;
    Ctx() {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.arch = "sm_90";
        EXPECT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    }
    ~Ctx() { kb_context_destroy(ctx); }
};

struct Compiled {
    kb_status status = KB_OK;
    std::string error;
    Json kernel;
};

Compiled compile(Ctx& c, const std::string& task, const std::string& candidate, kb_language lang = KB_LANG_AUTO,
                 const char* launch_json = nullptr) {
    Compiled out;
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(task.c_str(), &t), KB_OK) << kb_last_error();
    kb_candidate cand = KB_CANDIDATE_INIT;
    cand.path = candidate.c_str();
    cand.language = lang;
    cand.launch_json = launch_json;
    kb_kernel* k = nullptr;
    out.status = kb_compile(c.ctx, t, &cand, &k);
    if (out.status == KB_OK) out.kernel = Json::parse(kb_kernel_json(k));
    else out.error = kb_last_error();
    kb_kernel_destroy(k);
    kb_task_destroy(t);
    return out;
}

// Device-side tensor descriptors (tl.make_tensor_descriptor) arrived in
// Triton 3.4; 3.3 has only a private experimental form the source check refuses.
bool has_tensor_descriptors() {
    static const bool yes = [] {
        kb::TritonBackend probe{kb::CompilerConfig{}};
        return kb::parse_triton_version(probe.version()).at_least(3, 4);
    }();
    return yes;
}

std::set<std::string> keys_of(const Json& kernel) {
    std::set<std::string> keys;
    for (const Json& v : kernel["triton_variants"]) keys.insert(v["key"].get<std::string>());
    return keys;
}

TEST(TritonCandidates, DocumentCompilesOneBinaryPerSpecialisation) {
    Ctx c;
    Compiled k = compile(c, task_path("vector_add_f32"), kRoot + "/examples/triton/vector_add/candidate.json");
    ASSERT_EQ(k.status, KB_OK) << k.error;
    EXPECT_EQ(k.kernel["language"], "triton");
    EXPECT_EQ(k.kernel["path"], "triton");
    // n = 1 (compiled in), 1009 and 100003 (no divisibility), 16777216 (divisible by 16).
    std::set<std::string> keys = keys_of(k.kernel);
    EXPECT_EQ(keys, (std::set<std::string>{
                        "vector_add(*fp32:D, *fp32:D, *fp32:D, i32:1; BLOCK=1024; w4 s1 c1)",
                        "vector_add(*fp32:D, *fp32:D, *fp32:D, i32; BLOCK=1024; w4 s1 c1)",
                        "vector_add(*fp32:D, *fp32:D, *fp32:D, i32:D; BLOCK=1024; w4 s1 c1)"}));
    for (const Json& v : k.kernel["triton_variants"]) {
        ASSERT_TRUE(v.contains("launch")) << v.dump();
        const Json& l = v["launch"];
        EXPECT_EQ(l["block"], Json::array({128, 1, 1}));
        EXPECT_EQ(l["shared_mem"], 0);
        bool n_is_one = has(v["key"].get<std::string>(), "i32:1");
        size_t args = 0, hidden = 0;
        for (const Json& p : l["params"]) (p.contains("hidden") ? hidden : args)++;
        EXPECT_EQ(args, n_is_one ? 3u : 4u) << v.dump();
        EXPECT_EQ(int(hidden), kb::triton_hidden_param_count(kb::parse_triton_version(l["triton_version"])));
    }
    EXPECT_EQ(k.kernel["plan"]["launch"][0]["constexprs"]["BLOCK"], 1024);
    EXPECT_FALSE(k.kernel["plan"]["launch"][0].contains("block"));
}

TEST(TritonCandidates, BarePyFilesCarryTheirLaunchInComments) {
    Ctx c;
    // args= in the comment.
    Compiled va = compile(c, task_path("vector_add_f32"), kRoot + "/examples/triton/vector_add/vector_add.py");
    ASSERT_EQ(va.status, KB_OK) << va.error;
    EXPECT_EQ(va.kernel["plan"]["launch"][0]["args"], Json::array({"a", "b", "c", "n"}));
    // No args=: the task's candidate.triton_args.
    Compiled sm = compile(c, task_path("softmax_f32"), kRoot + "/examples/triton/softmax/softmax.py");
    ASSERT_EQ(sm.status, KB_OK) << sm.error;
    EXPECT_EQ(sm.kernel["plan"]["launch"][0]["args"], Json::array({"x", "y", "rows", "cols"}));
    EXPECT_EQ(sm.kernel["plan"]["launch"][0]["constexprs"]["TILES"], "ceil_div(cols,8192)");
    EXPECT_GE(sm.kernel["triton_variants"].size(), 3u);
    // A task without triton_args: the kernel's parameters are named like the
    // task's arguments.
    Compiled neg = compile(c, task_path("softmax_negative_f32"), kRoot + "/examples/triton/softmax/softmax.py");
    ASSERT_EQ(neg.status, KB_OK) << neg.error;
    EXPECT_EQ(neg.kernel["plan"]["launch"][0]["args"], Json::array({"x", "y", "rows", "cols"}));
}

TEST(TritonCandidates, BadLaunchCommentsAndPlansNameThePlace) {
    Ctx c;
    std::string dir = kb::make_temp_dir("kbench-triton-cand-");
    auto write = [&](const std::string& name, const std::string& text) {
        kb::write_file_atomic(dir + "/" + name, text);
        return dir + "/" + name;
    };
    const std::string kernel = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                               "def k(x_ptr, out_ptr, count, BLOCK: tl.constexpr):\n    pass\n";
    Compiled none = compile(c, task_path("vector_add_f32"), write("none.py", kernel));
    EXPECT_EQ(none.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(none.error, "# kbench: launch")) << none.error;

    // softmax_negative_f32 lists no triton_args, and the parameters match nothing.
    Compiled names = compile(c, task_path("softmax_negative_f32"),
                             write("names.py", "# kbench: launch kernel=k grid=rows BLOCK=64\n" + kernel));
    EXPECT_EQ(names.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(names.error, "names.py:1")) << names.error;
    EXPECT_TRUE(has(names.error, "x_ptr, out_ptr, count")) << names.error;
    EXPECT_TRUE(has(names.error, "args=x,y,rows,cols")) << names.error;

    Compiled garbled = compile(c, task_path("vector_add_f32"), write("garbled.py", "# kbench: launch kernel k\n" + kernel));
    EXPECT_EQ(garbled.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(garbled.error, "garbled.py:1")) << garbled.error;
    EXPECT_TRUE(has(garbled.error, "NAME=VALUE")) << garbled.error;

    Compiled grid = compile(c, task_path("vector_add_f32"),
                            write("grid.py", "# kbench: launch kernel=k grid=ceil_div(n,BLOK) BLOCK=64 args=a,c,n\n" + kernel));
    EXPECT_EQ(grid.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(grid.error, "BLOK")) << grid.error;
    EXPECT_TRUE(has(grid.error, "did you mean 'BLOCK'")) << grid.error;

    // A document entry with a CUDA-style block.
    std::string doc = write("doc.json", R"J({"format": "kbench-candidate/1", "language": "triton", "source_file": "names.py",
        "launch": [{"kernel": "k", "grid": 1, "block": 128, "args": ["a", "c", "n"]}]})J");
    Compiled block = compile(c, task_path("vector_add_f32"), doc);
    EXPECT_EQ(block.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(block.error, "candidate.launch[0].block")) << block.error;
    EXPECT_TRUE(has(block.error, "num_warps")) << block.error;

    std::string warps = write("warps.json", R"J({"format": "kbench-candidate/1", "language": "triton", "source_file": "names.py",
        "launch": [{"kernel": "k", "grid": 1, "args": ["a", "c", "n"], "num_warps": 3}]})J");
    Compiled w = compile(c, task_path("vector_add_f32"), warps);
    EXPECT_EQ(w.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(w.error, "candidate.launch[0].num_warps")) << w.error;
    EXPECT_TRUE(has(w.error, "power of two")) << w.error;

    // Metadata with "language": "triton" is the old meaning: say what changed.
    std::string meta = write("meta.json", R"J({"format": "kbench-candidate/1", "language": "triton", "source_file": "names.py",
        "metadata": {"name": "k"}, "launch": [{"kernel": "k", "grid": 1, "args": ["a", "c", "n"]}]})J");
    Compiled m = compile(c, task_path("vector_add_f32"), meta);
    EXPECT_EQ(m.status, KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(m.error, "triton_binary")) << m.error;
    kb::remove_tree(dir);
}

TEST(TritonCandidates, EveryExampleCompiles) {
    Ctx c;
    struct Example {
        const char* task;
        const char* file;
    };
    for (const Example& e : {Example{"vector_add_f32", "vector_add/candidate.json"},
                             Example{"vector_add_f32", "tma_vector_add/candidate.json"},
                             Example{"softmax_f32", "softmax/candidate.json"},
                             Example{"softmax_f32", "softmax/tuned.json"},
                             Example{"gemm_f16", "matmul/candidate.json"},
                             Example{"gemm_f16", "matmul/tuned.json"},
                             Example{"layernorm_f32", "layernorm/candidate.json"},
                             Example{"layernorm_f32", "layernorm/layernorm.py"},
                             Example{"vector_add_f32", "wrong/vector_add_off_by_one.py"},
                             Example{"softmax_f32", "wrong/softmax_missing_other.py"},
                             Example{"softmax_negative_f32", "wrong/softmax_missing_other.py"},
                             Example{"softmax_f32", "wrong/softmax_wrong_axis.py"}}) {
        SCOPED_TRACE(std::string(e.task) + " " + e.file);
        std::string task = task_path(e.task);
        if (std::string(e.file).rfind("tma_", 0) == 0 && !has_tensor_descriptors()) {
            std::printf("  (this Triton has no tl.make_tensor_descriptor: %s not compiled)\n", e.file);
            continue;
        }
        Compiled k = compile(c, task, kRoot + "/examples/triton/" + e.file);
        EXPECT_EQ(k.status, KB_OK) << k.error;
        EXPECT_FALSE(k.kernel["triton_variants"].empty());
    }
}

TEST(TritonCandidates, ScratchKernelGetsItsHiddenBuffer) {
    if (!has_tensor_descriptors()) GTEST_SKIP() << "this Triton has no tl.make_tensor_descriptor (3.4 or newer)";
    Ctx c;
    Compiled k = compile(c, task_path("vector_add_f32"), kRoot + "/examples/triton/tma_vector_add/candidate.json");
    ASSERT_EQ(k.status, KB_OK) << k.error;
    for (const Json& v : k.kernel["triton_variants"]) {
        const Json& l = v["launch"];
        EXPECT_GT(l["global_scratch"]["bytes_per_cta"].get<int64_t>(), 0) << l.dump();
        int hidden = kb::triton_hidden_param_count(kb::parse_triton_version(l["triton_version"]));
        ASSERT_GE(hidden, 1);
        EXPECT_EQ(l["params"][l["params"].size() - size_t(hidden)]["hidden"], "global_scratch");
    }
}

TEST(TritonCandidates, CompileErrorIsTheCandidatesFault) {
    Ctx c;
    std::string dir = kb::make_temp_dir("kbench-triton-err-");
    kb::write_file_atomic(dir + "/bad.py",
                          "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                          "def vector_add(a, b, c, n, BLOCK: tl.constexpr):\n"
                          "    i = tl.arange(0, BLOCK)\n"
                          "    tl.store(c + i, tl.load(a + i) + nope, mask=i < n)\n"
                          "# kbench: launch kernel=vector_add grid=ceil_div(n,BLOCK) BLOCK=256\n");
    Compiled k = compile(c, task_path("vector_add_f32"), dir + "/bad.py");
    EXPECT_EQ(k.status, KB_ERR_COMPILE);
    EXPECT_TRUE(has(k.error, "bad.py:8:")) << k.error;
    EXPECT_TRUE(has(k.error, "nope")) << k.error;
    kb::remove_tree(dir);
}

// `kbench compile` of a Triton candidate on a machine without a GPU.
TEST(TritonCandidates, CliCompilesATritonCandidateWithoutAGpu) {
    std::string cmd = std::string(KB_BINARY_DIR) + "/kbench compile --no-device --arch sm_90 --json " +
                      task_path("vector_add_f32") + " " + kRoot + "/examples/triton/vector_add/vector_add.py 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int rc = ::pclose(p);
    ASSERT_EQ(rc, 0) << out;
    Json j = Json::parse(out.substr(out.find('[')));
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["path"], "triton");
    EXPECT_EQ(j[0]["triton_variants"].size(), 3u);
}

}  // namespace
