// Can a task tell right from wrong? A reference output that is constant, or
// within tolerance of zero or of its own mean everywhere, lets a kernel that
// writes a constant pass; an output that does not change when the inputs do
// lets a kernel that ignores its inputs pass (the holes that let an all-zero
// output pass KernelBench's softmax and norm problems).
//
// summarize_output looks at one output of the reference at one case;
// lint_failures judges a whole task from those summaries, at one or two
// seeds. `kbench validate` fails a task on these failures (on a GPU from the
// reference's runs, on the CPU from the emulator's); kb_run_reference only
// reports the per-case findings as warnings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "task/task.h"

namespace kb {

struct OutputFinding {
    enum class Kind { constant, near_zero, near_mean, nan };
    Kind kind;
    std::string message;  // names the task, case and output, and the fix
};
const char* finding_kind_name(OutputFinding::Kind k);

struct OutputSummary {
    uint64_t elements = 0;
    double min = 0, max = 0, mean = 0, std = 0;  // over the finite sampled elements
    uint64_t nan = 0, inf = 0;                   // among the sampled elements
    bool sampled = false;                        // statistics from an evenly strided sample
    uint64_t digest = 0;                         // a hash of every element's bits
    std::vector<OutputFinding> findings;
};

// Statistics and findings of output `arg` of `task` at case `c`, whose
// `count` elements of arg.dtype are at `data`. At most `sample` elements
// (evenly strided) are looked at for the statistics and findings; the digest
// covers them all.
OutputSummary summarize_output(const Task& task, const Case& c, const Arg& arg, const void* data, uint64_t count,
                               uint64_t sample = uint64_t(1) << 20);

// One output at one case, as checked: its summary at the first seed and, when
// the reference ran at a second seed, that run's digest.
struct CheckedOutput {
    int case_index = 0;
    std::string output;
    OutputSummary summary;
    bool second_seed = false;
    uint64_t second_digest = 0;
};

// Why the task cannot tell right from wrong, one message per problem (empty:
// it can). For each output:
//  - a finding (constant, near zero, near its mean) at the perf case: a
//    kernel that detects the perf size and writes a constant there would
//    pass and time as fast as a memset;
//  - a finding at every checked case: a constant kernel passes everywhere;
//  - bit-identical outputs at both seeds at the perf case, or at every
//    checked case with a second seed: the inputs do not reach the output.
// Findings at some correctness cases only (softmax over one column is all
// ones) are allowed: other cases discriminate. NaN findings are warnings.
std::vector<std::string> lint_failures(const Task& task, const std::vector<CheckedOutput>& checked);

}  // namespace kb
