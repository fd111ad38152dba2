// Reference runs of Python references, kept host-side per (task, case,
// seed, input mode, model seed): a second candidate neither has the
// reference worker make its inputs again nor rerun the problem. Least
// recently used first out past the byte budget.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/program_backend.h"

namespace kb {

class ProgramReferenceCache {
public:
    explicit ProgramReferenceCache(size_t budget_bytes = size_t(2) << 30) : budget_(budget_bytes) {}

    std::shared_ptr<const ProgramRunReply> find(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                entries_.splice(entries_.begin(), entries_, it);
                return it->second;
            }
        return nullptr;
    }
    void put(const std::string& key, std::shared_ptr<const ProgramRunReply> run) {
        std::lock_guard<std::mutex> lock(mutex_);
        used_ += run->bytes();
        entries_.emplace_front(key, std::move(run));
        while (used_ > budget_ && entries_.size() > 1) {
            used_ -= entries_.back().second->bytes();
            entries_.pop_back();
        }
    }
    size_t size() const { return entries_.size(); }

private:
    std::mutex mutex_;
    size_t budget_;
    size_t used_ = 0;
    std::list<std::pair<std::string, std::shared_ptr<const ProgramRunReply>>> entries_;
};

}  // namespace kb
