// Where a process's time goes, for kbench's own developers: named spans
// (count and total wall time) summed per process and written when it exits.
// Off unless KBENCH_PROFILE names a file; then every process (the host and
// each worker) appends one JSON line {"pid", "argv0", "spans": {name: [count,
// total_ms]}} to it. The cost when off is one predictable branch per span.
// KBENCH_TRACE names a file for every span as it happened, one JSON line
// {"pid", "tid", "name", "ts", "dur"} each (microseconds of the steady
// clock, which the host and its workers share; a thread numbered in its
// process): what the lanes of a batch did when (bench/trace_lanes.py).
//
//   KB_PROFILE_SPAN("compare.upload_reference");
#pragma once

#include <chrono>

namespace kb::profile {

bool enabled();
void add(const char* name, std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::duration d);

class Span {
public:
    explicit Span(const char* name) : name_(enabled() ? name : nullptr) {
        if (name_) t0_ = std::chrono::steady_clock::now();
    }
    ~Span() {
        if (name_) add(name_, t0_, std::chrono::steady_clock::now() - t0_);
    }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

private:
    const char* name_;
    std::chrono::steady_clock::time_point t0_;
};

}  // namespace kb::profile

#define KB_PROFILE_CAT2(a, b) a##b
#define KB_PROFILE_CAT(a, b) KB_PROFILE_CAT2(a, b)
#define KB_PROFILE_SPAN(name) ::kb::profile::Span KB_PROFILE_CAT(kb_profile_span_, __LINE__)(name)
