// The answer corpus: every tests/fixtures/answers/<name>.txt is a model answer
// in a shape models really produce, and <name>.json says what extraction
// must make of it (docs/batch.md, "Answer extraction"):
//
//   {"_about": "...", "task": "vector_add_f32" (entries from its default plan),
//    "options": {"language": "cuda|triton|detect", "entries": [...], "include_reasoning": false},
//    "expect": {"outcome", "language", "picked_block", "used_blocks", "flags" (exactly these),
//               "code_contains": [...], "code_excludes": [...], "code_first_line",
//               "reason_contains", "notes_contain",
//               "compiles": true|false (NVRTC, compile-only, against the task)}}
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "evaluate/extract.h"
#include "evaluate/task_index.h"
#include "kbench.h"
#include "support/task_paths.h"
#include "task/task.h"
#include "util/files.h"

namespace {

using kb::Json;
using namespace kb::evaluate;
namespace fs = std::filesystem;

const fs::path kDir = fs::path(KB_SOURCE_DIR) / "tests" / "fixtures" / "answers";

std::vector<std::string> fixture_names() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(kDir))
        if (e.path().extension() == ".txt") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// A compile-only context shared by the fixtures that check compilation.
kb_context* compile_context() {
    static kb_context* ctx = [] {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.flags = KB_CONTEXT_NO_NVCC_FALLBACK;  // fast failures: these are NVRTC-clean or plainly broken
        kb_context* c = nullptr;
        if (kb_context_create(&o, &c) != KB_OK) ADD_FAILURE() << "no compile-only context: " << kb_last_error();
        return c;
    }();
    return ctx;
}

TEST(AnswerCorpus, HasAtLeastThirtyShapesEachWithItsExpectation) {
    std::vector<std::string> names = fixture_names();
    EXPECT_GE(names.size(), 30u);
    for (const std::string& n : names) EXPECT_TRUE(fs::exists(kDir / (n + ".json"))) << n << ".json is missing";
    for (const auto& e : fs::directory_iterator(kDir))
        if (e.path().extension() == ".json")
            EXPECT_TRUE(fs::exists(kDir / (e.path().stem().string() + ".txt"))) << e.path() << " has no .txt";
}

class AnswerFixture : public testing::TestWithParam<std::string> {};

TEST_P(AnswerFixture, ExtractsWhatTheSidecarSays) {
    const std::string name = GetParam();
    Json spec = Json::parse(kb::read_file((kDir / (name + ".json")).string()));
    std::string answer = kb::read_file((kDir / (name + ".txt")).string());
    SCOPED_TRACE(spec.value("_about", name));

    ExtractOptions opt;
    kb::TaskPtr task;
    if (spec.contains("task")) {
        task = kb::load_task(kb::test::builtin_task_file(spec["task"].get<std::string>()));
        opt.entries = task_entries(*task);
    }
    if (spec.contains("options")) {
        const Json& o = spec["options"];
        if (o.contains("language")) ASSERT_TRUE(parse_answer_language(o["language"], &opt.language));
        if (o.contains("entries")) opt.entries = o["entries"].get<std::vector<std::string>>();
        opt.include_reasoning = o.value("include_reasoning", false);
    }
    Extraction x = extract_answer(answer, opt);
    const Json& want = spec["expect"];
    std::string dump = x.to_json(true, true).dump(2);
    SCOPED_TRACE("extraction: " + dump);

    EXPECT_EQ(extract_outcome_name(x.outcome), want["outcome"].get<std::string>());
    if (want.contains("language")) EXPECT_EQ(x.language, want["language"].get<std::string>());
    if (want.contains("picked_block")) EXPECT_EQ(x.picked_block, want["picked_block"].get<int>());
    if (want.contains("used_blocks")) EXPECT_EQ(x.used_blocks, want["used_blocks"].get<std::vector<int>>());
    if (want.contains("flags")) {
        std::set<std::string> got(x.flags.begin(), x.flags.end());
        auto w = want["flags"].get<std::vector<std::string>>();
        EXPECT_EQ(got, std::set<std::string>(w.begin(), w.end()));
    }
    for (const auto& s : want.value("code_contains", Json::array()))
        EXPECT_NE(x.code.find(s.get<std::string>()), std::string::npos) << "code lacks: " << s;
    for (const auto& s : want.value("code_excludes", Json::array()))
        EXPECT_EQ(x.code.find(s.get<std::string>()), std::string::npos) << "code holds: " << s;
    if (want.contains("code_first_line"))
        EXPECT_EQ(x.code.substr(0, x.code.find('\n')), want["code_first_line"].get<std::string>());
    if (want.contains("reason_contains"))
        EXPECT_NE(x.reason.find(want["reason_contains"].get<std::string>()), std::string::npos) << x.reason;
    if (want.contains("notes_contain")) {
        std::string w = want["notes_contain"];
        EXPECT_TRUE(std::any_of(x.notes.begin(), x.notes.end(), [&](const std::string& n) {
            return n.find(w) != std::string::npos;
        })) << "no note contains: " << w;
    }
    // Every outcome explains itself; only ok carries code.
    EXPECT_FALSE(x.reason.empty());
    EXPECT_EQ(x.outcome == ExtractOutcome::ok, !x.code.empty());

    if (want.contains("compiles")) {
        ASSERT_TRUE(task) << "\"compiles\" needs a \"task\"";
        ASSERT_EQ(x.outcome, ExtractOutcome::ok);
        kb_task* t = nullptr;
        ASSERT_EQ(kb_load_task((kb::test::builtin_task_file(spec["task"].get<std::string>())).c_str(), &t), KB_OK);
        kb_candidate c = KB_CANDIDATE_INIT;
        c.language = KB_LANG_CUDA;
        c.code = x.code.c_str();
        c.label = name.c_str();
        kb_kernel* k = nullptr;
        kb_status s = kb_compile(compile_context(), t, &c, &k);
        std::string err = s == KB_OK ? "" : kb_last_error();
        kb_kernel_destroy(k);
        kb_task_destroy(t);
        EXPECT_EQ(s == KB_OK, want["compiles"].get<bool>()) << kb_status_string(s) << ": " << err.substr(0, 2000);
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AnswerFixture, testing::ValuesIn(fixture_names()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
