// The nvcc fallback: the candidate's original source compiled by the
// toolkit's nvcc in a private temporary folder, without a shell.
#pragma once

#include <string>
#include <vector>

namespace kb {

struct NvccResult {
    bool ok = false;
    bool started = false;   // false: nvcc could not be run (not the code's fault)
    bool timed_out = false;
    std::string error;      // why it could not run, or its exit status
    std::string log;        // nvcc's stdout and stderr, temp paths stripped
    std::string image;      // cubin bytes or PTX text
    double ms = 0.0;
    std::vector<std::string> argv;  // the command, for the log
};

// Runs `nvcc <flags> -cubin|-ptx -o <out> <src>` (flags hold -arch etc.).
// The source file is written as `source_name` (its base name) in a fresh
// folder under $TMPDIR (or /tmp), which is removed afterwards. A run longer
// than `timeout_s` (> 0) is killed with its whole process group.
NvccResult run_nvcc(const std::string& nvcc, const std::string& source, const std::string& source_name,
                    const std::vector<std::string>& flags, bool ptx, double timeout_s);

}  // namespace kb
