// What the long run (bench/longrun_bench.cpp, issue 15) asserts, apart from
// the GPU: a memory series that stays flat after its warm-up, and the
// processes a program has left behind. Header-only so a CPU unit test
// (tests/unit/test_longrun_checks.cpp) shows both checks can fail.
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace longrun {

// Flat: after `warmup` samples, the highest sample of the later half is at
// most `bound` above the highest of the earlier half. (A leak raises the
// ceiling without end; a cache fills and stops.) Ceilings, not single
// samples: device memory moves by a CUDA context (hundreds of MiB) whenever a
// sample falls while a crashed worker's replacement starts, and a sample in a
// trough would make a check that compares every sample with the one at
// `warmup` fail a run whose ceiling does not move (on an H100, 5.9-7.3 GiB
// before against 5.9-7.5 GiB after; `kbench_longrun_bench`).
inline bool flat(const std::vector<uint64_t>& series, size_t warmup, uint64_t bound, std::string* why) {
    if (series.size() < warmup + 4) {
        if (why)
            *why = "only " + std::to_string(series.size()) + " samples: a warm-up of " + std::to_string(warmup) +
                   " and at least 4 more are needed";
        return false;
    }
    size_t half = warmup + (series.size() - warmup) / 2;
    uint64_t before = *std::max_element(series.begin() + std::ptrdiff_t(warmup), series.begin() + std::ptrdiff_t(half));
    auto later = std::max_element(series.begin() + std::ptrdiff_t(half), series.end());
    if (*later > before + bound) {
        if (why)
            *why = "sample " + std::to_string(later - series.begin()) + " is " + std::to_string(*later) +
                   ", more than " + std::to_string(bound) + " above the highest of samples " +
                   std::to_string(warmup) + "-" + std::to_string(half - 1) + " (" + std::to_string(before) + ")";
        return false;
    }
    return true;
}

// Field 4 (ppid) of /proc/PID/stat; -1 when the process is gone. The command
// name (field 2) may hold spaces and parentheses: parse after its last ')'.
inline long parent_of(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string s;
    if (!std::getline(in, s)) return -1;
    size_t close = s.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(s.substr(close + 1));
    std::string state;
    long ppid = -1;
    rest >> state >> ppid;
    return ppid;
}

inline std::string command_of(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(s.begin(), s.end(), '\0', ' ');
    return s;
}

// Every live process descending from `root` (children, grandchildren, ...),
// zombies included: a child nobody reaped is left behind too.
inline std::vector<long> descendants(long root) {
    std::vector<std::pair<long, long>> procs;  // pid, ppid
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            char* end = nullptr;
            long pid = std::strtol(e->d_name, &end, 10);
            if (*e->d_name && end && *end == '\0') procs.emplace_back(pid, parent_of(pid));
        }
        closedir(d);
    }
    std::vector<long> out;
    std::vector<long> frontier{root};
    while (!frontier.empty()) {
        long p = frontier.back();
        frontier.pop_back();
        for (const auto& [pid, ppid] : procs)
            if (ppid == p) {
                out.push_back(pid);
                frontier.push_back(pid);
            }
    }
    return out;
}

// Resident set of one process in bytes (VmRSS), 0 when gone.
inline uint64_t rss_bytes(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmRSS:", 0) == 0) return uint64_t(std::strtoull(line.c_str() + 6, nullptr, 10)) * 1024;
    return 0;
}

}  // namespace longrun
