// The core's types as they travel between host and worker: compile requests
// and images, kernels (image + launch plan), timing requests. Binary data
// (code, images, logs) goes into the frame's blobs and the JSON names the blob
// by index, so no byte is re-encoded.
//
// Every field of CompileRequest, CompilePolicy, CompiledImage and
// TimingOptions is listed here by hand: a field added to one of those structs
// must be added here too, or a worker silently runs without it
// (tests/unit/test_worker_protocol.cpp round-trips every field it knows).
#pragma once

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "engine/backend.h"
#include "exec/kernel.h"
#include "exec/reference_cache.h"
#include "util/json.h"

namespace kb::wire {

// The compiler's configuration a compile worker receives in its hello:
// toolkit, cache, wall-clock limit and process limits.
Json compiler_config_to_json(const CompilerConfig& c);
CompilerConfig compiler_config_from_json(const Json& j);

Json compile_request_to_json(const CompileRequest& r, std::vector<std::string>* blobs);
CompileRequest compile_request_from_json(const Json& j, const std::vector<std::string>& blobs);

Json triton_spec_to_json(const TritonCompileSpec& t);
TritonCompileSpec triton_spec_from_json(const Json& j);

Json image_to_json(const CompiledImage& img, std::vector<std::string>* blobs);
CompiledImage image_from_json(const Json& j, const std::vector<std::string>& blobs);

Json time_request_to_json(const TimeRequest& r);
TimeRequest time_request_from_json(const Json& j);

// A kernel as the worker needs it to run: id, label, language, launch plan
// and image. The worker re-parses the plan against the task it belongs to.
Json kernel_to_json(const Kernel& k, std::vector<std::string>* blobs);
KernelPtr kernel_from_json(const Json& j, const std::vector<std::string>& blobs, const Task& task);

Language language_from_name(const std::string& name);

// A reference run's digest (exec/reference_cache.h): run_ms, the checksums
// and the host-compared outputs' bytes, as blobs appended to `blobs` (their
// indexes are absolute: the digest's blobs go first into a message).
Json reference_digest_to_json(const ReferenceDigest& d, std::vector<std::string>* blobs);
ReferenceDigest reference_digest_from_json(const Json& j, const std::vector<std::string>& blobs);

// The blob a field names ({"field": index}); throws ProtocolError when the
// index is missing or out of range.
const std::string& blob_at(const Json& j, const char* field, const std::vector<std::string>& blobs);

}  // namespace kb::wire
