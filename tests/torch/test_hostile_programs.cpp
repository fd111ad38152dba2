// The hostile corpus (tests/programs/hostile/) scored as program candidates
// through one context with kbench's confined Python workers
// (docs/isolation.md, "Confinement"): on torch's CPU under the test hooks
// (label torch), and built with KB_TORCH_TESTS_NEED_GPU on a device (label
// gpu). Each entry does one harmful thing in forward; the test checks that
// nothing happened outside (no file, no connection, no surviving process, the
// canary and the host's /proc files unread), that the host survived, and that
// a correct candidate passes right after it in the same context.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "engine/context.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "ipc/confine.h"
#include "torch/torch_python.h"
#include "worker_host/isolation.h"

using namespace kb;

namespace {

const std::string kDir = std::string(KB_SOURCE_DIR) + "/tests/programs";

bool exists(const std::string& p) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0;
}

std::string slurp(const std::string& p) {
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Alive and not a zombie.
bool running(int pid) {
    std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    size_t p = stat.rfind(')');
    return p != std::string::npos && p + 2 < stat.size() && stat[p + 2] != 'Z';
}

// The pids a corpus entry reported in the candidate worker's folder (the
// host's TMPDIR is the test's own, so the workers' folders are under it).
std::vector<int> reported_pids(const std::string& tmp, const std::string& name) {
    std::vector<int> pids;
    FILE* p = ::popen(("cat " + tmp + "/kbench-programs-*/candidate/hostile-report-" + name + ".json 2>/dev/null")
                          .c_str(), "r");
    std::string text;
    char buf[4096];
    size_t n;
    while (p && (n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
    if (p) ::pclose(p);
    try {
        Json j = Json::parse(text);
        for (const Json& x : j.value("pids", Json::array())) pids.push_back(x.get<int>());
    } catch (...) {
    }
    return pids;
}

class HostilePrograms : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        ::setenv("KBENCH_PYTHON", test::torch_python().c_str(), 1);
#ifndef KB_TORCH_TESTS_NEED_GPU
        ::setenv("KBENCH_WORKER_TEST_HOOKS", "1", 1);
        ::setenv("KBENCH_PROGRAM_TEST_CPU", "1", 1);
        ::unsetenv("KBENCH_CONFINE");
#else
        // Workers on a device are confined by default where the user
        // namespace works (ipc/confine.h: confine_python_worker); the test
        // runs with that default.
        ::unsetenv("KBENCH_CONFINE");
#endif
        ::setenv("KBENCH_HOSTILE_HOST_PID", std::to_string(::getpid()).c_str(), 1);
        ::setenv("HOSTILE_HOST_SECRET", "secret-token-4711", 1);
        char tmp[] = "/tmp/kbench-hostile-tmp-XXXXXX";
        tmp_ = ::mkdtemp(tmp);
        ::setenv("TMPDIR", tmp_.c_str(), 1);
        tag_ = "kbench-hostile-" + std::to_string(::getpid());
        const char* home = std::getenv("HOME");
        home_ = home ? home : "/root";
        targets_ = {home_ + "/" + tag_, "/tmp/" + tag_, kDir + "/../../python/kbench_programs/" + tag_ + ".py",
                    home_ + "/.triton/cache/" + tag_};
        std::string list;
        for (const std::string& t : targets_) list += (list.empty() ? "" : ":") + t;
        ::setenv("KBENCH_HOSTILE_TARGETS", list.c_str(), 1);
        char dir[] = "/tmp/kbench-canary-XXXXXX";
        canary_dir_ = ::mkdtemp(dir);
        canary_ = canary_dir_ + "/canary.txt";
        std::ofstream(canary_) << "canary-7d3f";
        ::setenv("KBENCH_HOSTILE_CANARY", canary_.c_str(), 1);
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(listener_, 64);
        socklen_t len = sizeof a;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
        ::setenv("KBENCH_HOSTILE_PORT", std::to_string(ntohs(a.sin_port)).c_str(), 1);
        ContextOptions o;
#ifdef KB_TORCH_TESTS_NEED_GPU
        o.device = 0;
#else
        o.device = KB_DEVICE_NONE;
#endif
        o.timeout_s = 30;
        ctx_ = std::make_unique<Context>(o, worker_isolation());
    }
    static void TearDownTestSuite() {
        ctx_.reset();
        ::close(listener_);
        for (const std::string& t : targets_) ::unlink(t.c_str());
        ::system(("rm -rf '" + canary_dir_ + "' '" + tmp_ + "'").c_str());
    }

    ScoreResult score(const std::string& path) {
        TaskPtr t = load_task(kDir + "/tasks/softmax_rows/task.json");
        CandidateInput in;
        in.language = Language::python;
        in.language_given = true;
        in.path = path;
        ScoreOptions so;
        so.protocol = "strict";
        so.skip_timing = true;
        return ctx_->score(t, in, so);
    }

    // The harmful candidate, then the checks outside, then a correct one.
    ScoreResult hostile(const std::string& name) {
        ScoreResult r = score(kDir + "/hostile/" + name + ".py");
        std::string j = to_json(r).dump();
        EXPECT_EQ(j.find("secret-token-4711"), std::string::npos) << name;
        EXPECT_EQ(j.find("canary-7d3f"), std::string::npos) << name;
        for (const std::string& t : targets_) EXPECT_FALSE(exists(t)) << name << " wrote " << t;
        EXPECT_FALSE(exists(canary_ + ".copy")) << name;
        EXPECT_FALSE(exists("/tmp/kbench-hostile-canary-copy")) << name;
        pollfd p{listener_, POLLIN, 0};
        EXPECT_EQ(::poll(&p, 1, 0), 0) << name << ": a connection reached the listener";
        EXPECT_EQ(to_json(r)["sandbox"], sandbox_summary()) << name;
        ScoreResult ok = score(kDir + "/candidates/softmax_torch.py");
        EXPECT_EQ(ok.verdict, KB_VERDICT_PASS) << "after " << name << ": " << ok.message;
        return r;
    }

    static std::unique_ptr<Context> ctx_;
    static std::string tmp_, tag_, home_, canary_dir_, canary_;
    static std::vector<std::string> targets_;
    static int listener_;
};

std::unique_ptr<Context> HostilePrograms::ctx_;
std::string HostilePrograms::tmp_, HostilePrograms::tag_, HostilePrograms::home_, HostilePrograms::canary_dir_, HostilePrograms::canary_;
std::vector<std::string> HostilePrograms::targets_;
int HostilePrograms::listener_ = -1;

}  // namespace

TEST_F(HostilePrograms, EveryEntryIsContainedAndTheNextCandidatePasses) {
    for (const char* name : {"kill_parent", "kill_all", "killpg_host", "ptrace_host", "connect_local", "read_canary",
                             "proc_of_host", "write_outside", "env_for_next", "env_for_next"}) {
        SCOPED_TRACE(name);
        hostile(name);
    }
}

TEST_F(HostilePrograms, ProcessesItStartsDoNotOutliveIt) {
    for (const char* name : {"orphan_daemon", "fork_storm"}) {
        SCOPED_TRACE(name);
        hostile(name);
        std::vector<int> pids = reported_pids(tmp_, name);
        EXPECT_FALSE(pids.empty()) << "no report of the processes it started";
        auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        size_t alive = pids.size();
        while (alive && std::chrono::steady_clock::now() < until) {
            alive = size_t(std::count_if(pids.begin(), pids.end(), running));
            if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_EQ(alive, 0u) << "a process it started survived its score";
        for (int p : pids)
            if (running(p)) ::kill(p, SIGKILL);
    }
}

TEST_F(HostilePrograms, CrashesAndHangsFailAndTheNextCandidatePasses) {
    for (const char* name : {"exits", "segfault", "spins"}) {
        SCOPED_TRACE(name);
        ScoreResult r = hostile(name);
        EXPECT_NE(r.verdict, KB_VERDICT_PASS) << r.message;
    }
}
