// The compile service's one content-addressed cache: images by the SHA-256 of
// everything that decides them (the backends and their versions, kbench's own
// device headers, the options, the architecture and the code). In memory
// (bounded, oldest first out) and, when configured, in a folder shared
// between processes, where a file is trusted only if its key and bytes check.
#pragma once

#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "compiler/compile_types.h"

namespace kb {

class CompileCache {
public:
    CompileCache(std::string dir, size_t memory_entries);

    // The memory cache alone (no I/O): cheap enough to call under a lock.
    std::optional<CompiledImage> find_in_memory(const std::string& key);
    // Memory first, then the folder (a folder hit is remembered in memory).
    std::optional<CompiledImage> find(const std::string& key);
    // Remembers in memory and writes to the folder (a cache that cannot be
    // written is not a compile failure).
    void put(const std::string& key, const CompiledImage& image);

private:
    std::optional<CompiledImage> load(const std::string& key) const;
    void store(const std::string& key, const CompiledImage& image) const;
    void remember(const std::string& key, const CompiledImage& image);

    std::string dir_;
    size_t memory_entries_;
    std::mutex mutex_;
    std::unordered_map<std::string, CompiledImage> memory_;
    std::deque<std::string> order_;  // insertion order, for eviction
};

}  // namespace kb
