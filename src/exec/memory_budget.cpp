#include "exec/memory_budget.h"

#include <unistd.h>

#include <limits>

#include "util/error.h"
#include "util/units.h"

namespace kb {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t add_saturating(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }

uint64_t buffer_bytes(const std::vector<Expr>& shape, const DimValues& dims, DType t, const std::string& what) {
    uint64_t n = uint64_t(element_count(shape, dims, what));
    uint64_t size = dtype_size(t);
    return n > kMax / size ? kMax : n * size;
}

std::string in_words(uint64_t bytes) {
    return std::to_string(bytes) + " bytes (" + format_bytes(bytes / (1u << 20) * (1u << 20)) + ")";
}

}  // namespace

uint64_t device_footprint(uint64_t bytes) {
    uint64_t padded = bytes < 256 ? 256 : add_saturating(bytes, 255) / 256 * 256;
    return add_saturating(padded, 2 * DeviceBuffer::kGuardBytes);
}

void check_case_fits(const Task& task, int case_index, uint64_t device_bytes, uint64_t host_bytes,
                     const std::string& device_name) {
    const Case& c = task.cases.at(size_t(case_index));
    uint64_t total = 0, outputs = 0, largest = 0;
    std::string largest_name;
    for (size_t i = 0; i < task.args.size(); ++i) {
        const Arg& a = task.args[i];
        if (!a.is_buffer()) continue;
        uint64_t b = buffer_bytes(a.shape, c.dims, a.dtype, "args[" + std::to_string(i) + "]");
        total = add_saturating(total, device_footprint(b));
        if (a.is_output()) outputs = add_saturating(outputs, b);
        if (b >= largest) {
            largest = b;
            largest_name = "args[" + std::to_string(i) + "] '" + a.name + "'";
        }
    }
    const std::string which = "case '" + c.name + "' of task '" + task.name + "'";
    if (device_bytes && total > device_bytes)
        fail(KB_ERR_OUT_OF_MEMORY, which + " needs " + in_words(total) + " of device memory for its buffers (the largest, " +
                                       largest_name + ", is " + in_words(largest) + "), more than the " +
                                       in_words(device_bytes) + " of " + device_name +
                                       "; expected a case that fits the device (make its dims smaller)");
    // Reference and candidate outputs are compared on the device, but the
    // reference's are kept host-side between runs: twice, at most.
    if (host_bytes && outputs > host_bytes / 2)
        fail(KB_ERR_OUT_OF_MEMORY, which + " has " + in_words(outputs) +
                                       " of outputs, which kbench keeps in host memory; this machine has " +
                                       in_words(host_bytes) + "; expected a case whose outputs fit (make its dims smaller)");
}

void check_scratch_fits(const Program& p, const Case& c, uint64_t in_use, uint64_t device_bytes,
                        const std::string& device_name) {
    if (!device_bytes) return;
    uint64_t total = in_use;
    for (const Scratch& s : p.scratch)
        total = add_saturating(total, device_footprint(buffer_bytes(s.shape, c.dims, s.dtype, "scratch '" + s.name + "'")));
    if (total > device_bytes)
        fail(KB_ERR_OUT_OF_MEMORY, "the scratch buffers of '" + p.source_name + "' at case '" + c.name +
                                       "' bring the memory needed to " + in_words(total) + ", more than the " +
                                       in_words(device_bytes) + " of " + device_name +
                                       "; expected scratch buffers that fit beside the task's");
}

uint64_t host_memory_bytes() {
    long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

}  // namespace kb
