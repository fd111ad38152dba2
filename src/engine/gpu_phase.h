// Who may use the GPU while several lanes (Context::ensure_lanes) score at
// once: correctness work shares it (lock_shared), timing has it alone
// (lock). Writer-preferring on purpose: std::shared_mutex on glibc prefers
// readers, and with three lanes comparing back to back a fourth lane's
// timing would wait for a gap that never comes. Here a waiting timer stops
// new correctness work from starting, and gets the GPU once the work in
// flight has finished. Works with std::shared_lock and std::unique_lock.
#pragma once

#include <condition_variable>
#include <mutex>

namespace kb {

class GpuPhaseLock {
public:
    void lock_shared() {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return !timing_ && timers_waiting_ == 0; });
        ++sharing_;
    }
    void unlock_shared() {
        std::lock_guard<std::mutex> l(mu_);
        if (--sharing_ == 0) cv_.notify_all();
    }
    void lock() {
        std::unique_lock<std::mutex> l(mu_);
        ++timers_waiting_;
        cv_.wait(l, [&] { return !timing_ && sharing_ == 0; });
        --timers_waiting_;
        timing_ = true;
    }
    void unlock() {
        std::lock_guard<std::mutex> l(mu_);
        timing_ = false;
        cv_.notify_all();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    unsigned sharing_ = 0;         // lanes doing correctness work now
    unsigned timers_waiting_ = 0;  // lanes waiting to time
    bool timing_ = false;          // a lane is timing now
};

}  // namespace kb
