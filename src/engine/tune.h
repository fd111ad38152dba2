// Tuning a Triton candidate over its launch entries' `configs`
// (docs/triton.md §7) with kbench's own measurement protocol, not do_bench:
//
//   every combination of configs (one per entry that has them, at most 64)
//     -> compiled for the perf case only (its specialisation)
//     -> checked on the perf case (a config that is wrong, or does not
//        compile or launch, is out, with its reason)
//     -> timed on the perf case (cold, L2 flushed, adaptive stopping)
//   the fastest median wins; its program (configs resolved) is what the
//   caller then compiles for every case and checks on every case.
//
// The result (tune_result.h) lists every config with its time or why it was
// out, and the chosen one. A tie goes to the earlier config (the order the
// author gave).
#pragma once

#include <string>
#include <vector>

#include "engine/context.h"
#include "engine/tune_result.h"
#include "task/task.h"

namespace kb {

// Every combination of configs of a program's Triton entries, in order (the
// first entry's configs vary slowest). Entries without configs take -1.
// Throws kb::Error(KB_ERR_TASK_INVALID) beyond `max_combinations`.
std::vector<std::vector<int>> triton_config_choices(const Program& p, size_t max_combinations = 64);
// "launch[0]: BLOCK=512 w8 s3; launch[1]: ..." for a choice.
std::string triton_choice_label(const Program& p, const std::vector<int>& choice);
// The fastest config that worked (ties: the earlier), or -1.
int pick_fastest(const std::vector<TunedConfig>& configs);

// Tunes `p` (which has configs) on the task's perf case. `timing` are the
// options of each config's timing (against_baseline is ignored). `seed`
// draws the perf case's inputs for the check. Needs a device.
TuneResult tune_triton_configs(Context& ctx, const TaskPtr& task, const Program& p, const std::string& label,
                               const TimingOptions& timing, uint64_t seed);

}  // namespace kb
