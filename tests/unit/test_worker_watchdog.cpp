// The watchdog and respawn logic, proven without a GPU: real kbench-worker
// processes (no device, test hooks on) that sleep, abort, segfault, exit,
// talk nonsense or go silent on request. The host (this test process) must
// survive all of it, report each in words, reap every child and leak no
// descriptor.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "util/error.h"
#include "worker_host/supervisor.h"
#include "worker_host/worker_locate.h"

using namespace kb;

namespace {

std::string worker_path() { return std::string(KB_BINARY_DIR) + "/kbench-worker"; }

WorkerSettings settings(bool standby = true) {
    WorkerSettings s;
    s.spawn.executable = worker_path();
    s.spawn.device = -1;
    s.spawn.test_hooks = true;
    s.standby = standby;
    return s;
}

Outcome test_call(Supervisor& sup, Json body, double deadline_s = 10.0, std::vector<std::string> blobs = {}) {
    return sup.call(wire::Msg::test, body, blobs, deadline_s);
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

size_t open_fds() {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

// True while `pid` runs (a zombie does not count: its parent may be a PID 1
// that never reaps, as in some containers).
bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    size_t close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' && line[close + 2] != 'X';
}

// Not our child any more: reaped (waitpid says ECHILD).
bool reaped(pid_t pid) {
    int status = 0;
    return ::waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(WorkerWatchdog, EchoRoundTripsThroughAWorkerProcess) {
    ASSERT_TRUE(::access(worker_path().c_str(), X_OK) == 0) << "build kbench-worker first: " << worker_path();
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "echo"}, {"value", {{"x", 1}}}}, 10.0, {"blob\0data"});
    ASSERT_TRUE(o.ok()) << o.detail;
    ASSERT_TRUE(wire::reply_ok(o.reply.json)) << o.reply.json.dump();
    EXPECT_EQ(o.reply.json["result"]["value"]["x"], 1);
    EXPECT_EQ(o.reply.json["result"]["pid"].get<int>(), int(sup.pid()));
    EXPECT_EQ(o.reply.blobs.size(), 1u);
    EXPECT_NE(sup.pid(), ::getpid());
}

TEST(WorkerWatchdog, HangIsATimeoutWithinHalfASecondOfTheDeadline) {
    Supervisor sup(settings());
    ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    pid_t hung = sup.pid();
    auto t0 = std::chrono::steady_clock::now();
    Outcome o = test_call(sup, {{"action", "sleep"}, {"seconds", 60}}, 0.5);
    double took = seconds_since(t0);
    EXPECT_EQ(o.kind, Outcome::Kind::timeout) << o.detail;
    EXPECT_GE(took, 0.5);
    EXPECT_LT(took, 1.0) << "the deadline was 0.5 s";
    EXPECT_TRUE(has(o.detail, "0.50 s")) << o.detail;
    // The hung worker is gone and the next request is served by another.
    EXPECT_TRUE(sup.reap_pending(5.0));
    EXPECT_FALSE(running(hung));
    EXPECT_TRUE(reaped(hung));
    Outcome next = test_call(sup, {{"action", "echo"}, {"value", 2}});
    ASSERT_TRUE(next.ok()) << next.detail;
    EXPECT_EQ(next.reply.json["result"]["value"], 2);
    EXPECT_NE(sup.pid(), hung);
}

TEST(WorkerWatchdog, AbortIsADeathNamingSIGABRTAndWhatTheWorkerWasDoing) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "abort"}});
    EXPECT_EQ(o.kind, Outcome::Kind::died);
    EXPECT_EQ(o.term_signal, SIGABRT);
    EXPECT_TRUE(has(o.detail, "SIGABRT")) << o.detail;
    EXPECT_TRUE(has(o.last_words, "abort")) << "the worker's note: " << o.last_words;
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
}

TEST(WorkerWatchdog, SegfaultNamesSIGSEGV) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "segv"}});
    EXPECT_EQ(o.kind, Outcome::Kind::died);
    EXPECT_EQ(o.term_signal, SIGSEGV);
    EXPECT_TRUE(has(o.detail, "SIGSEGV (segmentation fault)")) << o.detail;
    EXPECT_TRUE(has(o.last_words, "segv")) << o.last_words;
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
}

TEST(WorkerWatchdog, ExitMidRequestReportsItsStatus) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "exit"}, {"code", 3}});
    EXPECT_EQ(o.kind, Outcome::Kind::died);
    EXPECT_EQ(o.exit_code, 3);
    EXPECT_TRUE(has(o.detail, "exited with status 3")) << o.detail;
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
}

TEST(WorkerWatchdog, GarbledRepliesAreReportedNotTrusted) {
    Supervisor sup(settings());
    for (const char* action : {"garble", "bad_json", "wrong_id"}) {
        pid_t before = 0;
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
        before = sup.pid();
        Outcome o = test_call(sup, {{"action", action}});
        EXPECT_EQ(o.kind, Outcome::Kind::garbled) << action << ": " << outcome_kind_name(o.kind) << " " << o.detail;
        EXPECT_FALSE(o.detail.empty());
        Outcome next = test_call(sup, {{"action", "echo"}});
        EXPECT_TRUE(next.ok()) << action;
        EXPECT_NE(sup.pid(), before) << action;
    }
    EXPECT_TRUE(sup.reap_pending(5.0));
}

TEST(WorkerWatchdog, HalfAReplyThenSilenceIsATimeout) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "partial"}, {"seconds", 30}}, 0.4);
    EXPECT_EQ(o.kind, Outcome::Kind::timeout) << o.detail;
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
}

TEST(WorkerWatchdog, ResultsReturnedBeforeACrashAreIntact) {
    Supervisor sup(settings());
    Outcome a = test_call(sup, {{"action", "echo"}, {"value", "first"}});
    Outcome b = test_call(sup, {{"action", "echo"}, {"value", "second"}}, 10.0, {"payload"});
    Outcome c = test_call(sup, {{"action", "segv"}});
    EXPECT_EQ(c.kind, Outcome::Kind::died);
    EXPECT_EQ(a.reply.json["result"]["value"], "first");
    EXPECT_EQ(b.reply.json["result"]["value"], "second");
    EXPECT_EQ(b.reply.blobs.at(0), "payload");
}

TEST(WorkerWatchdog, RespawnTakesTheWarmStandby) {
    Supervisor sup(settings(true));
    ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());  // the standby starts now
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(test_call(sup, {{"action", "abort"}}).kind, Outcome::Kind::died);
        auto t0 = std::chrono::steady_clock::now();
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
        double took_ms = seconds_since(t0) * 1000.0;
        EXPECT_LT(took_ms, 500.0) << "crash to the next answer, respawn included";
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the next standby come up
    }
    EXPECT_EQ(sup.respawns(), 5u);
    Json st = sup.stats();
    EXPECT_GE(st["workers_started"].get<int>(), 6);
    EXPECT_LT(st["max_respawn_ms"].get<double>(), 500.0) << st.dump();
}

TEST(WorkerWatchdog, LettingGoReturnsAtOnceAndTheWorkersEndOnTheirOwn) {
    // kbench run's end (Context::end_without_waiting): the host hangs up on
    // the worker in use and its standby and waits for neither; each reads
    // the end of its connection and exits normally (status 0: not killed,
    // so it frees its device and writes its profile).
    auto sup = std::make_unique<Supervisor>(settings(true));
    ASSERT_TRUE(test_call(*sup, {{"action", "echo"}}).ok());  // the standby starts now
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const pid_t active = sup->pid();
    ASSERT_GT(active, 0);
    auto t0 = std::chrono::steady_clock::now();
    sup->let_go();
    sup.reset();
    EXPECT_LT(seconds_since(t0), 0.1) << "letting go waited for the workers";
    std::set<pid_t> ended;
    int active_status = -1;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
        int status = 0;
        pid_t r = ::waitpid(-1, &status, WNOHANG);
        if (r > 0) {
            ended.insert(r);
            if (r == active) active_status = status;
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
                << "worker " << r << " did not end normally (status " << status << ")";
            continue;
        }
        if (r < 0 && errno == ECHILD) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(ended.count(active)) << "the worker in use did not end within 10 s";
    EXPECT_TRUE(WIFEXITED(active_status) && WEXITSTATUS(active_status) == 0);
    EXPECT_EQ(ended.size(), 2u) << "the worker in use and its standby";
}

TEST(WorkerWatchdog, AStandbyAfterALossStartsOnlyOnceAWorkerIsLost) {
    // Where faults are contained (worker_settings): no second worker while
    // none has been lost; after the first loss, a standby as usual.
    WorkerSettings s = settings(true);
    s.standby_after_loss = true;
    Supervisor sup(s);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    EXPECT_EQ(sup.stats()["standby"], "after a loss");
    EXPECT_EQ(sup.stats()["workers_started"].get<int>(), 1);
    EXPECT_EQ(test_call(sup, {{"action", "abort"}}).kind, Outcome::Kind::died);
    ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());  // a fresh worker, and its standby behind it
    EXPECT_EQ(sup.stats()["standby"], "starting or ready");
    EXPECT_EQ(sup.stats()["workers_started"].get<int>(), 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(test_call(sup, {{"action", "abort"}}).kind, Outcome::Kind::died);
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    EXPECT_LT(seconds_since(t0), 0.5) << "the second loss's replacement was not the warm standby";
    EXPECT_EQ(sup.respawns(), 2u);
}

TEST(WorkerWatchdog, RespawnWithoutStandbyWorksToo) {
    Supervisor sup(settings(false));
    EXPECT_EQ(test_call(sup, {{"action", "segv"}}).kind, Outcome::Kind::died);
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    EXPECT_EQ(sup.stats()["standby"], "off");
}

TEST(WorkerWatchdog, KillingTheGroupTakesTheWorkersChildren) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "grandchild"}, {"seconds", 60}});
    ASSERT_TRUE(o.ok() && wire::reply_ok(o.reply.json)) << o.detail;
    pid_t child = o.reply.json["result"]["child"].get<pid_t>();
    ASSERT_TRUE(running(child));
    EXPECT_EQ(test_call(sup, {{"action", "sleep"}, {"seconds", 60}}, 0.3).kind, Outcome::Kind::timeout);
    auto t0 = std::chrono::steady_clock::now();
    while (running(child) && seconds_since(t0) < 5) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(running(child)) << "the worker's child survived the kill of its process group";
}

TEST(WorkerWatchdog, AWorkerThatDiedWhileIdleIsReplacedBeforeTheNextRequest) {
    Supervisor sup(settings());
    ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    pid_t victim = sup.pid();
    ::kill(victim, SIGKILL);
    auto t0 = std::chrono::steady_clock::now();
    while (running(victim) && seconds_since(t0) < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    // Its main thread is a zombie now; the others finish dying a moment later.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Outcome o = test_call(sup, {{"action", "echo"}, {"value", 5}});
    ASSERT_TRUE(o.ok()) << "a request was blamed for a death that happened before it: " << o.detail;
    EXPECT_NE(sup.pid(), victim);
}

TEST(WorkerWatchdog, ASickWorkerIsRetiredOnRequest) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "lose_device"}});
    ASSERT_TRUE(o.ok());
    EXPECT_TRUE(o.reply.json.value("device_lost", false));
    pid_t sick = sup.pid();
    sup.retire();
    EXPECT_EQ(sup.pid(), 0);
    EXPECT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
    EXPECT_NE(sup.pid(), sick);
}

TEST(WorkerWatchdog, NoZombiesAndNoDescriptorLeaksAcrossManyRespawns) {
    std::vector<pid_t> seen;
    size_t fds_before = 0;
    {
        Supervisor sup(settings());
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());  // active + standby: the steady state
        fds_before = open_fds();
        const char* faults[] = {"abort", "segv", "exit", "sleep", "garble"};
        for (int i = 0; i < 60; ++i) {
            Json body = {{"action", faults[i % 5]}, {"seconds", 30}, {"code", 1}};
            ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok()) << i;
            seen.push_back(sup.pid());
            Outcome o = test_call(sup, body, 0.3);
            EXPECT_NE(o.kind, Outcome::Kind::reply) << faults[i % 5];
        }
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        ASSERT_TRUE(test_call(sup, {{"action", "echo"}}).ok());
        EXPECT_TRUE(sup.reap_pending(5.0));
        EXPECT_EQ(open_fds(), fds_before) << "descriptors leaked across " << seen.size() << " respawns";
    }
    for (pid_t p : seen) {
        EXPECT_TRUE(reaped(p)) << "worker " << p << " was not reaped";
        EXPECT_FALSE(running(p)) << "worker " << p << " still runs";
    }
    EXPECT_LE(open_fds(), fds_before);
}

TEST(WorkerWatchdog, WorkerInheritsNoDescriptorOfTheHost) {
    // Deliberately without O_CLOEXEC, at a number the worker would not reuse.
    int leaked = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(leaked, 0);
    int high = ::dup2(leaked, 200);
    ASSERT_EQ(high, 200);
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "fds"}});
    ::close(leaked);
    ::close(high);
    ASSERT_TRUE(o.ok());
    std::set<int> fds;
    for (const Json& f : o.reply.json["result"]["fds"]) fds.insert(f.get<int>());
    EXPECT_FALSE(fds.count(200)) << "the worker kept a descriptor the host leaked";
    EXPECT_LE(fds.size(), 6u) << o.reply.json.dump();  // stdio, its socket, its watcher's pidfd
}

TEST(WorkerWatchdog, LargeRepliesArriveWhole) {
    Supervisor sup(settings());
    Outcome o = test_call(sup, {{"action", "big"}, {"bytes", 8 << 20}});
    ASSERT_TRUE(o.ok()) << o.detail;
    ASSERT_EQ(o.reply.blobs.size(), 1u);
    EXPECT_EQ(o.reply.blobs[0].size(), size_t(8) << 20);
    std::string big(size_t(6) << 20, 'y');  // a large request: written past the socket's buffer
    Outcome e = test_call(sup, {{"action", "echo"}}, 10.0, {big});
    ASSERT_TRUE(e.ok()) << e.detail;
    EXPECT_EQ(e.reply.blobs.at(0), big);
}

TEST(WorkerWatchdog, TestHooksAreRefusedByAProductionWorker) {
    WorkerSettings s = settings();
    s.spawn.test_hooks = false;
    Supervisor sup(s);
    Outcome o = test_call(sup, {{"action", "abort"}});
    ASSERT_TRUE(o.ok()) << o.detail;
    EXPECT_FALSE(wire::reply_ok(o.reply.json));
    EXPECT_TRUE(has(wire::reply_error(o.reply.json), "--test-hooks")) << o.reply.json.dump();
}

TEST(WorkerWatchdog, AProgramThatIsNoWorkerFailsToStartWithTheReason) {
    WorkerSettings s = settings(false);
    s.spawn.executable = "/bin/true";
    Supervisor sup(s);
    try {
        sup.ensure_ready();
        FAIL() << "/bin/true was accepted as a worker";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_WORKER);
        EXPECT_TRUE(has(e.what(), "exited with status 0")) << e.what();
        EXPECT_TRUE(has(e.what(), "/bin/true")) << e.what();
    }
    WorkerSettings missing = settings(false);
    missing.spawn.executable = "/nonexistent/kbench-worker";
    Supervisor none(missing);
    try {
        none.ensure_ready();
        FAIL() << "a missing worker was started";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_WORKER);
        EXPECT_TRUE(has(e.what(), "/nonexistent/kbench-worker")) << e.what();
        EXPECT_TRUE(has(e.what(), "KBENCH_WORKER")) << e.what();
    }
}

TEST(WorkerLocate, ExplicitPathsWinAndBadOnesAreErrors) {
    EXPECT_EQ(find_worker_executable(worker_path()), worker_path());
    try {
        find_worker_executable("/nonexistent/worker");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_WORKER);
        EXPECT_TRUE(has(e.what(), "worker_path")) << e.what();
    }
    ::setenv("KBENCH_WORKER", "/nonexistent/env-worker", 1);
    try {
        find_worker_executable("");
        FAIL();
    } catch (const Error& e) {
        EXPECT_TRUE(has(e.what(), "$KBENCH_WORKER")) << e.what();
    }
    ::setenv("KBENCH_WORKER", worker_path().c_str(), 1);
    EXPECT_EQ(find_worker_executable(""), worker_path());
    ::unsetenv("KBENCH_WORKER");
    // Without configuration the build tree's worker is found.
    std::string found = find_worker_executable("");
    EXPECT_TRUE(has(found, "kbench-worker")) << found;
    bool listed = false;
    for (const std::string& p : worker_search_path()) listed = listed || p == worker_path();
    EXPECT_TRUE(listed);
}
