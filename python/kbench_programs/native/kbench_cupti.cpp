// libkbench_cupti (kbench_cupti.h): CUPTI's activity API behind five C
// functions a ctypes caller can use. CUPTI hands over filled buffers on its
// own thread; they are parsed there into plain records under a mutex, and the
// caller takes them. Kernel names are interned once, so a record is 40 bytes.
#include "kbench_cupti.h"

#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#elif CUPTI_API_VERSION >= 18
using KernelRecord = CUpti_ActivityKernel9;
#else
using KernelRecord = CUpti_ActivityKernel4;
#endif
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemsetRecord = CUpti_ActivityMemset4;

constexpr size_t kBufferBytes = size_t(8) << 20;
constexpr size_t kAlign = 8;

std::mutex g_mutex;
std::deque<kbc_record> g_records;
std::unordered_map<std::string, uint32_t> g_name_ids;
std::deque<std::string> g_names = {""};  // a deque: names never move
uint64_t g_dropped = 0;
std::string g_error;
bool g_started = false;

uint32_t intern(const char* name) {
    if (!name) return 0;
    auto it = g_name_ids.find(name);
    if (it != g_name_ids.end()) return it->second;
    uint32_t id = uint32_t(g_names.size());
    g_names.emplace_back(name);
    g_name_ids.emplace(g_names.back(), id);
    return id;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    void* p = nullptr;
    if (posix_memalign(&p, kAlign, kBufferBytes) != 0) p = nullptr;
    *buffer = static_cast<uint8_t*>(p);
    *size = p ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* rec = nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        kbc_record r{};
        switch (rec->kind) {
            case CUPTI_ACTIVITY_KIND_KERNEL:
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
                auto* k = reinterpret_cast<const KernelRecord*>(rec);
                r = {k->start, k->end, KBC_KERNEL, k->streamId, k->deviceId, intern(k->name), 0};
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMCPY: {
                auto* m = reinterpret_cast<const MemcpyRecord*>(rec);
                r = {m->start, m->end, KBC_MEMCPY, m->streamId, m->deviceId, 0, m->bytes};
                break;
            }
            case CUPTI_ACTIVITY_KIND_MEMSET: {
                auto* m = reinterpret_cast<const MemsetRecord*>(rec);
                r = {m->start, m->end, KBC_MEMSET, m->streamId, m->deviceId, 0, m->bytes};
                break;
            }
            default:
                continue;
        }
        g_records.push_back(r);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
    std::free(buffer);
}

int failed(const char* what, CUptiResult r) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    g_error = std::string(what) + ": " + (s ? s : "unknown CUPTI error");
    return -1;
}

}  // namespace

extern "C" {

int kbc_start(void) {
    if (g_started) return 0;
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) return failed("cuptiActivityRegisterCallbacks", r);
    for (CUpti_ActivityKind k :
         {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
        r = cuptiActivityEnable(k);
        if (r != CUPTI_SUCCESS) return failed("cuptiActivityEnable", r);
    }
    g_started = true;
    return 0;
}

const char* kbc_error(void) { return g_error.c_str(); }

uint64_t kbc_now(void) {
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

int kbc_flush(void) {
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return r == CUPTI_SUCCESS ? 0 : failed("cuptiActivityFlushAll", r);
}

size_t kbc_take(kbc_record* out, size_t max) {
    std::lock_guard<std::mutex> lock(g_mutex);
    size_t n = 0;
    while (n < max && !g_records.empty()) {
        out[n++] = g_records.front();
        g_records.pop_front();
    }
    return n;
}

const char* kbc_name(uint32_t name_id) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return name_id < g_names.size() ? g_names[name_id].c_str() : "";
}

uint64_t kbc_dropped(void) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_dropped;
}

}  // extern "C"
