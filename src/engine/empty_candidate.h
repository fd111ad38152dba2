// A candidate with no code at all (an empty file, an answer of blanks) is
// its author's mistake: a compile error that says so and names what the task
// expects, found before anything is compiled or a launch plan is looked for.
#pragma once

#include <string>

#include "task/task.h"

namespace kb {

// Throws CompileError when `code` holds nothing but whitespace.
void refuse_empty_candidate(const std::string& code, const std::string& label, const Task& task);

}  // namespace kb
