// The batch API's queue on a machine without a GPU: compile-only jobs
// (KB_SCORE_COMPILE_ONLY) go through the same threads and bookkeeping as
// scored ones, so ordering, capacity, cancellation, errors and shutdown are
// checked here; tests/gpu/test_batch_gpu.cpp checks verdicts on a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kbench.h"
#include "support/task_paths.h"
#include "util/json.h"

namespace {

// A distinct, correct kernel per index: distinct sources miss the compile
// cache (on disk too: the salt differs between runs), so every job compiles.
std::string kernel_source(int i) {
    static const std::string salt = std::to_string(std::random_device{}());
    return "// variant " + salt + "." + std::to_string(i) +
           "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) c[i] = a[i] + b[i];\n}\n";
}
const char* kBrokenSource = "__global__ void vector_add(const float* a, const float* b, float* c, int n) { c[0] = ; }\n";

struct BatchFixture : ::testing::Test {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;
    kb_score_options compile_only = KB_SCORE_OPTIONS_INIT;

    void SetUp() override {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.isolation = KB_ISOLATION_IN_PROCESS;
        o.arch = "sm_90";
        o.flags = KB_CONTEXT_NO_NVCC_FALLBACK;
        ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
        ASSERT_EQ(kb_load_task(kb::test::builtin_task_file("vector_add_f32").c_str(), &task), KB_OK)
            << kb_last_error();
        compile_only.flags = KB_SCORE_COMPILE_ONLY;
    }
    void TearDown() override {
        kb_task_destroy(task);
        kb_context_destroy(ctx);
    }

    kb_batch* make_batch(unsigned capacity = 0, unsigned threads = 2) {
        kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
        bo.capacity = capacity;
        bo.compile_threads = threads;
        kb_batch* b = nullptr;
        EXPECT_EQ(kb_batch_create(ctx, &bo, &b), KB_OK) << kb_last_error();
        return b;
    }
    kb_status submit(kb_batch* b, const std::string& code, uint64_t tag, double timeout_s = -1,
                     uint64_t* id = nullptr, const kb_score_options* opts = nullptr) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.c_str();
        c.language = KB_LANG_CUDA;
        return kb_batch_submit(b, task, &c, opts ? opts : &compile_only, tag, timeout_s, id);
    }
};

// What one collected job said.
struct Outcome {
    uint64_t id = 0, tag = 0;
    kb_status status = KB_OK;
    std::string verdict, detail;
};

// Collects one job (waiting up to timeout_s); false when next() gave no job.
bool collect(kb_batch* b, double timeout_s, Outcome* o, kb_status* next_status = nullptr) {
    kb_batch_job* job = nullptr;
    kb_status s = kb_batch_next(b, timeout_s, &job);
    if (next_status) *next_status = s;
    if (s != KB_OK) {
        EXPECT_EQ(job, nullptr);
        return false;
    }
    o->id = kb_batch_job_id(job);
    o->tag = kb_batch_job_tag(job);
    kb_result* r = nullptr;
    o->status = kb_batch_job_take_result(job, &r);
    if (o->status == KB_OK) {
        o->verdict = kb_verdict_string(kb_result_verdict(r));
        o->detail = kb_result_message(r);
    } else {
        EXPECT_EQ(r, nullptr);
        o->detail = kb_last_error();
    }
    kb_result* again = nullptr;
    EXPECT_EQ(kb_batch_job_take_result(job, &again), KB_ERR_NOT_FOUND);  // taken once
    kb_result_destroy(r);
    kb_batch_job_destroy(job);
    return true;
}

TEST_F(BatchFixture, EveryJobIsReportedOnceWithItsTagAndVerdict) {
    kb_batch* b = make_batch();
    std::map<uint64_t, uint64_t> tag_of;  // id -> tag
    for (int i = 0; i < 12; ++i) {
        uint64_t id = 0;
        ASSERT_EQ(submit(b, i % 4 == 3 ? kBrokenSource : kernel_source(i), 1000 + i, -1, &id), KB_OK)
            << kb_last_error();
        ASSERT_NE(id, 0u);
        ASSERT_TRUE(tag_of.emplace(id, 1000 + i).second) << "duplicate id " << id;
    }
    std::set<uint64_t> seen;
    Outcome o;
    while (collect(b, 60, &o)) {
        ASSERT_TRUE(seen.insert(o.id).second) << "job " << o.id << " reported twice";
        ASSERT_EQ(o.tag, tag_of.at(o.id));
        ASSERT_EQ(o.status, KB_OK) << o.detail;
        bool broken = (o.tag - 1000) % 4 == 3;
        EXPECT_EQ(o.verdict, broken ? "compile_error" : "none") << o.detail;
        if (!broken) EXPECT_NE(o.detail.find("compile only"), std::string::npos) << o.detail;
    }
    EXPECT_EQ(seen.size(), tag_of.size());
    kb_batch_job* job = nullptr;
    EXPECT_EQ(kb_batch_next(b, 5, &job), KB_ERR_NOT_FOUND) << "an idle batch answers at once, whatever the timeout";
    EXPECT_EQ(kb_batch_in_flight(b), 0u);
    kb_batch_destroy(b);
}

TEST_F(BatchFixture, AJobThatCannotStartReportsItsErrorNotTheBatch) {
    kb_batch* b = make_batch();
    kb_candidate c = KB_CANDIDATE_INIT;
    c.path = "/nonexistent/kbench/candidate.cu";
    ASSERT_EQ(kb_batch_submit(b, task, &c, &compile_only, 7, -1, nullptr), KB_OK) << kb_last_error();
    // Without KB_SCORE_COMPILE_ONLY the job compiles, then finds no device.
    kb_score_options full = KB_SCORE_OPTIONS_INIT;
    ASSERT_EQ(submit(b, kernel_source(1), 8, -1, nullptr, &full), KB_OK);
    std::map<uint64_t, Outcome> by_tag;
    Outcome o;
    while (collect(b, 60, &o)) by_tag[o.tag] = o;
    ASSERT_EQ(by_tag.size(), 2u);
    EXPECT_EQ(by_tag[7].status, KB_ERR_IO);
    EXPECT_NE(by_tag[7].detail.find("/nonexistent/kbench/candidate.cu"), std::string::npos) << by_tag[7].detail;
    EXPECT_EQ(by_tag[8].status, KB_ERR_NO_DEVICE) << by_tag[8].detail;
    kb_batch_destroy(b);
}

TEST_F(BatchFixture, BadArgumentsFailAtSubmitNamingTheField) {
    kb_batch* b = make_batch();
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = 0x80000000u;
    EXPECT_EQ(submit(b, kernel_source(0), 1, -1, nullptr, &so), KB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kb_last_error()).find("kb_score_options.flags"), std::string::npos) << kb_last_error();
    so = KB_SCORE_OPTIONS_INIT;
    so.version = 0;
    EXPECT_EQ(submit(b, kernel_source(0), 1, -1, nullptr, &so), KB_ERR_UNSUPPORTED_VERSION);
    kb_candidate empty = KB_CANDIDATE_INIT;
    EXPECT_EQ(kb_batch_submit(b, task, &empty, nullptr, 1, 0, nullptr), KB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(kb_batch_submit(nullptr, task, &empty, nullptr, 1, 0, nullptr), KB_ERR_INVALID_ARGUMENT);
    kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
    bo.version = 99;
    kb_batch* other = nullptr;
    EXPECT_EQ(kb_batch_create(ctx, &bo, &other), KB_ERR_UNSUPPORTED_VERSION);
    EXPECT_EQ(other, nullptr);
    kb_batch_job* job = nullptr;
    EXPECT_EQ(kb_batch_next(b, 0, &job), KB_ERR_NOT_FOUND);  // nothing was queued
    kb_batch_destroy(b);
    kb_batch_destroy(nullptr);
    kb_batch_job_destroy(nullptr);
}

TEST_F(BatchFixture, AFullBatchRefusesUntilAResultIsCollected) {
    kb_batch* b = make_batch(/*capacity=*/2, /*threads=*/1);
    ASSERT_EQ(submit(b, kernel_source(0), 0), KB_OK);
    ASSERT_EQ(submit(b, kernel_source(1), 1), KB_OK);
    EXPECT_EQ(submit(b, kernel_source(2), 2, 0), KB_ERR_TIMEOUT);
    EXPECT_NE(std::string(kb_last_error()).find("capacity"), std::string::npos) << kb_last_error();
    EXPECT_EQ(submit(b, kernel_source(2), 2, 0.05), KB_ERR_TIMEOUT);  // completed but uncollected jobs count
    Outcome o;
    ASSERT_TRUE(collect(b, 60, &o));
    EXPECT_EQ(submit(b, kernel_source(2), 2, 0), KB_OK) << kb_last_error();
    int n = 1;
    while (collect(b, 60, &o)) ++n;
    EXPECT_EQ(n, 3);
    kb_batch_destroy(b);
}

TEST_F(BatchFixture, CancelledJobsAreReportedAsCancelledAndOthersStillComplete) {
    // One compile thread and 120 distinct compiles queued: the last jobs are
    // still waiting microseconds after the last submit returns.
    constexpr int kJobs = 120;
    kb_batch* b = make_batch(/*capacity=*/kJobs, /*threads=*/1);
    std::vector<uint64_t> ids;
    for (int i = 0; i < kJobs; ++i) {
        uint64_t id = 0;
        ASSERT_EQ(submit(b, kernel_source(1000 + i), i, -1, &id), KB_OK);
        ids.push_back(id);
    }
    const uint64_t last = ids[kJobs - 1], before_last = ids[kJobs - 2];
    EXPECT_EQ(kb_batch_cancel(b, last), KB_OK) << kb_last_error();
    EXPECT_EQ(kb_batch_cancel(b, last), KB_ERR_NOT_FOUND);  // a queued job completes, as cancelled, at once
    EXPECT_EQ(kb_batch_cancel(b, before_last), KB_OK);
    EXPECT_EQ(kb_batch_cancel(b, 999999), KB_ERR_NOT_FOUND);
    std::map<uint64_t, Outcome> by_id;
    Outcome o;
    while (collect(b, 60, &o)) ASSERT_TRUE(by_id.emplace(o.id, o).second) << "job " << o.id << " twice";
    ASSERT_EQ(by_id.size(), ids.size());
    EXPECT_EQ(by_id[last].status, KB_ERR_CANCELLED);
    EXPECT_EQ(by_id[before_last].status, KB_ERR_CANCELLED);
    EXPECT_NE(by_id[last].detail.find("cancelled"), std::string::npos);
    int done = 0;
    for (auto& [id, out] : by_id) done += out.status == KB_OK;
    EXPECT_GE(done, 1);
    EXPECT_EQ(kb_batch_cancel(b, ids[0]), KB_ERR_NOT_FOUND);  // completed: nothing to cancel

    // cancel_all: every job not yet on the device.
    for (int i = 0; i < 6; ++i) ASSERT_EQ(submit(b, kernel_source(200 + i), 50 + i), KB_OK);
    size_t cancelled = 0;
    ASSERT_EQ(kb_batch_cancel_all(b, &cancelled), KB_OK);
    EXPECT_GE(cancelled, 4u);  // at most one compiling, at most one compiled and reported
    size_t reported = 0, reported_cancelled = 0;
    while (collect(b, 60, &o)) {
        ++reported;
        reported_cancelled += o.status == KB_ERR_CANCELLED;
    }
    EXPECT_EQ(reported, 6u);
    EXPECT_EQ(reported_cancelled, cancelled);
    kb_batch_destroy(b);
}

TEST_F(BatchFixture, DestroyingABatchWithWorkInFlightIsSafe) {
    for (int round = 0; round < 3; ++round) {
        kb_batch* b = make_batch(64, 2);
        for (int i = 0; i < 16; ++i) ASSERT_EQ(submit(b, kernel_source(300 + 16 * round + i), i), KB_OK);
        if (round == 1) {
            Outcome o;
            collect(b, 60, &o);  // one collected, the rest dropped
        }
        kb_batch_destroy(b);  // cancels the queued, waits for the compiling, frees the uncollected
    }
}

TEST_F(BatchFixture, ManyThreadsSubmitAndCollectWithoutLossOrDuplicates) {
    kb_batch* b = make_batch(/*capacity=*/8, /*threads=*/2);
    constexpr int kProducers = 3, kPerProducer = 8;
    std::mutex mu;
    std::set<uint64_t> submitted_tags, collected_tags;
    std::atomic<int> producers_left{kProducers};
    std::vector<std::thread> threads;
    for (int p = 0; p < kProducers; ++p)
        threads.emplace_back([&, p] {
            for (int i = 0; i < kPerProducer; ++i) {
                uint64_t tag = uint64_t(p) * 1000 + i;
                // i % 3 == 2: the same code as another job, a compile-cache hit.
                std::string code = kernel_source(i % 3 == 2 ? 0 : 400 + int(tag));
                ASSERT_EQ(submit(b, code, tag, -1), KB_OK) << kb_last_error();  // blocks while full
                std::lock_guard<std::mutex> lock(mu);
                submitted_tags.insert(tag);
            }
            --producers_left;
        });
    for (int c = 0; c < 2; ++c)
        threads.emplace_back([&] {
            Outcome o;
            for (;;) {
                kb_status s;
                if (collect(b, 0.05, &o, &s)) {
                    EXPECT_EQ(o.status, KB_OK) << o.detail;
                    std::lock_guard<std::mutex> lock(mu);
                    EXPECT_TRUE(collected_tags.insert(o.tag).second) << "tag " << o.tag << " twice";
                } else if (s == KB_ERR_NOT_FOUND && producers_left == 0) {
                    return;
                } else {
                    EXPECT_TRUE(s == KB_ERR_TIMEOUT || s == KB_ERR_NOT_FOUND) << kb_status_string(s);
                }
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(submitted_tags.size(), size_t(kProducers * kPerProducer));
    EXPECT_EQ(collected_tags, submitted_tags);
    kb_batch_destroy(b);
}

TEST_F(BatchFixture, CompileOnlyScoreWorksWithoutABatch) {
    kb_candidate c = KB_CANDIDATE_INIT;
    std::string code = kernel_source(9);
    c.code = code.c_str();
    kb_result* r = nullptr;
    ASSERT_EQ(kb_score(ctx, task, &c, &compile_only, &r), KB_OK) << kb_last_error();
    EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_NONE);
    kb::Json j = kb::Json::parse(kb_result_json(r));
    EXPECT_EQ(j["compile"]["ok"], true) << j.dump();
    EXPECT_TRUE(j["stages"].contains("queue_ms")) << j.dump();
    kb_result_destroy(r);
}

}  // namespace

namespace {

// $KBENCH_TIMING_BACKLOG (engine/timing_backlog.h): read when a batch is
// made; a bad value is refused there, naming the variable and the fix.
TEST_F(BatchFixture, ABadTimingBacklogSettingIsRefusedNamingIt) {
    struct Restore {
        ~Restore() { unsetenv("KBENCH_TIMING_BACKLOG"); }
    } restore;
    kb_batch* b = nullptr;
    for (const char* bad : {"abc", "65", "-1", "4x"}) {
        setenv("KBENCH_TIMING_BACKLOG", bad, 1);
        EXPECT_EQ(kb_batch_create(ctx, nullptr, &b), KB_ERR_INVALID_ARGUMENT) << bad;
        EXPECT_EQ(b, nullptr);
        std::string err = kb_last_error();
        EXPECT_NE(err.find("KBENCH_TIMING_BACKLOG"), std::string::npos) << err;
        EXPECT_NE(err.find("unset it"), std::string::npos) << err;
    }
    for (const char* good : {"0", "16", ""}) {
        setenv("KBENCH_TIMING_BACKLOG", good, 1);
        ASSERT_EQ(kb_batch_create(ctx, nullptr, &b), KB_OK) << good << ": " << kb_last_error();
        ASSERT_EQ(submit(b, kernel_source(2000), 1), KB_OK) << kb_last_error();
        Outcome o;
        EXPECT_TRUE(collect(b, 60.0, &o));
        EXPECT_EQ(o.status, KB_OK) << o.detail;
        kb_batch_destroy(b);
        b = nullptr;
    }
}

// device_lanes (kb_batch_options version 2): a bound named in the error, and
// a version 1 caller (no device_lanes field) still gets a batch.
TEST_F(BatchFixture, DeviceLanesAreBoundedAndVersionOneCallersStillWork) {
    kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
    bo.device_lanes = 17;
    kb_batch* b = nullptr;
    EXPECT_EQ(kb_batch_create(ctx, &bo, &b), KB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(b, nullptr);
    EXPECT_NE(std::string(kb_last_error()).find("device_lanes"), std::string::npos) << kb_last_error();

    bo.device_lanes = 4;  // a compile-only context has no device: one lane, jobs still complete
    ASSERT_EQ(kb_batch_create(ctx, &bo, &b), KB_OK) << kb_last_error();
    for (int i = 0; i < 4; ++i) ASSERT_EQ(submit(b, kernel_source(1000 + i), uint64_t(i)), KB_OK) << kb_last_error();
    Outcome o;
    int seen = 0;
    while (collect(b, 60.0, &o)) {
        EXPECT_EQ(o.status, KB_OK) << o.detail;
        ++seen;
    }
    EXPECT_EQ(seen, 4);
    kb_batch_destroy(b);

    struct V1 {  // kb_batch_options as version 1 callers were built with it
        unsigned version, capacity, compile_threads;
    } v1 = {1, 8, 1};
    ASSERT_EQ(kb_batch_create(ctx, reinterpret_cast<const kb_batch_options*>(&v1), &b), KB_OK) << kb_last_error();
    kb_batch_destroy(b);
}

}  // namespace
