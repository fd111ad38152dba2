// The worker's heap policy (src/worker_server/worker_heap.h): a worker keeps
// the memory a request freed, so the next request does not fault its pages
// in again. Each case runs in a child process: the policy is the process's.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "worker_server/worker_heap.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KB_OWN_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KB_OWN_MALLOC 0
#endif
#endif
#ifndef KB_OWN_MALLOC
#define KB_OWN_MALLOC 1
#endif

namespace {

long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// What a compile does to the heap, twice: 48 MiB in blocks of 1 to 3 MiB,
// every page written, all freed. Returns the second round's page faults.
long second_round_faults() {
    long before = 0;
    for (int round = 0; round < 2; ++round) {
        if (round == 1) before = minor_faults();
        std::vector<char*> blocks;
        for (int i = 0; i < 24; ++i) {
            const size_t n = size_t(1 + i % 3) << 20;
            char* p = static_cast<char*>(std::malloc(n));
            if (!p) std::_Exit(3);
            std::memset(p, i + 1, n);
            blocks.push_back(p);
        }
        for (char* p : blocks) std::free(p);
    }
    return minor_faults() - before;
}

// Runs `setting` (nullptr: unset) in a child; exit status 0 when the second
// round faulted under `max_faults` pages, 1 when not, 2 when the policy was
// not applied although it should have been, or applied when it should not.
int child(const char* setting, const char* tunables, bool expect_set, long max_faults, long min_faults) {
    pid_t pid = fork();
    if (pid == 0) {
        if (setting) ::setenv("KBENCH_WORKER_HEAP", setting, 1);
        else ::unsetenv("KBENCH_WORKER_HEAP");
        if (tunables) ::setenv("GLIBC_TUNABLES", tunables, 1);
        else ::unsetenv("GLIBC_TUNABLES");
        if (kb::keep_worker_heap() != expect_set) std::_Exit(2);
        const long f = second_round_faults();
        std::_Exit(f <= max_faults && f >= min_faults ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

TEST(WorkerHeap, AKeptHeapServesTheNextRequestWithoutNewPages) {
    if (!KB_OWN_MALLOC) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
    // 48 MiB is 12288 pages: kept, the second round faults almost none.
    EXPECT_EQ(child(nullptr, nullptr, true, 200, 0), 0);
    EXPECT_EQ(child("keep", nullptr, true, 200, 0), 0);
}

TEST(WorkerHeap, ReleaseAndTheUsersOwnTunablesLeaveGlibcsDefaults) {
    if (!KB_OWN_MALLOC) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
    // glibc's default gives the 1-3 MiB blocks mappings of their own (above
    // the 128 KiB threshold, until a freed one raises it) and trims the heap:
    // the second round faults thousands of pages again.
    EXPECT_EQ(child("release", nullptr, false, 1L << 30, 2000), 0);
    EXPECT_EQ(child(nullptr, "glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072", false,
                    1L << 30, 2000),
              0);
}

}  // namespace
