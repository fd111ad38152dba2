// Whether a case fits, checked before a byte of it is allocated: the task's
// buffers at a case (each with its guard zones), and a program's scratch
// buffers, against the device's memory; the outputs kbench copies back to
// compare, against the host's. The loader has already refused sizes that
// overflow; what fits one GPU may not fit another, so this is checked here,
// where the device is known.
#pragma once

#include <cstdint>

#include "device/device.h"
#include "task/task.h"

namespace kb {

// Bytes a buffer of `bytes` takes on the device (rounded up, guard zones on
// both sides), saturating instead of overflowing.
uint64_t device_footprint(uint64_t bytes);

// Throws kb::Error(KB_ERR_OUT_OF_MEMORY) naming the case, its largest buffer
// and the memory it would need, when the task's buffers at case `case_index`
// exceed `device_bytes`, or its outputs exceed `host_bytes` (0: unknown).
void check_case_fits(const Task& task, int case_index, uint64_t device_bytes, uint64_t host_bytes,
                     const std::string& device_name);
// The same for a program's scratch buffers, on top of `in_use` bytes.
void check_scratch_fits(const Program& p, const Case& c, uint64_t in_use, uint64_t device_bytes,
                        const std::string& device_name);

// This machine's physical memory in bytes (0 when it cannot be read).
uint64_t host_memory_bytes();

}  // namespace kb
