// The sizes of `kbench sweep --dim NAMES=RANGE` (docs/sweep.md):
//   1024..16384:1024    from 1024 to 16384 in steps of 1024 (16384 included when reached)
//   1024..16384         powers of two times the start: 1024, 2048, ..., 16384
//   1024..16384:x4      times 4 each step: 1024, 4096, 16384
//   512,1000,4096       exactly these
// NAMES is one dim or several joined by commas (M,N,K=...), which all take
// each size (a square matmul).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb::cli {

struct DimSweep {
    std::vector<std::string> dims;  // the task dims set to each size
    std::vector<int64_t> sizes;     // increasing, at least one
};

// Parses "NAMES=RANGE". Throws std::invalid_argument with a message that
// quotes the text and shows the accepted forms. At most kMaxSweepPoints sizes.
DimSweep parse_dim_sweep(const std::string& text);

constexpr size_t kMaxSweepPoints = 64;

}  // namespace kb::cli
