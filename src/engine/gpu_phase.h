// Who may use the GPU while several lanes (Context::ensure_lanes) score at
// once: correctness work shares it (lock_shared), timing has it alone
// (lock). Writer-preferring on purpose: std::shared_mutex on glibc prefers
// readers, and with three lanes comparing back to back a fourth lane's
// timing would wait for a gap that never comes. Here a waiting timer stops
// new correctness work from starting, and gets the GPU once the work in
// flight has finished. Works with std::shared_lock and std::unique_lock.
//
// Except while a sharer looks hung: one that has held the GPU for longer
// than `suspect` (250 ms; kbench's requests on the built-in tasks take tens
// of milliseconds, and a kernel's run limit is at least 1 s) is most likely a
// candidate spinning until its deadline. The waiting timer cannot time
// beside it anyway (a spinning kernel time-slices every context: 2.4 ms a
// synchronisation on an H100, bench/RESULTS.md), so new correctness work is
// let in meanwhile instead of every lane stalling behind the timer for the
// rest of the hang. Once no sharer is that old, the timer's preference
// holds again. Without this, a 500-answer `kbench run` spends two fifths of
// its lanes' time waiting here (`bench/run_bench.py`).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace kb {

class GpuPhaseLock {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kSuspect{250};

    explicit GpuPhaseLock(Clock::duration suspect = kSuspect) : suspect_(suspect) {}

    // At most `n` sharers at once (0: any number), so that more lanes can
    // import and compile their candidates, which needs no GPU phase, than
    // run correctness work side by side on the GPU. A sharer that looks hung
    // does not count against it: its slot would stay taken until its
    // deadline.
    void set_max_sharers(unsigned n) {
        std::lock_guard<std::mutex> l(mu_);
        max_sharers_ = n;
        cv_.notify_all();
    }
    unsigned max_sharers() const {
        std::lock_guard<std::mutex> l(mu_);
        return max_sharers_;
    }

    void lock_shared() {
        std::unique_lock<std::mutex> l(mu_);
        for (;;) {
            const bool suspect = oldest_sharer_is_suspect(Clock::now());
            const bool room = max_sharers_ == 0 || since_.size() < max_sharers_ || suspect;
            if (!timing_ && room && (timers_waiting_ == 0 || suspect)) break;
            // A waiting timer or no room: look again when the oldest sharer
            // would turn suspect, unless something changes first.
            if (!timing_ && !since_.empty())
                cv_.wait_until(l, oldest_since() + suspect_);
            else
                cv_.wait(l);
        }
        since_.emplace(std::this_thread::get_id(), Clock::now());
    }
    void unlock_shared() {
        std::lock_guard<std::mutex> l(mu_);
        auto it = since_.find(std::this_thread::get_id());
        if (it != since_.end()) since_.erase(it);
        // A timer waits for no sharer at all; a sharer held back by the cap
        // for one slot.
        if (since_.empty() || max_sharers_ != 0) cv_.notify_all();
    }
    void lock() {
        std::unique_lock<std::mutex> l(mu_);
        ++timers_waiting_;
        cv_.wait(l, [&] { return !timing_ && since_.empty(); });
        --timers_waiting_;
        timing_ = true;
    }
    void unlock() {
        std::lock_guard<std::mutex> l(mu_);
        timing_ = false;
        cv_.notify_all();
    }
    // lock(), but gives up (false, out of line) once a sharer looks hung
    // while it waits: a lane that has other work does that rather than idle
    // behind a hang it cannot time beside (engine/timing_backlog.h), which
    // can last seconds while the others' workers are replaced
    // (bench/trace_lanes.py shows such waits).
    bool lock_unless_hung() {
        std::unique_lock<std::mutex> l(mu_);
        ++timers_waiting_;
        for (;;) {
            if (!timing_ && since_.empty()) {
                --timers_waiting_;
                timing_ = true;
                return true;
            }
            if (oldest_sharer_is_suspect(Clock::now())) {
                --timers_waiting_;
                cv_.notify_all();  // sharers held back by this timer may go
                return false;
            }
            if (!timing_) cv_.wait_until(l, oldest_since() + suspect_);
            else cv_.wait(l);
        }
    }
    // The GPU alone if it is free now: nobody shares it, times, or waits to
    // time (a timer in line goes first). Never waits.
    bool try_lock() {
        std::lock_guard<std::mutex> l(mu_);
        if (timing_ || !since_.empty() || timers_waiting_ != 0) return false;
        timing_ = true;
        return true;
    }
    // Whether a sharer has held the GPU for `suspect` or longer: most likely
    // a hang, beside which nobody can time until it is stopped.
    bool sharer_looks_hung() const {
        std::lock_guard<std::mutex> l(mu_);
        return oldest_sharer_is_suspect(Clock::now());
    }
    // Lanes waiting to time now (tests wait for a timer to be in line).
    unsigned timers_waiting() const {
        std::lock_guard<std::mutex> l(mu_);
        return timers_waiting_;
    }

private:
    Clock::time_point oldest_since() const {
        Clock::time_point oldest = Clock::time_point::max();
        for (const auto& [thread, since] : since_) oldest = std::min(oldest, since);
        return oldest;
    }
    bool oldest_sharer_is_suspect(Clock::time_point now) const {
        return !since_.empty() && now - oldest_since() >= suspect_;
    }

    const Clock::duration suspect_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    // The sharers (lanes doing correctness work now) and since when; a
    // thread holds at most one share (a lane is one thread at a time).
    std::multimap<std::thread::id, Clock::time_point> since_;
    unsigned timers_waiting_ = 0;  // lanes waiting to time
    unsigned max_sharers_ = 0;     // set_max_sharers
    bool timing_ = false;          // a lane is timing now
};

// The phase of a request whose caller holds the GPU alone already (a batch
// lane timing the candidates it kept waiting, in one turn): taking it again
// would wait for itself.
struct GpuAlreadyAlone {
    GpuAlreadyAlone(GpuPhaseLock&, std::defer_lock_t) {}
    void lock() {}
};

}  // namespace kb
