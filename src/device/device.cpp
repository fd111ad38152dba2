#include "device/device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "hostdev/compare_math.h"
#include "device/builtin_image.h"
#include "util/error.h"
#include "util/profile.h"

namespace kb {

// ---------------------------------------------------------------------------
// DeviceProps

std::string DeviceProps::arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

double DeviceProps::peak_dram_gbps() const {
    return 2.0 * double(memory_clock_khz) * 1e3 * double(memory_bus_bits) / 8.0 / 1e9;
}

Json DeviceProps::to_json() const {
    Json j;
    j["ordinal"] = ordinal;
    j["name"] = name;
    j["arch"] = arch();
    j["compute_capability"] = std::to_string(cc_major) + "." + std::to_string(cc_minor);
    j["sm_count"] = sm_count;
    j["l2_bytes"] = l2_bytes;
    j["total_memory_bytes"] = total_memory_bytes;
    j["max_threads_per_block"] = max_threads_per_block;
    j["max_block_dim"] = {max_block_dim[0], max_block_dim[1], max_block_dim[2]};
    j["max_grid_dim"] = {max_grid_dim[0], max_grid_dim[1], max_grid_dim[2]};
    j["max_shared_per_block_bytes"] = max_shared_per_block;
    j["max_shared_per_block_optin_bytes"] = max_shared_per_block_optin;
    j["sm_clock_rated_mhz"] = clock_rate_khz / 1000.0;
    j["memory_clock_mhz"] = memory_clock_khz / 1000.0;
    j["memory_bus_bits"] = memory_bus_bits;
    j["peak_dram_gbps"] = peak_dram_gbps();
    j["driver_version"] = driver_version;
    j["pci_bus_id"] = pci_bus_id;
    return j;
}

// ---------------------------------------------------------------------------
// DeviceBuffer

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        this->~DeviceBuffer();
        base_ = o.base_;
        bytes_ = o.bytes_;
        padded_ = o.padded_;
        o.base_ = 0;
        o.bytes_ = o.padded_ = 0;
    }
    return *this;
}

DeviceBuffer::~DeviceBuffer() {
    if (base_) {
        KB_PROFILE_SPAN("device.free");
        // A lost context fails the free; the memory goes with the process.
        if (const CudaDriver* d = CudaDriver::try_get(nullptr)) d->cuMemFree(base_);
        base_ = 0;
    }
}

// ---------------------------------------------------------------------------
// Device

Device::Device(int ordinal) : drv_(&CudaDriver::get()) {
    int count = 0;
    cuda_check(drv_->cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (ordinal < 0 || ordinal >= count)
        fail(KB_ERR_NO_DEVICE, "CUDA device " + std::to_string(ordinal) + " does not exist: " + std::to_string(count) +
                                   " device(s) visible (ordinals 0.." + std::to_string(count - 1) + ")");
    cuda_check(drv_->cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
    cuda_check(drv_->cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    make_current();
    cuda_check(drv_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    DeviceProps& p = props_;
    p.ordinal = ordinal;
    char name[256] = {0};
    drv_->cuDeviceGetName(name, sizeof name - 1, dev_);
    p.name = name;
    auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        cuda_check(drv_->cuDeviceGetAttribute(&v, a, dev_), "cuDeviceGetAttribute");
        return v;
    };
    p.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    p.max_block_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    p.max_block_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    p.max_block_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    p.max_grid_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    p.max_grid_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    p.max_grid_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    p.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    p.max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p.clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    p.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p.memory_bus_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    p.driver_version = drv_->driver_version;
    // Where the GPU sits: the same card whatever a process's
    // CUDA_VISIBLE_DEVICES numbers it (a device worker sees its own alone).
    char pci[32];
    std::snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", unsigned(attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)),
                  unsigned(attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)), unsigned(attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)));
    p.pci_bus_id = pci;
    size_t total = 0;
    cuda_check(drv_->cuDeviceTotalMem(&total, dev_), "cuDeviceTotalMem");
    p.total_memory_bytes = int64_t(total);

    CUresult r = drv_->cuModuleLoadDataEx(&builtins_, builtin_fatbin(), 0, nullptr, nullptr);
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        fail(KB_ERR_CUDA, "kbench's own kernels have no code for " + p.arch() +
                              ": rebuild kbench with KBENCH_BUILTIN_ARCHS including " + p.arch().substr(3) + " (" +
                              cuda_error_text(r) + ")");
    cuda_check(r, "loading kbench's own kernels");
    auto fn = [&](const char* n) {
        CUfunction f = nullptr;
        cuda_check(drv_->cuModuleGetFunction(&f, builtins_, n), n);
        return f;
    };
    fn_.fill_random = fn("kb_fill_random");
    fn_.fill_u64 = fn("kb_fill_u64");
    fn_.checksum = fn("kb_checksum");
    fn_.guard_check = fn("kb_guard_check");
    fn_.compare = fn("kb_compare");
    fn_.compare_find = fn("kb_compare_find");
    fn_.compare_worst = fn("kb_compare_worst");
    fn_.clock_probe = fn("kb_clock_probe");
    cuda_check(drv_->cuMemAlloc(&scratch_, 256), "allocating kbench's result area");
    // At least twice the L2, so nothing a kernel touched before a sample survives it.
    flush_bytes_ = size_t(std::max<int64_t>(2 * p.l2_bytes, 8 << 20));
    cuda_check(drv_->cuMemAlloc(&flush_, flush_bytes_), "allocating the L2 flush buffer");
}

Device::~Device() {
    if (!drv_) return;
    drv_->cuCtxSetCurrent(ctx_);
    if (!lost_) drv_->cuStreamSynchronize(stream_);
    if (flush_) drv_->cuMemFree(flush_);
    if (scratch_) drv_->cuMemFree(scratch_);
    if (checks_) drv_->cuMemFree(checks_);
    if (host_) drv_->cuMemFreeHost(host_);
    if (words_) drv_->cuMemFreeHost(words_);
    if (builtins_) drv_->cuModuleUnload(builtins_);
    if (join_) drv_->cuEventDestroy(join_);
    if (stream_) drv_->cuStreamDestroy(stream_);
    if (ctx_) drv_->cuDevicePrimaryCtxRelease(dev_);
}

void Device::make_current() const { cuda_check(drv_->cuCtxSetCurrent(ctx_), "cuCtxSetCurrent"); }

void Device::mark_lost(CUresult r, const std::string& during) {
    if (lost_) return;
    lost_ = true;
    lost_reason_ = cuda_error_text(r) + " during " + during;
}

void Device::throw_if_lost() const {
    if (lost_)
        fail(KB_ERR_CONTEXT_LOST, "the CUDA context is unusable after " + lost_reason_ +
                                      "; create a new context in a new process, or use worker isolation "
                                      "(KB_ISOLATION_WORKER) so a crashing kernel costs only a worker");
}

void Device::check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    if (cuda_error_is_sticky(r)) {
        mark_lost(r, what);
        throw_if_lost();
    }
    cuda_check(r, what);
}

CUresult Device::sync_raw() {
    KB_PROFILE_SPAN("device.sync_raw");
    CUresult r = drv_->cuStreamSynchronize(stream_);
    if (r != CUDA_SUCCESS && cuda_error_is_sticky(r)) mark_lost(r, "a kernel run");
    return r;
}

CUresult Device::sync_within(double limit_s) {
    if (limit_s <= 0) return sync_raw();
    KB_PROFILE_SPAN("device.sync_within");
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto until = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    // Yield for the first two milliseconds, so a short kernel's end is seen
    // as soon as cuStreamSynchronize would see it; then sleep between polls
    // (at most a millisecond), so a kernel that never ends costs no CPU core.
    constexpr auto kYieldFor = std::chrono::milliseconds(2);
    auto nap = std::chrono::microseconds(50);
    for (;;) {
        CUresult r = drv_->cuStreamQuery(stream_);
        if (r != CUDA_ERROR_NOT_READY) {
            if (r != CUDA_SUCCESS && cuda_error_is_sticky(r)) mark_lost(r, "a kernel run");
            return r;
        }
        const auto now = Clock::now();
        if (now >= until) {
            char what[160];
            std::snprintf(what, sizeof what, "a kernel run still going after %.3g s (kbench stopped waiting for it)",
                          limit_s);
            mark_lost(CUDA_ERROR_LAUNCH_TIMEOUT, what);
            return CUDA_ERROR_LAUNCH_TIMEOUT;
        }
        if (now - t0 < kYieldFor) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(nap);
            nap = std::min<std::chrono::microseconds>(nap * 2, std::chrono::milliseconds(1));
        }
    }
}

void Device::sync(const char* what) {
    KB_PROFILE_SPAN("device.sync");
    throw_if_lost();
    check(drv_->cuStreamSynchronize(stream_), what);
}

void Device::memory_info(size_t* free_bytes, size_t* total_bytes) {
    throw_if_lost();
    check(drv_->cuMemGetInfo(free_bytes, total_bytes), "cuMemGetInfo");
}

DeviceBuffer Device::alloc(size_t bytes) {
    KB_PROFILE_SPAN("device.alloc");
    throw_if_lost();
    DeviceBuffer b;
    b.bytes_ = bytes;
    b.padded_ = std::max<size_t>(256, (bytes + 255) / 256 * 256);
    CUresult r = drv_->cuMemAlloc(&b.base_, b.total_bytes());
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        fail(KB_ERR_OUT_OF_MEMORY, "out of device memory allocating " + std::to_string(bytes) + " bytes");
    check(r, "cuMemAlloc");
    arm_guards(b);
    return b;
}

void Device::upload(CUdeviceptr dst, const void* src, size_t bytes) {
    KB_PROFILE_SPAN("device.upload");
    throw_if_lost();
    check(drv_->cuMemcpyHtoDAsync(dst, src, bytes, stream_), "copying to the device");
    check(drv_->cuStreamSynchronize(stream_), "copying to the device");
}

void Device::copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    throw_if_lost();
    if (bytes) check(drv_->cuMemcpyDtoDAsync(dst, src, bytes, stream_), "copying on the device");
}

void Device::download(void* dst, CUdeviceptr src, size_t bytes) {
    KB_PROFILE_SPAN("device.download");
    throw_if_lost();
    check(drv_->cuMemcpyDtoHAsync(dst, src, bytes, stream_), "copying from the device");
    check(drv_->cuStreamSynchronize(stream_), "copying from the device");
}

void Device::fill_bytes(CUdeviceptr dst, size_t bytes, uint8_t value) {
    throw_if_lost();
    if (bytes) check(drv_->cuMemsetD8Async(dst, value, bytes, stream_), "cuMemsetD8Async");
}

unsigned Device::builtin_grid(uint64_t count) const {
    uint64_t blocks = (count + 255) / 256;
    uint64_t cap = uint64_t(props_.sm_count) * 8;  // enough to fill the device; loops stride the rest
    return unsigned(std::max<uint64_t>(1, std::min(blocks, cap)));
}

CUresult Device::enqueue_builtin(CUfunction f, uint64_t count, void** params) {
    return drv_->cuLaunchKernel(f, builtin_grid(count), 1, 1, 256, 1, 1, 0, stream_, params, nullptr);
}

void Device::launch_builtin(CUfunction f, uint64_t count, void** params, const char* what) {
    check(enqueue_builtin(f, count, params), what);
}

void Device::fill_random(CUdeviceptr dst, uint64_t count, DType dtype, const InitSpec& init, uint64_t seed,
                         uint32_t arg_index) {
    throw_if_lost();
    if (!count) return;
    int dt = int(dtype), dist = int(init.dist);
    double a = init.a, b = init.b;
    void* params[] = {&dst, &count, &dt, &dist, &a, &b, &seed, &arg_index};
    launch_builtin(fn_.fill_random, count, params, "generating inputs");
}

void Device::poison(CUdeviceptr dst, uint64_t count, DType dtype) {
    throw_if_lost();
    if (!count) return;
    switch (dtype) {
        case DType::f16: check(drv_->cuMemsetD16Async(dst, kPoisonF16, count, stream_), "poisoning"); break;
        case DType::bf16: check(drv_->cuMemsetD16Async(dst, kPoisonBF16, count, stream_), "poisoning"); break;
        case DType::f32: check(drv_->cuMemsetD32Async(dst, kPoisonF32, count, stream_), "poisoning"); break;
        case DType::f64: {
            uint64_t pattern = kPoisonF64;
            void* params[] = {&dst, &count, &pattern};
            launch_builtin(fn_.fill_u64, count, params, "poisoning");
            break;
        }
        default: check(drv_->cuMemsetD8Async(dst, kPoisonByte, count * dtype_size(dtype), stream_), "poisoning");
    }
}

uint64_t Device::checksum(CUdeviceptr src, size_t bytes) {
    KB_PROFILE_SPAN("device.checksum");
    return post_run_checks({{src, bytes}}, {}).checksums.at(0);
}

PostRunChecks Device::post_run_checks(const std::vector<Range>& checksummed,
                                     const std::vector<const DeviceBuffer*>& guarded) {
    KB_PROFILE_SPAN("device.post_run_checks");
    Readback rb;
    check(enqueue_readback(checksummed, guarded, {}, &rb), "post-run checks");
    sync("post-run checks");
    return checks_of(rb);
}

CUresult Device::enqueue_readback(const std::vector<Range>& checksummed,
                                  const std::vector<const DeviceBuffer*>& guarded, const std::vector<Range>& downloads,
                                  Readback* out) {
    KB_PROFILE_SPAN("device.enqueue_readback");
    throw_if_lost();
    *out = Readback{};
    out->checksums = checksummed.size();
    // Device layout: one u64 per checksum, then (bad count, first bad offset)
    // per guard zone, two zones per buffer. Host layout: their initial values,
    // the results read back, then each download, 256-byte aligned.
    const size_t words = checksummed.size() + guarded.size() * 4;
    const size_t check_bytes = words * sizeof(uint64_t);
    auto aligned = [](size_t n) { return (n + 255) / 256 * 256; };
    size_t host_need = 2 * aligned(check_bytes);
    for (const Range& d : downloads) {
        out->downloads.push_back({host_need, d.bytes});
        host_need += aligned(d.bytes);
    }
    if (host_need > host_bytes_) {
        // Freeing page-locked memory waits for the device: only when growing.
        if (host_) drv_->cuMemFreeHost(host_);
        host_ = nullptr;
        host_bytes_ = 0;
        size_t want = std::max<size_t>(size_t(64) << 10, host_need);
        void* p = nullptr;
        if (CUresult r = drv_->cuMemAllocHost(&p, want); r != CUDA_SUCCESS) return r;
        host_ = static_cast<uint8_t*>(p);
        host_bytes_ = want;
    }
    if (check_bytes > checks_bytes_) {
        if (checks_) drv_->cuMemFree(checks_);
        checks_ = 0;
        checks_bytes_ = 0;
        size_t want = std::max<size_t>(4096, check_bytes);
        if (CUresult r = drv_->cuMemAlloc(&checks_, want); r != CUDA_SUCCESS) return r;
        checks_bytes_ = want;
    }
    auto failed = [this](CUresult r) {
        if (r != CUDA_SUCCESS && cuda_error_is_sticky(r)) mark_lost(r, "a kernel run");
        return r;
    };
    out->results_at = aligned(check_bytes);
    if (words) {
        auto* init = reinterpret_cast<uint64_t*>(host_);
        for (size_t k = 0; k < checksummed.size(); ++k) init[k] = 0;
        for (size_t k = checksummed.size(); k < words; k += 2) {
            init[k] = 0;
            init[k + 1] = ~0ull;
        }
        if (CUresult r = drv_->cuMemcpyHtoDAsync(checks_, init, check_bytes, stream_)) return failed(r);
    }
    CUdeviceptr slot = checks_;
    for (const Range& rg : checksummed) {
        CUdeviceptr src = rg.ptr;
        uint64_t n = rg.bytes;
        void* params[] = {&src, &n, &slot};
        if (CUresult r = enqueue_builtin(fn_.checksum, std::max<uint64_t>(1, n / 8), params)) return failed(r);
        slot += 8;
    }
    for (const DeviceBuffer* b : guarded) {
        struct Zone {
            CUdeviceptr start;
            uint64_t bytes;
            int64_t offset;
        } zones[2] = {{b->base(), DeviceBuffer::kGuardBytes, -int64_t(DeviceBuffer::kGuardBytes)},
                      {b->data() + b->bytes(), b->padded_bytes() - b->bytes() + DeviceBuffer::kGuardBytes,
                       int64_t(b->bytes())}};
        for (const Zone& z : zones) {
            CUdeviceptr start = z.start, count_ptr = slot, first_ptr = slot + 8;
            uint64_t n = z.bytes;
            uint8_t pattern = kGuardByte;
            void* params[] = {&start, &n, &pattern, &count_ptr, &first_ptr};
            if (CUresult r = enqueue_builtin(fn_.guard_check, n, params)) return failed(r);
            out->zone_offsets.push_back(z.offset);
            slot += 16;
        }
    }
    if (words)
        if (CUresult r = drv_->cuMemcpyDtoHAsync(host_ + out->results_at, checks_, check_bytes, stream_))
            return failed(r);
    for (size_t k = 0; k < downloads.size(); ++k)
        if (downloads[k].bytes)
            if (CUresult r = drv_->cuMemcpyDtoHAsync(host_ + out->downloads[k].at, downloads[k].ptr,
                                                     downloads[k].bytes, stream_))
                return failed(r);
    return CUDA_SUCCESS;
}

PostRunChecks Device::checks_of(const Readback& rb) const {
    PostRunChecks out;
    if (!rb.checksums && rb.zone_offsets.empty()) return out;
    const auto* result = reinterpret_cast<const uint64_t*>(host_ + rb.results_at);
    out.checksums.assign(result, result + rb.checksums);
    for (size_t b = 0; b < rb.zone_offsets.size() / 2; ++b) {
        GuardReport rep;
        for (size_t z = 0; z < 2; ++z) {
            size_t k = rb.checksums + (b * 2 + z) * 2;
            uint64_t bad = result[k], first = result[k + 1];
            if (bad && !rep.bad_bytes) rep.first_bad_offset = rb.zone_offsets[b * 2 + z] + int64_t(first);
            rep.bad_bytes += bad;
        }
        out.guards.push_back(rep);
    }
    return out;
}

const uint8_t* Device::downloaded(const Readback& rb, size_t i) const { return host_ + rb.downloads.at(i).at; }

HostPin::~HostPin() {
    // A lost context fails the unregistration; the pages go with the process.
    if (ptr_)
        if (const CudaDriver* d = CudaDriver::try_get(nullptr)) d->cuMemHostUnregister(ptr_);
}

HostPin& HostPin::operator=(HostPin&& o) noexcept {
    if (this != &o) {
        HostPin gone(std::move(*this));
        ptr_ = o.ptr_;
        o.ptr_ = nullptr;
    }
    return *this;
}

CUresult Device::enqueue_word_readback(CUdeviceptr src, size_t bytes) {
    if (bytes > 64) fail(KB_ERR_INTERNAL, "enqueue_word_readback: at most 64 bytes");
    if (!words_) {
        void* p = nullptr;
        if (CUresult r = drv_->cuMemAllocHost(&p, 64); r != CUDA_SUCCESS) return r;
        words_ = static_cast<uint8_t*>(p);
    }
    std::memset(words_, 0, 64);
    return drv_->cuMemcpyDtoHAsync(words_, src, bytes, stream_);
}

HostPin Device::pin(void* p, size_t bytes) {
    KB_PROFILE_SPAN("device.pin");
    HostPin h;
    if (!p || !bytes || lost_) return h;
    if (drv_->cuMemHostRegister(p, bytes, 0) == CUDA_SUCCESS) h.ptr_ = p;
    return h;
}

void Device::arm_guards(const DeviceBuffer& b) {
    fill_bytes(b.base(), DeviceBuffer::kGuardBytes, kGuardByte);
    // The back guard starts right after the requested bytes: padding counts.
    fill_bytes(b.data() + b.bytes(), b.padded_bytes() - b.bytes() + DeviceBuffer::kGuardBytes, kGuardByte);
}

GuardReport Device::check_guards(const DeviceBuffer& b) {
    KB_PROFILE_SPAN("device.check_guards");
    return post_run_checks({}, {&b}).guards.at(0);
}

CompareStats Device::compare(CUdeviceptr cand, CUdeviceptr ref, uint64_t count, DType dtype, const Tolerance& tol) {
    KB_PROFILE_SPAN("device.compare");
    throw_if_lost();
    struct Raw {  // KbCompareStats in builtin_kernels.cu
        uint64_t mismatches, unwritten, max_abs, max_rel, max_violation, worst, worst_bits, expected_bits;
    } raw = {0, 0, 0, 0, 0, ~0ull, 0, 0};
    static_assert(sizeof(Raw) <= 256, "the compare statistics must fit kbench's result area");
    check(drv_->cuMemcpyHtoDAsync(scratch_, &raw, sizeof raw, stream_), "compare");
    int dt = int(dtype);
    double atol = tol.atol, rtol = tol.rtol;
    int equal_nan = tol.equal_nan ? 1 : 0;
    uint64_t poison = poison_bits(dtype);
    void* params[] = {&cand, &ref, &count, &dt, &atol, &rtol, &equal_nan, &poison, &scratch_};
    launch_builtin(fn_.compare, count, params, "compare");
    void* params_find[] = {&cand, &ref, &count, &dt, &atol, &rtol, &equal_nan, &scratch_};
    launch_builtin(fn_.compare_find, count, params_find, "compare");
    void* params_worst[] = {&cand, &ref, &dt, &scratch_};
    check(drv_->cuLaunchKernel(fn_.compare_worst, 1, 1, 1, 1, 1, 1, 0, stream_, params_worst, nullptr), "compare");
    download(&raw, scratch_, sizeof raw);
    CompareStats s;
    s.mismatches = raw.mismatches;
    s.unwritten = raw.unwritten;
    std::memcpy(&s.max_abs_err, &raw.max_abs, 8);
    std::memcpy(&s.max_rel_err, &raw.max_rel, 8);
    std::memcpy(&s.max_violation, &raw.max_violation, 8);
    s.worst_index = raw.worst == ~0ull ? 0 : raw.worst;
    s.worst_bits = raw.worst_bits;
    s.expected_bits = raw.expected_bits;
    return s;
}

double Device::measure_sm_clock_mhz(double span_us) {
    throw_if_lost();
    unsigned long long span_ns = (unsigned long long)(span_us * 1000.0);
    void* params[] = {&scratch_, &span_ns};
    check(drv_->cuLaunchKernel(fn_.clock_probe, 1, 1, 1, 32, 1, 1, 0, stream_, params, nullptr), "clock probe");
    uint64_t out[2] = {0, 0};
    download(out, scratch_, sizeof out);
    return out[1] ? double(out[0]) / double(out[1]) * 1000.0 : 0.0;
}

void Device::enqueue_l2_flush() {
    check(drv_->cuMemsetD32Async(flush_, 0, flush_bytes_ / 4, stream_), "L2 flush");
}

// ---------------------------------------------------------------------------
// The caller's memory and streams

namespace {
std::string hex_text(CUdeviceptr p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(p));
    return buf;
}
}  // namespace

void Device::check_caller_memory(CUdeviceptr ptr, size_t bytes, const std::string& what) const {
    make_current();
    if (ptr == 0) fail(KB_ERR_INVALID_ARGUMENT, what + ": the device pointer is null");
    unsigned memory_type = 0;
    CUresult r = drv_->cuPointerGetAttribute(&memory_type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
    if (r != CUDA_SUCCESS || memory_type != CU_MEMORYTYPE_DEVICE)
        fail(KB_ERR_INVALID_ARGUMENT,
             what + ": 0x" + hex_text(ptr) + " is not CUDA device memory (" +
                 (r != CUDA_SUCCESS ? cuda_error_text(r) : "memory type " + std::to_string(memory_type)) +
                 "); pass a tensor that lives on the GPU (torch: .cuda())");
    int ordinal = -1;
    r = drv_->cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
    if (r == CUDA_SUCCESS && ordinal != props_.ordinal)
        fail(KB_ERR_INVALID_ARGUMENT, what + ": the memory is on CUDA device " + std::to_string(ordinal) +
                                          ", this context runs on device " + std::to_string(props_.ordinal) +
                                          "; move it (torch: .to('cuda:" + std::to_string(props_.ordinal) +
                                          "')) or use a context on device " + std::to_string(ordinal));
    CUdeviceptr start = 0;
    size_t size = 0;
    if (drv_->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, ptr) == CUDA_SUCCESS &&
        drv_->cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, ptr) == CUDA_SUCCESS &&
        bytes > size - (ptr - start))
        fail(KB_ERR_INVALID_ARGUMENT, what + ": " + std::to_string(bytes) + " bytes from 0x" + hex_text(ptr) +
                                          " run past the end of its allocation (" +
                                          std::to_string(size - (ptr - start)) + " bytes left in it)");
}

void Device::wait_for(CUstream other) {
    throw_if_lost();
    make_current();
    if (!join_) cuda_check(drv_->cuEventCreate(&join_, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    // Not cuStreamGetCtx to ask whose the stream is: cuGetProcAddress hands
    // out its _v2 (three parameters) for CUDA 12.5 and later, and the event
    // record fails for a stream of another context anyway.
    CUresult r = drv_->cuEventRecord(join_, other);
    if (r == CUDA_ERROR_INVALID_HANDLE || r == CUDA_ERROR_INVALID_CONTEXT || r == CUDA_ERROR_INVALID_VALUE)
        fail(KB_ERR_INVALID_ARGUMENT, "the stream is not a stream of CUDA device " + std::to_string(props_.ordinal) +
                                          "'s primary context, where this kbench context runs (" +
                                          cuda_error_text(r) + "); pass a stream of that device (torch: "
                                          "torch.cuda.current_stream(device)), or 0 for the legacy default stream");
    check(r, "cuEventRecord on the caller's stream");
    check(drv_->cuStreamWaitEvent(stream_, join_, 0), "cuStreamWaitEvent");
}

void Device::make_wait(CUstream other) {
    throw_if_lost();
    make_current();
    if (!join_) cuda_check(drv_->cuEventCreate(&join_, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    check(drv_->cuEventRecord(join_, stream_), "cuEventRecord");
    check(drv_->cuStreamWaitEvent(other, join_, 0), "cuStreamWaitEvent on the caller's stream");
}

}  // namespace kb
