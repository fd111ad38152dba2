// The limits on what kbench reads (src/task/limits.h, docs/limits.md): every
// size is refused before it is used, with a message naming the field, the
// limit and the kb_limits field that raises it; nothing here may crash,
// hang or allocate what the input announces.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "support/temp_dir.h"
#include "task/expr.h"
#include "task/task.h"
#include "util/error.h"
#include "util/files.h"

namespace {

using kb::Json;
using kb::Limits;

Json small_task() {
    return Json::parse(R"J({
      "format": "kbench-task/1",
      "name": "t",
      "dims": {"n": "elements"},
      "cases": [{"name": "one", "dims": {"n": 1}}],
      "perf_case": {"dims": {"n": 4096}},
      "args": [
        {"name": "a", "role": "in", "dtype": "f32", "shape": ["n"]},
        {"name": "c", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 1e-6, "rtol": 1e-6}},
        {"name": "n", "role": "scalar", "dtype": "i32", "value": "n"}
      ],
      "reference": {
        "source": "__global__ void ref(const float* a, float* c, int n) {}",
        "launch": [{"kernel": "ref", "grid": "ceil_div(n, 256)", "block": 256, "args": ["a", "c", "n"]}]
      },
      "candidate": {"launch": [{"kernel": "k", "grid": "ceil_div(n, 256)", "block": 256, "args": ["a", "c", "n"]}]}
    })J");
}

// The call fails with `status` and a message holding every part.
testing::AssertionResult Refuses(const std::function<void()>& f, const std::vector<std::string>& parts,
                                 kb_status status = KB_ERR_TASK_INVALID) {
    try {
        f();
    } catch (const kb::Error& e) {
        std::string msg = e.what();
        if (e.status() != status)
            return testing::AssertionFailure() << "status " << e.status() << " instead of " << status << ": " << msg;
        for (const auto& p : parts)
            if (msg.find(p) == std::string::npos) return testing::AssertionFailure() << "lacks \"" << p << "\": " << msg;
        return testing::AssertionSuccess() << msg;
    }
    return testing::AssertionFailure() << "accepted";
}

// A folder named after this file's tests.
struct TempDir : kb::test::TempDir {
    TempDir() : kb::test::TempDir("kbench_limits") {}
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ---- documents ------------------------------------------------------------

TEST(Limits, HundredThousandDeepJsonIsRefusedWithoutRecursing) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(deep, ""); },
                        {"task:", "nests deeper than 64 levels", "line 1, column 65", "kb_limits.max_json_depth"}));
    EXPECT_TRUE(Refuses([&] { kb::parse_json_text(deep, "launch_json"); }, {"launch_json:", "nests deeper"}));
    // Objects count too; brackets inside strings do not.
    std::string objects;
    for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
    EXPECT_TRUE(Refuses([&] { kb::parse_json_text(objects, "doc"); }, {"nests deeper than 64"}));
    EXPECT_NO_THROW(kb::parse_json_text("{\"a\": \"" + std::string(1000, '[') + "\\\"[[\"}", "doc"));
    // The limit is the caller's to raise.
    Limits l;
    l.max_json_depth = 3;
    EXPECT_TRUE(Refuses([&] { kb::parse_json_text("[[[[1]]]]", "doc", l); }, {"nests deeper than 3"}));
    EXPECT_NO_THROW(kb::parse_json_text("[[[1]]]", "doc", l));
}

TEST(Limits, DocumentSize) {
    Limits l;
    l.max_document_bytes = 1000;
    std::string text = small_task().dump(2);
    ASSERT_GT(text.size(), 1000u);
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(text, "", l); },
                        {"task:", "the document is " + std::to_string(text.size()) + " bytes long",
                         "at most 1000 bytes", "kb_limits.max_document_bytes"}));
    TempDir dir;
    std::string path = dir.write("task.json", text);
    EXPECT_TRUE(Refuses([&] { kb::load_task(path, l); }, {path, "at most 1000 bytes"}));
    EXPECT_NO_THROW(kb::load_task(path));
}

TEST(Limits, FiftyMegabyteSourceIsRefusedByItsSize) {
    // From a file: refused by its size, before a byte is read.
    const std::string big = "// " + std::string(50u << 20, 'x') + "\n__global__ void ref() {}";
    TempDir dir;
    dir.write("big.cu", big);
    Json t = small_task();
    t["reference"].erase("source");
    t["reference"]["source_file"] = "big.cu";
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), dir.path()); },
                        {"reference.source_file:", "'big.cu' is " + std::to_string(big.size()) + " bytes long",
                         "at most 16 MiB", "kb_limits.max_source_bytes"}));
    EXPECT_LT(seconds_since(t0), 1.0);
    // Inline, and as base64 (a smaller limit keeps the document small).
    Limits l;
    l.max_source_bytes = 1000;
    t = small_task();
    t["reference"]["source"] = "// " + std::string(2000, 'x') + "\n__global__ void ref() {}";
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), "", l); },
                        {"reference.source:", "the code is 2028 bytes long", "at most 1000 bytes"}));
    t["reference"].erase("source");
    t["reference"]["language"] = "cubin";
    t["reference"]["source_base64"] = std::string(4000, 'A');
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), "", l); }, {"reference.source_base64:", "at most 1000"}));
}

TEST(Limits, DevicesFifosAndDirectoriesAreNeverRead) {
    Json t = small_task();
    t["reference"].erase("source");
    for (const char* path : {"/dev/zero", "/dev/urandom"}) {
        t["reference"]["source_file"] = path;
        auto t0 = std::chrono::steady_clock::now();
        EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); },
                            {"reference.source_file:", path, "a character device", "expected a regular file"},
                            KB_ERR_IO));
        EXPECT_LT(seconds_since(t0), 1.0);
    }
    TempDir dir;
    std::string fifo = dir.path() + "/pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    t["reference"]["source_file"] = fifo;
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); }, {"a FIFO"}, KB_ERR_IO));
    EXPECT_LT(seconds_since(t0), 1.0);  // opening a FIFO without a writer did not wait
    EXPECT_TRUE(Refuses([&] { kb::load_task(dir.path()); }, {"a directory"}, KB_ERR_IO));
    EXPECT_TRUE(Refuses([&] { kb::load_task("/dev/zero"); }, {"a character device"}, KB_ERR_IO));
}

// ---- counts ---------------------------------------------------------------

TEST(Limits, CasesArgsDimsStepsKernelArgsAndScratch) {
    Json t = small_task();
    Json cases = Json::array();
    for (int i = 0; i < 300; ++i) cases.push_back({{"name", "c" + std::to_string(i)}, {"dims", {{"n", i + 1}}}});
    t["cases"] = cases;
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); },
                        {"cases:", "301 cases (with the perf case)", "at most 256", "kb_limits.max_cases"}));
    Limits l;
    l.max_cases = 400;
    EXPECT_NO_THROW(kb::load_task_json(t.dump(), "", l));

    t = small_task();
    l = Limits();
    l.max_args = 2;
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), "", l); }, {"args:", "3 arguments", "kb_limits.max_args"}));
    l = Limits();
    l.max_dims = 0;
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), "", l); }, {"dims:", "1 dims", "kb_limits.max_dims"}));

    l = Limits();
    l.max_launch_steps = 1;
    Json two = t;
    two["reference"]["launch"].push_back(two["reference"]["launch"][0]);
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(two.dump(), "", l); },
                        {"reference.launch:", "2 launch steps", "kb_limits.max_launch_steps"}));
    l = Limits();
    l.max_kernel_args = 2;
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), "", l); },
                        {"reference.launch[0].args:", "3 kernel arguments", "kb_limits.max_kernel_args"}));
    l = Limits();
    l.max_scratch = 0;
    Json s = t;
    s["reference"]["scratch"] = Json::parse(R"J([{"name": "tmp", "dtype": "f32", "shape": ["n"]}])J");
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(s.dump(), "", l); },
                        {"reference.scratch:", "1 scratch buffers", "kb_limits.max_scratch"}));

    // A candidate's plan is held to the limits its caller passes.
    kb::TaskPtr task = kb::load_task_json(t.dump(), "");
    Json plan = Json::array();
    for (int i = 0; i < 65; ++i) plan.push_back(t["reference"]["launch"][0]);
    EXPECT_TRUE(Refuses([&] { kb::parse_launch_plan(plan, *task, "launch_json"); },
                        {"launch_json.launch:", "65 launch steps", "at most 64"}));
}

TEST(Limits, BufferOfTwoToTheSixtyTwoElementsOverflowsItsByteCount) {
    Json t = small_task();
    t["args"][1]["shape"] = Json::array({"4611686018427387904"});  // 2^62 f32 elements: 2^64 bytes
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); },
                        {"args[1].shape:", "4611686018427387904 elements of f32 overflow the byte count",
                         "at most 2^62 bytes"}));
    t["args"][1]["shape"] = Json::array({"n * 4611686018427387904 * 2"});
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); }, {"args[1].shape", "integer overflow"}));
    t["args"][1]["shape"] = Json::array({"n", 2147483648LL, 2147483648LL, 2});
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), ""); },
                        {"args[1].shape:", "the element count overflows", "at most 2^62 elements"}));
}

// ---- expressions ----------------------------------------------------------

TEST(Limits, ExpressionsThatDivideByZeroOverflowOrNestTooDeep) {
    Json t = small_task();
    auto grid = [&](const Json& g) {
        Json x = t;
        x["reference"]["launch"][0]["grid"] = g;
        return x.dump();
    };
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("n / (n - 1)"), ""); },
                        {"reference.launch[0].grid:", "division by zero", "at case 'one' (n=1)"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("ceil_div(n, n - n)"), ""); }, {"division by zero"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("n % 0"), ""); }, {"division by zero"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("n * 4611686018427387904 * 4"), ""); }, {"integer overflow"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("99999999999999999999"), ""); }, {"too large for 64 bits"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("(0 - 9223372036854775807 - 1) / -1 + n"), ""); },
                        {"integer overflow"}));

    const std::string longer(2000, '1');
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid(longer), ""); },
                        {"reference.launch[0].grid:", "2000 characters long", "at most 1024",
                         "kb_limits.max_expression_chars"}));
    std::string deep = std::string(40, '(') + "n" + std::string(40, ')');
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid(deep), ""); },
                        {"nests deeper than 32 levels", "kb_limits.max_expression_depth"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid(std::string(40, '-') + "n"), ""); }, {"nests deeper"}));
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(grid("min(" + std::string(40, '(') + "n" + std::string(40, ')') + ", 1)"), ""); },
                        {"nests deeper"}));
    // Within the limits, deep and long is fine; the limits are the caller's.
    EXPECT_NO_THROW(kb::load_task_json(grid(std::string(30, '(') + "n" + std::string(30, ')')), ""));
    Limits l;
    l.max_expression_depth = 100;
    EXPECT_NO_THROW(kb::load_task_json(grid(deep), "", l));
}

TEST(Limits, ExpressionParserRefusesHugeInputWithoutRecursing) {
    // Straight to the parser, as the fuzz target calls it: 100,000 levels.
    const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
    try {
        kb::Expr::parse(deep, deep.size(), kb::Expr::kDefaultMaxDepth);
        FAIL() << "parsed";
    } catch (const kb::ExprError& e) {
        EXPECT_NE(std::string(e.what()).find("nests deeper than 32"), std::string::npos) << e.what();
    }
    EXPECT_THROW(kb::Expr::parse(deep), kb::ExprError);                       // the length, by default
    EXPECT_THROW(kb::Expr::parse(std::string(100000, '-') + "1", 200000), kb::ExprError);
    // A long chain of binary operators is a loop, not recursion: fine.
    std::string chain = "1";
    for (int i = 0; i < 400; ++i) chain += "+1";
    EXPECT_EQ(kb::Expr::parse(chain).eval({}), 401);
}

// ---- candidate documents ---------------------------------------------------

TEST(Limits, CandidateDocumentFilesStayInsideItsFolder) {
    kb::TaskPtr task = kb::load_task_json(small_task().dump(), "");
    TempDir outer;
    outer.write("secret.h", "SECRET_CONTENT_0451\n");
    outer.write("cand/k.cu", "__global__ void k(const float* a, float* c, int n) {}\n");
    outer.write("cand/common.cuh", "#define X 1\n");
    const std::string dir = outer.path() + "/cand";
    ASSERT_EQ(::symlink((outer.path() + "/secret.h").c_str(), (dir + "/link.h").c_str()), 0);
    ASSERT_EQ(::symlink("/dev/zero", (dir + "/zero.h").c_str()), 0);

    auto doc = [](const std::string& file, const Json& headers) {
        Json d{{"format", "kbench-candidate/1"}, {"source_file", file}};
        if (!headers.is_null()) d["headers"] = headers;
        return d;
    };
    kb::Program p = kb::parse_candidate_document(doc("k.cu", Json::array({"common.cuh"})), *task, dir);
    ASSERT_EQ(p.headers.size(), 1u);
    EXPECT_EQ(p.headers[0].name, "common.cuh");
    EXPECT_EQ(p.headers[0].text, "#define X 1\n");

    for (const char* bad : {"../secret.h", "/etc/passwd", "link.h", "zero.h", "./../secret.h"}) {
        std::string msg;
        try {
            kb::parse_candidate_document(doc(bad, Json()), *task, dir);
        } catch (const kb::Error& e) {
            msg = e.what();
        }
        EXPECT_NE(msg.find("candidate.source_file:"), std::string::npos) << bad << ": " << msg;
        EXPECT_EQ(msg.find("SECRET_CONTENT"), std::string::npos) << msg;
        try {
            kb::parse_candidate_document(doc("k.cu", Json::array({bad})), *task, dir);
            ADD_FAILURE() << bad << " accepted as a header";
        } catch (const kb::Error& e) {
            msg = e.what();
            EXPECT_NE(msg.find("candidate.headers[0]"), std::string::npos) << bad << ": " << msg;
            EXPECT_EQ(msg.find("SECRET_CONTENT"), std::string::npos) << msg;
        }
    }
    Limits l;
    l.max_headers = 1;
    EXPECT_TRUE(Refuses(
        [&] { kb::parse_candidate_document(doc("k.cu", Json::array({"common.cuh", "common.cuh"})), *task, dir, l); },
        {"candidate.headers:", "2 headers", "kb_limits.max_headers"}));
    EXPECT_TRUE(Refuses(
        [&] { kb::parse_candidate_document(doc("k.cu", Json::array({"common.cuh", "./common.cuh"})), *task, dir); },
        {"named twice"}));
    // A task's programs name headers the same way (as their #include spells
    // them); a link to a device is still never read.
    Json t = small_task();
    t["reference"]["headers"] = Json::array({"../secret.h"});
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), dir); }, {"reference.headers[0]:", "'..' component"}));
    t["reference"]["headers"] = Json::array({"zero.h"});
    EXPECT_TRUE(Refuses([&] { kb::load_task_json(t.dump(), dir); }, {"reference.headers[0]:", "a character device"},
                        KB_ERR_IO));
    t["reference"]["headers"] = Json::array({"common.cuh"});
    kb::TaskPtr with_header = kb::load_task_json(t.dump(), dir);
    ASSERT_EQ(with_header->reference.headers.size(), 1u);
    // The normalised task carries the header inline, and loads again anywhere.
    kb::TaskPtr again = kb::load_task_json(with_header->normalized_json, "");
    EXPECT_EQ(again->reference.headers.at(0).text, "#define X 1\n");
    EXPECT_EQ(again->hash, with_header->hash);
}

TEST(Limits, TrustedLimitsAcceptWhatTheHostAccepted) {
    Json t = small_task();
    Json cases = Json::array();
    for (int i = 0; i < 300; ++i) cases.push_back({{"name", "c" + std::to_string(i)}, {"dims", {{"n", i + 1}}}});
    t["cases"] = cases;
    Limits roomy;
    roomy.max_cases = 1000;
    kb::TaskPtr host = kb::load_task_json(t.dump(), "", roomy);
    kb::TaskPtr worker = kb::load_task_json(host->normalized_json, "", Limits::trusted());
    EXPECT_EQ(worker->hash, kb::load_task_json(worker->normalized_json, "", Limits::trusted())->hash);
    EXPECT_EQ(worker->cases.size(), 301u);
}

}  // namespace
