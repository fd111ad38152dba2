// `kbench run --ray`: hands the run to the Python module kbench.ray
// (run_ray.cpp says how it is found).
#pragma once

#include <string>
#include <vector>

namespace kb::cli {

// Replaces this process with `python3 -m kbench.ray run --address ADDRESS
// <passthrough...>`. Returns only on failure, with the reason (python3 or the
// module missing, exec failing) as a sentence that says what to install.
std::string exec_ray(const std::string& address, const std::vector<std::string>& passthrough);

}  // namespace kb::cli
