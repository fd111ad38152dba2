// Whole-number settings from the environment ($KBENCH_TIMING_BACKLOG,
// $KBENCH_PROGRAM_BUILDERS): one parse and one wording of the error.
#pragma once

#include <optional>
#include <string>

namespace kb {

// The value of `name`: nullopt when it is unset or empty; a whole number
// from `lo` to `hi`; else kb::Error(KB_ERR_INVALID_ARGUMENT) naming the
// variable, the range and what unsetting it gives (`unset_gives`, as "the
// default (4)").
std::optional<unsigned long> env_number(const char* name, unsigned long lo, unsigned long hi,
                                        const std::string& unset_gives);

}  // namespace kb
