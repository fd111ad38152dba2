#include "ipc/frame.h"

#include <cstdio>
#include <cstring>

namespace kb::wire {
namespace {

void put16(std::string& s, size_t at, uint16_t v) {
    s[at] = char(v & 0xff);
    s[at + 1] = char(v >> 8);
}
void put32(std::string& s, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) s[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
}
void put64(std::string& s, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) s[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
}
uint64_t get(const char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
    return v;
}

bool known_type(uint16_t t) {
    uint16_t base = uint16_t(t & ~kReplyBit);
    if (t == uint16_t(Msg::note)) return true;
    return base >= uint16_t(Msg::hello) && base <= uint16_t(Msg::program_prebuild);
}

}  // namespace

std::string msg_name(uint16_t type) {
    static const char* names[] = {nullptr,    "hello",        "canary",      "compile",     "run_reference", "compare",
                                  "time",     "shutdown",     "test",        "program_load", "program_run",
                                  "program_time", "compare_cases", "install_reference", "program_release",
                                  "program_prebuild"};
    if (type == uint16_t(Msg::note)) return "note";
    uint16_t base = uint16_t(type & ~kReplyBit);
    std::string name;
    if (base >= 1 && base <= uint16_t(Msg::program_prebuild)) name = names[base];
    else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "message 0x%04x", unsigned(type));
        return buf;
    }
    return (type & kReplyBit) ? "reply to " + name : name;
}

std::string encode_frame(uint16_t type, uint64_t id, const Json& json, const std::vector<std::string>& blobs) {
    Json doc = json;
    uint64_t blob_total = 0;
    if (!blobs.empty()) {
        Json sizes = Json::array();
        for (const std::string& b : blobs) {
            sizes.push_back(b.size());
            blob_total += b.size();
        }
        doc["blobs"] = sizes;
    }
    std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > kMaxJsonBytes)
        throw ProtocolError("a " + msg_name(type) + " document of " + std::to_string(text.size()) +
                            " bytes exceeds the protocol's limit of " + std::to_string(kMaxJsonBytes));
    if (blob_total > kMaxBlobBytes)
        throw ProtocolError("the binary data of a " + msg_name(type) + " (" + std::to_string(blob_total) +
                            " bytes) exceeds the protocol's limit of " + std::to_string(kMaxBlobBytes));
    std::string out(kHeaderBytes, '\0');
    std::memcpy(&out[0], kMagic, 4);
    put16(out, 4, kProtocolVersion);
    put16(out, 6, type);
    put64(out, 8, id);
    put32(out, 16, uint32_t(text.size()));
    put32(out, 20, uint32_t(blob_total));
    out.reserve(kHeaderBytes + text.size() + blob_total);
    out += text;
    for (const std::string& b : blobs) out += b;
    return out;
}

void FrameDecoder::feed(const char* data, size_t n) {
    // Drop what was consumed before growing, so a long session stays small.
    if (pos_ > 0 && pos_ == buf_.size()) {
        buf_.clear();
        pos_ = 0;
    } else if (pos_ > (1u << 20)) {
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    buf_.append(data, n);
}

bool FrameDecoder::next(Frame* out) {
    if (pending() < kHeaderBytes) return false;
    const char* h = buf_.data() + pos_;
    if (std::memcmp(h, kMagic, 4) != 0) {
        std::string got;
        for (int i = 0; i < 4; ++i) {
            unsigned char c = static_cast<unsigned char>(h[i]);
            char buf[8];
            std::snprintf(buf, sizeof buf, c >= 32 && c < 127 ? "%c" : "\\x%02x", c);
            got += buf;
        }
        throw ProtocolError("bad magic '" + got + "' (expected 'KBW1'): the peer is not a kbench worker, or the stream "
                            "lost its framing");
    }
    uint16_t version = uint16_t(get(h + 4, 2));
    if (version != kProtocolVersion)
        throw ProtocolError("the peer speaks protocol version " + std::to_string(version) + ", this side " +
                            std::to_string(kProtocolVersion) + ": the kbench-worker belongs to another kbench build");
    uint16_t type = uint16_t(get(h + 6, 2));
    if (!known_type(type)) throw ProtocolError("unknown " + msg_name(type));
    uint64_t id = get(h + 8, 8);
    uint32_t json_bytes = uint32_t(get(h + 16, 4));
    uint32_t blob_bytes = uint32_t(get(h + 20, 4));
    if (json_bytes > kMaxJsonBytes || blob_bytes > kMaxBlobBytes)
        throw ProtocolError("a " + msg_name(type) + " announces " + std::to_string(json_bytes) + " JSON bytes and " +
                            std::to_string(blob_bytes) + " blob bytes, past the protocol's limits");
    if (json_bytes == 0) throw ProtocolError("a " + msg_name(type) + " without a JSON document");
    size_t total = kHeaderBytes + size_t(json_bytes) + size_t(blob_bytes);
    if (pending() < total) return false;

    Frame f;
    f.type = type;
    f.id = id;
    const char* body = h + kHeaderBytes;
    try {
        f.json = Json::parse(body, body + json_bytes);
    } catch (const std::exception& e) {
        throw ProtocolError("the JSON of a " + msg_name(type) + " does not parse: " + e.what());
    }
    if (!f.json.is_object()) throw ProtocolError("the JSON of a " + msg_name(type) + " is not an object");
    uint64_t listed = 0;
    if (f.json.contains("blobs")) {
        const Json& sizes = f.json["blobs"];
        if (!sizes.is_array()) throw ProtocolError("\"blobs\" of a " + msg_name(type) + " is not an array of sizes");
        for (const Json& s : sizes) {
            if (!s.is_number_unsigned()) throw ProtocolError("\"blobs\" of a " + msg_name(type) + " holds a non-size");
            listed += s.get<uint64_t>();
        }
        if (listed != blob_bytes)
            throw ProtocolError("the blob sizes of a " + msg_name(type) + " add up to " + std::to_string(listed) +
                                " bytes, the header says " + std::to_string(blob_bytes));
        const char* p = body + json_bytes;
        for (const Json& s : sizes) {
            size_t n = size_t(s.get<uint64_t>());
            f.blobs.emplace_back(p, n);
            p += n;
        }
        f.json.erase("blobs");
    } else if (blob_bytes != 0) {
        throw ProtocolError("a " + msg_name(type) + " carries " + std::to_string(blob_bytes) +
                            " blob bytes but lists no \"blobs\"");
    }
    pos_ += total;
    *out = std::move(f);
    return true;
}

kb_status reply_status(const Json& j) {
    if (!j.is_object() || !j.contains("status") || !j["status"].is_number_integer()) return KB_ERR_WORKER;
    int s = j["status"].get<int>();
    if (s <= int(KB_OK) || s > 1000) return KB_ERR_WORKER;  // appended statuses pass through
    return kb_status(s);
}

std::string reply_error(const Json& j) {
    if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
    return "the kbench worker reported a failure without saying what failed";
}

}  // namespace kb::wire
