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

// nvcc's front end quotes declarations with CUDA's keywords expanded
// (`__global__` as `__attribute__((global))`, likewise __device__, __host__,
// __shared__, __constant__): this writes them back as the user wrote them,
// unless `code` itself spells the expanded form.
std::string with_cuda_keywords(const std::string& log, const std::string& code);

}  // namespace kb
