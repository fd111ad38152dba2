// One CUDA device as kbench uses it: its primary context, one stream, its
// limits, guarded buffers, and kbench's own device kernels (fill, poison,
// checksum, guard check, compare, clock probe).
//
// A Device is used by one thread at a time. After a sticky CUDA error
// (illegal address, trap, ...) it is `lost`: every later call throws
// KB_ERR_CONTEXT_LOST, because the driver fails everything in that process
// from then on (docs/isolation.md); only a new process recovers.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>

#include "device/cuda_driver.h"
#include "task/dtype.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

struct DeviceProps {
    int ordinal = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int64_t l2_bytes = 0;
    int64_t total_memory_bytes = 0;
    int max_threads_per_block = 0;
    int max_block_dim[3] = {0, 0, 0};
    int max_grid_dim[3] = {0, 0, 0};
    int max_shared_per_block = 0;        // without opt-in (48 KiB)
    int max_shared_per_block_optin = 0;  // with cuFuncSetAttribute opt-in
    int clock_rate_khz = 0;              // the driver's "typical" SM clock
    int memory_clock_khz = 0;
    int memory_bus_bits = 0;
    int driver_version = 0;
    std::string pci_bus_id;  // "0000:1b:00.0": PCI domain, bus and device, in hex

    std::string arch() const;  // "sm_90"
    // Theoretical DRAM bandwidth from the memory clock and bus width (DDR: x2).
    double peak_dram_gbps() const;
    Json to_json() const;
};

// Device memory with guard zones on both sides: [guard][data][guard].
// Guards hold kGuardByte; a kernel writing a little past its buffer changes
// them, and kbench reports an out-of-bounds write instead of a mystery.
class DeviceBuffer {
public:
    static constexpr size_t kGuardBytes = 64 * 1024;

    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer();

    CUdeviceptr data() const { return base_ ? base_ + kGuardBytes : 0; }
    size_t bytes() const { return bytes_; }          // as asked for
    size_t padded_bytes() const { return padded_; }  // rounded up to 256
    CUdeviceptr base() const { return base_; }
    size_t total_bytes() const { return padded_ + 2 * kGuardBytes; }
    explicit operator bool() const { return base_ != 0; }

private:
    friend class Device;
    CUdeviceptr base_ = 0;
    size_t bytes_ = 0;
    size_t padded_ = 0;
};

struct CompareStats {
    uint64_t mismatches = 0;
    uint64_t unwritten = 0;
    double max_abs_err = 0.0;
    double max_rel_err = 0.0;
    double max_violation = 0.0;
    uint64_t worst_index = 0;
    uint64_t worst_bits = 0;     // the candidate's element at worst_index, raw
    uint64_t expected_bits = 0;  // the reference's element there, raw
};

struct GuardReport {
    uint64_t bad_bytes = 0;
    int64_t first_bad_offset = 0;  // relative to the data start; negative = before it
    bool intact() const { return bad_bytes == 0; }
};

// Host memory page-locked for the device's copies (cuMemHostRegister) while
// this lives. Reference outputs are uploaded for every comparison; from
// page-locked memory the copy runs at the bus's speed, from pageable memory
// at a fraction of it. Empty when registering failed: copies still work.
class HostPin {
public:
    HostPin() = default;
    ~HostPin();
    HostPin(HostPin&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
    HostPin& operator=(HostPin&& o) noexcept;
    HostPin(const HostPin&) = delete;
    HostPin& operator=(const HostPin&) = delete;
    explicit operator bool() const { return ptr_ != nullptr; }

private:
    friend class Device;
    void* ptr_ = nullptr;
};

// What kbench checks after a candidate's run, read back in one copy: the
// checksums of some ranges and the guard zones of some buffers.
struct PostRunChecks {
    std::vector<uint64_t> checksums;  // in the order the ranges were given
    std::vector<GuardReport> guards;  // in the order the buffers were given
};

class Device {
public:
    // Retains the primary context of `ordinal` (shared with the CUDA runtime
    // and frameworks in the same process) and creates a stream.
    // Throws KB_ERR_NO_DEVICE when there is no such device.
    explicit Device(int ordinal);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceProps& props() const { return props_; }
    const CudaDriver& driver() const { return *drv_; }
    CUstream stream() const { return stream_; }
    void make_current() const;

    // --- memory -----------------------------------------------------------
    // A buffer of `bytes` (at least 1) with guard zones already written.
    DeviceBuffer alloc(size_t bytes);
    void upload(CUdeviceptr dst, const void* src, size_t bytes);
    void download(void* dst, CUdeviceptr src, size_t bytes);
    // Device to device, enqueued on stream() (no synchronisation).
    void copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
    void fill_bytes(CUdeviceptr dst, size_t bytes, uint8_t value);
    // Page-locks [p, p + bytes) until the HostPin goes; see HostPin.
    HostPin pin(void* p, size_t bytes);

    // --- kbench's own kernels (all enqueue on stream(); results synchronise)
    void fill_random(CUdeviceptr dst, uint64_t count, DType dtype, const InitSpec& init, uint64_t seed,
                     uint32_t arg_index);
    // The dtype's poison pattern (compare_math.h) over `count` elements.
    void poison(CUdeviceptr dst, uint64_t count, DType dtype);
    uint64_t checksum(CUdeviceptr src, size_t bytes);
    // Rewrites both guard zones of a buffer; check_guards reads them back.
    void arm_guards(const DeviceBuffer& b);
    GuardReport check_guards(const DeviceBuffer& b);
    // checksum() of every range and check_guards() of every buffer, with one
    // synchronisation instead of one per range and two per buffer.
    struct Range {
        CUdeviceptr ptr;
        size_t bytes;
    };
    PostRunChecks post_run_checks(const std::vector<Range>& checksummed, const std::vector<const DeviceBuffer*>& guarded);
    // post_run_checks' work and copies of `downloads`, enqueued on stream()
    // behind what is already there (a candidate's run) and read back into
    // page-locked host memory, so that the run, its checks and its small
    // outputs cost one synchronisation: with four workers sharing the GPU,
    // each synchronisation costs 0.2-0.3 ms (`kbench_batch_bench`).
    // Does not throw for a failing driver call: returns the first one's
    // result (a sticky one marks the device lost), because the run before
    // may have crashed and the caller classifies that. The results are valid
    // after the stream's next successful synchronisation, and until the next
    // readback or post_run_checks.
    struct Readback {
        size_t checksums = 0;
        std::vector<int64_t> zone_offsets;  // two per guarded buffer
        size_t results_at = 0;              // offset of the check results in the host area
        struct Copy {
            size_t at;  // offset in the host area
            size_t bytes;
        };
        std::vector<Copy> downloads;
    };
    CUresult enqueue_readback(const std::vector<Range>& checksummed, const std::vector<const DeviceBuffer*>& guarded,
                              const std::vector<Range>& downloads, Readback* out);
    PostRunChecks checks_of(const Readback& rb) const;
    // Download `i` of `rb`, `rb.downloads[i].bytes` long.
    const uint8_t* downloaded(const Readback& rb, size_t i) const;
    // Up to 64 bytes of `src` copied behind what stream() holds into
    // page-locked memory (a contained trap's flag after a run,
    // compiler/trap_containment.h): like enqueue_readback, it returns the
    // driver's result instead of throwing, and word_readback() is valid
    // after the next successful synchronisation.
    CUresult enqueue_word_readback(CUdeviceptr src, size_t bytes);
    const uint8_t* word_readback() const { return words_; }
    CompareStats compare(CUdeviceptr cand, CUdeviceptr ref, uint64_t count, DType dtype, const Tolerance& tol);
    // The SM clock in MHz, measured in-kernel over `span_us` microseconds.
    double measure_sm_clock_mhz(double span_us = 50.0);
    // Evicts L2 by writing a buffer twice its size (docs/measurement.md), on stream().
    void enqueue_l2_flush();

    // Waits for stream(); a sticky error marks the device lost. Returns the
    // raw result so callers can classify a candidate's failure.
    CUresult sync_raw();
    // sync_raw, giving up after `limit_s` seconds (0: no limit): then the
    // stream's work is still running, the device is marked lost (only the
    // process's end stops a kernel that never finishes) and the result is
    // CUDA_ERROR_LAUNCH_TIMEOUT. Polls instead of blocking in the driver.
    CUresult sync_within(double limit_s);
    // sync_raw, throwing kb::Error for any failure (for kbench's own work).
    void sync(const char* what);

    // --- health -------------------------------------------------------------
    bool lost() const { return lost_; }
    const std::string& lost_reason() const { return lost_reason_; }
    void mark_lost(CUresult r, const std::string& during);
    void throw_if_lost() const;
    // cuda_check that also marks the device lost on a sticky error.
    void check(CUresult r, const char* what);

    // Free and total device memory in bytes.
    void memory_info(size_t* free_bytes, size_t* total_bytes);

    // --- the caller's memory and streams (kb_launch) ------------------------
    // Throws kb::Error(KB_ERR_INVALID_ARGUMENT) naming `what` unless
    // [ptr, ptr + bytes) is device memory of this device, inside one
    // allocation: a host pointer, another GPU's memory or a size that runs
    // past the allocation would otherwise be written by a kernel.
    void check_caller_memory(CUdeviceptr ptr, size_t bytes, const std::string& what) const;
    // stream() waits for the work enqueued on `other` so far (a stream of
    // another context is KB_ERR_INVALID_ARGUMENT)...
    void wait_for(CUstream other);
    // ...and `other` waits for the work enqueued on stream() so far: work
    // kbench enqueues between the two runs as if it were enqueued on `other`.
    void make_wait(CUstream other);

private:
    // One of kbench's kernels over `count` elements on stream(): the raw
    // result (enqueue_readback must not throw), or checked, naming `what`.
    CUresult enqueue_builtin(CUfunction f, uint64_t count, void** params);
    void launch_builtin(CUfunction f, uint64_t count, void** params, const char* what);
    unsigned builtin_grid(uint64_t count) const;

    const CudaDriver* drv_ = nullptr;
    CUdevice dev_ = 0;
    CUcontext ctx_ = nullptr;
    CUstream stream_ = nullptr;
    CUevent join_ = nullptr;  // wait_for / make_wait, created on first use
    CUmodule builtins_ = nullptr;
    DeviceProps props_;
    struct Fns {
        CUfunction fill_random, fill_u64, checksum, guard_check, compare, compare_find, compare_worst, clock_probe;
    } fn_{};
    CUdeviceptr scratch_ = 0;  // small result area for the builtin kernels
    CUdeviceptr checks_ = 0;   // post_run_checks' results, grown on demand
    size_t checks_bytes_ = 0;
    uint8_t* host_ = nullptr;  // page-locked: readbacks and the checks' initial values, grown on demand
    size_t host_bytes_ = 0;
    uint8_t* words_ = nullptr;  // page-locked: enqueue_word_readback's 64 bytes
    CUdeviceptr flush_ = 0;    // L2 flush buffer
    size_t flush_bytes_ = 0;
    bool lost_ = false;
    std::string lost_reason_;
};

}  // namespace kb
