// A pidfd (Linux 5.3+) lets poll() wait on another process's exit next to a
// socket. Both sides of the worker protocol use one: the host watches its
// worker, the worker watches its host. Returns -1 where the kernel has none;
// callers then fall back to polling the socket alone.
#pragma once

#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace kb {

inline int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
    long fd = ::syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? int(fd) : -1;
#else
    (void)pid;
    return -1;
#endif
}

}  // namespace kb
