// Whether a source may compile under NVRTC's -minimal, which leaves out of
// NVRTC's implicit headers what a small kernel rarely names: texture and
// surface functions and types, the device runtime's functions (cudaMalloc,
// cudaDeviceSynchronize, ... from device code), kernel launches from device
// code, and the runtime's and driver's types and macros (cudaError_t,
// cudaStream_t, ...). Parsing less makes the compile of a small kernel a
// fraction faster (NVRTC's own guide, "Supported Compile Options").
//
// The test is on names, so it can only be conservative: a source naming
// anything with those prefixes, or launching with <<<, compiles in full.
// What it misses (a name that comes from a header the source includes), the
// compile finds: a -minimal compile that fails on such a name, or for any
// reason but a compile error (an NVRTC before 12.4 has no such option), is
// run again without it (NvrtcBackend::compile). A compile error that names
// none of them is the full compile's error too, and is answered at once.
#pragma once

#include <string>
#include <unordered_set>

namespace kb {

constexpr const char* kMinimalLeavesOut[] = {"cuda", "CUDA", "tex", "surf", "CU"};

inline bool nvrtc_minimal_suffices(const std::unordered_set<std::string>& identifiers, const std::string& text) {
    if (text.find("<<<") != std::string::npos) return false;  // a launch from device code
    for (const std::string& id : identifiers)
        for (const char* prefix : kMinimalLeavesOut)
            if (id.rfind(prefix, 0) == 0) return false;
    return true;
}

// Whether a failed -minimal compile's log may owe something to -minimal:
// NVRTC quotes the names it reports ("identifier \"cudaStream_t\" is
// undefined"), and a launch from device code is the other thing it drops.
inline bool nvrtc_minimal_may_explain(const std::string& log) {
    if (log.find("<<<") != std::string::npos) return true;
    for (const char* prefix : kMinimalLeavesOut)
        if (log.find(std::string("\"") + prefix) != std::string::npos) return true;
    return false;
}

}  // namespace kb
