#include "cli/run_rebalance.h"

#include <algorithm>

namespace kb::cli {

namespace {

// The work a lane will have once the moves under way have landed.
size_t load_of(const LaneLoad& l) { return l.in_flight - std::min(l.leaving, l.in_flight) + l.arriving; }

// Candidates of a lane that are not on its device (an estimate: its device
// runs device_lanes of them at once).
size_t waiting_of(const LaneLoad& l) {
    size_t load = load_of(l);
    return load > l.device_lanes ? load - l.device_lanes : 0;
}

}  // namespace

std::optional<LaneMove> plan_rebalance(const std::vector<LaneLoad>& lanes) {
    if (lanes.size() < 2) return std::nullopt;
    std::optional<size_t> to, from;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const LaneLoad& l = lanes[i];
        if (load_of(l) < l.device_lanes && (!to || load_of(l) < load_of(lanes[*to]))) to = i;
        if (waiting_of(l) > 0 && (!from || waiting_of(l) > waiting_of(lanes[*from]))) from = i;
    }
    if (!to || !from || *to == *from) return std::nullopt;
    const size_t have = load_of(lanes[*from]), need = load_of(lanes[*to]);
    if (have < need + 2) return std::nullopt;
    size_t count = std::min(waiting_of(lanes[*from]), (have - need) / 2);
    if (count == 0) return std::nullopt;
    return LaneMove{*from, *to, count};
}

}  // namespace kb::cli
