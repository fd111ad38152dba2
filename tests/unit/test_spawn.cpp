// Helper processes under limits (src/ipc/spawn.cpp): the limits are the
// kernel's, the process group is its own, nothing of the host leaks into it,
// and nothing it starts outlives run_limited.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "ipc/spawn.h"

namespace {

using kb::LimitHit;
using kb::RunResult;
using kb::SpawnSpec;

SpawnSpec sh(const std::string& script) {
    SpawnSpec s;
    s.argv = {"/bin/sh", "-c", script};
    s.env = {"PATH=/usr/bin:/bin", "MARK=kbench"};
    return s;
}

TEST(Spawn, RunsWithTheGivenEnvironmentFolderAndNothingElseOfTheHost) {
    // A descriptor the host forgot to mark close-on-exec must not reach it.
    int leaky = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(leaky, 0);
    SpawnSpec s = sh("echo \"env=$MARK\"; pwd; ls /proc/self/fd | wc -l; env | wc -l");
    s.cwd = "/tmp";
    RunResult r = kb::run_limited(s, 10, 1 << 20);
    ::close(leaky);
    ASSERT_TRUE(r.ok()) << r.error << r.output;
    EXPECT_NE(r.output.find("env=kbench"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("\n/tmp\n"), std::string::npos) << r.output;
    // ls sees 0, 1, 2 and its own directory descriptor; the shell's env has
    // what it was given plus what sh itself sets (PWD, maybe SHLVL, _).
    EXPECT_NE(r.output.find("\n4\n"), std::string::npos) << r.output;
}

TEST(Spawn, ItsOwnProcessGroupAndTheLimitsAreTheKernels) {
    SpawnSpec s = sh("ps -o pgid= -p $$; echo pid=$$; ulimit -d; ulimit -t; ulimit -f; ulimit -c");
    s.limits.memory_bytes = uint64_t(512) << 20;
    s.limits.cpu_s = 7;
    s.limits.file_bytes = uint64_t(1) << 20;
    RunResult r = kb::run_limited(s, 10, 1 << 20);
    ASSERT_TRUE(r.ok()) << r.error << r.output;
    // pgid == pid, limits as asked (ulimit -d (the memory cap is RLIMIT_DATA) and -f count KiB and 512-byte
    // blocks in dash; bash counts KiB for both: accept either for -f).
    size_t pid_at = r.output.find("pid=");
    ASSERT_NE(pid_at, std::string::npos);
    std::string pid = r.output.substr(pid_at + 4, r.output.find('\n', pid_at) - pid_at - 4);
    EXPECT_EQ(std::stol(r.output), std::stol(pid)) << r.output;
    EXPECT_NE(r.output.find("\n524288\n7\n"), std::string::npos) << r.output;
    EXPECT_TRUE(r.output.find("\n2048\n0\n") != std::string::npos || r.output.find("\n1024\n0\n") != std::string::npos)
        << r.output;
}

TEST(Spawn, WallClockLimitKillsTheWholeGroup) {
    auto t0 = std::chrono::steady_clock::now();
    // A grandchild that would keep the output pipe open for a minute.
    RunResult r = kb::run_limited(sh("sleep 60 & sleep 60"), 0.5, 1 << 20);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.limit, LimitHit::wall);
    EXPECT_NE(r.limit_detail.find("wall-clock limit of 0.5 s"), std::string::npos) << r.limit_detail;
    EXPECT_LT(s, 3.0);
    // Nothing of that group runs on: the grandchild's sleep is gone too. A
    // killed process may take a moment to go on a loaded machine (ctest -j2
    // on two cores once saw it 100 ms after the kill), so look for up to 2 s.
    RunResult ps;
    for (int i = 0; i < 20; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ps = kb::run_limited(sh("ps -eo args | grep -c '^sleep 60$'"), 10, 1 << 20);
        if (ps.output == "0\n") break;
    }
    EXPECT_EQ(ps.output, "0\n");
}

TEST(Spawn, ProcessesLeftBehindByAFinishedCommandAreKilled) {
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = kb::run_limited(sh("(sleep 61 > /dev/null 2>&1 &) ; echo done"), 30, 1 << 20);
    EXPECT_TRUE(r.ok()) << r.output;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    RunResult ps = kb::run_limited(sh("ps -eo args | grep -c '^sleep 61$'"), 10, 1 << 20);
    EXPECT_EQ(ps.output, "0\n");
}

TEST(Spawn, CpuTimeLimitIsReportedAsSuch) {
    SpawnSpec s = sh("while :; do :; done");
    s.limits.cpu_s = 1;
    RunResult r = kb::run_limited(s, 30, 1 << 20);
    EXPECT_EQ(r.limit, LimitHit::cpu) << r.output;
    EXPECT_EQ(r.term_signal, SIGXCPU);
    EXPECT_GE(r.cpu_s, 0.9);
    EXPECT_NE(r.limit_detail.find("CPU-time limit of 1 s"), std::string::npos);
}

TEST(Spawn, FileSizeLimitIsReportedAsSuch) {
    SpawnSpec s = sh("head -c 10000000 /dev/zero > /dev/null && exec head -c 3000000 /dev/zero > big");
    char dir[] = "/tmp/kbench-spawn-XXXXXX";
    ASSERT_TRUE(::mkdtemp(dir));
    s.cwd = dir;
    s.limits.file_bytes = uint64_t(1) << 20;
    RunResult r = kb::run_limited(s, 30, 1 << 20);
    EXPECT_EQ(r.limit, LimitHit::file_size) << r.output << " signal " << r.term_signal;
    std::string rm = std::string("rm -rf ") + dir;
    EXPECT_EQ(std::system(rm.c_str()), 0);
}

TEST(Spawn, MemoryLimitStopsAnAllocation) {
    // python3 is on every CI machine of kbench (the bindings and scripts use it).
    SpawnSpec s;
    s.argv = {"/usr/bin/python3", "-c", "x = bytearray(1 << 30); print('allocated')"};
    if (::access(s.argv[0].c_str(), X_OK) != 0) GTEST_SKIP() << "no python3";
    s.limits.memory_bytes = uint64_t(256) << 20;
    RunResult r = kb::run_limited(s, 30, 1 << 20);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.output.find("allocated"), std::string::npos);
    EXPECT_NE(r.output.find("MemoryError"), std::string::npos) << r.output;
    EXPECT_EQ(r.limit, LimitHit::memory);
    EXPECT_NE(r.limit_detail.find("memory limit of 256 MiB"), std::string::npos) << r.limit_detail;
}

TEST(Spawn, OutputLimitStopsAFloodAndAMissingProgramIsAnError) {
    RunResult r = kb::run_limited(sh("yes kbench"), 30, 1 << 16);
    EXPECT_EQ(r.limit, LimitHit::output);
    EXPECT_EQ(r.output.size(), size_t(1) << 16);

    SpawnSpec missing;
    missing.argv = {"/nonexistent/kbench-no-such-program"};
    RunResult m = kb::run_limited(missing, 5, 1 << 10);
    EXPECT_FALSE(m.started);
    EXPECT_NE(m.error.find("execve"), std::string::npos) << m.error;
    EXPECT_NE(m.error.find("No such file"), std::string::npos) << m.error;
}

TEST(Spawn, HostSignalHandlersAndMaskDoNotReachTheChild) {
    // A host that handles SIGTERM and blocks SIGINT: the child starts clean.
    struct sigaction sa {}, old_term {};
    sa.sa_handler = [](int) {};
    ::sigaction(SIGTERM, &sa, &old_term);
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    ::pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    RunResult r = kb::run_limited(sh("grep -E '^(SigBlk|SigCgt)' /proc/self/status"), 10, 1 << 20);
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    ASSERT_TRUE(r.ok()) << r.output;
    EXPECT_NE(r.output.find("SigBlk:\t0000000000000000"), std::string::npos) << r.output;
}

}  // namespace
