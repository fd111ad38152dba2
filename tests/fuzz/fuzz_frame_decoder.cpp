// libFuzzer target: the worker protocol's frame decoder (src/ipc/frame.cpp),
// fed in pieces as a socket would. Malformed frames are ProtocolError;
// anything else is a finding, and so is allocating what a header announces
// before the bytes are there. A frame that decodes encodes and decodes again
// to the same frame.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ipc/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const size_t piece = 1 + data[0];  // the socket's chunk size, from the input
    ++data;
    --size;
    kb::wire::FrameDecoder dec;
    try {
        for (size_t off = 0; off < size; off += piece) {
            size_t n = size - off < piece ? size - off : piece;
            dec.feed(reinterpret_cast<const char*>(data + off), n);
            kb::wire::Frame f;
            while (dec.next(&f)) {
                std::string bytes = kb::wire::encode_frame(f.type, f.id, f.json, f.blobs);
                kb::wire::FrameDecoder again;
                again.feed(bytes.data(), bytes.size());
                kb::wire::Frame g;
                if (!again.next(&g) || g.type != f.type || g.id != f.id || g.blobs != f.blobs || g.json != f.json)
                    std::abort();
            }
        }
    } catch (const kb::wire::ProtocolError&) {
    }
    return 0;
}
