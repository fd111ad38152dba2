// What tuning a Triton candidate's configs found (engine/tune.h): every
// config with its time on the perf case or why it was out, and the one
// chosen. A plain value; result_json.h writes it into the score's JSON.
#pragma once

#include <string>
#include <vector>

#include "kbench.h"
#include "task/task.h"

namespace kb {

struct TunedConfig {
    std::vector<int> choice;  // per launch entry: its config index, -1 for the entry's own options
    std::string label;        // "launch[0]: BLOCK=512 w8 s3"
    bool ok = false;          // compiled, right on the perf case, timed
    double median_us = 0;     // on the perf case, when ok
    double rel_noise = 0;     // the median's relative standard error
    kb_verdict verdict = KB_VERDICT_NONE;  // pass, or why it was out (compile_error, wrong_answer, ...)
    std::string message;
};

struct TuneResult {
    std::vector<TunedConfig> configs;
    int chosen = -1;   // index into configs; -1 when none worked
    Program program;   // the chosen configuration's program, configs dropped
    double elapsed_ms = 0;
};

}  // namespace kb
