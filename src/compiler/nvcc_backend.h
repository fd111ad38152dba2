// The nvcc fallback: the candidate's original source compiled by the
// toolkit's nvcc in a private temporary folder, without a shell. It gives the
// verdict where NVRTC cannot (host code it cannot split, constructs only nvcc
// accepts), so kbench's compile verdict equals nvcc's.
//
// run_nvcc below is one raw nvcc run; NvccBackend is the policy around it.
#pragma once

#include <string>
#include <vector>

#include "compiler/compile_backend.h"

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

class NvccBackend : public CompileBackend {
public:
    explicit NvccBackend(CompilerConfig config);

    std::string name() const override { return "nvcc"; }
    // The executable's path, size and modification time: what changes when
    // the toolkit does, without running nvcc.
    std::string version() const override { return version_; }
    bool out_of_process() const override { return true; }
    // Throws CompileError, or kb::Error when there is no nvcc or it could not run.
    CompiledImage compile(const CompileRequest& request) override;

    // <cuda_home>/bin/nvcc, or "" when there is none.
    const std::string& path() const { return path_; }
    bool available() const { return !path_.empty(); }
    // The flags nvcc gets for `request` (a compatibility check that runs nvcc
    // itself should use the same).
    static std::vector<std::string> flags(const CompileRequest& request);

private:
    CompilerConfig config_;
    std::string path_;
    std::string version_;
};

}  // namespace kb
