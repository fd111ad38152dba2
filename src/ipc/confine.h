// Confinement of a process that runs untrusted Python (the program candidate
// and reference workers, the Triton compile worker), from its first
// instruction to its end. docs/isolation.md ("Confinement") has the threat
// model and what each mechanism stops.
//
// The host prepares everything that allocates (prepare_confinement: the
// Landlock ruleset, the seccomp program, the id maps' text), and the child
// applies it between clone and exec with raw system calls only
// (confine_in_child, async-signal-safe):
//   - a user namespace (no capability over anything outside) and a network
//     namespace (no interface but a loopback that is down), where the kernel
//     lets unprivileged processes make them; RLIMIT_NPROC inside the user
//     namespace, which counts that namespace's tasks alone;
//   - Landlock: reads of the system's libraries, the Python installation,
//     kbench's Python files and the CUDA files only; writes to the worker's
//     scratch folder and device files only; no TCP; no signal to a process
//     outside the worker's own tree (ABI 6); no ptrace of one (every ABI);
//   - seccomp (libseccomp, when built with it): no ptrace, process_vm_*,
//     pidfd_getfd, io_uring; no socket but AF_UNIX; no setsid/setpgid (so every
//     descendant stays in the worker's process group, which the host kills);
//     no kill(-1), no signal to the host;
//   - no_new_privs, and a scrubbed environment (confined_environment).
// $KBENCH_CONFINE=0 (or ConfineRequest::enabled false) turns it all off;
// $KBENCH_CONFINE_SKIP=userns,landlock,seccomp (any of them) leaves those out.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "util/json.h"

namespace kb {

// What a spawn asks for. Paths may be files or folders; those that do not
// exist are skipped.
struct ConfineRequest {
    bool enabled = false;
    std::vector<std::string> read_paths;   // read and execute, beside the system's defaults
    std::vector<std::string> write_paths;  // read, write, create, remove (the scratch folder)
    bool device = true;                    // keep the GPU's device files and CUDA IPC working
};

// The mechanisms this machine and build offer, probed once per process.
struct ConfineSupport {
    bool user_namespace = false;  // unshare(CLONE_NEWUSER | CLONE_NEWNET) works here
    int landlock_abi = 0;         // 0: no Landlock
    bool seccomp = false;         // built with libseccomp and the kernel has filters
    bool host_is_root = false;    // RLIMIT_NPROC does not bind uid 0
};
const ConfineSupport& confine_support();

// False when $KBENCH_CONFINE is 0/off/false.
bool confinement_wanted_by_env();
// True when $KBENCH_CONFINE is 1/on/true.
bool confinement_forced_by_env();
// Whether a Python worker on `device` (-1: none) that its context asked to
// confine (`asked`) is confined. A worker with a device is confined where
// the user namespace works: CUDA's driver writes into the worker's own /proc
// entries, which the rules allow only inside the namespace
// (bench/confine_probe.sh). Without the namespace a device worker is
// confined only where $KBENCH_CONFINE=1 asks (docs/isolation.md).
bool confine_python_worker(bool asked, int device);

// {"pid": ..., "fs": ..., "net": ...}: what confines a worker started now,
// each "off" when nothing does (confinement turned off, or no mechanism).
Json sandbox_summary(bool enabled = true);
// The summary plus the details (`kbench info`).
Json sandbox_info();

struct ConfinePlan;
struct ConfinePlanDeleter {
    void operator()(ConfinePlan* p) const;
};
using ConfinePlanPtr = std::unique_ptr<ConfinePlan, ConfinePlanDeleter>;

// Builds the plan for one spawn (descriptors, filters, strings), and rewrites
// *env into the confined environment. Returns null with *error saying why when
// a mechanism that the probe found fails to set up.
ConfinePlanPtr prepare_confinement(const ConfineRequest& req, std::vector<std::string>* env, std::string* error);

// In the child between clone and exec: applies the plan. Returns nullptr, or
// the step that failed (errno is set). Raw system calls only.
const char* confine_in_child(const ConfinePlan* plan);

// The environment a confined worker gets: an allow-list of the host's
// (PATH, locale, PYTHONPATH, LD_LIBRARY_PATH, CUDA_*, NVIDIA_*, KBENCH_*,
// TRITON_*, TORCH_*, PYTORCH_*, OMP_*, MKL_*, ...), with HOME, TMPDIR,
// XDG_CACHE_HOME, TRITON_CACHE_DIR and TORCH_EXTENSIONS_DIR inside `scratch`.
// Nothing else passes: no tokens, no LD_PRELOAD.
std::vector<std::string> confined_environment(const char* const* env, const std::string& scratch);

// The installation folders of a Python interpreter (its own prefix and, for a
// virtual environment, the base one), found from its path.
std::vector<std::string> python_installation_paths(const std::string& interpreter);

// A request for a Python worker started as `command` + `args`: reads of the
// interpreter's installation and of the folders of every absolute path among
// the arguments (the script, kbench's native libraries), writes to the
// argument after "--work-dir". Enabled unless $KBENCH_CONFINE turns it off.
ConfineRequest python_worker_confinement(const std::vector<std::string>& command,
                                         const std::vector<std::string>& args, bool device);

}  // namespace kb
