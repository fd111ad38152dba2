// SHA-256, for content-addressed caches: a cached cubin that belonged to
// other source would silently give a wrong verdict, so the key must not collide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kb {

class Sha256 {
public:
    Sha256();
    Sha256& update(const void* data, size_t size);
    Sha256& update(std::string_view s) { return update(s.data(), s.size()); }
    // Adds the length first, so that ("ab","c") and ("a","bc") differ.
    Sha256& field(std::string_view s);
    std::string hex();  // finishes the hash; call once

private:
    void block(const uint8_t* p);
    uint32_t h_[8];
    uint8_t buf_[64];
    size_t buf_len_ = 0;
    uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace kb
