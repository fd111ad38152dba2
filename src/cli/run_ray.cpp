// `kbench run --ray auto|ADDRESS`: the run goes to kbench's Ray pool, the
// Python module kbench.ray (docs/batch.md), as
//   $KBENCH_PYTHON -m kbench.ray run --address ADDRESS <the other flags>
// kbench never schedules across hosts itself. The Python package is found
// where Python finds it, else beside this executable (the wheel's layout:
// <site>/kbench/bin/kbench), else in the build tree this was built in.
#include "cli/run_ray.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "util/files.h"

extern char** environ;

#ifndef KB_PYTHON_BUILD_DIR
#define KB_PYTHON_BUILD_DIR ""
#endif

namespace kb::cli {

namespace {

std::string python() {
    const char* p = std::getenv("KBENCH_PYTHON");
    return p && *p ? p : "python3";
}

std::string self_exe() {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "";
    buf[n] = 0;
    return buf;
}

// Folders to put first on PYTHONPATH: those holding a kbench/ package that
// belongs to this kbench (the wheel's, the build tree's).
std::vector<std::string> package_roots() {
    std::vector<std::string> roots;
    std::string exe = self_exe();
    if (!exe.empty()) {
        std::string pkg = dirname_of(dirname_of(exe));  // <site>/kbench when exe is <site>/kbench/bin/kbench
        if (file_exists(join_path(pkg, "__init__.py"))) roots.push_back(dirname_of(pkg));
    }
    std::string build = KB_PYTHON_BUILD_DIR;
    if (!build.empty() && file_exists(join_path(join_path(build, "kbench"), "__init__.py"))) roots.push_back(build);
    return roots;
}

// Runs `argv` and waits; its stdout and stderr into *out. The exit status, or
// -errno when it could not start.
int run_capture(const std::vector<std::string>& args, std::string* out) {
    std::vector<char*> argv;
    std::vector<std::string> copy = args;
    for (std::string& s : copy) argv.push_back(&s[0]);
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe(fds) != 0) return -errno;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid = 0;
    int rc = ::posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return -rc;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) out->append(buf, size_t(n));
        else if (n < 0 && errno == EINTR) continue;
        else break;
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

std::string exec_ray(const std::string& address, const std::vector<std::string>& passthrough) {
    // PYTHONPATH: this kbench's package first, then what the caller had.
    std::string path;
    for (const std::string& r : package_roots()) path += (path.empty() ? "" : ":") + r;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += (path.empty() ? "" : ":") + std::string(old);
    if (!path.empty()) ::setenv("PYTHONPATH", path.c_str(), 1);
    // kbench.ray prepares the candidates with `kbench extract`: this kbench,
    // not whichever one PATH holds (or none, for a build run from its folder).
    if (const char* cli = std::getenv("KBENCH_CLI"); !cli || !*cli) {
        char self[4096];
        ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0) {
            self[n] = '\0';
            ::setenv("KBENCH_CLI", self, 1);
        }
    }

    const std::string py = python();
    // Check first, so a missing interpreter or module is one clear sentence
    // rather than a traceback.
    std::string out;
    int rc = run_capture({py, "-c",
                          "import importlib.util, sys\n"
                          "try:\n"
                          "    found = importlib.util.find_spec('kbench.ray') is not None\n"
                          "except Exception as e:\n"
                          "    print(type(e).__name__ + ': ' + str(e)); sys.exit(3)\n"
                          "sys.exit(0 if found else 4)\n"},
                         &out);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    const std::string where = path.empty() ? "Python's own path" : "PYTHONPATH=" + path + " and Python's own path";
    if (rc < 0)
        return "--ray: cannot run " + py + " (" + std::strerror(-rc) +
               "); install Python 3, or set $KBENCH_PYTHON to a Python 3 interpreter";
    if (rc == 3 || rc == 4)
        return "--ray: the Python module kbench.ray was not found by " + py + " (looked in " + where + ")" +
               (out.empty() ? "" : ": " + out) +
               "; install kbench's Python package (pip install kbench, or a build with the Python binding) and ray "
               "(pip install ray), or set $KBENCH_PYTHON to the interpreter that has them";
    if (rc != 0) return "--ray: " + py + " failed while looking for kbench.ray (exit " + std::to_string(rc) + "): " + out;

    std::vector<std::string> args = {py, "-m", "kbench.ray", "run", "--address", address};
    args.insert(args.end(), passthrough.begin(), passthrough.end());
    std::vector<char*> argv;
    for (std::string& s : args) argv.push_back(&s[0]);
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execvp(argv[0], argv.data());
    return "--ray: cannot run " + py + ": " + std::strerror(errno);
}

}  // namespace kb::cli
