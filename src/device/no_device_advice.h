// What the library tells its callers to do when there is no CUDA device: a
// compile-only context still validates and compiles. One text, added in one
// way, so that a front end with advice of its own (kbench run's
// --compile-only) takes exactly this off the reason, not by a guess at it.
#pragma once

#include <string>

namespace kb {

inline const std::string& compile_only_advice() {
    static const std::string advice = "use a compile-only context (device = KB_DEVICE_NONE) to validate and compile";
    return advice;
}

// "<reason>; <advice>": the message of a KB_ERR_NO_DEVICE.
inline std::string with_compile_only_advice(const std::string& reason) { return reason + "; " + compile_only_advice(); }

// `message` without what with_compile_only_advice() added to it (every
// occurrence: a worker's refusal may be quoted inside the host's message).
inline std::string without_compile_only_advice(std::string message) {
    const std::string added = "; " + compile_only_advice();
    for (size_t at = message.find(added); at != std::string::npos; at = message.find(added, at))
        message.erase(at, added.size());
    return message;
}

}  // namespace kb
