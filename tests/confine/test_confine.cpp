// The confinement of workers that run untrusted Python (src/ipc/confine.h,
// docs/isolation.md "Confinement"), on the CPU and without torch: each entry
// of the hostile corpus (tests/programs/hostile/) runs alone in a process
// started the way the program and Triton workers are (WorkerProcess::spawn
// with `confine`), and the test checks what it could do and that nothing
// happened outside: no file, no connection, no surviving process, the host
// alive. After each, a benign script must still run and write its report.
// Needs python3 (skips without it).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "ipc/confine.h"
#include "ipc/spawn.h"
#include "ipc/worker_process.h"
#include "util/json.h"

using namespace kb;

namespace {

const std::string kHostile = std::string(KB_SOURCE_DIR) + "/tests/programs/hostile";

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

bool exists(const std::string& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

std::string temp_dir(const char* prefix) {
    std::string t = std::string("/tmp/") + prefix + "XXXXXX";
    char* d = ::mkdtemp(&t[0]);
    return d ? std::string(d) : std::string();
}

// Alive and not a zombie.
bool running(int pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    if (stat.empty()) return false;
    size_t p = stat.rfind(')');
    return p != std::string::npos && p + 2 < stat.size() && stat[p + 2] != 'Z';
}

bool python_available() { return ::system("python3 -c pass >/dev/null 2>&1") == 0; }

class Confine : public ::testing::Test {
protected:
    void SetUp() override {
        if (!python_available()) GTEST_SKIP() << "no python3";
        ::setenv("KBENCH_HOSTILE_HOST_PID", std::to_string(::getpid()).c_str(), 1);
        ::setenv("HOSTILE_HOST_SECRET", "secret-token-4711", 1);
        ::unsetenv("KBENCH_CONFINE");
        scratch_ = temp_dir("kbench-confine-test-");
        ASSERT_FALSE(scratch_.empty());
    }
    void TearDown() override {
        if (!scratch_.empty()) ::system(("rm -rf '" + scratch_ + "'").c_str());
    }

    // Runs one corpus entry confined, to its end; its report.
    Json run(const std::string& name, bool confine = true) {
        SpawnOptions o;
        o.command = {"python3", "-B", kHostile + "/" + name + ".py"};
        o.device = -1;
        o.extra_args = {"--work-dir", scratch_};
        o.what = "hostile test script";
        o.stderr_file = scratch_ + "/stderr.log";
        o.confine = confine;
        std::unique_ptr<WorkerProcess> w = WorkerProcess::spawn(o);
        EXPECT_TRUE(w->reap(60)) << name << " did not end";
        w.reset();  // kills what is left of its group
        std::string text = read_file(scratch_ + "/report.json");
        EXPECT_FALSE(text.empty()) << name << " wrote no report; stderr: " << read_file(scratch_ + "/stderr.log");
        ::unlink((scratch_ + "/report.json").c_str());
        try {
            return Json::parse(text);
        } catch (...) {
            return Json::object();
        }
    }

    // A benign script runs after a hostile one (nothing it did stops the next).
    void benign_still_runs() {
        Json r = run("env_for_next");
        EXPECT_EQ(r.value("set", false), true) << r.dump();
    }

    bool enforced(const char* what) { return sandbox_summary()[what].get<std::string>() != "off"; }

    std::string scratch_;
};

}  // namespace

TEST_F(Confine, InfoNamesEveryMechanismInForce) {
    Json s = sandbox_summary();
    for (const char* k : {"pid", "fs", "net"}) ASSERT_TRUE(s.contains(k)) << s.dump();
    Json i = sandbox_info();
    EXPECT_TRUE(i.contains("landlock_abi"));
    EXPECT_TRUE(i.contains("seccomp"));
    EXPECT_EQ(sandbox_summary(false)["fs"], "off");
    ::setenv("KBENCH_CONFINE", "0", 1);
    EXPECT_EQ(sandbox_summary()["pid"], "off");
    ::unsetenv("KBENCH_CONFINE");
}

TEST_F(Confine, TheEnvironmentIsAnAllowList) {
    const char* env[] = {"PATH=/usr/bin", "AWS_SECRET_ACCESS_KEY=x", "LD_PRELOAD=/evil.so", "CUDA_VISIBLE_DEVICES=1",
                         "HOME=/root", "KBENCH_X=1", "TRITON_CACHE_DIR=/root/.triton", nullptr};
    std::vector<std::string> e = confined_environment(env, "/s");
    auto has = [&](const std::string& v) { return std::find(e.begin(), e.end(), v) != e.end(); };
    EXPECT_TRUE(has("PATH=/usr/bin"));
    EXPECT_TRUE(has("CUDA_VISIBLE_DEVICES=1"));
    EXPECT_TRUE(has("KBENCH_X=1"));
    EXPECT_TRUE(has("HOME=/s/home"));
    EXPECT_TRUE(has("TRITON_CACHE_DIR=/s/triton-cache"));
    EXPECT_FALSE(has("AWS_SECRET_ACCESS_KEY=x"));
    EXPECT_FALSE(has("LD_PRELOAD=/evil.so"));
    EXPECT_FALSE(has("HOME=/root"));
}

TEST_F(Confine, KillingTheParentIsRefusedAndTheHostSurvives) {
    if (!enforced("pid")) GTEST_SKIP() << "no signal confinement here";
    Json r = run("kill_parent");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    benign_still_runs();
}

TEST_F(Confine, KillMinusOneReachesNothing) {
    if (!enforced("pid")) GTEST_SKIP() << "no signal confinement here";
    Json r = run("kill_all");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    benign_still_runs();
}

TEST_F(Confine, TheHostsGroupCannotBeSignalled) {
    if (!enforced("pid")) GTEST_SKIP() << "no signal confinement here";
    Json r = run("killpg_host");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    benign_still_runs();
}

TEST_F(Confine, PtraceOfTheHostIsRefused) {
    if (!enforced("pid")) GTEST_SKIP() << "no process confinement here";
    Json r = run("ptrace_host");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    benign_still_runs();
}

TEST_F(Confine, AForkStormLeavesNoProcessBehind) {
    Json r = run("fork_storm");
    std::vector<int> pids;
    for (const Json& p : r.value("pids", Json::array())) pids.push_back(p.get<int>());
    EXPECT_FALSE(pids.empty()) << r.dump();
    // The group kill at the worker's end reaches every one of them.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    size_t alive = pids.size();
    while (alive && std::chrono::steady_clock::now() < until) {
        alive = size_t(std::count_if(pids.begin(), pids.end(), running));
        if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(alive, 0u);
    const ConfineSupport& s = confine_support();
    if (s.user_namespace && !s.host_is_root) {
        EXPECT_LE(r.value("forked", 0), 1024) << r.dump();
    }
    benign_still_runs();
}

TEST_F(Confine, DaemonsDoNotOutliveTheirWorker) {
    Json r = run("orphan_daemon");
    if (confine_support().seccomp) {
        EXPECT_TRUE(r.contains("session_refused")) << r.dump();
    }
    std::vector<int> pids;
    for (const Json& p : r.value("pids", Json::array())) pids.push_back(p.get<int>());
    EXPECT_FALSE(pids.empty()) << r.dump();
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    size_t alive = pids.size();
    while (alive && std::chrono::steady_clock::now() < until) {
        alive = size_t(std::count_if(pids.begin(), pids.end(), running));
        if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(alive, 0u) << r.dump();
    for (int p : pids)
        if (running(p)) ::kill(p, SIGKILL);  // a failure must not leave them to the next test
    benign_still_runs();
}

TEST_F(Confine, NoConnectionReachesALocalListener) {
    if (!enforced("net")) GTEST_SKIP() << "no network confinement here";
    int l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ASSERT_GE(l, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(l, 16), 0);
    socklen_t len = sizeof a;
    ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
    ::setenv("KBENCH_HOSTILE_PORT", std::to_string(ntohs(a.sin_port)).c_str(), 1);
    Json r = run("connect_local");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    pollfd p{l, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 100), 0) << "a connection reached the listener";
    // The check can fail: unconfined, the same script connects.
    Json open = run("connect_local", false);
    EXPECT_EQ(open.value("connected", false), true) << open.dump();
    EXPECT_EQ(::poll(&p, 1, 100), 1);
    ::close(l);
    benign_still_runs();
}

TEST_F(Confine, AFileOutsideTheAllowedPathsCannotBeRead) {
    if (!enforced("fs")) GTEST_SKIP() << "no file-system confinement here";
    std::string dir = temp_dir("kbench-canary-");
    std::string canary = dir + "/canary.txt";
    { std::ofstream(canary) << "canary-7d3f"; }
    ::setenv("KBENCH_HOSTILE_CANARY", canary.c_str(), 1);
    Json r = run("read_canary");
    EXPECT_TRUE(r.contains("refused")) << r.dump();
    EXPECT_FALSE(exists(canary + ".copy"));
    EXPECT_FALSE(exists("/tmp/kbench-hostile-canary-copy"));
    // Unconfined, it reads it (the check can fail).
    Json open = run("read_canary", false);
    EXPECT_EQ(open.value("read", ""), "canary-7d3f") << open.dump();
    ::unlink((canary + ".copy").c_str());
    ::unlink("/tmp/kbench-hostile-canary-copy");
    ::system(("rm -rf '" + dir + "'").c_str());
    benign_still_runs();
}

TEST_F(Confine, TheHostsProcFilesCannotBeRead) {
    if (!enforced("fs")) GTEST_SKIP() << "no file-system confinement here";
    Json r = run("proc_of_host");
    EXPECT_TRUE(r.contains("environ_refused")) << r.dump();
    EXPECT_TRUE(r.contains("mem_refused")) << r.dump();
    EXPECT_EQ(r.dump().find("secret-token-4711"), std::string::npos);
    benign_still_runs();
}

TEST_F(Confine, NothingIsWrittenOutsideTheScratchFolder) {
    if (!enforced("fs")) GTEST_SKIP() << "no file-system confinement here";
    const char* home = std::getenv("HOME");
    const std::string tag = "kbench-hostile-" + std::to_string(::getpid());
    std::vector<std::string> targets = {std::string(home ? home : "/root") + "/" + tag, "/tmp/" + tag,
                                        std::string(KB_SOURCE_DIR) + "/python/kbench_programs/" + tag + ".py",
                                        std::string(home ? home : "/root") + "/.triton/cache/" + tag};
    std::string list;
    for (const std::string& t : targets) list += (list.empty() ? "" : ":") + t;
    ::setenv("KBENCH_HOSTILE_TARGETS", list.c_str(), 1);
    Json r = run("write_outside");
    for (const std::string& t : targets) {
        EXPECT_FALSE(exists(t)) << t << " was written";
        ::unlink(t.c_str());
    }
    EXPECT_EQ(r.dump().find("written"), std::string::npos) << r.dump();
    benign_still_runs();
}

TEST_F(Confine, TheSharedLoadInlineCacheIsReadOnlyButToItsBuilder) {
    // Candidate workers read the precompiled headers the builder alone
    // writes (worker_host/program_workers.cpp, --load-inline-cache and
    // --build-pch), and the libraries builder workers made ahead, which the
    // host alone writes (--prebuilt-dir).
    if (!enforced("fs")) GTEST_SKIP() << "no file-system confinement here";
    const std::string shared = temp_dir("kbench-confine-pch-");
    ASSERT_FALSE(shared.empty());
    { std::ofstream(shared + "/header") << "made by the builder"; }
    const char* probe = R"(import json, os, sys
args = dict(zip(sys.argv[1::1], sys.argv[2::1]))
out = {}
cache = args.get("--load-inline-cache") or args.get("--build-pch") or args.get("--prebuilt-dir")
try:
    out["read"] = open(os.path.join(cache, "header")).read()
except OSError as e:
    out["read"] = "refused: %s" % e
try:
    open(os.path.join(cache, "written"), "w").write("x")
    out["wrote"] = True
except OSError as e:
    out["wrote"] = False
open(os.path.join(args["--work-dir"], "report.json"), "w").write(json.dumps(out))
)";
    for (const char* flag : {"--load-inline-cache", "--prebuilt-dir", "--build-pch"}) {
        SCOPED_TRACE(flag);
        SpawnOptions o;
        o.command = {"python3", "-B", "-c", probe};
        o.device = -1;
        o.extra_args = {"--work-dir", scratch_, flag, shared};
        o.what = "load_inline cache probe";
        o.stderr_file = scratch_ + "/stderr.log";
        o.confine = true;
        std::unique_ptr<WorkerProcess> w = WorkerProcess::spawn(o);
        ASSERT_TRUE(w->reap(60));
        w.reset();
        Json r = Json::parse(read_file(scratch_ + "/report.json"));
        EXPECT_EQ(r.value("read", ""), "made by the builder") << r.dump() << read_file(scratch_ + "/stderr.log");
        EXPECT_EQ(r.value("wrote", true), std::string(flag) == "--build-pch") << r.dump();
        EXPECT_EQ(exists(shared + "/written"), std::string(flag) == "--build-pch");
    }
    ::system(("rm -rf '" + shared + "'").c_str());
}

TEST_F(Confine, TheHostsEnvironmentDoesNotPassAndChangesDoNotCarryOver) {
    ::setenv("LD_PRELOAD", "", 1);  // an empty one: harmless here, and it must not pass
    Json first = run("env_for_next");
    EXPECT_EQ(first.value("host_secret", "?"), "") << first.dump();
    Json second = run("env_for_next");
    EXPECT_EQ(second["before"].value("LD_PRELOAD", "?"), "") << second.dump();
    EXPECT_EQ(second["before"].value("KBENCH_HOSTILE_MARK", "?"), "") << second.dump();
    ::unsetenv("LD_PRELOAD");
}

// The confinement's cost per worker start: the same process started with and
// without it (the median of 40 starts of /bin/true each), at most 50 ms.
TEST_F(Confine, CostsLittlePerStart) {
    auto start = [&](bool confine) {
        SpawnSpec spec;
        spec.argv = {"/bin/true"};
        spec.env = {"PATH=/usr/bin:/bin"};
        ConfinePlanPtr plan;
        auto t0 = std::chrono::steady_clock::now();
        if (confine) {
            ConfineRequest req;
            req.enabled = true;
            req.device = true;
            req.read_paths = python_installation_paths("python3");
            req.write_paths = {scratch_};
            std::string err;
            plan = prepare_confinement(req, &spec.env, &err);
            EXPECT_TRUE(plan) << err;
            spec.confine = plan.get();
        }
        std::string err;
        pid_t pid = spawn_process(spec, &err);
        EXPECT_GT(pid, 0) << err;
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        int status = 0;
        ::waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
        return ms;
    };
    std::vector<double> plain, confined;
    for (int i = 0; i < 40; ++i) {
        plain.push_back(start(false));
        confined.push_back(start(true));
    }
    std::sort(plain.begin(), plain.end());
    std::sort(confined.begin(), confined.end());
    const double cost = confined[20] - plain[20];
    std::printf("start to exec, median of 40: %.2f ms plain, %.2f ms confined: %.2f ms for the confinement\n",
                plain[20], confined[20], cost);
    RecordProperty("confine_cost_ms", std::to_string(cost));
    EXPECT_LT(cost, 50.0);
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
