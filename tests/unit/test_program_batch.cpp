// Program candidates through the batch's queue and lanes, without a GPU or
// torch (engine/batch.h, engine/program_backend.h): every job goes through
// the same stages as a kernel's, its import (the load stage) in its lane's
// own Python candidate worker. Candidates that fail while importing (hang,
// exit, crash, raise, define nothing) get their verdicts, each lane's hangs
// run beside the others', and a hung or dead worker costs only its lane.
// Whole scores without torch go through a stand-in for the worker
// (tests/programs/standin/); with torch, tests/torch/test_program_scores.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "kbench.h"
#include "util/files.h"
#include "util/json.h"

namespace {

const std::string kDir = std::string(KB_SOURCE_DIR) + "/tests/programs";

struct ProgramBatch : ::testing::Test {
    kb_context* ctx = nullptr;
    kb_task* task = nullptr;

    void SetUp() override {
        // Python workers without a device; $KBENCH_PYTHON, else CMake's interpreter.
        ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
        ::setenv("KBENCH_PROGRAM_TEST_CPU", "1", 1);
        const char* p = std::getenv("KBENCH_PYTHON");
        if (!p || !*p) ::setenv("KBENCH_PYTHON", *KB_TEST_PYTHON ? KB_TEST_PYTHON : "python3", 1);
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.timeout_s = 2.0;  // each request's deadline: an import that hangs ends here
        ASSERT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
        ASSERT_EQ(kb_load_task((kDir + "/tasks/softmax_rows/task.json").c_str(), &task), KB_OK) << kb_last_error();
    }
    void TearDown() override {
        kb_task_destroy(task);
        kb_context_destroy(ctx);
    }

    // Submits every (tag, file) on a batch of `lanes` lanes and collects
    // their results by tag. The candidates import no torch (CI has none).
    struct Outcome {
        kb_verdict verdict = KB_VERDICT_NONE;
        std::string message;
        kb::Json json;
    };
    std::map<uint64_t, Outcome> run(const std::vector<std::string>& files, unsigned lanes, bool compile_only,
                                    double* seconds, kb_task* on = nullptr, const std::string& folder = "candidates",
                                    bool timed = false) {
        kb_batch_options bo = KB_BATCH_OPTIONS_INIT;
        bo.device_lanes = lanes;
        bo.compile_threads = 2;
        kb_batch* b = nullptr;
        EXPECT_EQ(kb_batch_create(ctx, &bo, &b), KB_OK) << kb_last_error();
        kb_score_options so = KB_SCORE_OPTIONS_INIT;
        so.flags = (timed ? 0u : unsigned(KB_SCORE_SKIP_TIMING)) | (compile_only ? KB_SCORE_COMPILE_ONLY : 0);
        const auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < files.size(); ++i) {
            kb_candidate c = KB_CANDIDATE_INIT;
            c.language = KB_LANG_PYTHON;
            // A file of tests/programs/<folder>, or "=CODE": the code itself.
            const std::string path = kDir + "/" + folder + "/" + files[i];
            if (files[i][0] == '=') {
                c.code = files[i].c_str() + 1;
                c.label = "inline.py";
            } else {
                c.path = path.c_str();
            }
            EXPECT_EQ(kb_batch_submit(b, on ? on : task, &c, &so, i, -1.0, nullptr), KB_OK) << kb_last_error();
        }
        std::map<uint64_t, Outcome> out;
        kb_batch_job* job = nullptr;
        while (kb_batch_next(b, 60.0, &job) == KB_OK) {
            kb_result* r = nullptr;
            EXPECT_EQ(kb_batch_job_take_result(job, &r), KB_OK) << kb_last_error();
            if (r) {
                Outcome& o = out[kb_batch_job_tag(job)];
                o.verdict = kb_result_verdict(r);
                o.message = kb_result_message(r);
                o.json = kb::Json::parse(kb_result_json(r));
                kb_result_destroy(r);
            }
            kb_batch_job_destroy(job);
        }
        *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        kb_batch_destroy(b);
        return out;
    }
};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The torch-free stand-in for the program worker (tests/programs/standin/)
// for a test's scope, with its problem loaded: each worker's requests go to
// log() ($KBENCH_STANDIN_LOG), and with `share` the workers act out the GPU
// comparison on files in the same folder ($KBENCH_STANDIN_SHARE_DIR).
struct Standin {
    std::string dir;
    kb_task* task = nullptr;
    explicit Standin(bool share = false) {
        ::setenv("KBENCH_PROGRAM_WORKER", (kDir + "/standin/kbench_program_worker.py").c_str(), 1);
        // Its frames come from kbench's own Python module, which the
        // confined worker may read.
        ::setenv("KBENCH_CONFINE_READ", (std::string(KB_SOURCE_DIR) + "/python/kbench_programs").c_str(), 1);
        dir = kb::make_temp_dir("kbench-standin-");
        ::setenv("KBENCH_STANDIN_LOG", log().c_str(), 1);
        ::setenv("KBENCH_CONFINE_WRITE", dir.c_str(), 1);
        if (share) ::setenv("KBENCH_STANDIN_SHARE_DIR", dir.c_str(), 1);
        EXPECT_EQ(kb_load_task((kDir + "/tasks/standin_scale_shift/task.json").c_str(), &task), KB_OK)
            << kb_last_error();
    }
    ~Standin() {
        for (const char* name : {"KBENCH_PROGRAM_WORKER", "KBENCH_CONFINE_READ", "KBENCH_STANDIN_LOG",
                                 "KBENCH_CONFINE_WRITE", "KBENCH_STANDIN_SHARE_DIR"})
            ::unsetenv(name);
        kb_task_destroy(task);
        kb::remove_tree(dir);
    }
    Standin(const Standin&) = delete;
    Standin& operator=(const Standin&) = delete;
    std::string log() const { return dir + "/requests.log"; }
};

// One request as the stand-in worker logged it ($KBENCH_STANDIN_LOG).
struct StandinRequest {
    std::string role, pid;
    int type = 0;
    bool timing_inputs = false;  // a release's: it drops a timing's inputs
    bool caches = false;         // a release's: it drops every cache
    int warm = 0, meta = 0;
    bool ran = false, compare = false;  // a program_run's: the model ran; it carried outputs to compare
};

std::vector<StandinRequest> standin_requests(const std::string& log) {
    std::vector<StandinRequest> out;
    std::istringstream lines(kb::read_file(log));
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream in(line);
        StandinRequest rq;
        int timing_inputs = 0, ran = 0, compare = 0;
        if (!(in >> rq.role >> rq.pid >> rq.type >> timing_inputs >> rq.warm >> rq.meta)) continue;
        in >> ran >> compare;
        rq.timing_inputs = timing_inputs == 1;
        rq.caches = timing_inputs == 2;
        rq.ran = ran != 0;
        rq.compare = compare != 0;
        out.push_back(rq);
    }
    return out;
}

}  // namespace

TEST_F(ProgramBatch, ImportFailuresGetTheirVerdictsThroughTheQueue) {
    double s = 0;
    auto out = run({"=import os\nundefined_name_at_import_time + 1\n", "exits_at_import.py", "hangs_at_import.py",
                    "=import os\n", "segfaults_at_import.py"},
                   2, false, &s);
    ASSERT_EQ(out.size(), 5u);
    EXPECT_EQ(out[0].verdict, KB_VERDICT_COMPILE_ERROR) << out[0].message;
    EXPECT_TRUE(has(out[0].message, "undefined_name_at_import_time")) << out[0].message;
    EXPECT_TRUE(has(out[0].message, "(line 2)")) << out[0].message;
    EXPECT_EQ(out[1].verdict, KB_VERDICT_RUNTIME_ERROR) << out[1].message;
    EXPECT_TRUE(has(out[1].message, "exited with status 7")) << out[1].message;
    EXPECT_EQ(out[2].verdict, KB_VERDICT_TIMEOUT) << out[2].message;
    EXPECT_EQ(out[3].verdict, KB_VERDICT_COMPILE_ERROR) << out[3].message;
    EXPECT_TRUE(has(out[3].message, "ModelNew")) << out[3].message;
    EXPECT_EQ(out[4].verdict, KB_VERDICT_RUNTIME_ERROR) << out[4].message;
    // A program's result is a program's: its protocol, its import as the compile stage.
    for (auto& [tag, o] : out) {
        ASSERT_TRUE(o.json.contains("program")) << o.json.dump();
        EXPECT_EQ(o.json["program"].value("protocol", ""), "strict");
        EXPECT_FALSE(o.json["compile"].value("ok", true)) << tag;
    }
}

TEST_F(ProgramBatch, EveryStageRunsThroughTheQueueWithATorchFreeWorker) {
    // A stand-in for the program worker that needs no torch
    // (tests/programs/standin/) serves the same requests, so that correctness,
    // timing with its check of the timed calls' outputs, and the recheck of
    // program candidates run on two lanes where no torch is installed.
    // Each worker's requests, in order (the stand-in's $KBENCH_STANDIN_LOG).
    Standin standin;
    ASSERT_NE(standin.task, nullptr);
    const std::vector<std::string> files = {"correct.py", "wrong.py", "edits_input.py", "raises.py",
                                            "fast_when_timed.py", "correct.py"};
    const std::vector<kb_verdict> want = {KB_VERDICT_PASS,          KB_VERDICT_WRONG_ANSWER,  KB_VERDICT_INPUT_MODIFIED,
                                          KB_VERDICT_RUNTIME_ERROR, KB_VERDICT_WRONG_ANSWER, KB_VERDICT_PASS};
    double s = 0;
    auto out = run(files, 2, false, &s, standin.task, "standin/candidates", true);
    // When a timing ends, the candidate worker that timed drops the inputs
    // it kept across the rounds (program_release with timing_inputs) before
    // its next request: an idle worker holding them (6-9 GB at
    // KernelBench's sizes) ran the next lane's timing out of memory.
    std::map<std::string, std::vector<std::pair<int, bool>>> requests;  // pid -> (type, timing_inputs)
    // Each load's warm-up: (runs, runs on the meta device), in order.
    std::vector<std::pair<int, int>> warmups;
    constexpr int kLoad = 9;  // ipc/frame.h
    for (const StandinRequest& rq : standin_requests(standin.log())) {
        if (rq.role == "candidate") requests[rq.pid].push_back({rq.type, rq.timing_inputs});
        if (rq.role == "candidate" && rq.type == kLoad) warmups.push_back({rq.warm, rq.meta});
    }
    // Every case is warmed: on the meta device before the reference has run
    // at it (its memory unknown), on real inputs after (the device-less
    // context has no memory budget that would leave a case out).
    ASSERT_GE(warmups.size(), files.size());
    EXPECT_EQ(warmups.front(), std::make_pair(3, 3));
    EXPECT_EQ(warmups.back(), std::make_pair(3, 0));
    constexpr int kTime = 11, kRelease = 14;  // ipc/frame.h
    size_t timings = 0;
    for (const auto& [pid, seq] : requests)
        for (size_t i = 0; i < seq.size(); ++i) {
            if (seq[i].first != kTime) continue;
            // After a round: another round (plain releases between), or the
            // timing's end, where its inputs must go before anything else.
            bool another_round = false, released = false;
            for (size_t k = i + 1; k < seq.size(); ++k) {
                if (seq[k].first == kTime) another_round = true;
                if (seq[k].first == kRelease && seq[k].second) released = true;
                if (seq[k].first != kRelease || seq[k].second) break;
            }
            if (another_round) continue;
            ++timings;
            EXPECT_TRUE(released) << "worker " << pid << ": no release of the timing's inputs after request " << i;
        }
    EXPECT_GE(timings, 3u);  // correct.py twice, fast_when_timed.py
    ASSERT_EQ(out.size(), files.size());
    for (size_t i = 0; i < files.size(); ++i)
        EXPECT_EQ(out[i].verdict, want[i]) << files[i] << ": " << out[i].message << "\n" << out[i].json.dump(1);
    EXPECT_TRUE(has(out[1].message, "large") || has(out[1].message, "small_prime")) << out[1].message;
    EXPECT_TRUE(has(out[4].message, "while timing")) << out[4].message;
    for (size_t i : {size_t(0), size_t(5)}) {
        // Every stage ran: correctness at each case, timing, the recheck.
        const kb::Json& j = out[i].json;
        EXPECT_EQ(j["cases"].size(), 3u) << j.dump(1);
        EXPECT_TRUE(j.contains("recheck")) << j.dump(1);
        EXPECT_GT(j["stages"].value("timing_ms", 0.0), 0.0) << j.dump(1);
        EXPECT_TRUE(j.contains("speedup")) << j.dump(1);
        // Each round's two sides, beside its speedup.
        const kb::Json& t = j["program"]["timing"];
        ASSERT_EQ(t["round_ms"].size(), t["rounds"].get<size_t>()) << t.dump(1);
        ASSERT_EQ(t["round_speedups"].size(), t["rounds"].get<size_t>()) << t.dump(1);
        size_t reused = 0;
        for (size_t r = 0; r < t["round_ms"].size(); ++r) {
            const kb::Json& side = t["round_ms"][r];
            ASSERT_GT(side["candidate"].get<double>(), 0.0) << t.dump(1);
            EXPECT_NEAR(side["reference"].get<double>() / side["candidate"].get<double>(),
                        t["round_speedups"][r].get<double>(), 1e-9) << t.dump(1);
            reused += side["reference_reused"].get<bool>();
        }
        EXPECT_EQ(reused, t["reference_rounds_reused"].get<size_t>()) << t.dump(1);
    }
}

TEST_F(ProgramBatch, ARunTheHostHasNotSeenRunsOnceAndComparesAsItGoes) {
    // The stand-in workers act out the GPU comparison on files (its
    // $KBENCH_STANDIN_SHARE_DIR): the reference keeps its outputs and
    // compares the candidate's exported ones. The recheck's seed is new to
    // the host at its first use: the candidate runs first, and the
    // reference then runs and compares in one request
    // (ProgramRunRequest::compare_inline). Asked for its description first,
    // the reference ran once for it and, at KernelBench's sizes, where its
    // kept budget had no room for a second 6 GiB output, again at the compare.
    Standin standin(true);
    ASSERT_NE(standin.task, nullptr);
    const std::vector<std::string> files = {"correct.py", "wrong_on_the_recheck.py", "correct.py", "wrong.py"};
    const std::vector<kb_verdict> want = {KB_VERDICT_PASS, KB_VERDICT_WRONG_ANSWER, KB_VERDICT_PASS,
                                          KB_VERDICT_WRONG_ANSWER};
    double s = 0;
    // One lane: two lanes may both miss the host's cache of a case's
    // reference and run it twice, which would blur the count below.
    auto out = run(files, 1, false, &s, standin.task, "standin/candidates");
    const std::vector<StandinRequest> requests = standin_requests(standin.log());
    ASSERT_EQ(out.size(), files.size());
    for (size_t i = 0; i < files.size(); ++i)
        EXPECT_EQ(out[i].verdict, want[i]) << files[i] << ": " << out[i].message << "\n" << out[i].json.dump(1);
    // Every case compared on the "GPU", the recheck's too; the candidate
    // right only while checked fails at its recheck.
    for (size_t i : {size_t(0), size_t(1), size_t(2)}) {
        const kb::Json& j = out[i].json;
        ASSERT_TRUE(j.contains("recheck")) << files[i] << ": " << j.dump(1);
        ASSERT_EQ(j["recheck"]["outputs"].size(), 1u) << j.dump(1);
        EXPECT_EQ(j["recheck"]["outputs"][0].value("compared_on", ""), "gpu") << j.dump(1);
        ASSERT_EQ(j["cases"].size(), 3u) << j.dump(1);
        for (const kb::Json& c : j["cases"]) EXPECT_EQ(c["outputs"][0].value("compared_on", ""), "gpu") << j.dump(1);
    }
    EXPECT_EQ(out[1].json["recheck"].value("verdict", ""), "wrong_answer") << out[1].json.dump(1);
    // Nothing is timed: the problem's own sizes ("large") are the
    // recheck's alone, and the first case runs at a second seed instead.
    for (size_t i : {size_t(0), size_t(2)}) {
        const kb::Json& j = out[i].json;
        EXPECT_EQ(j["recheck"].value("case", ""), "large") << j.dump(1);
        std::vector<std::string> cases;
        for (const kb::Json& c : j["cases"]) cases.push_back(c.value("case", ""));
        EXPECT_EQ(cases, (std::vector<std::string>{"small_prime", "small_prime", "one"})) << j.dump(1);
    }
    EXPECT_FALSE(out[3].json.contains("recheck")) << out[3].json.dump(1);
    // The reference's requests: run once for the host each, the two smaller
    // cases at the score's seed (every candidate's) and the perf case at
    // the recheck's seed (no run at another seed says what its outputs look
    // like); the first case's second seed run once, in the request that
    // compared it first; every other comparison (ten correctness runs, two
    // rechecks) from kept outputs.
    // Each load warms the perf case too, though only the recheck runs it
    // (its kernels compile on the CPU, not in a run that holds the gate).
    constexpr int kLoad = 9;  // ipc/frame.h
    size_t loads = 0;
    for (const StandinRequest& rq : requests)
        if (rq.role == "candidate" && rq.type == kLoad) {
            ++loads;
            EXPECT_EQ(rq.warm, 3) << "load " << loads;
        }
    EXPECT_EQ(loads, files.size());
    constexpr int kRun = 10;  // ipc/frame.h
    size_t runs = 0, compared_as_run = 0, compares = 0;
    for (const StandinRequest& rq : requests) {
        if (rq.role != "reference" || rq.type != kRun) continue;
        if (rq.ran && rq.compare) ++compared_as_run;
        else if (rq.ran) ++runs;
        else if (rq.compare) ++compares;
    }
    EXPECT_EQ(runs, 3u);
    EXPECT_EQ(compared_as_run, 1u);
    EXPECT_EQ(compares, 12u);
}

TEST_F(ProgramBatch, ATimingOutOfDeviceMemoryRunsAgainAfterTheReferenceDropsItsCaches) {
    // A timing has the GPU alone but not its memory: at eight lanes on an
    // H100, idle workers and the reference's kept outputs filled the device
    // and correct candidates' timings ran out of it. The timing runs again
    // once the reference worker has dropped its caches (engine/score.cpp,
    // with_retry), and the candidate passes.
    Standin standin;
    ASSERT_NE(standin.task, nullptr);
    ::setenv("KBENCH_STANDIN_OOM_TIMING", "1", 1);
    double s = 0;
    auto out = run({"correct.py"}, 1, false, &s, standin.task, "standin/candidates", true);
    ::unsetenv("KBENCH_STANDIN_OOM_TIMING");
    ASSERT_EQ(out.size(), 1u);
    const Outcome& o = out.begin()->second;
    EXPECT_EQ(o.verdict, KB_VERDICT_PASS) << o.message;
    EXPECT_TRUE(has(o.json.dump(), "after the reference worker dropped its caches")) << o.json.dump(1);
    // In order: the candidate's timing that ran out of memory, the
    // reference's release of every cache, the candidate's timing again.
    constexpr int kTime = 11, kRelease = 14;  // ipc/frame.h
    std::vector<std::string> order;
    for (const StandinRequest& rq : standin_requests(standin.log())) {
        if (rq.role == "candidate" && rq.type == kTime) order.push_back("candidate times");
        if (rq.role == "reference" && rq.type == kRelease && rq.caches) order.push_back("reference drops its caches");
    }
    ASSERT_GE(order.size(), 3u);
    EXPECT_EQ(std::vector<std::string>(order.begin(), order.begin() + 3),
              (std::vector<std::string>{"candidate times", "reference drops its caches", "candidate times"}));
    EXPECT_EQ(std::count(order.begin(), order.end(), "reference drops its caches"), 1);
}

TEST_F(ProgramBatch, EveryLaneHasItsWorkerBeforeItTakesAJob) {
    // Workers that take 1.5 s to start, as a real one's import of torch
    // does: each lane starts its candidate worker when the batch holds a
    // job for it, before it takes one, so no job's load waits for a start
    // (a lane that started its worker at its first job held that job for
    // the start: one TritonBench-G job of 0.3 s took 8.4 s at eight lanes).
    Standin standin;
    ASSERT_NE(standin.task, nullptr);
    ::setenv("KBENCH_STANDIN_HELLO_S", "1.5", 1);
    double s = 0;
    auto out = run({"correct.py", "correct.py", "correct.py", "correct.py", "correct.py", "correct.py"}, 3, false,
                   &s, standin.task, "standin/candidates");
    ::unsetenv("KBENCH_STANDIN_HELLO_S");
    ASSERT_EQ(out.size(), 6u);
    for (auto& [tag, o] : out) {
        EXPECT_EQ(o.verdict, KB_VERDICT_PASS) << o.message;
        EXPECT_LT(o.json["stages"].value("compile_ms", 0.0), 1000.0) << "job " << tag << ": " << o.json.dump(1);
    }
}

TEST_F(ProgramBatch, LanesImportSideBySide) {
    // Four imports that hang until their 2 s deadline: on four lanes, each
    // with its own candidate worker, they end together, where one worker
    // would take them one after another (8 s and more).
    double s = 0;
    auto out = run({"hangs_at_import.py", "hangs_at_import.py", "hangs_at_import.py", "hangs_at_import.py"}, 4,
                   false, &s);
    ASSERT_EQ(out.size(), 4u);
    for (auto& [tag, o] : out) EXPECT_EQ(o.verdict, KB_VERDICT_TIMEOUT) << o.message;
    EXPECT_LT(s, 6.5) << "four hanging imports on four lanes took " << s << " s";
}

TEST_F(ProgramBatch, CompileOnlyImportsAndStops) {
    double s = 0;
    auto out = run({"=raise RuntimeError('no')\n", "exits_at_import.py"}, 1, true, &s);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].verdict, KB_VERDICT_COMPILE_ERROR) << out[0].message;
    EXPECT_EQ(out[1].verdict, KB_VERDICT_RUNTIME_ERROR) << out[1].message;
}

TEST_F(ProgramBatch, AnEmptyCandidateIsACompileErrorNamingIt) {
    kb_candidate c = KB_CANDIDATE_INIT;
    c.language = KB_LANG_PYTHON;
    c.code = "\n  \n";
    c.label = "empty.py";
    kb_score_options so = KB_SCORE_OPTIONS_INIT;
    so.flags = KB_SCORE_SKIP_TIMING;
    kb_result* r = nullptr;
    ASSERT_EQ(kb_score(ctx, task, &c, &so, &r), KB_OK) << kb_last_error();
    EXPECT_EQ(kb_result_verdict(r), KB_VERDICT_COMPILE_ERROR);
    EXPECT_TRUE(has(kb_result_message(r), "empty.py is empty")) << kb_result_message(r);
    kb_result_destroy(r);
}
