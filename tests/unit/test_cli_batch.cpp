// The batch subcommands of the kbench tool (kbench extract, kbench report),
// run as a user runs them: exit codes (0 ok, 1 a finding or invalid input,
// 2 usage), --help with an example, and --json output that is valid JSON in
// every case, errors included.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "util/json.h"

namespace {

using kb::Json;
namespace fs = std::filesystem;

const std::string kKbench = std::string(KB_BINARY_DIR) + "/kbench";
const std::string kSource = KB_SOURCE_DIR;
const std::string kAnswers = kSource + "/tests/fixtures/answers/";

struct Outcome {
    int rc = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `kbench <args>` through the shell, from the source folder.
Outcome kbench(const std::string& args, const std::string& stdin_text = "") {
    static int n = 0;
    std::string base = (fs::temp_directory_path() / ("kb_cli_" + std::to_string(::getpid()) + "_" + std::to_string(n++))).string();
    std::string in = base + ".in";
    std::ofstream(in) << stdin_text;
    std::string cmd = "cd '" + kSource + "' && '" + kKbench + "' " + args + " < '" + in + "' > '" + base + ".out' 2> '" +
                      base + ".err'";
    int status = std::system(cmd.c_str());
    Outcome r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    for (const char* ext : {".in", ".out", ".err"}) fs::remove(base + ext);
    return r;
}

// Parses r.out as JSON, failing the test (with the text) when it is not.
Json json_of(const Outcome& r) {
    try {
        return Json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not JSON (" << e.what() << "):\n" << r.out << "\nstderr:\n" << r.err;
        return Json();
    }
}

TEST(CliExtract, HelpHasAnExample) {
    Outcome r = kbench("extract --help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("usage: kbench extract"), std::string::npos);
    EXPECT_NE(r.out.find("examples:"), std::string::npos);
}

TEST(CliExtract, ShowsThePickedBlockAndTheCode) {
    Outcome r = kbench("extract --task tasks/reductions/sum_f32 " + kAnswers + "helper_in_separate_block.txt");
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("outcome   ok"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("block     2 of 3 (code from blocks 1, 2)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("__device__ __forceinline__ float warp_sum"), std::string::npos) << r.out;
}

TEST(CliExtract, ReadsStandardInputAndPrintsJson) {
    Outcome r = kbench("extract --json --language cuda --entry k -", "```cuda\n__global__ void k(float* x) { x[0] = 1; }\n```\n");
    EXPECT_EQ(r.rc, 0) << r.err;
    Json j = json_of(r);
    EXPECT_EQ(j["outcome"], "ok");
    EXPECT_EQ(j["picked_block"], 1);
    EXPECT_EQ(j["entries"], Json::array({"k"}));
    EXPECT_NE(j["code"].get<std::string>().find("__global__ void k"), std::string::npos);
}

TEST(CliExtract, CodeOnlyPrintsJustTheCode) {
    Outcome r = kbench("extract --code-only " + kAnswers + "gpt_chatty_single_block.txt");
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.out.rfind("// Each thread handles one element.", 0), 0u) << r.out;
}

TEST(CliExtract, NoCodeAndAmbiguousExitOne) {
    EXPECT_EQ(kbench("extract " + kAnswers + "prose_only_refusal.txt").rc, 1);
    Outcome r = kbench("extract --json --task tasks/elementwise/vector_add_f32 " + kAnswers + "two_alternatives_ambiguous.txt");
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(json_of(r)["outcome"], "ambiguous");
}

TEST(CliExtract, ErrorsAreJsonWithJsonAndExitAsDocumented) {
    struct Case {
        std::string args;
        int rc;
        std::string part;
    } cases[] = {
        {"extract --json no_such_answer.txt", 1, "no_such_answer.txt"},
        {"extract --json --task no_such_task.json " + kAnswers + "cpp_tag.txt", 1, "no_such_task.json"},
        {"extract --json --language rust x.txt", 2, "--language expects cuda, triton or detect"},
        {"extract --json --bogus", 2, "unknown option '--bogus'"},
        {"extract --json", 2, "no answer file given"},
        {"extract --json --task", 2, "--task needs a value"},
        {"extract --json --candidates no_such.jsonl", 1, "no_such.jsonl"},
    };
    for (const Case& c : cases) {
        Outcome r = kbench(c.args);
        EXPECT_EQ(r.rc, c.rc) << c.args;
        Json j = json_of(r);
        ASSERT_TRUE(j.is_object()) << c.args;
        EXPECT_NE(j["error"].value("message", "").find(c.part), std::string::npos) << c.args << ": " << r.out;
        // Without --json the same error goes to stderr.
        std::string plain = c.args;
        plain.erase(plain.find(" --json"), 7);
        Outcome p = kbench(plain);
        EXPECT_EQ(p.rc, c.rc) << plain;
        EXPECT_NE(p.err.find(c.part), std::string::npos) << plain << ": " << p.err;
    }
}

TEST(CliExtract, EveryLineOfACandidatesFile) {
    std::string file = (fs::temp_directory_path() / ("kb_cands_" + std::to_string(::getpid()) + ".jsonl")).string();
    {
        std::ofstream out(file);
        out << Json({{"task", "vector_add_f32"}, {"id", 1}, {"answer", slurp(kAnswers + "r1_think_then_answer.txt")}}).dump()
            << "\n"
            << Json({{"task", "vector_add_f32"}, {"id", 2}, {"answer", "no code here, sorry about that one"}}).dump()
            << "\n\n"
            << Json({{"task", "sum_f32"}, {"id", 3}, {"candidate", {{"format", "kbench-candidate/1"}, {"source", "x"}}}})
                   .dump()
            << "\n";
    }
    Outcome r = kbench("extract --json --candidates " + file + " --tasks tasks");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    Json j = json_of(r);
    EXPECT_EQ(j["candidates"], 3);
    EXPECT_EQ(j["outcomes"]["ok"], 1);
    EXPECT_EQ(j["outcomes"]["no_code"], 1);
    EXPECT_EQ(j["outcomes"]["document"], 1);
    EXPECT_EQ(j["lines"][0]["picked_block"], 2);
    // A task name that is not under --tasks is a bad line, named with its line number: exit 1.
    {
        std::ofstream out(file, std::ios::app);
        out << Json({{"task", "no_such_task"}, {"id", 4}, {"answer", "x"}}).dump() << "\n";
    }
    Outcome bad = kbench("extract --json --candidates " + file + " --tasks tasks");
    EXPECT_EQ(bad.rc, 1);
    Json b = json_of(bad);
    ASSERT_EQ(b["errors"].size(), 1u);
    EXPECT_EQ(b["errors"][0]["line"], 5);
    EXPECT_NE(b["errors"][0]["message"].get<std::string>().find(":5: no task named 'no_such_task'"), std::string::npos)
        << b["errors"][0];
    fs::remove(file);
}

// ---- kbench report ----------------------------------------------------------------

std::string temp_file(const std::string& name, const std::string& text) {
    std::string path = (fs::temp_directory_path() / ("kb_rep_" + std::to_string(::getpid()) + "_" + name)).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

const char* kResults =
    "{\"task\":\"vector_add_f32\",\"id\":1,\"sample\":0,\"model\":\"m\",\"verdict\":\"pass\",\"speedup\":2.5}\n"
    "{\"task\":\"vector_add_f32\",\"id\":1,\"sample\":1,\"model\":\"m\",\"verdict\":\"wrong_answer\"}\n"
    "{\"task\":\"sum_f32\",\"id\":2,\"sample\":0,\"model\":\"m\",\"verdict\":\"pass\",\"speedup\":0.9}\n"
    "{\"task\":\"sum_f32\",\"id\":2,\"sample\":1,\"model\":\"m\",\"verdict\":\"no_code\"}\n";

TEST(CliReport, HelpHasAnExample) {
    Outcome r = kbench("report --help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("usage: kbench report"), std::string::npos);
    EXPECT_NE(r.out.find("examples:"), std::string::npos);
}

TEST(CliReport, JsonCsvTextAndHtml) {
    std::string file = temp_file("ok.jsonl", kResults);
    std::string html = file + ".html";
    Outcome j = kbench("report --json --by task --html " + html + " " + file);
    EXPECT_EQ(j.rc, 0) << j.err;
    Json doc = json_of(j);
    // 4 candidates, 2 pass: exec 0.5; fast_1: only the 2.5 -> 0.25; call: 3 of 4 compiled.
    EXPECT_DOUBLE_EQ(doc["exec_accuracy"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(doc["call_accuracy"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(doc["fast_p"]["1"].get<double>(), 0.25);
    EXPECT_DOUBLE_EQ(doc["groups"]["sum_f32"]["exec_accuracy"].get<double>(), 0.5);
    EXPECT_EQ(doc["html"], html);
    std::string page = slurp(html);
    EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(page.find("vector_add_f32"), std::string::npos);
    Outcome c = kbench("report --csv --by model " + file);
    EXPECT_EQ(c.rc, 0);
    EXPECT_EQ(c.out.rfind("group,candidates,", 0), 0u) << c.out;
    EXPECT_NE(c.out.find("\nm,4,2,"), std::string::npos) << c.out;
    Outcome t = kbench("report " + file);
    EXPECT_EQ(t.rc, 0);
    EXPECT_NE(t.out.find("exec accuracy         50.0%"), std::string::npos) << t.out;
    fs::remove(file);
    fs::remove(html);
}

TEST(CliReport, ACutOffLastLineIsAWarningNotAnError) {
    std::string file = temp_file("cut.jsonl", std::string(kResults) + "{\"task\":\"sum_f32\",\"id\":3,\"verd");
    Outcome r = kbench("report --json " + file);
    EXPECT_EQ(r.rc, 0) << r.out;
    Json j = json_of(r);
    EXPECT_EQ(j["candidates"], 4);
    ASSERT_EQ(j["warnings"].size(), 1u);
    EXPECT_NE(j["warnings"][0].get<std::string>().find("cut off"), std::string::npos);
    fs::remove(file);
}

TEST(CliReport, ErrorsAreJsonWithJsonAndExitAsDocumented) {
    std::string bad = temp_file("bad.jsonl", std::string(kResults) + "{\"task\":\"t\",\"id\":9}\n" + kResults);
    struct Case {
        std::string args;
        int rc;
        std::string part;
    } cases[] = {
        {"report --json no_such_results.jsonl", 1, "no_such_results.jsonl: no such file"},
        {"report --json " + bad, 1, "1 invalid line(s)"},
        {"report --json --by gpu x.jsonl", 2, "--by expects task, family or model"},
        {"report --json", 2, "no results file given"},
        {"report --json --csv x.jsonl", 2, "--json and --csv exclude each other"},
        {"report --json --frobnicate x.jsonl", 2, "unknown option '--frobnicate'"},
        {"report --json --html /no/such/dir/r.html " + temp_file("ok2.jsonl", kResults), 1, "/no/such/dir"},
    };
    for (const Case& c : cases) {
        Outcome r = kbench(c.args);
        EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out << r.err;
        Json j = json_of(r);
        ASSERT_TRUE(j.is_object()) << c.args;
        EXPECT_NE(j["error"].value("message", "").find(c.part), std::string::npos) << c.args << ": " << r.out;
        if (c.part.find("--json") != std::string::npos) continue;  // the error is about --json itself
        std::string plain = c.args;
        plain.erase(plain.find(" --json"), 7);
        Outcome p = kbench(plain);
        EXPECT_EQ(p.rc, c.rc) << plain;
        EXPECT_NE(p.err.find(c.part), std::string::npos) << plain << ": " << p.err;
    }
    Outcome r = kbench("report --json " + bad);
    Json j = json_of(r);
    ASSERT_EQ(j["error"]["errors"].size(), 1u);
    EXPECT_EQ(j["error"]["errors"][0]["line"], 5);
    EXPECT_NE(j["error"]["errors"][0]["message"].get<std::string>().find(":5: \"verdict\" is missing"), std::string::npos);
    fs::remove(bad);
    fs::remove(temp_file("ok2.jsonl", ""));
}

}  // namespace
