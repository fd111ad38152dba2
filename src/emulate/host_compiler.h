// The host C++ compiler the CPU emulator builds references with, and a
// small runner for it (output captured, time-limited).
#pragma once

#include <string>
#include <vector>

namespace kb::emulate {

struct HostCompiler {
    std::string path;     // absolute path of the executable
    std::string version;  // the first line of `--version`
    bool is_gcc = false;  // GCC (precompiled headers are used with it)
};

// The compiler to use: $KBENCH_HOST_CXX if set (it must work), else $CXX,
// else the first of c++, g++, clang++ on PATH that runs. Throws
// kb::Error(KB_ERR_NOT_FOUND) saying what was tried and how to fix it when
// there is none.
HostCompiler find_host_compiler();

struct ProcessResult {
    int exit_code = -1;    // the exit status, or -1
    int signal = 0;        // the signal that ended it, or 0
    bool timed_out = false;
    std::string output;    // stdout and stderr, interleaved
};

// Runs argv[0] (a path) with argv, in `cwd` when not empty, and waits at most
// timeout_s seconds (then kills it). Throws kb::Error(KB_ERR_IO) only when
// the process cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd, double timeout_s);

}  // namespace kb::emulate
