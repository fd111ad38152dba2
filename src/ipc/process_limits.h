// Resource limits for a process kbench starts (a compiler, a compile
// worker): the kernel enforces them with setrlimit, so a process that would
// eat the machine's memory, spin forever or fill the disk is stopped by the
// kernel, not by kbench noticing in time. Children inherit them.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <string>

namespace kb {

// The resource the memory cap sets. RLIMIT_DATA (Linux >= 4.7) counts what a
// process can actually fill: its heap and private writable mappings, so
// reading /dev/zero into memory meets it. RLIMIT_AS counted reserved address
// space too, and NVRTC under an 8 GiB RLIMIT_AS compiled 2.5x slower than
// without it (45 vs 18 ms per small kernel on an H100, `kbench_compile_bench`),
// while staying far below the cap in memory actually used.
constexpr int kMemoryLimit = RLIMIT_DATA;

struct ProcessLimits {
    uint64_t memory_bytes = 0;  // kMemoryLimit (RLIMIT_DATA: heap and private writable mappings); 0: none
    double cpu_s = 0;           // RLIMIT_CPU, per process (each child has its own); 0: none
    uint64_t file_bytes = 0;    // RLIMIT_FSIZE, the largest file it may write; 0: none
    bool any() const { return memory_bytes || cpu_s > 0 || file_bytes; }
};

// Applies `limits` to the calling process (a worker limiting itself at start).
// Returns "" or what failed.
std::string apply_process_limits(const ProcessLimits& limits);

// False in a sanitizer build of kbench itself, whose processes reserve
// terabytes of shadow address space: apply_process_limits then leaves the
// address space alone (processes it spawns, such as nvcc, are still capped).
bool address_space_limit_usable();

// The calling process's own address-space limit in bytes (0: none), so a
// compile that ran out of memory under it can say so.
uint64_t own_address_space_limit();

}  // namespace kb
