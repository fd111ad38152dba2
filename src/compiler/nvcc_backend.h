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
#include "ipc/process_limits.h"
#include "ipc/spawn.h"

namespace kb {

struct NvccJob {
    std::string nvcc;                 // the executable
    std::string source;
    std::string source_name;          // its base name is the file nvcc compiles
    std::vector<SourceFile> headers;  // written beside the source, under their names
    std::vector<std::string> flags;   // -arch etc.
    bool ptx = false;                 // -ptx instead of -cubin
    double timeout_s = 0;             // wall clock; 0: none
    ProcessLimits limits;             // memory, CPU time and file size of every process
};

struct NvccResult {
    bool ok = false;
    bool started = false;   // false: nvcc could not be run (not the code's fault)
    bool timed_out = false;
    LimitHit limit = LimitHit::none;  // the limit that stopped it, if one did
    std::string error;      // why it could not run, its exit status, or the limit in words
    std::string log;        // nvcc's stdout and stderr, temp paths stripped
    std::string image;      // cubin bytes or PTX text
    double ms = 0.0;
    std::vector<std::string> argv;  // the command, for the log
};

// Runs `nvcc -cubin|-ptx <flags> -I<src> -x cu -o <out> <src>/<name>` in a
// fresh folder under $TMPDIR (or /tmp), which is removed afterwards: the
// source and its headers in src/ (nvcc's working directory), nvcc's own
// temporary files in tmp/. nvcc gets a minimal environment (PATH, TMPDIR,
// LC_ALL=C): no host variable adds include paths or flags. It runs under
// job.limits in its own process group, which is killed past the deadline or
// at the end, whatever it started included.
NvccResult run_nvcc(const NvccJob& job);

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
