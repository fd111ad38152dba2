// The builder pool of builds ahead (engine/program_builders.h) with stand-in
// workers: how many builders run at once, what a builder that cannot start
// or fails does to the scores that asked, and the settings' errors. The
// builds themselves are checked with torch (tests/torch/).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "engine/program_builders.h"
#include "util/error.h"
#include "worker_host/program_workers.h"

using namespace kb;

namespace {

// A builder that takes `ms` per candidate and counts how many build at once.
struct FakeBuilder : PythonWorkers {
    std::atomic<int>* busy;
    std::atomic<int>* most;
    int ms;
    bool throws = false;
    FakeBuilder(std::atomic<int>* b, std::atomic<int>* m, int ms_) : busy(b), most(m), ms(ms_) {}
    Json info() override { return Json::object(); }
    ProgramLoadReply load_candidate(const TaskPtr&, const std::string&, const std::string&, const KernelCandidate*,
                                    const std::vector<ProgramRunRequest>&, const ProgramPrebuild*) override {
        return {};
    }
    ProgramRunReply run(ProgramRole, const TaskPtr&, const ProgramRunRequest&) override { return {}; }
    ProgramTimeReply time(ProgramRole, const TaskPtr&, const ProgramTimeRequest&) override { return {}; }
    std::vector<GpuCompareStats> compare_on_gpu(const TaskPtr&, const ProgramRunRequest&,
                                                const std::vector<GpuCompareItem>&) override {
        return {};
    }
    std::optional<ProgramPrebuild> prebuild(const std::string& source, const std::string&, const TaskPtr&) override {
        const int now = ++*busy;
        int seen = most->load();
        while (now > seen && !most->compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        --*busy;
        if (throws || source == "throw") fail(KB_ERR_WORKER, "the builder's set-up broke");
        ProgramPrebuild p;
        p.calls.push_back({"0123456789abcdef0123456789abcdef", "ext", "", "", Json::object()});
        return p;
    }
};

}  // namespace

TEST(ProgramBuilders, NoMoreBuildersRunThanTheCountAndEachIsReused) {
    std::atomic<int> busy{0}, most{0}, started{0};
    ProgramBuilders pool(
        [&] {
            ++started;
            return std::make_unique<FakeBuilder>(&busy, &most, 30);
        },
        2);
    std::vector<std::thread> threads;
    std::atomic<int> built{0};
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&] {
            if (auto p = pool.prebuild("x = 1\n", "c.py"); p && p->calls.size() == 1) ++built;
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(built.load(), 8);
    EXPECT_EQ(most.load(), 2);
    EXPECT_EQ(started.load(), 2);
}

TEST(ProgramBuilders, ABuilderThatCannotStartLeavesEveryBuildToTheLanes) {
    int starts = 0;
    ProgramBuilders pool(
        [&]() -> std::unique_ptr<PythonWorkers> {
            ++starts;
            fail(KB_ERR_NOT_FOUND, "no torch");
        },
        4);
    EXPECT_FALSE(pool.prebuild("a", "a.py"));
    EXPECT_FALSE(pool.prebuild("b", "b.py"));
    EXPECT_EQ(starts, 1);  // its error is kept: the next candidate does not wait for another start
}

TEST(ProgramBuilders, ABuilderThatFailsIsDroppedAndTheNextStartsAfresh) {
    std::atomic<int> busy{0}, most{0}, started{0};
    ProgramBuilders pool(
        [&] {
            ++started;
            return std::make_unique<FakeBuilder>(&busy, &most, 1);
        },
        1);
    EXPECT_FALSE(pool.prebuild("throw", "t.py"));
    EXPECT_TRUE(pool.prebuild("fine", "f.py"));
    EXPECT_EQ(started.load(), 2);
    EXPECT_TRUE(pool.prebuild("fine", "f.py"));
    EXPECT_EQ(started.load(), 2);
}

TEST(ProgramBuilders, LettingGoAnswersWaitingCandidatesAtOnce) {
    std::atomic<int> busy{0}, most{0};
    ProgramBuilders pool([&] { return std::make_unique<FakeBuilder>(&busy, &most, 300); }, 1);
    std::thread first([&] { (void)pool.prebuild("a", "a.py"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pool.let_go();
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(pool.prebuild("b", "b.py"));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
    first.join();
}

TEST(ProgramBuilders, SettingsAndTheSourcesTheyTake) {
    ::unsetenv("KBENCH_PROGRAM_BUILDERS");
    EXPECT_EQ(ProgramBuilders::default_count(16), 12u);
    EXPECT_EQ(ProgramBuilders::default_count(64), 16u);
    EXPECT_EQ(ProgramBuilders::default_count(2), 1u);
    EXPECT_EQ(ProgramBuilders::default_count(1), 1u);
    ::setenv("KBENCH_PROGRAM_BUILDERS", "3", 1);
    EXPECT_EQ(ProgramBuilders::default_count(16), 3u);
    for (const char* bad : {"0", "-1", "two", "65"}) {
        ::setenv("KBENCH_PROGRAM_BUILDERS", bad, 1);
        try {
            (void)ProgramBuilders::default_count(16);
            ADD_FAILURE() << bad << " was taken";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KB_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find("unset it for the default"), std::string::npos) << e.what();
        }
    }
    ::unsetenv("KBENCH_PROGRAM_BUILDERS");
    EXPECT_TRUE(ProgramBuilders::wanted("from torch.utils.cpp_extension import load_inline\n"));
    EXPECT_FALSE(ProgramBuilders::wanted("import triton\n"));
}

TEST(ProgramBuilders, TheBuildersArchitecturesAreTorchsForTheDevice) {
    EXPECT_EQ(torch_arch_list("sm_90"), "9.0+PTX");
    EXPECT_EQ(torch_arch_list("sm_90a"), "9.0a+PTX");
    EXPECT_EQ(torch_arch_list("sm_100"), "10.0+PTX");
    EXPECT_EQ(torch_arch_list("sm_80"), "8.0+PTX");
    EXPECT_EQ(torch_arch_list(""), "");
}
