// Hangs that disturbed the whole GPU, kept per context so that one lane's
// timeout can be told apart from a neighbour's doing. On an H100
// (bench/gpu_disturbance.cu) a kernel that spins until its worker is
// killed slows every other context on the GPU (so does the driver's
// recovery from a crash: every other context stalled 105-149 ms while it
// handled one, bench/gpu_disturbance.cu): in a stream with
// crashes and hangs the honest candidates' correctness took a median 115 ms
// instead of 20 ms, and in a 500-answer run a few honest kernels, and a
// crash the driver was slow to report, missed their deadlines. A timeout
// that overlapped another lane's is therefore tried once more
// (Context::with_retry) before it becomes the verdict: a real hang times
// out again, and says it was retried. (Timing and the recheck retry every
// timeout once: Context::TimeoutRetry.)
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>

namespace kb {

class GpuIncidents {
public:
    using Clock = std::chrono::steady_clock;
    // How long after a failed request ends its effects may last: the killed
    // worker's context is torn down, and the driver recovers, after the reply.
    static constexpr std::chrono::milliseconds kAftermath{1000};
    // The same for a timeout that ended inside its worker (a checked build's
    // loops stopped themselves; the worker answered and goes on): nothing is
    // killed or torn down, so its spin is over when the reply comes; the
    // margin covers the reply's way back. With the 1 s aftermath, in a
    // contained stream of 120 candidates with 3 hangs (`kbench_batch_bench`),
    // every hang after the first runs twice, 0.5 s instead of 0.25.
    static constexpr std::chrono::milliseconds kInPlaceAftermath{50};
    // A request running this long is a hang or is slowed by one: kbench's
    // own requests on the built-in tasks take milliseconds. Well under the
    // shortest limit of a run (0.25 s for the loops of a checked build,
    // worker_host/deadlines.h), so that of two hangs that started together
    // the first to time out sees the other. An honest request this long
    // beside a hang costs that hang one more try, never a verdict.
    static constexpr std::chrono::milliseconds kLong{150};

    // Lane `lane`'s request [from, to] ended in a timeout, whose effects may
    // last `aftermath` past its end (kAftermath, or kInPlaceAftermath).
    void record(size_t lane, Clock::time_point from, Clock::time_point to,
                std::chrono::milliseconds aftermath = kAftermath) {
        std::lock_guard<std::mutex> l(mu_);
        recent_.push_back({lane, from, to + aftermath});
        // Old ones can overlap nothing that runs now; a bound keeps a long
        // life of failures from growing the list.
        while (recent_.size() > kKept) recent_.pop_front();
    }
    // A request on lane `lane` starts / ends (one at a time per lane).
    void begin(size_t lane, Clock::time_point at) {
        std::lock_guard<std::mutex> l(mu_);
        running_[lane] = at;
    }
    void end(size_t lane) {
        std::lock_guard<std::mutex> l(mu_);
        running_.erase(lane);
    }
    // Whether another lane's incident (with its aftermath) overlapped
    // [from, to], or another lane's request has been running for `kLong`
    // at `to`: a hang not yet stopped (the first of two side by side to
    // time out has no record of the other yet), or another victim.
    bool others_overlap(size_t lane, Clock::time_point from, Clock::time_point to) const {
        std::lock_guard<std::mutex> l(mu_);
        for (const Incident& i : recent_)
            if (i.lane != lane && i.from <= to && from <= i.until) return true;
        for (const auto& [other, since] : running_)
            if (other != lane && to - since >= kLong) return true;
        return false;
    }

private:
    struct Incident {
        size_t lane;
        Clock::time_point from, until;  // until: its end plus its aftermath
    };
    static constexpr size_t kKept = 256;
    mutable std::mutex mu_;
    std::deque<Incident> recent_;
    std::map<size_t, Clock::time_point> running_;  // lane -> since
};

}  // namespace kb
