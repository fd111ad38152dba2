// Internal to the kbench-task/1 loader: the parts of a task whose reference
// is Python (docs/programs.md) — the reference section, the "program"
// section and the policy's torch_compute rule — read, checked and written
// back for the normalised task.
#pragma once

#include <string>

#include "task/task.h"
#include "util/json.h"

namespace kb::taskjson {

// True when the document's reference says "language": "python".
bool has_python_reference(const Json& doc);

// Reads reference: {"language": "python", "source" | "source_file", "style",
// "entry", ...} into t.reference (its source) and t.python.
void read_python_reference(const Json& v, const std::string& path, Task& t, const Limits& limits);
// The normalised reference section (the source inline).
Json python_reference_json(const Task& t);

// "program": {"timing": bool}; only with a Python reference.
void read_program_section(const Json& v, const std::string& path, Task& t);
Json program_section_json(const Task& t);

// policy.torch_compute: "allow" | "report" | "forbid".
void read_torch_compute(const Json& v, const std::string& path, Task& t);

}  // namespace kb::taskjson
