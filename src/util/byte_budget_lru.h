// Shared values by key, least recently used first out once their bytes pass
// a budget; the newest entry stays even if it alone is over. The caches of
// reference results (the worker's, the host's, the Python references') are
// all this. Thread-safe; a value found stays valid while the caller holds
// it, even after it leaves the cache. V has `size_t bytes() const`.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace kb {

template <class V>
class ByteBudgetLru {
public:
    explicit ByteBudgetLru(size_t budget_bytes) : budget_(budget_bytes) {}

    std::shared_ptr<const V> find(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                entries_.splice(entries_.begin(), entries_, it);
                return it->second;
            }
        return nullptr;
    }
    // Replaces an entry of the same key.
    void put(const std::string& key, std::shared_ptr<const V> value) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                used_ -= it->second->bytes();
                entries_.erase(it);
                break;
            }
        used_ += value->bytes();
        entries_.emplace_front(key, std::move(value));
        while (used_ > budget_ && entries_.size() > 1) {
            used_ -= entries_.back().second->bytes();
            entries_.pop_back();
        }
    }
    // Drops `key`'s entry, if there is one.
    void erase(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                used_ -= it->second->bytes();
                entries_.erase(it);
                return;
            }
    }
    size_t size() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return entries_.size();
    }
    size_t bytes() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return used_;
    }
    size_t budget() const { return budget_; }

private:
    mutable std::mutex mutex_;
    const size_t budget_;
    size_t used_ = 0;
    std::list<std::pair<std::string, std::shared_ptr<const V>>> entries_;  // front = most recent
};

}  // namespace kb
