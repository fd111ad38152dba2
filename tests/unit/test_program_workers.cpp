// The Python workers of program candidates, without a GPU
// (src/worker_host/program_workers.h, docs/programs.md):
// supervision, which needs no torch: a candidate that hangs, exits or
// crashes while importing gets timeout / runtime_error, its worker is
// replaced, and the next candidate is served. Whole scores on torch's CPU
// are tests/torch/test_program_scores.cpp (label torch).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "util/error.h"
#include "util/files.h"
#include "worker_host/program_workers.h"

using namespace kb;

namespace {

const std::string kDir = std::string(KB_SOURCE_DIR) + "/tests/programs";

// $KBENCH_PYTHON, else the interpreter CMake's KBENCH_TEST_PYTHON names.
std::string python() {
    const char* p = std::getenv("KBENCH_PYTHON");
    if (p && *p) return p;
    return *KB_TEST_PYTHON ? KB_TEST_PYTHON : "python3";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TaskPtr softmax_task() { return load_task(kDir + "/tasks/softmax_rows/task.json"); }

ProgramWorkerSettings settings(double timeout_s = 0) {
    ProgramWorkerSettings s;
    s.python = python();
    s.script = std::string(KB_SOURCE_DIR) + "/python/kbench_programs/kbench_program_worker.py";
    s.device = -1;
    s.test_hooks = true;
    s.standby = true;
    s.timeout_s = timeout_s;
    return s;
}

std::string candidate(const std::string& name) { return read_file(kDir + "/candidates/" + name); }

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST(ProgramWorkers, AnImportThatHangsIsATimeoutAndTheNextCandidateIsServed) {
    ProgramWorkers w(settings(2.0));
    TaskPtr t = softmax_task();
    auto t0 = std::chrono::steady_clock::now();
    ProgramLoadReply r = w.load_candidate(t, candidate("hangs_at_import.py"), "hangs_at_import.py");
    double took = seconds_since(t0);
    ASSERT_TRUE(r.failure);
    EXPECT_EQ(r.failure->verdict, KB_VERDICT_TIMEOUT);
    EXPECT_LT(took, 2.0 + 1.0);
    EXPECT_TRUE(has(r.failure->message, "did not finish while importing within 2.0 s")) << r.failure->message;
    EXPECT_EQ(r.failure->worker.last_words, "importing the candidate hangs_at_import.py");
    // The worker was killed; a fresh one (the standby) serves the next load.
    ProgramLoadReply next = w.load_candidate(t, "import sys\n", "nothing.py");
    EXPECT_FALSE(next.failure);
    EXPECT_FALSE(next.loaded);
    EXPECT_TRUE(has(next.error, "defines no ModelNew")) << next.error;
    EXPECT_GE(w.supervisor(ProgramRole::candidate).respawns(), 1u);
}

TEST(ProgramWorkers, AnImportThatExitsOrCrashesIsARuntimeError) {
    ProgramWorkers w(settings());
    TaskPtr t = softmax_task();
    ProgramLoadReply e = w.load_candidate(t, candidate("exits_at_import.py"), "exits_at_import.py");
    ASSERT_TRUE(e.failure);
    EXPECT_EQ(e.failure->verdict, KB_VERDICT_RUNTIME_ERROR);
    ASSERT_TRUE(e.failure->exit_code);
    EXPECT_EQ(*e.failure->exit_code, 7);
    EXPECT_TRUE(has(e.failure->message, "exited with status 7")) << e.failure->message;
    EXPECT_TRUE(has(e.failure->message, "must not end its process")) << e.failure->message;

    ProgramLoadReply s = w.load_candidate(t, candidate("segfaults_at_import.py"), "segfaults_at_import.py");
    ASSERT_TRUE(s.failure);
    EXPECT_EQ(s.failure->verdict, KB_VERDICT_RUNTIME_ERROR);
    EXPECT_TRUE(has(s.failure->signal, "SIGSEGV")) << s.failure->signal;

    // A fault in the worker itself (test hook) while importing: the same.
    w.inject_fault_once("program_load", "abort");
    ProgramLoadReply a = w.load_candidate(t, "x = 1\n", "x.py");
    ASSERT_TRUE(a.failure);
    EXPECT_TRUE(has(a.failure->signal, "SIGABRT")) << a.failure->signal;

    ProgramLoadReply ok = w.load_candidate(t, "class ModelNew:\n    pass\n", "fine.py");
    EXPECT_FALSE(ok.failure);
    EXPECT_TRUE(ok.loaded) << ok.error;
    EXPECT_GE(w.supervisor(ProgramRole::candidate).respawns(), 3u);
    // The reference worker never saw any of it.
    EXPECT_EQ(w.supervisor(ProgramRole::reference).respawns(), 0u);
}

TEST(ProgramWorkers, ImportErrorsAndTheSourceScanComeBack) {
    ProgramWorkers w(settings());
    TaskPtr t = softmax_task();
    ProgramLoadReply r = w.load_candidate(t, "import os\nos.environ['X'] = '1'\nraise RuntimeError('no')\n", "bad.py");
    EXPECT_FALSE(r.failure);
    EXPECT_FALSE(r.loaded);
    EXPECT_TRUE(has(r.error, "RuntimeError: no")) << r.error;
    EXPECT_EQ(r.line, 3);
    ASSERT_FALSE(r.findings.empty());
    EXPECT_EQ(r.findings[0].rule, "env");
    ProgramLoadReply s = w.load_candidate(t, "def f(:\n", "syntax.py");
    EXPECT_FALSE(s.loaded);
    EXPECT_TRUE(has(s.error, "SyntaxError")) << s.error;
    EXPECT_EQ(s.line, 1);
}

TEST(ProgramWorkers, AMissingInterpreterSaysHowToFixIt) {
    ProgramWorkerSettings s = settings();
    s.python = "/nonexistent/python3";
    try {
        ProgramWorkers w(s);
        FAIL() << "started without an interpreter";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_WORKER);
        EXPECT_TRUE(has(e.what(), "$KBENCH_PYTHON")) << e.what();
    }
}
