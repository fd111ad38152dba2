// Reference outputs kept host-side, per (task, case, seed), least recently
// used first out once the byte budget is exceeded. Host-side on purpose: no
// reference result may sit in device memory while a candidate runs.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"
#include "exec/host_tensor.h"

namespace kb {

struct ReferenceRun {
    std::vector<HostTensor> outputs;  // out and inout args, in argument order
    double run_ms = 0;                // wall time of the reference's launch plan
    // Large outputs page-locked while cached: each comparison uploads them.
    // Declared after `outputs`, so the pages are unpinned before they are freed.
    std::vector<HostPin> pins;
    size_t bytes() const {
        size_t n = 0;
        for (const auto& t : outputs) n += t.bytes.size();
        return n;
    }
};

class ReferenceCache {
public:
    explicit ReferenceCache(size_t budget_bytes = size_t(2) << 30) : budget_(budget_bytes) {}

    static std::string key(const std::string& task_hash, int case_index, uint64_t seed) {
        return task_hash + "/" + std::to_string(case_index) + "/" + std::to_string(seed);
    }
    std::shared_ptr<const ReferenceRun> find(const std::string& key) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                entries_.splice(entries_.begin(), entries_, it);
                return it->second;
            }
        return nullptr;
    }
    void put(const std::string& key, std::shared_ptr<const ReferenceRun> run) {
        used_ += run->bytes();
        entries_.emplace_front(key, std::move(run));
        // Keep the newest entry even if it alone exceeds the budget.
        while (used_ > budget_ && entries_.size() > 1) {
            used_ -= entries_.back().second->bytes();
            entries_.pop_back();
        }
    }

private:
    size_t budget_;
    size_t used_ = 0;
    std::list<std::pair<std::string, std::shared_ptr<const ReferenceRun>>> entries_;
};

}  // namespace kb
