// Whether nvcc could accept code that NVRTC rejected. kbench retries an
// NVRTC failure with nvcc so that its compile verdict is nvcc's; the retry
// costs about 400 ms, so it is skipped when the answer is known: NVRTC and
// nvcc share the EDG front end, so a syntax error in code kbench compiled
// unchanged, with no #include, is one nvcc reports too.
#pragma once

#include <string>

#include "compiler/source_prep.h"

namespace kb {

// True unless every error in `nvrtc_log` is a syntax error and nvcc would
// see exactly what NVRTC saw (nothing removed, nothing included).
bool nvcc_could_cure(const std::string& nvrtc_log, const PreparedSource& prep);

}  // namespace kb
