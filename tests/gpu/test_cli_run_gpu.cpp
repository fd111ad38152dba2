// kbench run on a GPU, worker isolation on (the default): 40 lines of
// bench/make_answers.py (good, wrong, crashing, hanging, not compiling,
// truncated, prose-only, ambiguous answers in model-style wrappings), each
// result line's verdict against the verdict its "meta" expects.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "support/temp_dir.h"
#include "util/files.h"
#include "util/json.h"

namespace {

using kb::Json;

TEST(RunOnGpu, EveryLineGetsTheVerdictItsMetaExpects) {
    kb::test::TempDir dir("kb_run_gpu");
    const std::string d = dir.path();
    const std::string src = KB_SOURCE_DIR;
    const std::string kbench = std::string(KB_BINARY_DIR) + "/kbench";
    std::string cmd = "python3 '" + src + "/bench/make_answers.py' --count 40 --seed 7 --tasks '" + src + "/tasks' -o '" +
                      d + "/answers.jsonl'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    cmd = "cd '" + src + "' && '" + kbench + "' run --json --no-progress --tasks tasks --candidates '" + d +
          "/answers.jsonl' --out '" + d + "/results.jsonl' > '" + d + "/summary.json' 2> '" + d + "/err.txt'";
    int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st));
    EXPECT_EQ(WEXITSTATUS(st), 0) << kb::read_file(d + "/err.txt") << kb::read_file(d + "/summary.json");
    Json summary = Json::parse(kb::read_file(d + "/summary.json"));
    EXPECT_EQ(summary["written"], 40) << summary.dump();
    EXPECT_EQ(summary["isolation"], "worker");

    std::map<std::string, Json> expected;
    {
        std::ifstream in(d + "/answers.jsonl");
        for (std::string line; std::getline(in, line);) {
            Json j = Json::parse(line);
            expected[j["id"].get<std::string>()] = j["meta"];
        }
    }
    std::ifstream in(d + "/results.jsonl");
    std::set<std::string> seen;
    int matched = 0;
    for (std::string line; std::getline(in, line);) {
        Json r = Json::parse(line);
        std::string id = r["id"].get<std::string>();
        EXPECT_TRUE(seen.insert(id).second) << "duplicate " << id;
        ASSERT_TRUE(expected.count(id)) << id;
        const Json& meta = expected[id];
        EXPECT_EQ(r["meta"], meta) << id << ": meta is copied unchanged";
        std::string want = meta["expect_verdict"].get<std::string>();
        EXPECT_EQ(r["verdict"], want) << id << " (" << meta.dump() << "): " << r["message"];
        if (r["verdict"] == want) ++matched;
        if (r["verdict"] == "pass") {
            EXPECT_TRUE(r.contains("speedup")) << r.dump();
            EXPECT_TRUE(r.contains("candidate_median_us")) << r.dump();
            EXPECT_EQ(r["gpu"], 0);
        }
    }
    EXPECT_EQ(seen.size(), 40u);
    std::printf("%d of 40 lines got the verdict their meta expects\n", matched);
}

}  // namespace
