// Sizes in words for messages: "64 MiB", "1000 bytes".
#pragma once

#include <cstdint>
#include <string>

namespace kb {

// Exact multiples of 1024 in the largest unit that divides them; anything
// else in bytes.
std::string format_bytes(uint64_t bytes);

}  // namespace kb
