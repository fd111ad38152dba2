// Turning a compiler log (NVRTC's or nvcc's) into the one-paragraph summary
// a CompileError carries: the first error with its file:line and the code it
// points at, and how many errors there were in all.
#pragma once

#include <string>

namespace kb {

// `tool` is "nvrtc" or "nvcc". Never empty.
std::string summarize_compile_log(const std::string& log, const std::string& tool);

// nvcc reports paths in its private temporary folder; this rewrites
// "<dir>/<name>" to "<name>" so messages point at the candidate's own name.
std::string strip_temp_dir(const std::string& log, const std::string& dir);

}  // namespace kb
