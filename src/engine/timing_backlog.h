// When a batch lane times the candidates that passed correctness
// (engine/batch.cpp). Timing needs the GPU alone (engine/gpu_phase.h), and
// getting it means waiting for every other lane's correctness request in
// flight to end while new ones are held back: the GPU drains, and the lanes
// idle. In a 500-answer `kbench run` the lanes would spend 28-35 % of their
// time waiting so (`bench/run_bench.py`), most of it behind a
// hang (nobody times beside a spinning kernel) or a fresh worker's references.
//
// So a lane that cannot have the GPU alone at once keeps the candidate
// waiting and checks the next job's correctness instead, and times its
// waiting candidates together in one turn once the GPU is free or once it
// keeps `limit` of them. Beside a sharer that looks hung it keeps up to
// kMaxBesideHang: it could not time before the hang is stopped anyway. A
// lane with nothing else to do waits for the GPU at once.
#pragma once

#include <algorithm>
#include <cstddef>

namespace kb {

struct TimingBacklog {
    // Candidates a lane keeps waiting to time. Each holds its result back
    // from the caller for a few scores' time and its kernel in the lane's
    // worker; 4 drains the GPU for timing once per 4 timed candidates at most.
    static constexpr size_t kDefault = 4;
    static constexpr size_t kMaxBesideHang = 16;
    static constexpr size_t kMaxSetting = 64;  // $KBENCH_TIMING_BACKLOG's bound

    size_t limit = kDefault;  // 0: time each candidate right after its correctness (no backlog)

    // Whether a lane keeping `waiting` candidates must wait for the GPU alone
    // now, rather than try for it and take other work while it is busy.
    // `other_work`: a compiled job is ready for this lane.
    bool must_wait(size_t waiting, bool other_work, bool gpu_looks_hung) const {
        if (waiting == 0) return false;
        if (!other_work || limit == 0) return true;
        return waiting >= (gpu_looks_hung ? std::max(limit, kMaxBesideHang) : limit);
    }
    // Whether a lane that must wait (must_wait) may give the wait up should a
    // sharer come to look hung meanwhile: must_wait would then let it take
    // other work, and it has some.
    bool may_give_up(size_t waiting, bool other_work) const {
        return other_work && limit > 0 && waiting < std::max(limit, kMaxBesideHang);
    }
    // Whether a candidate that passed correctness may wait (rather than be
    // timed at once).
    bool may_keep() const { return limit > 0; }
};

}  // namespace kb
