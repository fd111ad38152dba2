// Tuning's pure parts (engine/tune.h): which config combinations are tried,
// how they are labelled, and which one wins. The timing itself is a GPU test.
#include <gtest/gtest.h>

#include "engine/result_json.h"
#include "engine/tune.h"
#include "task/task.h"
#include "util/error.h"
#include "util/json.h"

namespace {

using kb::Json;

kb::TaskPtr task() {
    Json t = {{"format", "kbench-task/1"},
              {"name", "t"},
              {"dims", {{"n", "elements"}}},
              {"cases", {{{"name", "c"}, {"dims", {{"n", 1000}}}}}},
              {"perf_case", {{"dims", {{"n", 4096}}}}},
              {"args",
               {{{"name", "x"}, {"role", "in"}, {"dtype", "f32"}, {"shape", {"n"}}},
                {{"name", "y"}, {"role", "out"}, {"dtype", "f32"}, {"shape", {"n"}}, {"tolerance", {{"atol", 0}}}},
                {{"name", "n"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "n"}}}},
              {"reference",
               {{"source", "extern \"C\" __global__ void r(const float*, float*, int) {}"},
                {"launch", {{{"kernel", "r"}, {"grid", 1}, {"block", 1}, {"args", {"x", "y", "n"}}}}}}}};
    return kb::load_task_json(t.dump(), "");
}

kb::Program program(const kb::Task& t, const Json& launch) {
    kb::Program p = kb::parse_launch_plan(launch, t, "launch", false, kb::Language::triton);
    p.language = kb::Language::triton;
    return p;
}

Json entry(const std::string& kernel, const Json& configs) {
    Json e = {{"kernel", kernel}, {"grid", "ceil_div(n, B)"}, {"args", {"x", "y", "n"}}, {"constexprs", {{"B", 256}}}};
    if (!configs.is_null()) e["configs"] = configs;
    return e;
}

TEST(TritonTune, ChoicesAreTheProductOfTheEntriesConfigs) {
    kb::TaskPtr t = task();
    Json two = Json::array({{{"constexprs", {{"B", 512}}}}, {{"num_warps", 8}}});
    Json three = Json::array({{{"num_stages", 1}}, {{"num_stages", 2}}, {{"num_stages", 4}}});
    kb::Program p = program(*t, Json::array({entry("a", two), entry("b", Json()), entry("c", three)}));
    auto choices = kb::triton_config_choices(p);
    ASSERT_EQ(choices.size(), 6u);
    EXPECT_EQ(choices[0], (std::vector<int>{0, -1, 0}));
    EXPECT_EQ(choices[1], (std::vector<int>{0, -1, 1}));
    EXPECT_EQ(choices[5], (std::vector<int>{1, -1, 2}));
    EXPECT_EQ(kb::triton_choice_label(p, choices[0]), "launch[0]: B=512 w4 s3; launch[2]: B=256 w4 s1");
    EXPECT_EQ(kb::triton_choice_label(p, choices[5]), "launch[0]: B=256 w8 s3; launch[2]: B=256 w4 s4");
    kb::Program chosen = p.with_triton_configs(choices[5]);
    EXPECT_FALSE(chosen.has_triton_configs());
    EXPECT_EQ(chosen.launch[0].triton->num_warps, 8);
    EXPECT_EQ(chosen.launch[2].triton->num_stages, 4);
    // Without configs: one choice, the entries' own options.
    kb::Program plain = program(*t, Json::array({entry("a", Json())}));
    EXPECT_EQ(kb::triton_config_choices(plain), (std::vector<std::vector<int>>{{-1}}));
    // Too many combinations is the candidate's plan's fault.
    Json many = Json::array();
    for (int i = 0; i < 9; ++i) many.push_back({{"num_stages", 1 + i % 8}});
    kb::Program big = program(*t, Json::array({entry("a", many), entry("b", many)}));
    try {
        kb::triton_config_choices(big);
        FAIL() << "81 combinations accepted";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_TASK_INVALID);
        EXPECT_NE(std::string(e.what()).find("81 combinations"), std::string::npos) << e.what();
    }
}

TEST(TritonTune, TheFastestWorkingConfigWins) {
    std::vector<kb::TunedConfig> c(4);
    c[0].ok = true;
    c[0].median_us = 12.0;
    c[1].ok = false;  // wrong answer: never chosen, however fast
    c[1].median_us = 1.0;
    c[2].ok = true;
    c[2].median_us = 9.5;
    c[3].ok = true;
    c[3].median_us = 9.5;  // a tie goes to the earlier
    EXPECT_EQ(kb::pick_fastest(c), 2);
    c[0].ok = c[2].ok = c[3].ok = false;
    EXPECT_EQ(kb::pick_fastest(c), -1);
    kb::TuneResult r;
    r.configs = c;
    r.chosen = -1;
    Json j = kb::to_json(r);
    EXPECT_TRUE(j["chosen"].is_null());
    EXPECT_EQ(j["configs"].size(), 4u);
}

}  // namespace
