// One NVRTC compilation: source plus in-memory headers in, image and full log
// out. No policy here; compiler.cpp decides the options.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kb {

struct NvrtcResult {
    bool ok = false;
    bool compile_error = false;  // the code's fault (NVRTC_ERROR_COMPILATION and kin)
    bool invalid_option = false; // NVRTC_ERROR_INVALID_OPTION: the options' fault
    std::string error;           // nvrtcGetErrorString of a failure
    std::string log;             // the program log, warnings included
    std::string image;           // cubin bytes or PTX text
    bool is_cubin = true;
    std::map<std::string, std::string> lowered;  // name expression -> lowered (mangled) name
    double ms = 0.0;
};

// Compiles `source`. `headers` are (include name, text) pairs; `name_expressions`
// are registered with nvrtcAddNameExpression before compiling and looked up
// with nvrtcGetLoweredName after. `want_cubin` fetches nvrtcGetCUBIN, else PTX.
// `timeout_s` > 0 cancels a compile that runs longer (NVRTC's flow callback).
NvrtcResult run_nvrtc(const std::string& source, const std::string& source_name,
                      const std::vector<std::string>& options,
                      const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::vector<std::string>& name_expressions, bool want_cubin, double timeout_s);

// "13.0", or "" when NVRTC cannot report a version.
std::string nvrtc_version_string();

}  // namespace kb
