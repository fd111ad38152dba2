#include "ipc/spawn.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "ipc/confine.h"
#include "ipc/pidfd.h"
#include "util/units.h"

// The child half of spawn_process runs in the caller's address space before
// exec: no sanitizer instrumentation (it would touch the runtime's state from
// a process that is about to vanish), and only raw system calls (no libc
// wrapper a sanitizer intercepts, nothing that takes a lock).
#if defined(__clang__)
#define KB_CHILD_CODE __attribute__((noinline, no_sanitize("address", "thread", "undefined")))
#else
#define KB_CHILD_CODE __attribute__((noinline, no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
#endif

namespace kb {
namespace {

using CloneFn = int (*)(int (*)(void*), void*, int, void*, ...);

// glibc's clone. ThreadSanitizer intercepts clone() and takes a child that
// shares the address space (CLONE_VM) for a fork: its after-fork bookkeeping
// then runs on the parent's own state, which it corrupts (every later
// hand-off between threads looks like a race, and starting a thread ends the
// process as a "multi-threaded fork"). Under TSan, the library's own symbol.
CloneFn libc_clone() {
#if defined(__SANITIZE_THREAD__)
    static const CloneFn f = [] {
        void* libc = ::dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
        void* p = libc ? ::dlvsym(libc, "clone", "GLIBC_2.2.5") : nullptr;
        return p ? reinterpret_cast<CloneFn>(p) : &::clone;
    }();
    return f;
#else
    return &::clone;
#endif
}

constexpr int kMaxFds = 16;
constexpr int kFirstTempFd = 64;  // child numbers are below; temporaries at or above
constexpr int kMaxSignal = 64;

// The kernel's struct sigaction (x86-64 and arm64 alike; not glibc's).
struct KernelSigaction {
    void* handler;
    unsigned long flags;
    void* restorer;
    uint64_t mask;
};

struct KernelRlimit {
    uint64_t cur, max;
};

struct ChildArgs {
    const char* path = nullptr;
    char* const* argv = nullptr;
    char* const* envp = nullptr;
    const char* cwd = nullptr;
    int nfds = 0;
    int from[kMaxFds] = {};
    int to[kMaxFds] = {};
    bool null_stdio[3] = {true, true, true};
    int nlimits = 0;
    int resource[4] = {};
    KernelRlimit limit[4] = {};
    bool reset_signal[kMaxSignal + 1] = {};
    const ConfinePlan* confine = nullptr;
    // Written by the child when a step fails (the parent reads them after the
    // clone returns: CLONE_VFORK suspends it until the child execs or exits).
    int err = 0;
    const char* failed = nullptr;
};

[[noreturn]] KB_CHILD_CODE void child_fail(ChildArgs* a, const char* step) {
    a->err = errno;
    a->failed = step;
    ::syscall(SYS_exit, 127);
    __builtin_unreachable();
}

KB_CHILD_CODE int child_main(void* arg) {
    ChildArgs* a = static_cast<ChildArgs*>(arg);
    // Handlers of the host would run in this half-made process: default
    // dispositions first, while every signal is still blocked.
    for (int s = 1; s <= kMaxSignal; ++s) {
        if (!a->reset_signal[s]) continue;
        KernelSigaction dfl = {reinterpret_cast<void*>(SIG_DFL), 0, nullptr, 0};
        ::syscall(SYS_rt_sigaction, s, &dfl, nullptr, sizeof(uint64_t));
    }
    if (::syscall(SYS_setpgid, 0, 0) != 0) child_fail(a, "setpgid");
    for (int i = 0; i < a->nlimits; ++i)
        if (::syscall(SYS_prlimit64, 0, a->resource[i], &a->limit[i], nullptr) != 0) child_fail(a, "setrlimit");
    // Confinement (ipc/confine.h) before the descriptors are sorted: its
    // Landlock ruleset is a descriptor of the host's that the sorting closes.
    if (a->confine) {
        const char* step = confine_in_child(a->confine);
        if (step) child_fail(a, step);
    }
    // Descriptors: first out of the way (a source may sit on a target's
    // number), then onto their numbers, which clears close-on-exec there.
    int temp[kMaxFds];
    for (int i = 0; i < a->nfds; ++i) {
        long t = ::syscall(SYS_fcntl, a->from[i], F_DUPFD_CLOEXEC, kFirstTempFd);
        if (t < 0) child_fail(a, "fcntl(F_DUPFD_CLOEXEC)");
        temp[i] = int(t);
    }
    for (int i = 0; i < a->nfds; ++i)
        if (::syscall(SYS_dup3, temp[i], a->to[i], 0) < 0) child_fail(a, "dup3");
    for (int fd = 0; fd < 3; ++fd) {
        if (!a->null_stdio[fd]) continue;
        long n = ::syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC);
        if (n < 0) child_fail(a, "open /dev/null");
        if (n == fd) {
            if (::syscall(SYS_fcntl, fd, F_SETFD, 0) < 0) child_fail(a, "fcntl(F_SETFD)");
        } else if (::syscall(SYS_dup3, n, fd, 0) < 0) {
            child_fail(a, "dup3");
        }
    }
    // Nothing else of the host's: close every other number from 3 up (the
    // temporaries are close-on-exec anyway).
    int keep_top = 2;
    for (int i = 0; i < a->nfds; ++i) keep_top = a->to[i] > keep_top ? a->to[i] : keep_top;
    for (int fd = 3; fd <= keep_top; ++fd) {
        bool keep = false;
        for (int i = 0; i < a->nfds; ++i) keep = keep || a->to[i] == fd;
        if (!keep) ::syscall(SYS_close, fd);
    }
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, keep_top + 1, ~0u, 0) != 0)
#endif
        for (int fd = keep_top + 1; fd < 4096; ++fd) ::syscall(SYS_close, fd);
    if (a->cwd && ::syscall(SYS_chdir, a->cwd) != 0) child_fail(a, "chdir");
    uint64_t none = 0;
    ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof(uint64_t));
    ::syscall(SYS_execve, a->path, a->argv, a->envp);
    child_fail(a, "execve");
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (std::string& s : v) out.push_back(&s[0]);
    out.push_back(nullptr);
    return out;
}

bool mentions(const std::string& text, std::initializer_list<const char*> phrases) {
    for (const char* p : phrases)
        if (text.find(p) != std::string::npos) return true;
    return false;
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
}

}  // namespace

const char* limit_hit_name(LimitHit hit) {
    switch (hit) {
        case LimitHit::none: return "none";
        case LimitHit::wall: return "wall-clock";
        case LimitHit::cpu: return "CPU time";
        case LimitHit::memory: return "memory";
        case LimitHit::file_size: return "file size";
        case LimitHit::output: return "output";
    }
    return "unknown";
}

pid_t spawn_process(const SpawnSpec& spec, std::string* error) {
    if (spec.argv.empty()) {
        *error = "no program to run";
        return -1;
    }
    std::vector<std::string> argv_store = spec.argv, env_store = spec.env;
    std::vector<char*> argv = c_strings(argv_store), envp = c_strings(env_store);
    auto a = std::make_unique<ChildArgs>();
    a->path = argv_store[0].c_str();
    a->argv = argv.data();
    a->envp = envp.data();
    a->cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
    a->confine = spec.confine;
    if (spec.fds.size() > size_t(kMaxFds)) {
        *error = "too many descriptors to hand over";
        return -1;
    }
    for (const auto& [from, to] : spec.fds) {
        if (to < 0 || to >= kFirstTempFd || from < 0) {
            *error = "descriptor number " + std::to_string(to) + " is out of range";
            return -1;
        }
        a->from[a->nfds] = from;
        a->to[a->nfds++] = to;
        if (to < 3) a->null_stdio[to] = false;
    }
    const ProcessLimits& l = spec.limits;
    auto add_limit = [&](int resource, uint64_t cur, uint64_t max) {
        struct rlimit now;
        if (::getrlimit(resource, &now) == 0 && now.rlim_max != RLIM_INFINITY) {
            cur = std::min<uint64_t>(cur, now.rlim_max);  // an unprivileged process cannot raise it
            max = std::min<uint64_t>(max, now.rlim_max);
        }
        a->resource[a->nlimits] = resource;
        a->limit[a->nlimits++] = {cur, max};
    };
    if (l.memory_bytes) add_limit(kMemoryLimit, l.memory_bytes, l.memory_bytes);
    if (l.cpu_s > 0) {
        // SIGXCPU at the soft limit (it ends the process), SIGKILL a little later.
        uint64_t s = uint64_t(std::ceil(l.cpu_s));
        add_limit(RLIMIT_CPU, s, s + 5);
    }
    if (l.file_bytes) add_limit(RLIMIT_FSIZE, l.file_bytes, l.file_bytes);
    if (l.any()) add_limit(RLIMIT_CORE, 0, 0);  // a limit's victim must not write a core file
    for (int s = 1; s <= kMaxSignal; ++s) {
        if (s == SIGKILL || s == SIGSTOP) continue;
        struct sigaction old;
        if (::sigaction(s, nullptr, &old) == 0 && old.sa_handler != SIG_DFL) a->reset_signal[s] = true;
    }

    constexpr size_t kStack = 64 * 1024;
    std::unique_ptr<char[]> stack(new char[kStack + 64]);
    char* top = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(stack.get()) + kStack) & ~uintptr_t(63));

    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = libc_clone()(child_main, top, CLONE_VM | CLONE_VFORK | SIGCHLD, a.get());
    int clone_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) {
        *error = std::string("cannot start a process: ") + std::strerror(clone_errno);
        return -1;
    }
    if (a->failed) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        *error = std::string("cannot run ") + spec.argv[0] + " (" + a->failed + "): " + std::strerror(a->err);
        return -1;
    }
    return pid;
}

RunResult run_limited(SpawnSpec spec, double wall_s, size_t max_output) {
    using Clock = std::chrono::steady_clock;
    RunResult r;
    const auto t0 = Clock::now();
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    spec.fds.push_back({pipe_fds[1], 1});
    spec.fds.push_back({pipe_fds[1], 2});
    pid_t pid = spawn_process(spec, &r.error);
    ::close(pipe_fds[1]);
    if (pid < 0) {
        ::close(pipe_fds[0]);
        return r;
    }
    r.started = true;
    const int out_fd = pipe_fds[0];
    const int pidfd = open_pidfd(pid);
    const auto deadline = t0 + std::chrono::microseconds(int64_t(std::max(0.0, wall_s) * 1e6));
    bool exited = false, eof = false, killed_wall = false, killed_output = false;
    auto kill_group = [&] { ::kill(-pid, SIGKILL); };
    char chunk[65536];
    while (!(exited && eof)) {
        if (!exited) {
            siginfo_t si{};
            // WNOWAIT: not reaped yet, so its process group id stays its own
            // until everything left in the group is killed below.
            if (::waitid(P_PID, id_t(pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) exited = true;
        }
        if (exited && !eof) kill_group();  // whatever it started holds the pipe: end it
        int wait_ms = 50;
        if (wall_s > 0 && !killed_wall) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            if (left <= 0) {
                killed_wall = true;
                kill_group();
                continue;
            }
            if (pidfd >= 0 || eof) wait_ms = int(std::min<long long>(left, 1000));
        }
        pollfd p[2];
        int n = 0;
        if (!eof) p[n++] = {out_fd, POLLIN, 0};
        if (pidfd >= 0 && !exited) p[n++] = {pidfd, POLLIN, 0};
        if (pidfd < 0 || exited) wait_ms = std::min(wait_ms, 50);
        int got = ::poll(p, nfds_t(n), wait_ms);
        if (got < 0 && errno != EINTR) break;
        if (!eof && got > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t k = ::read(out_fd, chunk, sizeof chunk);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) {
                eof = true;
            } else if (r.output.size() + size_t(k) > max_output) {
                r.output.append(chunk, max_output - r.output.size());
                if (!killed_output) kill_group();
                killed_output = true;
            } else {
                r.output.append(chunk, size_t(k));
            }
        }
    }
    ::close(out_fd);
    if (pidfd >= 0) ::close(pidfd);
    kill_group();  // nothing it started outlives it (the group id is still its own: not reaped yet)
    int status = 0;
    struct rusage ru {};
    while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    r.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    r.peak_rss_bytes = uint64_t(ru.ru_maxrss) * 1024;
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);

    // Which limit, if any, made it fail. The kernel stops the process that
    // crosses a limit, which may be a grandchild (nvcc's cicc or cc1plus): its
    // parent then fails and says how in its output.
    const ProcessLimits& l = spec.limits;
    const bool failed = r.term_signal != 0 || r.exit_code != 0;
    if (killed_wall) {
        r.limit = LimitHit::wall;
        r.limit_detail = "the wall-clock limit of " + seconds(wall_s);
    } else if (killed_output) {
        r.limit = LimitHit::output;
        r.limit_detail = "the output limit of " + format_bytes(max_output);
    } else if (failed && l.cpu_s > 0 &&
               (r.term_signal == SIGXCPU || r.cpu_s >= 0.95 * l.cpu_s ||
                mentions(r.output, {"CPU time limit exceeded", "SIGXCPU"}))) {
        r.limit = LimitHit::cpu;
        r.limit_detail = "the CPU-time limit of " + seconds(l.cpu_s) + " per process";
    } else if (failed && l.file_bytes &&
               (r.term_signal == SIGXFSZ || mentions(r.output, {"File size limit exceeded", "SIGXFSZ"}))) {
        r.limit = LimitHit::file_size;
        r.limit_detail = "the file-size limit of " + format_bytes(l.file_bytes);
    } else if (failed && l.memory_bytes &&
               (mentions(r.output, {"out of memory", "Out of memory", "Cannot allocate memory", "memory exhausted",
                                    "bad_alloc", "MemoryError"}) ||
                // died without a word, near the cap
                (r.peak_rss_bytes >= l.memory_bytes / 4 &&
                 (r.term_signal != 0 || mentions(r.output, {"signal 6", "signal 9", "signal 11", "Killed"}))))) {
        r.limit = LimitHit::memory;
        r.limit_detail = "the memory limit of " + format_bytes(l.memory_bytes) + " (heap and private mappings, RLIMIT_DATA)";
    }
    return r;
}

}  // namespace kb
