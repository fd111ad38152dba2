// Which compiled job a batch's lane takes next (engine/batch.cpp). A lane's
// worker keeps the references it ran, per task; a job of a task the lane has
// not run costs a reference run at each of the task's cases first, and a
// respawned worker (after a crash or a hang) starts with none. With 15 tasks
// spread over 4 lanes in submission order, every lane ran every task's
// references, again after each respawn: in a 500-answer `kbench run` the
// lanes would spend about a quarter of their time in them
// (`bench/run_bench.py`). So a lane prefers, among the oldest compiled jobs, one of a
// task it ran lately; the oldest job is never passed over more than
// kMaxSkips times, so nothing waits without bound.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace kb {

class LaneAffinity {
public:
    static constexpr size_t kWindow = 16;    // compiled jobs a lane looks at, oldest first
    static constexpr unsigned kMaxSkips = 16;  // then the oldest goes first, whatever its task
    static constexpr size_t kRecent = 4;     // tasks a lane counts as its own

    struct Ready {
        const std::string* task;  // the job's task hash
        unsigned skipped;         // times a younger job went ahead of it
    };

    // The index in `ready` (the compiled jobs, oldest first, at most
    // kWindow; not empty) that lane `lane` takes.
    size_t choose(size_t lane, const std::vector<Ready>& ready) const {
        if (ready.front().skipped >= kMaxSkips || lane >= recent_.size()) return 0;
        const std::deque<std::string>& mine = recent_[lane];
        for (size_t i = 0; i < ready.size() && i < kWindow; ++i)
            if (std::find(mine.begin(), mine.end(), *ready[i].task) != mine.end()) return i;
        return 0;
    }
    // Lane `lane` took a job of `task`.
    void took(size_t lane, const std::string& task) {
        if (lane >= recent_.size()) recent_.resize(lane + 1);
        std::deque<std::string>& mine = recent_[lane];
        auto it = std::find(mine.begin(), mine.end(), task);
        if (it != mine.end()) mine.erase(it);
        mine.push_front(task);
        if (mine.size() > kRecent) mine.pop_back();
    }

private:
    std::vector<std::deque<std::string>> recent_;  // per lane, the latest first
};

}  // namespace kb
