// Which waiting candidates `kbench run` moves from one GPU to another once
// every candidate has been submitted (docs/batch.md, "Several GPUs").
//
// Why: while candidates remain, each goes to the GPU with the fewest in
// flight, so the GPUs stay level. After the last one each GPU works through
// what it holds (up to its batch's capacity: some 20 candidates, about
// 0.7 s of work on an H200), and one GPU finishes first and idles while
// the other still has candidates that have not reached its device. Moving
// those to the idle GPU ends both together. A moved candidate is cancelled
// on its first GPU (Batch::cancel: only one that has not reached the
// device) and submitted again on the second, which compiles it again.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace kb::cli {

// One GPU's batch as the planner sees it.
struct LaneLoad {
    size_t in_flight = 0;     // submitted and not yet collected (moves under way included)
    size_t device_lanes = 1;  // jobs its device runs at once
    size_t leaving = 0;       // cancelled here to move, not yet collected
    size_t arriving = 0;      // moving here, not yet submitted
};

struct LaneMove {
    size_t from = 0, to = 0;
    size_t count = 0;  // how many of `from`'s newest waiting candidates to move
};

// The move that helps most now, if any: to the lane with the least work
// that has a device lane free, from the lane with the most candidates
// waiting for its device; half the difference, at most what waits there.
// Nothing when no lane has a free device lane, or when moving would not
// leave the two closer (a difference of one job).
std::optional<LaneMove> plan_rebalance(const std::vector<LaneLoad>& lanes);

}  // namespace kb::cli
