// The checks `kbench validate` runs beyond loading and compiling a task:
// its reference's outputs must tell right from wrong (on a GPU, from the
// reference's runs at two seeds), and with --oracle its reference, run by
// the CPU emulator, must match the task's float64 oracle.
#pragma once

#include <string>
#include <vector>

#include "emulate/oracle_check.h"
#include "kbench.h"
#include "util/json.h"

namespace kb::cli {

// Runs the task's reference on every case at seeds 0 and 1 and returns the
// lint failures (task/output_lint.h). Per-case findings are appended to
// `warnings`. A run that fails sets *error and returns what was found so far.
std::vector<std::string> reference_lint_on_device(kb_context* ctx, kb_task* task, const std::string& path,
                                                  Json* warnings, std::string* error);

// The oracle check of one task as JSON, and as the lines printed under it.
Json oracle_check_json(const emulate::TaskOracleCheck& check);
std::string oracle_check_summary(const emulate::TaskOracleCheck& check);

}  // namespace kb::cli
