// Starting a helper process (a compiler, a compile worker) under resource
// limits, and running one to completion with a wall-clock deadline.
//
// posix_spawn cannot set rlimits, setrlimit in the caller would limit the
// whole host, and fork() copies a possibly huge, multithreaded host. So
// spawn_process does what glibc's posix_spawn does inside:
// clone(CLONE_VM | CLONE_VFORK), and in the child only raw system calls
// (reset signal handlers, new process group, setrlimit, descriptors, chdir,
// execve) before the program replaces it. The caller's thread waits for the
// exec, nothing else in the host is touched.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "ipc/process_limits.h"

namespace kb {
struct ConfinePlan;
}

namespace kb {

struct SpawnSpec {
    std::vector<std::string> argv;  // argv[0] is the executable's path (no PATH search)
    std::vector<std::string> env;   // the whole environment, "NAME=value"
    std::string cwd;                // "": the caller's
    // (descriptor in the caller, number in the child); numbers below 64. Of
    // 0, 1 and 2, those not listed are /dev/null; nothing else is inherited.
    std::vector<std::pair<int, int>> fds;
    ProcessLimits limits;
    // Applied last before exec (ipc/confine.h); null: none. Outlives the call.
    const ConfinePlan* confine = nullptr;
};

// Starts spec.argv in a process group of its own (one kill reaches everything
// it starts), with default signal dispositions, an empty signal mask and
// `limits` applied before exec. Returns its pid, or -1 with *error saying why.
pid_t spawn_process(const SpawnSpec& spec, std::string* error);

// Which limit stopped a process.
enum class LimitHit { none, wall, cpu, memory, file_size, output };
// "wall-clock", "CPU time", "memory", "file size", "output".
const char* limit_hit_name(LimitHit hit);

struct RunResult {
    bool started = false;
    std::string error;           // why it could not start
    int exit_code = -1;          // its exit status, when it exited
    int term_signal = 0;         // the signal that ended it, when one did
    std::string output;          // stdout and stderr as written, up to the output limit
    LimitHit limit = LimitHit::none;  // the limit that stopped it (or made it fail), if any
    std::string limit_detail;    // that limit in words: "the memory limit of 8 GiB (heap and private mappings, RLIMIT_DATA)"
    double wall_s = 0;
    double cpu_s = 0;            // user + system, with the descendants it waited for
    uint64_t peak_rss_bytes = 0; // the largest of it and its waited-for descendants
    bool ok() const { return started && limit == LimitHit::none && term_signal == 0 && exit_code == 0; }
};

// Runs spec to its end: stdin is /dev/null, stdout and stderr are captured
// together (spec.fds must not name 0, 1 or 2). Past `wall_s` (> 0) or past
// `max_output` bytes of output, its process group is killed. When it ends,
// whatever it started that still runs in its group is killed too, so nothing
// outlives the call.
RunResult run_limited(SpawnSpec spec, double wall_s, size_t max_output);

}  // namespace kb
