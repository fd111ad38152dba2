// The wire format between a kbench host and a kbench-worker process
// (docs/isolation.md has the full description).
//
// A frame is a fixed 24-byte header followed by a JSON document and zero or
// more binary blobs (cubin images, source code, compiler logs):
//
//   offset  size  field
//   0       4     magic "KBW1"
//   4       2     protocol version (kProtocolVersion), little-endian
//   6       2     message type (Msg; a reply sets kReplyBit)
//   8       8     request id (a reply echoes its request's id)
//   16      4     JSON byte count
//   20      4     blob byte count (the sum of json["blobs"], in order)
//
// Everything is little-endian; both ends run on the same machine, but the
// format says so anyway, so a mismatched peer is detected rather than guessed.
// Hand-written on purpose: a few hundred bytes per request, no dependency,
// and a decoder that rejects anything malformed instead of trusting it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kbench.h"
#include "util/json.h"

namespace kb::wire {

constexpr char kMagic[4] = {'K', 'B', 'W', '1'};
constexpr uint16_t kProtocolVersion = 1;
constexpr size_t kHeaderBytes = 24;
// Limits a decoder enforces before allocating: a header that announces more
// is garbage (a result document is kilobytes; an image a few megabytes).
constexpr uint32_t kMaxJsonBytes = 64u << 20;
constexpr uint32_t kMaxBlobBytes = 1u << 30;

// Message types. Requests go host -> worker and are answered by one frame of
// type (request | kReplyBit) with the same id. `note` goes worker -> host
// unasked: the worker's last words before a fatal signal (what it was doing).
enum class Msg : uint16_t {
    hello = 1,          // version check, device start-up; reply: device facts
    canary = 2,         // run kbench's own kernels on the device; reply: healthy or not
    compile = 3,        // CompileRequest in, CompiledImage out
    run_reference = 4,  // the task's reference on one case
    compare = 5,        // a kernel on one case, compared against the reference
    time = 6,           // the measurement protocol
    shutdown = 7,       // reply, then exit 0
    test = 8,           // test hooks (only when the worker runs with --test-hooks)
    // The Python program worker's requests (docs/programs.md).
    program_load = 9,   // import a program candidate
    program_run = 10,   // a model on one case: outputs, checksums, attribution
    program_time = 11,  // a model timed under a protocol's parameters
    compare_cases = 12, // a kernel on several cases in turn, up to the first that fails
    install_reference = 13, // a reference run by an earlier worker, from its digest (exec/reference_cache.h)
    program_release = 14,   // drop the outputs the last program request exported for a GPU comparison
    program_prebuild = 15,  // (builder worker) import a candidate without a device, keeping its load_inline builds
    note = 0x4000,
};
constexpr uint16_t kReplyBit = 0x8000;

inline uint16_t reply_type(Msg request) { return uint16_t(uint16_t(request) | kReplyBit); }
// "compare", "reply to compare", "message 0x1234".
std::string msg_name(uint16_t type);

struct Frame {
    uint16_t type = 0;
    uint64_t id = 0;
    Json json;                       // the document, without the "blobs" size list
    std::vector<std::string> blobs;  // in the order json["blobs"] listed them
};

// A frame that breaks the format: wrong magic or version, sizes past the
// limits, JSON that does not parse, blob sizes that do not add up.
class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Serialises one frame. Strings that are not valid UTF-8 are replaced
// (U+FFFD) rather than refused: labels and messages may carry any bytes, and
// binary data travels as blobs. Throws ProtocolError past the size limits.
std::string encode_frame(uint16_t type, uint64_t id, const Json& json, const std::vector<std::string>& blobs = {});

// Incremental decoder: feed it whatever the socket gave, take whole frames.
class FrameDecoder {
public:
    void feed(const char* data, size_t n);
    // True when a whole frame was buffered and is now in *out. Throws
    // ProtocolError for a malformed frame (the stream is then unusable).
    bool next(Frame* out);
    // Bytes received but not yet returned as a frame.
    size_t pending() const { return buf_.size() - pos_; }

private:
    std::string buf_;
    size_t pos_ = 0;
};

// Every reply is an envelope: {"ok": true, "result": {...}, ...} or
// {"ok": false, "status": <kb_status>, "error": "<message>"}, plus
// "free_bytes" (the device's free memory after the request) and
// "device_lost": true after a sticky CUDA error.
inline bool reply_ok(const Json& j) { return j.is_object() && j.value("ok", false) == true; }
// The status of a failed reply; KB_ERR_WORKER when it names none.
kb_status reply_status(const Json& j);
std::string reply_error(const Json& j);

}  // namespace kb::wire
