// The batch API on a GPU, worker isolation on: a stream of correct, wrong,
// crashing and non-compiling candidates gets the verdicts kb_score gives them,
// every job is reported once, the crash costs only its own verdict, and a
// kb_score on the same context while the batch runs takes its turn.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>

#include "engine/gpu_incidents.h"
#include "gpu/gpu_test_util.h"
#include "kbench.h"
#include "util/files.h"

namespace {

std::string correct(int i) {
    return "// variant " + std::to_string(i) +
           "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";
}
std::string wrong(int i) {
    return "// wrong " + std::to_string(i) +
           "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] - b[i];\n}\n";
}

struct Expect {
    std::string code;
    kb_verdict verdict;
};

std::string hang_source() {
    return kb::read_file(std::string(KB_SOURCE_DIR) + "/tests/adversarial/kernels/infinite_loop.cu");
}

// The setting of the hang tests: a worker-isolated context with a 1 s
// deadline, vector_add_f32, and a batch of `lanes` lanes whose workers have
// started and run the task's references (`warm` correct candidates scored
// with `warm_opts`), so that what the test submits next starts together.
struct LanesWithHangs {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;
    kb_batch* batch = nullptr;
    ~LanesWithHangs() {
        kb_batch_destroy(batch);
        kb_task_destroy(task);
        kb_context_destroy(ctx);
    }
};

void start_lanes(unsigned lanes, int warm, const kb_score_options& warm_opts, int variant, LanesWithHangs* out) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    o.timeout_s = 1.0;
    ASSERT_EQ(kb_context_create(&o, &out->ctx), KB_OK) << kb_last_error();
    ASSERT_EQ(kb_load_task(kb::test::task_file("vector_add_f32").c_str(), &out->task), KB_OK) << kb_last_error();
    kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
    bo.device_lanes = lanes;
    ASSERT_EQ(kb_batch_create(out->ctx, &bo, &out->batch), KB_OK) << kb_last_error();
    for (int i = 0; i < warm; ++i) {
        std::string code = correct(variant + i);
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.c_str();
        ASSERT_EQ(kb_batch_submit(out->batch, out->task, &c, &warm_opts, 100000 + i, -1, nullptr), KB_OK)
            << kb_last_error();
    }
    for (int i = 0; i < warm; ++i) {
        kb_batch_job* job = nullptr;
        ASSERT_EQ(kb_batch_next(out->batch, 120, &job), KB_OK) << kb_last_error();
        kb_batch_job_destroy(job);
    }
}

// A worker-isolated context and vector_add_f32.
void worker_context_and_task(kb_context** ctx, kb_task** task) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    ASSERT_EQ(kb_context_create(&o, ctx), KB_OK) << kb_last_error();
    ASSERT_EQ(kb_load_task(kb::test::task_file("vector_add_f32").c_str(), task), KB_OK) << kb_last_error();
}

TEST(BatchOnGpu, VerdictsMatchKbScoreAndEveryJobIsReportedOnce) {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;
    ASSERT_NO_FATAL_FAILURE(worker_context_and_task(&ctx, &task));

    std::vector<Expect> jobs;
    for (int i = 0; i < 12; ++i) {
        if (i % 4 == 1)
            jobs.push_back({wrong(i), KB_VERDICT_WRONG_ANSWER});
        else
            jobs.push_back({correct(i), KB_VERDICT_PASS});
    }
    jobs.push_back({"// crash\n" + kb::read_file(std::string(KB_SOURCE_DIR) +
                                                 "/tests/adversarial/kernels/illegal_address.cu"),
                    KB_VERDICT_RUNTIME_ERROR});
    jobs.push_back({"__global__ void vector_add(const float* a, const float* b, float* c, int n) { c[0] = ; }",
                    KB_VERDICT_COMPILE_ERROR});
    for (int i = 12; i < 16; ++i) jobs.push_back({correct(i), KB_VERDICT_PASS});  // after the crash

    kb_batch* b = nullptr;
    ASSERT_EQ(kb_batch_create(ctx, nullptr, &b), KB_OK) << kb_last_error();
    kb_score_options timed = KB_SCORE_OPTIONS_INIT;
    timed.timing.budget_ms = 20;
    for (size_t i = 0; i < jobs.size(); ++i) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = jobs[i].code.c_str();
        ASSERT_EQ(kb_batch_submit(b, task, &c, &timed, i, -1, nullptr), KB_OK) << kb_last_error();
    }
    // kb_score on the same context while the batch works: it takes its turn.
    std::thread other([&] {
        kb_candidate c = KB_CANDIDATE_INIT;
        std::string code = correct(100);
        c.code = code.c_str();
        kb_result* r = nullptr;
        EXPECT_EQ(kb_score(ctx, task, &c, nullptr, &r), KB_OK) << kb_last_error();
        EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_PASS) << kb_result_message(r);
        kb_result_destroy(r);
    });
    std::map<uint64_t, kb_verdict> got;
    kb_batch_job* job = nullptr;
    while (kb_batch_next(b, 120, &job) == KB_OK) {
        uint64_t tag = kb_batch_job_tag(job);
        kb_result* r = nullptr;
        ASSERT_EQ(kb_batch_job_take_result(job, &r), KB_OK) << kb_last_error();
        EXPECT_TRUE(got.emplace(tag, kb_result_verdict(r)).second) << "tag " << tag << " twice";
        EXPECT_EQ(kb_result_verdict(r), jobs[tag].verdict) << "job " << tag << ": " << kb_result_message(r);
        if (jobs[tag].verdict == KB_VERDICT_PASS) {
            double speedup = 0;
            EXPECT_EQ(kb_result_get_number(r, "/speedup", &speedup), KB_OK) << kb_result_json(r);
            EXPECT_GT(speedup, 0);
        }
        kb_result_destroy(r);
        kb_batch_job_destroy(job);
    }
    other.join();
    EXPECT_EQ(got.size(), jobs.size());
    kb_batch_destroy(b);

    // The same verdicts from kb_score, one at a time.
    for (size_t i : {size_t(1), size_t(12), size_t(13)}) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = jobs[i].code.c_str();
        kb_result* r = nullptr;
        ASSERT_EQ(kb_score(ctx, task, &c, &timed, &r), KB_OK) << kb_last_error();
        EXPECT_EQ(kb_result_verdict(r), jobs[i].verdict) << kb_result_message(r);
        kb_result_destroy(r);
    }
    kb_task_destroy(task);
    kb_context_destroy(ctx);
}

// Lanes keep passed candidates waiting to time while the GPU is busy and
// time them together in one turn alone (engine/timing_backlog.h). With the
// backlog and without it ($KBENCH_TIMING_BACKLOG=0) every job is reported
// once, with the verdict kb_score gives it and, when it passes, its timing.
TEST(BatchOnGpu, CandidatesKeptWaitingToTimeAreAllTimedAndReportedOnce) {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;
    ASSERT_NO_FATAL_FAILURE(worker_context_and_task(&ctx, &task));
    kb_score_options timed = KB_SCORE_OPTIONS_INIT;
    timed.timing.budget_ms = 20;
    kb_score_options correctness = KB_SCORE_OPTIONS_INIT;
    correctness.flags = KB_SCORE_SKIP_TIMING;
    struct Restore {
        ~Restore() { unsetenv("KBENCH_TIMING_BACKLOG"); }
    } restore;
    for (const char* backlog : {"", "0"}) {
        setenv("KBENCH_TIMING_BACKLOG", backlog, 1);
        kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
        bo.device_lanes = 4;
        kb_batch* b = nullptr;
        ASSERT_EQ(kb_batch_create(ctx, &bo, &b), KB_OK) << kb_last_error();
        std::vector<Expect> jobs;
        std::vector<const kb_score_options*> opts;
        for (int i = 0; i < 32; ++i) {
            const int v = 700 + i + (backlog[0] ? 100 : 0);
            jobs.push_back(i % 8 == 3 ? Expect{wrong(v), KB_VERDICT_WRONG_ANSWER} : Expect{correct(v), KB_VERDICT_PASS});
            opts.push_back(i % 5 == 4 ? &correctness : &timed);
        }
        for (size_t i = 0; i < jobs.size(); ++i) {
            kb_candidate c = KB_CANDIDATE_INIT;
            c.code = jobs[i].code.c_str();
            ASSERT_EQ(kb_batch_submit(b, task, &c, opts[i], i, -1, nullptr), KB_OK) << kb_last_error();
        }
        std::map<uint64_t, kb_verdict> got;
        kb_batch_job* job = nullptr;
        while (kb_batch_next(b, 120, &job) == KB_OK) {
            uint64_t tag = kb_batch_job_tag(job);
            kb_result* r = nullptr;
            ASSERT_EQ(kb_batch_job_take_result(job, &r), KB_OK) << kb_last_error();
            std::string doc = kb_result_json(r);
            EXPECT_TRUE(got.emplace(tag, kb_result_verdict(r)).second) << "tag " << tag << " twice";
            EXPECT_EQ(kb_result_verdict(r), jobs[tag].verdict) << "backlog '" << backlog << "', job " << tag << ": " << doc;
            double speedup = 0;
            const bool has_speedup = kb_result_get_number(r, "/speedup", &speedup) == KB_OK;
            if (jobs[tag].verdict == KB_VERDICT_PASS && opts[tag] == &timed) {
                EXPECT_TRUE(has_speedup) << doc;
                EXPECT_GT(speedup, 0) << doc;
                EXPECT_NE(doc.find("\"recheck\""), std::string::npos) << "a kept candidate skipped its recheck: " << doc;
            } else {
                EXPECT_FALSE(has_speedup) << "job " << tag << " was timed: " << doc;
            }
            kb_result_destroy(r);
            kb_batch_job_destroy(job);
        }
        EXPECT_EQ(got.size(), jobs.size()) << "backlog '" << backlog << "'";
        kb_batch_destroy(b);
    }
    kb_task_destroy(task);
    kb_context_destroy(ctx);
}

TEST(BatchOnGpu, TwoHangsSideBySideAreEachTriedAgainAndStillTimeOut) {
    // Each hang overlaps the other's: either could have been slowed by its
    // neighbour (engine/gpu_incidents.h), so each gets a second attempt, and
    // a real hang times out again. The result says it was retried.
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = KB_SCORE_SKIP_TIMING;
    LanesWithHangs l;
    ASSERT_NO_FATAL_FAILURE(start_lanes(2, 4, so, 200, &l));
    kb_context* ctx = l.ctx;
    kb_task* task = l.task;
    kb_batch* b = l.batch;
    const std::string hang = hang_source();
    kb_batch_job* job = nullptr;
    for (int i = 0; i < 2; ++i) {
        std::string code = "// hang " + std::to_string(i) + "\n" + hang;
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.c_str();
        ASSERT_EQ(kb_batch_submit(b, task, &c, &so, i, -1, nullptr), KB_OK) << kb_last_error();
    }
    int retried = 0;
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(kb_batch_next(b, 120, &job), KB_OK) << kb_last_error();
        kb_result* r = nullptr;
        ASSERT_EQ(kb_batch_job_take_result(job, &r), KB_OK) << kb_last_error();
        EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_TIMEOUT) << kb_result_message(r);
        std::string doc = kb_result_json(r);
        if (doc.find("\"retried\"") != std::string::npos) ++retried;
        kb_result_destroy(r);
        kb_batch_job_destroy(job);
    }
    EXPECT_EQ(retried, 2) << "each hang overlapped the other's";
    kb_batch_destroy(b);
    l.batch = nullptr;
    // Alone, a hang is not tried again (once the others' aftermath is over).
    std::this_thread::sleep_for(kb::GpuIncidents::kAftermath + std::chrono::milliseconds(300));
    std::string code = "// hang alone\n" + hang;
    kb_candidate c = KB_CANDIDATE_INIT;
    c.code = code.c_str();
    kb_result* r = nullptr;
    ASSERT_EQ(kb_score(ctx, task, &c, &so, &r), KB_OK) << kb_last_error();
    EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_TIMEOUT) << kb_result_message(r);
    EXPECT_EQ(std::string(kb_result_json(r)).find("\"retried\""), std::string::npos) << kb_result_json(r);
    kb_result_destroy(r);
}

TEST(BatchOnGpu, AHangBesideAWaitingTimerIsNotRetriedAndOtherLanesGoOnMeanwhile) {
    // Lane A's candidate hangs; lane B's passes correctness and waits to time
    // (it cannot time beside a spinning kernel); lane C scores correctness-
    // only candidates. B's wait is not a second hang (engine/gpu_incidents.h
    // counts a request from when it has the GPU), so A's hang runs once; and
    // once A has held the GPU for GpuPhaseLock::kSuspect, C's work goes on
    // beside it instead of stalling behind B's timer (engine/gpu_phase.h).
    kb_score_options timed = KB_SCORE_OPTIONS_INIT;
    timed.timing.budget_ms = 20;
    kb_score_options correctness = KB_SCORE_OPTIONS_INIT;
    correctness.flags = KB_SCORE_SKIP_TIMING;
    LanesWithHangs l;
    // Every lane's worker started, the references run (timed, so the perf
    // case's too).
    ASSERT_NO_FATAL_FAILURE(start_lanes(3, 6, timed, 300, &l));
    kb_task* task = l.task;
    kb_batch* b = l.batch;
    kb_batch_job* job = nullptr;
    std::vector<std::pair<std::string, const kb_score_options*>> jobs;
    jobs.push_back({"// hang beside a timer\n" + hang_source(), &correctness});
    jobs.push_back({correct(400), &timed});
    const int kCorrectnessOnly = 8;
    for (int i = 0; i < kCorrectnessOnly; ++i) jobs.push_back({correct(500 + i), &correctness});
    for (size_t i = 0; i < jobs.size(); ++i) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = jobs[i].first.c_str();
        ASSERT_EQ(kb_batch_submit(b, task, &c, jobs[i].second, i, -1, nullptr), KB_OK) << kb_last_error();
    }
    int before_the_hang = 0;  // correctness-only results reported before the hang's
    bool hang_seen = false;
    for (size_t n = 0; n < jobs.size(); ++n) {
        ASSERT_EQ(kb_batch_next(b, 120, &job), KB_OK) << kb_last_error();
        uint64_t tag = kb_batch_job_tag(job);
        kb_result* r = nullptr;
        ASSERT_EQ(kb_batch_job_take_result(job, &r), KB_OK) << kb_last_error();
        std::string doc = kb_result_json(r);
        if (tag == 0) {
            hang_seen = true;
            EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_TIMEOUT) << doc;
            EXPECT_EQ(doc.find("\"retried\""), std::string::npos) << "a waiting timer made the hang run twice: " << doc;
        } else {
            EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_PASS) << "job " << tag << ": " << doc;
            if (tag >= 2 && !hang_seen) ++before_the_hang;
        }
        kb_result_destroy(r);
        kb_batch_job_destroy(job);
    }
    // The first correctness-only job may finish before the timer starts to
    // wait; more than that means the others went on beside the hang.
    EXPECT_GE(before_the_hang, 3) << "correctness work stalled behind the waiting timer for the whole hang";
}

}  // namespace
