// Versioned options structs, as zstd and libgit2 keep them: a caller built
// against version v of a struct sets `.version = v`, and this library accepts
// every version from 1 up to the one it knows, so a v1 caller keeps working
// after v2 appends fields. Each struct has a table of its size at every
// version (index = version); the library reads and writes only the prefix the
// caller's version has, and takes defaults for the rest. When a struct gains
// fields, bump its KB_*_VERSION in kbench.h and add the new size here, with
// the old version's size recorded as offsetof(the first new field).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "kbench.h"

namespace kb::capi {

template <class T>
struct Versions;

template <>
struct Versions<kb_context_options> {
    static constexpr const char* name = "kb_context_options";
    static constexpr const char* init = "KB_CONTEXT_OPTIONS_INIT";
    // version 2 appended `limits`
    static constexpr size_t sizes[] = {0, offsetof(kb_context_options, limits), sizeof(kb_context_options)};
};
template <>
struct Versions<kb_limits> {
    static constexpr const char* name = "kb_limits";
    static constexpr const char* init = "KB_LIMITS_INIT";
    static constexpr size_t sizes[] = {0, sizeof(kb_limits)};
};
template <>
struct Versions<kb_time_options> {
    static constexpr const char* name = "kb_time_options";
    static constexpr const char* init = "KB_TIME_OPTIONS_INIT";
    static constexpr size_t sizes[] = {0, sizeof(kb_time_options)};
};
template <>
struct Versions<kb_score_options> {
    static constexpr const char* name = "kb_score_options";
    static constexpr const char* init = "KB_SCORE_OPTIONS_INIT";
    // v2 appended protocol and torch_compute.
    static constexpr size_t sizes[] = {0, offsetof(kb_score_options, protocol), sizeof(kb_score_options)};
};
template <>
struct Versions<kb_candidate> {
    static constexpr const char* name = "kb_candidate";
    static constexpr const char* init = "KB_CANDIDATE_INIT";
    static constexpr size_t sizes[] = {0, sizeof(kb_candidate)};
};

template <>
struct Versions<kb_batch_options> {
    static constexpr const char* name = "kb_batch_options";
    static constexpr const char* init = "KB_BATCH_OPTIONS_INIT";
    // version 2 appended `device_lanes`
    static constexpr size_t sizes[] = {0, offsetof(kb_batch_options, device_lanes), sizeof(kb_batch_options)};
};

// The newest version of T this library knows.
template <class T>
constexpr unsigned current_version() {
    return unsigned(sizeof(Versions<T>::sizes) / sizeof(size_t)) - 1;
}

// "" when this library reads `version` of T; otherwise why not, and the fix.
template <class T>
std::string unsupported_version(unsigned version) {
    const unsigned cur = current_version<T>();
    if (version >= 1 && version <= cur) return "";
    return std::string(Versions<T>::name) + ".version " + std::to_string(version) +
           " is not supported: this library reads versions 1.." + std::to_string(cur) +
           (version == 0 ? "; initialise the struct with " + std::string(Versions<T>::init)
                         : "; it is older than the header the caller was built with: use a newer kbench library");
}

// The caller's struct as the current version: its own fields copied, the
// fields its version lacks at their defaults (`defaults` is a full current
// struct). Call after unsupported_version() said "".
template <class T>
T read_versioned(const T* in, const T& defaults) {
    T out = defaults;
    std::memcpy(&out, in, Versions<T>::sizes[in->version]);
    return out;
}

// Writes `defaults` into the caller's struct of `version`, no byte past its size.
template <class T>
void write_versioned(T* out, unsigned version, T defaults) {
    defaults.version = version;
    std::memcpy(out, &defaults, Versions<T>::sizes[version]);
}

}  // namespace kb::capi
