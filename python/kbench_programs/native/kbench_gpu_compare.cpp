// libkbench_gpu_compare (kbench_gpu_compare.h): Device::compare over another
// process's output, opened from its CUDA IPC handle.
#include "kbench_gpu_compare.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "device/device.h"
#include "task/dtype.h"
#include "util/error.h"

namespace {

std::string g_error;

// One Device per ordinal for the process's life: it retains the primary
// context, the one torch uses in the same process, and holds the compare
// kernels' module and scratch.
kb::Device& device_for(int ordinal) {
    static std::map<int, std::unique_ptr<kb::Device>> devices;
    auto& d = devices[ordinal];
    if (!d) d = std::make_unique<kb::Device>(ordinal);
    d->make_current();
    return *d;
}

// An IPC mapping of another process's allocation, closed on every way out.
class IpcMapping {
public:
    IpcMapping(kb::Device& dev, const unsigned char* handle) : dev_(dev) {
        CUipcMemHandle h;
        std::memcpy(h.reserved, handle, sizeof h.reserved);
        dev_.check(dev_.driver().cuIpcOpenMemHandle(&ptr_, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                   "opening the candidate's output (cuIpcOpenMemHandle)");
    }
    ~IpcMapping() {
        if (ptr_) dev_.driver().cuIpcCloseMemHandle(ptr_);
    }
    IpcMapping(const IpcMapping&) = delete;
    IpcMapping& operator=(const IpcMapping&) = delete;
    CUdeviceptr ptr() const { return ptr_; }

private:
    kb::Device& dev_;
    CUdeviceptr ptr_ = 0;
};

// The exception firewall of every entry point: 0, or -1 with kbg_error() set.
template <class Body>
int firewall(Body body) {
    g_error.clear();
    try {
        body();
        return 0;
    } catch (const std::exception& e) {
        g_error = e.what();
    } catch (...) {
        g_error = "unknown failure";
    }
    return -1;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const char* kbg_error(void) { return g_error.c_str(); }

extern "C" __attribute__((visibility("default"))) int kbg_compare_ipc(int device, const unsigned char* handle,
                                                                     uint64_t offset, uint64_t expected,
                                                                     uint64_t count, int dtype, double atol,
                                                                     double rtol, int equal_nan, kbg_stats* out) {
    return firewall([&] {
        if (!handle || !out) kb::fail(KB_ERR_INVALID_ARGUMENT, "kbg_compare_ipc: a null handle or result");
        if (dtype < int(kb::DType::f16) || dtype > int(kb::DType::boolean))
            kb::fail(KB_ERR_INVALID_ARGUMENT, "kbg_compare_ipc: unknown dtype " + std::to_string(dtype));
        const kb::DType dt = kb::DType(dtype);
        const uint64_t esize = kb::dtype_size(dt);
        kb::Device& dev = device_for(device);
        IpcMapping m(dev, handle);
        // The handle came from the candidate's process: its allocation must
        // hold what it claims, or the comparison would read past it.
        CUdeviceptr base = 0;
        size_t size = 0;
        dev.check(dev.driver().cuMemGetAddressRange(&base, &size, m.ptr()), "sizing the candidate's output");
        if (count > (UINT64_MAX - offset) / esize || offset + count * esize > size)
            kb::fail(KB_ERR_INVALID_ARGUMENT, "the candidate worker described an output of " + std::to_string(count) +
                                                  " elements at offset " + std::to_string(offset) +
                                                  " in an allocation of " + std::to_string(size) + " bytes");
        kb::Tolerance tol;
        tol.atol = atol;
        tol.rtol = rtol;
        tol.equal_nan = equal_nan != 0;
        kb::CompareStats s = count ? dev.compare(m.ptr() + offset, expected, count, dt, tol) : kb::CompareStats{};
        std::memset(out, 0, sizeof *out);
        out->mismatches = s.mismatches;
        out->unwritten = s.unwritten;
        out->max_abs_err = s.max_abs_err;
        out->max_rel_err = s.max_rel_err;
        out->max_violation = s.max_violation;
        out->worst_index = s.worst_index;
        out->worst_bits = s.worst_bits;
        if (count) dev.download(&out->expected_bits, expected + s.worst_index * esize, esize);
    });
}

extern "C" __attribute__((visibility("default"))) int kbg_checksum(int device, uint64_t ptr, uint64_t bytes,
                                                                  uint64_t* out) {
    return firewall([&] {
        if (!out) kb::fail(KB_ERR_INVALID_ARGUMENT, "kbg_checksum: a null result");
        if (ptr % 8) kb::fail(KB_ERR_INVALID_ARGUMENT, "kbg_checksum: the pointer is not 8-byte aligned");
        kb::Device& dev = device_for(device);
        // torch wrote the tensor on its own stream: everything the device
        // has queued ends before the checksum reads it.
        dev.check(dev.driver().cuCtxSynchronize(), "waiting for the tensor's writers (cuCtxSynchronize)");
        *out = bytes ? dev.checksum(CUdeviceptr(ptr), bytes) : 0;
    });
}
