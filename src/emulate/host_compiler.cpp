#include "emulate/host_compiler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "util/error.h"

namespace kb::emulate {
namespace {

bool is_executable(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

// A name as the shell would find it: a path with a '/' as it is, else the
// first executable of that name on PATH; "" when there is none.
std::string which(const std::string& name) {
    if (name.find('/') != std::string::npos) return is_executable(name) ? name : "";
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string dir = dirs.substr(start, end - start);
        std::string p = (dir.empty() ? "." : dir) + "/" + name;
        if (is_executable(p)) return p;
        start = end + 1;
    }
    return "";
}

// `--version` of a candidate compiler; false when it does not run.
bool probe(const std::string& path, HostCompiler* out) {
    ProcessResult r;
    try {
        r = run_process({path, "--version"}, "", 20);
    } catch (const Error&) {
        return false;
    }
    if (r.exit_code != 0) return false;
    out->path = path;
    out->version = r.output.substr(0, r.output.find('\n'));
    out->is_gcc = r.output.find("Free Software Foundation") != std::string::npos &&
                  r.output.find("clang") == std::string::npos;
    return true;
}

}  // namespace

HostCompiler find_host_compiler() {
    HostCompiler hc;
    if (const char* env = std::getenv("KBENCH_HOST_CXX"); env && *env) {
        std::string p = which(env);
        if (p.empty() || !probe(p, &hc))
            fail(KB_ERR_NOT_FOUND, std::string("KBENCH_HOST_CXX='") + env +
                                       "' is not a working C++ compiler (it was not found, or `--version` failed); "
                                       "set it to a host C++17 compiler such as g++, or unset it");
        return hc;
    }
    std::vector<std::string> tried;
    std::vector<std::string> names;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) names.push_back(cxx);
    for (const char* n : {"c++", "g++", "clang++"}) names.push_back(n);
    for (const std::string& n : names) {
        std::string p = which(n);
        tried.push_back(n);
        if (!p.empty() && probe(p, &hc)) return hc;
    }
    std::string list;
    for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
    fail(KB_ERR_NOT_FOUND, "no host C++ compiler found (tried " + list +
                               " on PATH): the CPU emulator compiles references with one; install g++ "
                               "(apt-get install g++) or set KBENCH_HOST_CXX to a C++17 compiler");
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) fail(KB_ERR_IO, std::string("cannot create a pipe: ") + std::strerror(errno));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        fail(KB_ERR_IO, std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
    }
    if (pid == 0) {
        // The child: only async-signal-safe calls until exec.
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
        execv(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    ProcessResult r;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[4096];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            r.timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        pollfd p = {fds[0], POLLIN, 0};
        int n = poll(&p, 1, int(std::min<long long>(left.count(), 1000)));
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) continue;
        ssize_t got = read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;  // EOF: the process closed its output (exited)
        if (r.output.size() < (1u << 20)) r.output.append(buf, size_t(got));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    if (!r.timed_out && r.exit_code == 127 && r.output.empty())
        fail(KB_ERR_IO, "cannot run " + argv[0] + " (exec failed)");
    return r;
}

}  // namespace kb::emulate
