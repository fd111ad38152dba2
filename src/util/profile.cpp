#include "util/profile.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kb::profile {
namespace {

struct Totals {
    uint64_t count = 0;
    double ms = 0;
};

// One span as it happened, for KBENCH_TRACE.
struct Event {
    const char* name;
    unsigned thread;
    std::chrono::steady_clock::time_point t0;
    std::chrono::steady_clock::duration d;
};

unsigned thread_number() {
    static std::atomic<unsigned> next{0};
    thread_local unsigned mine = next++;
    return mine;
}

struct Registry {
    std::mutex mu;
    std::map<std::string, Totals> spans;
    std::string path;
    std::string trace_path;
    std::vector<Event> events;

    Registry() {
        const char* p = std::getenv("KBENCH_PROFILE");
        if (p && *p) path = p;
        const char* t = std::getenv("KBENCH_TRACE");
        if (t && *t) trace_path = t;
    }
    // Written once, when the process ends normally (a killed worker's spans
    // are lost with it: the profile is for the paths that work).
    ~Registry() {
        write_trace();
        if (path.empty() || spans.empty()) return;
        std::string line = "{\"pid\": " + std::to_string(getpid()) + ", \"spans\": {";
        bool first = true;
        for (const auto& [name, t] : spans) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "[%llu, %.3f]", static_cast<unsigned long long>(t.count), t.ms);
            line += (first ? "\"" : ", \"") + name + "\": " + buf;
            first = false;
        }
        line += "}}\n";
        std::ofstream(path, std::ios::app) << line;
    }
    // Every span with its start (steady clock, which all processes of a
    // machine share) and length, in microseconds: one JSON line each.
    void write_trace() {
        if (trace_path.empty() || events.empty()) return;
        std::ofstream out(trace_path, std::ios::app);
        const long pid = long(getpid());
        for (const Event& e : events) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "{\"pid\": %ld, \"tid\": %u, \"name\": \"%s\", \"ts\": %.1f, \"dur\": %.1f}\n",
                          pid, e.thread, e.name,
                          std::chrono::duration<double, std::micro>(e.t0.time_since_epoch()).count(),
                          std::chrono::duration<double, std::micro>(e.d).count());
            out << buf;
        }
    }
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

bool enabled() {
    static const bool on = !registry().path.empty() || !registry().trace_path.empty();
    return on;
}

void add(const char* name, std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::duration d) {
    Registry& r = registry();
    const unsigned thread = r.trace_path.empty() ? 0 : thread_number();
    std::lock_guard<std::mutex> lock(r.mu);
    Totals& t = r.spans[name];
    ++t.count;
    t.ms += std::chrono::duration<double, std::milli>(d).count();
    if (!r.trace_path.empty()) r.events.push_back({name, thread, t0, d});
}

}  // namespace kb::profile
