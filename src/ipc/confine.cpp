#include "ipc/confine.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "ipc/spawn.h"

#ifdef KB_HAVE_SECCOMP
#include <seccomp.h>
#endif

extern char** environ;

// Code that runs in the child between clone and exec (see ipc/spawn.cpp).
#if defined(__clang__)
#define KB_CHILD_CODE __attribute__((noinline, no_sanitize("address", "thread", "undefined")))
#else
#define KB_CHILD_CODE __attribute__((noinline, no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
#endif

namespace kb {
namespace {

// Landlock's ABI (linux/landlock.h of kernel 6.12; older system headers lack
// the later fields, and the values are fixed by the kernel's ABI).
constexpr uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2,
                   kFsReadDir = 1ull << 3, kFsRemoveDir = 1ull << 4, kFsRemoveFile = 1ull << 5,
                   kFsMakeChar = 1ull << 6, kFsMakeDir = 1ull << 7, kFsMakeReg = 1ull << 8,
                   kFsMakeSock = 1ull << 9, kFsMakeFifo = 1ull << 10, kFsMakeBlock = 1ull << 11,
                   kFsMakeSym = 1ull << 12, kFsRefer = 1ull << 13, kFsTruncate = 1ull << 14;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnix = 1ull << 0, kScopeSignal = 1ull << 1;
constexpr uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct LandlockRulesetAttr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) LandlockPathBeneathAttr {
    uint64_t allowed_access;
    int32_t parent_fd;
};

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

constexpr uint64_t kFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate;
constexpr uint64_t kReadRights = kFsExecute | kFsReadFile | kFsReadDir;
constexpr uint64_t kNproc = 1024;  // tasks (threads included) in one worker's user namespace

int landlock_abi_now() {
    long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
    return v < 0 ? 0 : int(v);
}

uint64_t handled_fs(int abi) {
    uint64_t h = kFsExecute | kFsWriteFile | kFsReadFile | kFsReadDir | kFsRemoveDir | kFsRemoveFile | kFsMakeChar |
                 kFsMakeDir | kFsMakeReg | kFsMakeSock | kFsMakeFifo | kFsMakeBlock | kFsMakeSym;
    if (abi >= 2) h |= kFsRefer;
    if (abi >= 3) h |= kFsTruncate;
    // ioctl on devices (ABI 5) is left unhandled: CUDA lives on ioctls.
    return h;
}

KB_CHILD_CODE int try_namespaces(void*) {
    long r = ::syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNET);
    ::syscall(SYS_exit, r == 0 ? 0 : 1);
    return 1;
}

// A child that tries the namespaces and exits 0 when they work. It shares
// the host's memory (CLONE_VM | CLONE_VFORK, as spawn_process): a host with
// a large heap pays no copy of its page tables.
bool user_namespace_works() {
    static char stack[16 * 1024] __attribute__((aligned(64)));
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
#if defined(__SANITIZE_THREAD__)
    // ThreadSanitizer takes a CLONE_VM child for a fork (ipc/spawn.cpp): a
    // plain raw fork instead.
    long pid = ::syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0);
    if (pid == 0) try_namespaces(nullptr);
    (void)stack;
#else
    int pid = ::clone(try_namespaces, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, nullptr);
#endif
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) return false;
    int status = 0;
    while (::waitpid(pid_t(pid), &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

const char* env_value(const char* const* env, const char* name) {
    const size_t n = std::strlen(name);
    for (const char* const* e = env; e && *e; ++e)
        if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return nullptr;
}

void split_paths(const char* list, std::vector<std::string>* out) {
    if (!list) return;
    std::string cur;
    for (const char* c = list;; ++c) {
        if (*c == ':' || *c == 0) {
            if (!cur.empty() && cur[0] == '/') out->push_back(cur);
            cur.clear();
            if (*c == 0) break;
        } else {
            cur.push_back(*c);
        }
    }
}

std::string dirname_of(const std::string& p) {
    size_t s = p.find_last_of('/');
    if (s == std::string::npos) return ".";
    return s == 0 ? "/" : p.substr(0, s);
}

std::string real_path(const std::string& p) {
    char buf[PATH_MAX];
    return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace

struct ConfinePlan {
    bool user_ns = false;
    bool net_ns = false;
    int ns_flags = 0;
    char uid_map[64] = {};
    char gid_map[64] = {};
    uint64_t nproc = 0;
    int ruleset_fd = -1;
    sock_fprog seccomp{};
    std::vector<sock_filter> filter;
};

void ConfinePlanDeleter::operator()(ConfinePlan* p) const {
    if (p && p->ruleset_fd >= 0) ::close(p->ruleset_fd);
    delete p;
}

const ConfineSupport& confine_support() {
    static ConfineSupport s;
    static std::once_flag once;
    std::call_once(once, [] {
        // $KBENCH_CONFINE_SKIP lists mechanisms to leave out (for finding
        // which one a set-up does not tolerate): userns, landlock, seccomp.
        const char* skip_env = std::getenv("KBENCH_CONFINE_SKIP");
        const std::string skip = skip_env ? std::string(",") + skip_env + "," : std::string();
        auto skipped = [&](const char* m) { return skip.find(std::string(",") + m + ",") != std::string::npos; };
        s.user_namespace = !skipped("userns") && user_namespace_works();
        s.landlock_abi = skipped("landlock") ? 0 : landlock_abi_now();
        s.host_is_root = ::geteuid() == 0;
#ifdef KB_HAVE_SECCOMP
        s.seccomp = !skipped("seccomp") && ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
#endif
    });
    return s;
}

bool confinement_wanted_by_env() {
    const char* v = std::getenv("KBENCH_CONFINE");
    if (!v) return true;
    return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0 || std::strcmp(v, "false") == 0);
}

bool confinement_forced_by_env() {
    const char* v = std::getenv("KBENCH_CONFINE");
    return v && (std::strcmp(v, "1") == 0 || std::strcmp(v, "on") == 0 || std::strcmp(v, "true") == 0);
}

bool confine_python_worker(bool asked, int device) {
    return asked && confinement_wanted_by_env() &&
           (device < 0 || confine_support().user_namespace || confinement_forced_by_env());
}

Json sandbox_summary(bool enabled) {
    if (!enabled || !confinement_wanted_by_env()) return Json{{"pid", "off"}, {"fs", "off"}, {"net", "off"}};
    const ConfineSupport& s = confine_support();
    auto join = [](const std::vector<std::string>& v) {
        std::string out;
        for (const std::string& x : v) out += (out.empty() ? "" : "+") + x;
        return out.empty() ? std::string("off") : out;
    };
    std::vector<std::string> pid, fs, net;
    if (s.landlock_abi >= 6) pid.push_back("landlock-scope");
    else if (s.landlock_abi >= 1) pid.push_back("landlock-ptrace");
    if (s.seccomp) pid.push_back("seccomp");
    if (s.user_namespace) pid.push_back(s.host_is_root ? "userns" : "userns-nproc");
    pid.push_back("pgroup");
    if (s.landlock_abi >= 1) fs.push_back("landlock-abi" + std::to_string(s.landlock_abi));
    if (s.user_namespace) net.push_back("netns");
    if (s.landlock_abi >= 4) net.push_back("landlock-tcp");
    if (s.seccomp) net.push_back("seccomp");
    return Json{{"pid", join(pid)}, {"fs", join(fs)}, {"net", join(net)}};
}

Json sandbox_info() {
    const ConfineSupport& s = confine_support();
    Json j = sandbox_summary();
    j["enabled"] = confinement_wanted_by_env();
    j["device_workers"] = confinement_wanted_by_env() && (s.user_namespace || confinement_forced_by_env());
    j["user_namespace"] = s.user_namespace;
    j["landlock_abi"] = s.landlock_abi;
#ifdef KB_HAVE_SECCOMP
    j["seccomp"] = s.seccomp ? "libseccomp" : "unavailable in this kernel";
#else
    j["seccomp"] = "not built (install libseccomp-dev and rebuild)";
#endif
    j["nproc"] = s.user_namespace && !s.host_is_root ? Json(kNproc) : Json("unlimited (the host runs as root)");
    j["environment"] = "allow-list";
    return j;
}

std::vector<std::string> confined_environment(const char* const* env, const std::string& scratch) {
    static const char* const kNames[] = {"PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "PYTHONHOME",
                                         "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "CC", "CXX"};
    static const char* const kPrefixes[] = {"LC_", "CUDA_", "NVIDIA_", "KBENCH_", "TRITON_", "TORCH_",
                                            "PYTORCH_", "OMP_", "MKL_", "OPENBLAS_", "NCCL_", "PYENV_"};
    static const char* const kSet[] = {"HOME", "TMPDIR", "XDG_CACHE_HOME", "TRITON_CACHE_DIR", "TORCH_EXTENSIONS_DIR"};
    std::vector<std::string> out;
    for (const char* const* e = env; e && *e; ++e) {
        const char* eq = std::strchr(*e, '=');
        if (!eq) continue;
        std::string name(*e, size_t(eq - *e));
        bool keep = false;
        for (const char* n : kNames) keep = keep || name == n;
        for (const char* p : kPrefixes) keep = keep || name.compare(0, std::strlen(p), p) == 0;
        for (const char* n : kSet) keep = keep && name != n;
        if (keep) out.emplace_back(*e);
    }
    out.push_back("HOME=" + scratch + "/home");
    out.push_back("TMPDIR=" + scratch + "/tmp");
    out.push_back("XDG_CACHE_HOME=" + scratch + "/cache");
    out.push_back("TRITON_CACHE_DIR=" + scratch + "/triton-cache");
    out.push_back("TORCH_EXTENSIONS_DIR=" + scratch + "/torch-extensions");
    out.push_back("PYTHONNOUSERSITE=1");
    out.push_back("PYTHONDONTWRITEBYTECODE=1");
    return out;
}

std::vector<std::string> python_installation_paths(const std::string& interpreter) {
    std::string exe = interpreter;
    if (exe.find('/') == std::string::npos) {
        std::vector<std::string> dirs;
        split_paths(std::getenv("PATH"), &dirs);
        for (const std::string& d : dirs)
            if (::access((d + "/" + exe).c_str(), X_OK) == 0) {
                exe = d + "/" + exe;
                break;
            }
    }
    if (exe.find('/') == std::string::npos) return {};
    static std::mutex mutex;
    static std::map<std::string, std::vector<std::string>> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(exe);
    if (it != cache.end()) return it->second;
    // The interpreter (and a wrapper or shim that names it) as files, and
    // the folders it says it imports from: asked of the interpreter itself
    // (the user's, trusted), once per process, since a wrapper script or a
    // virtual environment's link says nothing of where the installation is.
    std::vector<std::string> out = {exe};
    std::string real = real_path(exe);
    if (!real.empty() && real != exe) out.push_back(real);
    SpawnSpec spec;
    spec.argv = {exe, "-c",
                 "import sys, site\n"
                 "for p in [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable]"
                 " + list(getattr(site, 'getsitepackages', lambda: [])()) + sys.path:\n"
                 "    print(p)\n"};
    for (char** e = environ; e && *e; ++e) spec.env.emplace_back(*e);
    RunResult r = run_limited(spec, 30, 1 << 20);
    if (r.ok()) {
        size_t start = 0;
        while (start < r.output.size()) {
            size_t end = r.output.find('\n', start);
            if (end == std::string::npos) end = r.output.size();
            std::string line = r.output.substr(start, end - start);
            start = end + 1;
            // Never a whole file system or the shared temporary folder.
            if (line.size() > 1 && line[0] == '/' && line != "/tmp" && line != "/home" && line != "/root")
                out.push_back(line);
        }
    }
    // The folder above bin/ of the interpreter or its shim (a pyenv shim runs
    // pyenv's own scripts there), unless that is a shared folder.
    for (const std::string& p : {exe, real}) {
        std::string prefix = p.empty() ? std::string() : dirname_of(dirname_of(p));
        if (prefix.size() > 1 && prefix != "/tmp" && prefix != "/home" && prefix != "/root" && prefix != "/var")
            out.push_back(prefix);
    }
    cache[exe] = out;
    return out;
}

ConfineRequest python_worker_confinement(const std::vector<std::string>& command,
                                         const std::vector<std::string>& args, bool device) {
    ConfineRequest r;
    r.enabled = confinement_wanted_by_env();
    r.device = device;
    if (!command.empty()) r.read_paths = python_installation_paths(command[0]);
    std::vector<std::string> all = command;
    all.insert(all.end(), args.begin(), args.end());
    for (size_t i = 1; i < all.size(); ++i) {
        if (all[i - 1] == "--work-dir") {
            r.write_paths.push_back(all[i]);
            continue;
        }
        // The shared load_inline headers: candidate workers read them, the
        // builder alone writes them; and the libraries builder workers made
        // ahead, which the host writes (worker_host/program_workers.cpp).
        if (all[i - 1] == "--load-inline-cache" || all[i - 1] == "--prebuilt-dir") {
            r.read_paths.push_back(all[i]);
            continue;
        }
        if (all[i - 1] == "--build-pch") {
            r.write_paths.push_back(all[i]);
            continue;
        }
        if (all[i].size() > 1 && all[i][0] == '/' && all[i] != "/" && all[i - 1] != "--work-dir") {
            struct stat st;
            if (::stat(all[i].c_str(), &st) == 0 && S_ISREG(st.st_mode)) r.read_paths.push_back(dirname_of(all[i]));
        }
    }
    return r;
}

ConfinePlanPtr prepare_confinement(const ConfineRequest& req, std::vector<std::string>* env, std::string* error) {
    ConfinePlanPtr plan(new ConfinePlan());
    const ConfineSupport& s = confine_support();
    const std::string scratch = req.write_paths.empty() ? std::string() : req.write_paths[0];
    {
        std::vector<const char*> e;
        for (const std::string& x : *env) e.push_back(x.c_str());
        e.push_back(nullptr);
        std::vector<std::string> read_extra;
        split_paths(env_value(e.data(), "PYTHONPATH"), &read_extra);
        split_paths(env_value(e.data(), "LD_LIBRARY_PATH"), &read_extra);
        // The programs on PATH and their installations (the folder above a
        // bin/ or a pyenv shims/), unless that is a shared folder: a wrapper
        // script may run the interpreter through them.
        std::vector<std::string> path_dirs;
        split_paths(env_value(e.data(), "PATH"), &path_dirs);
        for (const std::string& d : path_dirs) {
            read_extra.push_back(d);
            std::string base = d.substr(d.find_last_of('/') + 1), up = dirname_of(d);
            if ((base == "bin" || base == "shims") && up.size() > 1 && up != "/tmp" && up != "/home" &&
                up != "/root" && up != "/var")
                read_extra.push_back(up);
        }
        for (const char* n : {"CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX"})
            if (const char* v = env_value(e.data(), n)) read_extra.push_back(v);
        if (!scratch.empty()) *env = confined_environment(e.data(), scratch);
        // The scratch folder's parts.
        for (const char* sub : {"/home", "/tmp", "/cache", "/triton-cache", "/torch-extensions"})
            if (!scratch.empty()) ::mkdir((scratch + sub).c_str(), 0700);
        // Landlock.
        if (s.landlock_abi >= 1) {
            LandlockRulesetAttr attr{};
            attr.handled_access_fs = handled_fs(s.landlock_abi);
            size_t size = sizeof(uint64_t);
            if (s.landlock_abi >= 4) {
                attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
                size = 2 * sizeof(uint64_t);
            }
            if (s.landlock_abi >= 6) {
                // Abstract unix sockets are the network namespace's when there is one.
                attr.scoped = kScopeSignal | (s.user_namespace ? 0 : kScopeAbstractUnix);
                size = sizeof attr;
            }
            long fd = ::syscall(SYS_landlock_create_ruleset, &attr, size, 0);
            if (fd < 0) {
                *error = std::string("landlock_create_ruleset: ") + std::strerror(errno);
                return nullptr;
            }
            plan->ruleset_fd = int(fd);
            const uint64_t all = attr.handled_access_fs;
            auto allow = [&](const std::string& path, uint64_t rights) {
                int pfd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
                if (pfd < 0) return;  // absent here: nothing to allow
                struct stat st;
                if (::fstat(pfd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;
                LandlockPathBeneathAttr pb{rights & all, pfd};
                ::syscall(SYS_landlock_add_rule, plan->ruleset_fd, kRulePathBeneath, &pb, 0);
                ::close(pfd);
            };
            // The system's programs and libraries (CUDA's in /usr/local/cuda,
            // the driver's in /usr/lib), kernel facts, and the files a
            // dynamic loader and libc read.
            for (const char* p : {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/proc", "/sys",
                                  "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
                                  "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/host.conf",
                                  "/etc/os-release", "/etc/alternatives", "/dev/urandom", "/dev/random"})
                allow(p, kReadRights);
            for (const std::string& p : req.read_paths) allow(p, kReadRights);
            for (const std::string& p : read_extra) allow(p, kReadRights);
            for (const char* p : {"/dev/null", "/dev/zero", "/dev/full"})
                allow(p, kFsReadFile | kFsWriteFile | kFsTruncate);
            if (req.device) {
                // The GPU's device files, and /dev/shm for CUDA's and torch's
                // shared memory between processes.
                for (const char* p : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                                      "/dev/nvidia-modeset", "/dev/nvidia-caps", "/dev/dri"})
                    allow(p, kReadRights | kFsWriteFile);
                for (int i = 0; i < 64; ++i) allow("/dev/nvidia" + std::to_string(i), kFsReadFile | kFsWriteFile);
                allow("/dev/shm", all);
                // CUDA's driver writes into the process's own /proc entries
                // (cudaGetDeviceCount fails with error 304 otherwise;
                // bench/confine_probe.sh). A rule cannot name the worker's
                // own /proc/<pid> before it exists, so /proc is writable
                // where the user namespace leaves the worker no capability
                // outside it: /proc/sys and the like stay read-only to it,
                // and other processes' memory and descriptors need ptrace
                // access, which the namespace and Landlock's scoping deny.
                if (s.user_namespace) allow("/proc", all);
            }
            for (const std::string& p : req.write_paths) allow(p, all);
            // What a set-up needs beyond these (a driver or an interpreter
            // installed elsewhere): $KBENCH_CONFINE_READ and
            // $KBENCH_CONFINE_WRITE, colon-separated absolute paths.
            std::vector<std::string> more_read, more_write;
            split_paths(std::getenv("KBENCH_CONFINE_READ"), &more_read);
            split_paths(std::getenv("KBENCH_CONFINE_WRITE"), &more_write);
            for (const std::string& p : more_read) allow(p, kReadRights);
            for (const std::string& p : more_write) allow(p, all);
        }
    }
    // Namespaces.
    if (s.user_namespace) {
        plan->user_ns = plan->net_ns = true;
        plan->ns_flags = CLONE_NEWUSER | CLONE_NEWNET | (req.device ? 0 : CLONE_NEWIPC);
        std::snprintf(plan->uid_map, sizeof plan->uid_map, "%u %u 1\n", unsigned(::geteuid()), unsigned(::geteuid()));
        std::snprintf(plan->gid_map, sizeof plan->gid_map, "%u %u 1\n", unsigned(::getegid()), unsigned(::getegid()));
        if (!s.host_is_root) plan->nproc = kNproc;
    }
#ifdef KB_HAVE_SECCOMP
    if (s.seccomp) {
        scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx) {
            *error = "seccomp_init failed";
            return nullptr;
        }
        int rc = 0;
        auto deny = [&](int err, const char* name) {
            int nr = ::seccomp_syscall_resolve_name(name);
            if (nr != __NR_SCMP_ERROR) rc = rc ? rc : ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0);
        };
        // Another process's memory, or its descriptors.
        for (const char* n : {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp"}) deny(EPERM, n);
        // A new session or group would take a descendant out of the worker's
        // process group, which the host kills when the worker ends.
        for (const char* n : {"setsid", "setpgid"}) deny(EPERM, n);
        // io_uring can open sockets without socket(2).
        for (const char* n : {"io_uring_setup", "io_uring_enter", "io_uring_register"}) deny(ENOSYS, n);
        // Sockets: AF_UNIX only.
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                                         SCMP_A0(SCMP_CMP_NE, AF_UNIX));
        // Signals: never to every process (-1), never to the host or its group.
        const uint64_t low = 0xffffffffull;
        const uint64_t host = uint64_t(uint32_t(::getpid())), host_group = uint64_t(uint32_t(-::getpgrp()));
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, low, low));
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, low, host));
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, low, host_group));
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, low, host));
        if (!rc) rc = ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tkill), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, low, host));
        // The filter is installed by the child with no_new_privs set there.
        ::seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
        int mfd = -1;
        if (!rc) {
            mfd = int(::syscall(SYS_memfd_create, "kbench-seccomp", MFD_CLOEXEC));
            if (mfd < 0 || ::seccomp_export_bpf(ctx, mfd) != 0) rc = -EIO;
        }
        ::seccomp_release(ctx);
        if (!rc) {
            off_t n = ::lseek(mfd, 0, SEEK_END);
            plan->filter.resize(size_t(n) / sizeof(sock_filter));
            if (::pread(mfd, plan->filter.data(), size_t(n), 0) != n) rc = -EIO;
        }
        if (mfd >= 0) ::close(mfd);
        if (rc) {
            *error = std::string("building the seccomp filter failed: ") + std::strerror(-rc);
            return nullptr;
        }
        plan->seccomp.len = (unsigned short)plan->filter.size();
        plan->seccomp.filter = plan->filter.data();
    }
#endif
    return plan;
}

namespace {

KB_CHILD_CODE bool write_file(const char* path, const char* text) {
    long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    size_t n = 0;
    while (text[n]) ++n;
    long w = ::syscall(SYS_write, fd, text, n);
    ::syscall(SYS_close, fd);
    return w == long(n);
}

}  // namespace

KB_CHILD_CODE const char* confine_in_child(const ConfinePlan* p) {
    if (!p) return nullptr;
    if (p->ns_flags) {
        if (::syscall(SYS_unshare, p->ns_flags) != 0) return "unshare(CLONE_NEWUSER | CLONE_NEWNET)";
        if (!write_file("/proc/self/setgroups", "deny")) return "write /proc/self/setgroups";
        if (!write_file("/proc/self/uid_map", p->uid_map)) return "write /proc/self/uid_map";
        if (!write_file("/proc/self/gid_map", p->gid_map)) return "write /proc/self/gid_map";
    }
    if (p->nproc) {
        struct {
            uint64_t cur, max;
        } lim = {p->nproc, p->nproc};
        if (::syscall(SYS_prlimit64, 0, RLIMIT_NPROC, &lim, nullptr) != 0) return "setrlimit(RLIMIT_NPROC)";
    }
    if (::syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return "prctl(PR_SET_NO_NEW_PRIVS)";
    if (p->ruleset_fd >= 0 && ::syscall(SYS_landlock_restrict_self, p->ruleset_fd, 0) != 0)
        return "landlock_restrict_self";
    if (p->seccomp.len && ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p->seccomp) != 0)
        return "seccomp(SECCOMP_SET_MODE_FILTER)";
    return nullptr;
}

}  // namespace kb
