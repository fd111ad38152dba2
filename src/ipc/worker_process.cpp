#include "ipc/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <thread>

#include "util/error.h"
#include "ipc/pidfd.h"
#include "ipc/confine.h"
#include "ipc/spawn.h"
#include "ipc/worker_environment.h"

extern char** environ;

namespace kb {
namespace {

double seconds_between(WorkerClock::time_point a, WorkerClock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Milliseconds left until `deadline`, rounded up so a poll never wakes early
// and spins; 0 once it has passed.
int ms_until(WorkerClock::time_point deadline) {
    double ms = std::chrono::duration<double, std::milli>(deadline - WorkerClock::now()).count();
    if (ms <= 0) return 0;
    return int(std::min(ms + 0.999, 2e9));
}

// Without a pidfd a worker's death is noticed by polling in slices this long.
constexpr int kSliceMs = 20;

std::string fmt_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

}  // namespace

const char* outcome_kind_name(Outcome::Kind k) {
    switch (k) {
        case Outcome::Kind::reply: return "reply";
        case Outcome::Kind::timeout: return "timeout";
        case Outcome::Kind::died: return "died";
        case Outcome::Kind::garbled: return "garbled";
    }
    return "unknown";
}

std::string signal_description(int sig) {
    struct Name {
        int sig;
        const char* name;
        const char* what;
    };
    static const Name names[] = {
        {SIGSEGV, "SIGSEGV", "segmentation fault"}, {SIGABRT, "SIGABRT", "aborted"},
        {SIGBUS, "SIGBUS", "bus error"},            {SIGILL, "SIGILL", "illegal instruction"},
        {SIGFPE, "SIGFPE", "floating-point exception"}, {SIGKILL, "SIGKILL", "killed"},
        {SIGTERM, "SIGTERM", "terminated"},         {SIGPIPE, "SIGPIPE", "broken pipe"},
        {SIGINT, "SIGINT", "interrupted"},          {SIGQUIT, "SIGQUIT", "quit"},
        {SIGHUP, "SIGHUP", "hang-up"},              {SIGTRAP, "SIGTRAP", "trace trap"},
        {SIGSYS, "SIGSYS", "bad system call"},      {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
        {SIGXFSZ, "SIGXFSZ", "file size limit exceeded"},
    };
    for (const Name& n : names)
        if (n.sig == sig) return std::string(n.name) + " (" + n.what + ")";
    return "signal " + std::to_string(sig);
}

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by " + signal_description(WTERMSIG(status)) + (WCOREDUMP(status) ? ", core dumped" : "");
    return "stopped (wait status " + std::to_string(status) + ")";
}

namespace {

thread_local std::string confine_error_text;
const char* confine_error() { return confine_error_text.c_str(); }

// The confined start (ipc/confine.h): spawn_process's clone, with the plan
// applied in the child just before exec. The same descriptors, process group
// and signal state as the posix_spawn start. Returns -1 with
// confine_error() saying why.
pid_t spawn_confined(const SpawnOptions& opts, const std::string& program, const std::vector<std::string>& args,
                     char** env, int sock, int child_fd) {
    SpawnSpec spec;
    spec.argv = args;
    if (program.find('/') == std::string::npos) {
        const char* path = std::getenv("PATH");
        std::string dirs = path ? path : "/usr/bin:/bin", found;
        size_t start = 0;
        while (found.empty() && start <= dirs.size()) {
            size_t end = dirs.find(':', start);
            if (end == std::string::npos) end = dirs.size();
            std::string cand = dirs.substr(start, end - start) + "/" + program;
            if (end > start && ::access(cand.c_str(), X_OK) == 0) found = cand;
            start = end + 1;
        }
        if (found.empty()) {
            confine_error_text = program + " is not on PATH";
            return -1;
        }
        spec.argv[0] = found;
    }
    for (char** e = env; e && *e; ++e) spec.env.emplace_back(*e);
    ConfineRequest req = python_worker_confinement(opts.command, opts.extra_args, opts.device >= 0);
    ConfinePlanPtr plan = prepare_confinement(req, &spec.env, &confine_error_text);
    if (!plan) return -1;
    spec.confine = plan.get();
    spec.fds.push_back({sock, child_fd});
    int err_fd = -1;
    if (!opts.stderr_file.empty()) {
        err_fd = ::open(opts.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (err_fd < 0) {
            confine_error_text = "cannot open " + opts.stderr_file + ": " + std::strerror(errno);
            return -1;
        }
        spec.fds.push_back({err_fd, 2});
    } else {
        spec.fds.push_back({2, 2});
    }
    pid_t pid = spawn_process(spec, &confine_error_text);
    if (err_fd >= 0) ::close(err_fd);
    return pid;
}

}  // namespace

std::unique_ptr<WorkerProcess> WorkerProcess::spawn(const SpawnOptions& opts) {
    const std::string fix = !opts.fix.empty() ? "; " + opts.fix
                            : "; set kb_context_options.worker_path or $KBENCH_WORKER to the kbench-worker built with "
                              "this library, or use KB_ISOLATION_IN_PROCESS for trusted kernels";
    const bool custom = !opts.command.empty();
    const std::string program = custom ? opts.command[0] : opts.executable;
    // A device worker's context gets one hardware queue, and it sees its own
    // GPU alone: its start waits in the driver's machine-wide line for less
    // (ipc/worker_environment.h).
    // Built before anything needs closing: a bad setting throws here.
    std::vector<std::string> env_store;
    std::vector<char*> envp;
    char** env = environ;
    if (!custom) check_worker_heap_setting(environ);
    int worker_ordinal = opts.device;
    if (!custom && opts.device >= 0) {
        DeviceWorkerEnvironment dwe = device_worker_environment(environ, opts.device);
        env_store = std::move(dwe.env);
        worker_ordinal = dwe.ordinal;
        for (std::string& e : env_store) envp.push_back(&e[0]);
        envp.push_back(nullptr);
        env = envp.data();
    }

    int sv[2];
    // Close-on-exec on both ends: a process another thread of the host starts
    // meanwhile must not inherit them (the worker would never see EOF).
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        fail(KB_ERR_WORKER, "cannot create the socket pair for a " + opts.what + ": " + std::strerror(errno));
    // dup2 onto another number clears close-on-exec on the copy the worker gets.
    const int child_fd = sv[1] == 3 ? 4 : 3;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], child_fd);  // first: sv[1] may sit on 0 or 1
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    // Device printf of a candidate must not land in the host's stdout (which
    // may be a JSON stream); the worker keeps the host's stderr for its own
    // rare diagnostics.
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!opts.stderr_file.empty())
        posix_spawn_file_actions_addopen(&fa, 2, opts.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own process group, so one kill() reaches everything it started.
    // A clean signal mask and default dispositions: the host may block or
    // ignore signals, and ignored dispositions survive exec.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    sigemptyset(&defaults);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN,
                  SIGTTOU, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGXFSZ})
        sigaddset(&defaults, s);
    posix_spawnattr_setsigdefault(&attr, &defaults);

    std::vector<std::string> args = custom ? opts.command : std::vector<std::string>{opts.executable};
    for (std::string a : {std::string("--fd"), std::to_string(child_fd), std::string("--parent"),
                          std::to_string(::getpid())})
        args.push_back(std::move(a));
    if (opts.device >= 0) {
        args.push_back("--device");
        args.push_back(std::to_string(worker_ordinal));
    } else {
        args.push_back("--no-device");
    }
    if (opts.test_hooks) args.push_back("--test-hooks");
    args.insert(args.end(), opts.extra_args.begin(), opts.extra_args.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);

    pid_t pid = 0;
    if (opts.confine && confinement_wanted_by_env()) {
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        pid = spawn_confined(opts, program, args, env, sv[1], child_fd);
        if (pid < 0) {
            ::close(sv[0]);
            ::close(sv[1]);
            fail(KB_ERR_WORKER, "cannot start the " + opts.what + " '" + program + "' confined: " + std::string(
                                    confine_error()) + "; $KBENCH_CONFINE=0 starts it without confinement" + fix);
        }
        ::close(sv[1]);
        ::fcntl(sv[0], F_SETFL, ::fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        std::unique_ptr<WorkerProcess> w(new WorkerProcess());
        w->pid_ = pid;
        w->fd_ = sv[0];
        w->pidfd_ = open_pidfd(pid);
        w->started_ = WorkerClock::now();
        return w;
    }
    // posix_spawn, not fork: the host may be huge and multithreaded (a
    // trainer with a framework's threads); vfork-style spawning copies no
    // page tables and runs no atfork handlers.
    // A command's program is looked up on PATH (posix_spawnp) unless it names a path.
    int rc = custom && program.find('/') == std::string::npos
                 ? ::posix_spawnp(&pid, program.c_str(), &fa, &attr, argv.data(), env)
                 : ::posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(sv[1]);
    if (rc != 0) {
        ::close(sv[0]);
        fail(KB_ERR_WORKER, "cannot start the " + opts.what + " '" + program + "': " + std::strerror(rc) + fix);
    }
    // Non-blocking: a worker that stops reading must not stall a write past its deadline.
    ::fcntl(sv[0], F_SETFL, ::fcntl(sv[0], F_GETFL) | O_NONBLOCK);

    std::unique_ptr<WorkerProcess> w(new WorkerProcess());
    w->pid_ = pid;
    w->fd_ = sv[0];
    w->pidfd_ = open_pidfd(pid);
    w->started_ = WorkerClock::now();
    return w;
}

WorkerProcess::~WorkerProcess() {
    if (pid_ > 0 && !reaped_ && !let_go_) {
        kill();
        reap(2.0);
    }
    close_fds();
}

void WorkerProcess::let_go() {
    let_go_ = true;
    close_fds();
}

void WorkerProcess::close_fds() {
    if (fd_ >= 0) ::close(fd_);
    if (pidfd_ >= 0) ::close(pidfd_);
    fd_ = pidfd_ = -1;
}

bool WorkerProcess::has_exited() {
    if (reaped_) return true;
    siginfo_t si;
    std::memset(&si, 0, sizeof si);
    int r = ::waitid(P_PID, id_t(pid_), &si, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0) return si.si_pid == pid_;
    if (errno == ECHILD) {
        // Reaped behind our back: the host ignores SIGCHLD, so the kernel
        // reaps children itself. Its status is lost; its pid may be reused.
        reaped_ = true;
        status_ = -1;
        return true;
    }
    return false;
}

bool WorkerProcess::exited() {
    if (has_exited()) return true;
    if (fd_ < 0) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

void WorkerProcess::kill() {
    if (pid_ <= 0 || reaped_) return;
    if (has_exited() && reaped_) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);  // in case it left its group
}

bool WorkerProcess::reap(double wait_s) {
    if (reaped_) return true;
    auto until = WorkerClock::now() + std::chrono::duration_cast<WorkerClock::duration>(std::chrono::duration<double>(wait_s));
    for (;;) {
        int status = 0;
        // Ended but not reaped: its group id is still its own, so whatever it
        // started and left behind goes now (nothing a worker starts outlives it).
        siginfo_t si{};
        if (::waitid(P_PID, id_t(pid_), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid_)
            ::kill(-pid_, SIGKILL);
        pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            reaped_ = true;
            status_ = status;
            break;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {  // ECHILD: see has_exited
            reaped_ = true;
            status_ = -1;
            break;
        }
        int left = ms_until(until);
        if (left <= 0) return false;
        if (pidfd_ >= 0) {
            pollfd p{pidfd_, POLLIN, 0};
            ::poll(&p, 1, std::min(left, 1000));
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(left, 2)));
        }
    }
    if (pidfd_ >= 0) {
        ::close(pidfd_);
        pidfd_ = -1;
    }
    return true;
}

std::string WorkerProcess::exit_description() const {
    if (!reaped_) return "still running";
    if (status_ == -1) return "exited (its status was collected elsewhere: SIGCHLD is ignored in this process)";
    return describe_wait_status(status_);
}

Outcome WorkerProcess::failure(Outcome::Kind kind, const std::string& detail) {
    Outcome o;
    o.kind = kind;
    o.detail = detail;
    o.pid = pid_;
    if (kind == Outcome::Kind::timeout || kind == Outcome::Kind::garbled) {
        kill();
        // A killed worker usually goes at once; one stuck in the driver is
        // left for the caller to reap later rather than stalling it here.
        reap(0.05);
    }
    o.last_words = last_words_;
    close_fds();
    return o;
}

Outcome WorkerProcess::died(const std::string& how) {
    // Whatever it wrote before going is still in the socket: its last words.
    for (;;) {
        char buf[65536];
        ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n > 0) {
            decoder_.feed(buf, size_t(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        break;
    }
    try {
        wire::Frame f;
        while (decoder_.next(&f))
            if (f.type == uint16_t(wire::Msg::note)) last_words_ = f.json.value("doing", "");
    } catch (const wire::ProtocolError&) {
        // A frame cut short by the death: nothing more to learn from it.
    }
    // Closing the socket is usually the kernel's doing as the process exits;
    // give the exit a moment to complete so its status is the real cause.
    auto until = WorkerClock::now() + std::chrono::seconds(1);
    bool exited = has_exited();
    while (!exited && ms_until(until) > 0) {
        if (pidfd_ >= 0) {
            pollfd p{pidfd_, POLLIN, 0};
            ::poll(&p, 1, ms_until(until));
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        exited = has_exited();
    }
    kill();  // children it left behind in its group go too
    // An exited worker is a zombie and reaps at once; one that had to be
    // killed may take a moment in the driver, and the caller reaps it later.
    reap(exited ? 1.0 : 0.1);
    Outcome o;
    o.kind = Outcome::Kind::died;
    o.pid = pid_;
    o.last_words = last_words_;
    if (!exited) {
        o.detail = how + ", did not exit, and was killed";
    } else if (reaped_ && status_ != -1) {
        o.detail = describe_wait_status(status_);
        if (WIFSIGNALED(status_)) o.term_signal = WTERMSIG(status_);
        if (WIFEXITED(status_)) o.exit_code = WEXITSTATUS(status_);
    } else {
        o.detail = how + " and " + exit_description();
    }
    close_fds();
    return o;
}

bool WorkerProcess::write_all(const std::string& bytes, WorkerClock::time_point deadline, Outcome* failed) {
    size_t off = 0;
    while (off < bytes.size()) {
        ssize_t w = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            off += size_t(w);
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int left = ms_until(deadline);
            if (left <= 0) {
                *failed = failure(Outcome::Kind::timeout, "it stopped reading its requests");
                return false;
            }
            pollfd fds[2] = {{fd_, POLLOUT, 0}, {pidfd_, POLLIN, 0}};
            int n = ::poll(fds, pidfd_ >= 0 ? 2 : 1, pidfd_ >= 0 ? left : std::min(left, kSliceMs));
            if (n < 0 && errno != EINTR) {
                *failed = died(std::string("poll failed: ") + std::strerror(errno));
                return false;
            }
            if ((pidfd_ >= 0 && (fds[1].revents & POLLIN)) || (pidfd_ < 0 && n == 0 && has_exited())) {
                *failed = died("it exited while a request was being sent");
                return false;
            }
            continue;
        }
        *failed = died(std::string("its connection broke (") + std::strerror(errno) + ")");
        return false;
    }
    return true;
}

Outcome WorkerProcess::read_frame(wire::Frame* f, WorkerClock::time_point deadline) {
    for (;;) {
        try {
            while (decoder_.next(f)) {
                if (f->type != uint16_t(wire::Msg::note)) {
                    Outcome o;
                    o.kind = Outcome::Kind::reply;
                    o.pid = pid_;
                    return o;
                }
                last_words_ = f->json.value("doing", "");
            }
        } catch (const wire::ProtocolError& e) {
            return failure(Outcome::Kind::garbled, e.what());
        } catch (const std::exception& e) {
            return failure(Outcome::Kind::garbled, e.what());
        }
        int left = ms_until(deadline);
        if (left <= 0) return failure(Outcome::Kind::timeout, "no reply by the deadline");
        pollfd fds[2] = {{fd_, POLLIN, 0}, {pidfd_, POLLIN, 0}};
        int n = ::poll(fds, pidfd_ >= 0 ? 2 : 1, pidfd_ >= 0 ? left : std::min(left, kSliceMs));
        if (n < 0) {
            if (errno == EINTR) continue;
            return died(std::string("poll failed: ") + std::strerror(errno));
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char buf[65536];
            ssize_t got = ::read(fd_, buf, sizeof buf);
            if (got > 0) {
                decoder_.feed(buf, size_t(got));
                continue;
            }
            if (got == 0) return died("it closed its connection");
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return died(std::string("its connection broke (") + std::strerror(errno) + ")");
            continue;
        }
        // The socket may stay open after the worker's death when a copy of
        // the worker's end leaked into another process (a fork elsewhere in
        // the host): the process itself is the authority.
        if ((pidfd_ >= 0 && (fds[1].revents & POLLIN)) || (pidfd_ < 0 && n == 0 && has_exited())) {
            Outcome o = died("it exited");
            // It may have answered and then exited (a shutdown): the answer counts.
            try {
                if (decoder_.next(f) && f->type != uint16_t(wire::Msg::note)) {
                    Outcome r;
                    r.kind = Outcome::Kind::reply;
                    r.pid = pid_;
                    return r;
                }
            } catch (const std::exception&) {
            }
            return o;
        }
    }
}

uint64_t WorkerProcess::send(wire::Msg type, const Json& body, const std::vector<std::string>& blobs,
                             WorkerClock::time_point deadline, Outcome* failed) {
    if (fd_ < 0) {
        *failed = died("it is no longer connected");
        return 0;
    }
    uint64_t id = ++next_id_;
    std::string bytes;
    try {
        bytes = wire::encode_frame(uint16_t(type), id, body, blobs);
    } catch (const wire::ProtocolError& e) {
        fail(KB_ERR_INVALID_ARGUMENT, std::string("cannot send the request to the kbench worker: ") + e.what());
    }
    if (!write_all(bytes, deadline, failed)) return 0;
    return id;
}

Outcome WorkerProcess::await(uint64_t id, wire::Msg type, WorkerClock::time_point sent,
                             WorkerClock::time_point deadline) {
    wire::Frame f;
    Outcome o = fd_ < 0 ? died("it is no longer connected") : read_frame(&f, deadline);
    if (o.ok() && (f.id != id || f.type != wire::reply_type(type)))
        o = failure(Outcome::Kind::garbled, "expected the " + wire::msg_name(wire::reply_type(type)) + " #" +
                                                std::to_string(id) + ", got a " + wire::msg_name(f.type) + " #" +
                                                std::to_string(f.id));
    if (o.ok()) o.reply = std::move(f);
    o.elapsed_s = seconds_between(sent, WorkerClock::now());
    o.deadline_s = seconds_between(sent, deadline);
    if (o.kind == Outcome::Kind::timeout)
        o.detail = "no reply within " + fmt_seconds(o.deadline_s) + "; the worker was killed";
    return o;
}

Outcome WorkerProcess::call(wire::Msg type, const Json& body, const std::vector<std::string>& blobs,
                            WorkerClock::time_point deadline) {
    auto sent = WorkerClock::now();
    Outcome failed;
    uint64_t id = send(type, body, blobs, deadline, &failed);
    if (id == 0) {
        failed.elapsed_s = seconds_between(sent, WorkerClock::now());
        failed.deadline_s = seconds_between(sent, deadline);
        if (failed.kind == Outcome::Kind::timeout)
            failed.detail = "it did not take the request within " + fmt_seconds(failed.deadline_s) +
                            "; the worker was killed";
        return failed;
    }
    return await(id, type, sent, deadline);
}

}  // namespace kb
