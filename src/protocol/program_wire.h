// Program candidates' messages on the wire between the host and the Python
// workers (python/kbench_programs/kbench_program_worker.py): the requests of
// engine/python_workers.h as JSON bodies, and the workers' replies read back
// into the same typed values, in the one place the wire format is written,
// beside the kernel worker's (protocol/wire.h). Numbers the worker cannot
// write in JSON (inf, nan) travel as strings.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/python_workers.h"
#include "util/json.h"

namespace kb::wire {

// program_load: the candidate's source (blob 0) and, for a kernel candidate,
// its table and image (blob 1). `id` names the candidate in the worker.
// `prebuilt`: the libraries a builder made for it (their paths, keys and
// module names, or their compile errors).
Json program_load_body(const std::string& id, const std::string& source_name, const KernelCandidate* kernel,
                       std::vector<std::string>* blobs, const std::vector<ProgramRunRequest>& warm = {},
                       const ProgramPrebuild* prebuilt = nullptr);
ProgramLoadReply program_load_reply(const Json& result);

// program_prebuild (the builder worker): the candidate's source (blob 0).
Json program_prebuild_body(const std::string& source_name);
// The builder's reply: each call's key, module name and record, or its
// compile error; `blob_of` gets each call's library's blob index (-1 for
// an error). Keys and module names are checked (the builder ran the
// candidate): a key is 32 hex digits, a module name a Python identifier.
ProgramPrebuild program_prebuild_reply(const Json& result, size_t blobs, std::vector<int>* blob_of,
                                       ProgramIntegrity* integrity);

// program_run: the reference or the candidate at one case.
Json program_run_body(const ProgramRunRequest& rq);
// `read_output` reads (and removes) an output the worker wrote to a file in
// its folder, refusing any other path.
ProgramRunReply program_run_reply(const Json& result, const std::vector<std::string>& blobs,
                                  const std::function<std::string(const std::string& path)>& read_output);

// program_run with "compare": the reference worker compares the candidate's
// exported outputs with its own of the run `rq` names.
Json program_compare_body(const ProgramRunRequest& rq, const std::vector<GpuCompareItem>& items);
std::vector<GpuCompareStats> program_compare_reply(const Json& result, size_t items);

// program_run with "precision": the reference worker measures the
// candidate's outputs (exported, or their bytes as blobs appended to
// `blobs`) against its reduced-precision recomputations of the run `rq`
// names. nullopt from the reply: the worker does not audit precision.
Json program_precision_body(const ProgramRunRequest& rq, const std::vector<PrecisionItem>& items,
                            const std::vector<std::string>& modes, std::vector<std::string>* blobs);
std::optional<std::vector<PrecisionProbe>> program_precision_reply(const Json& result);

// program_time.
Json program_time_body(const ProgramTimeRequest& rq);
ProgramTimeReply program_time_reply(const Json& result);

}  // namespace kb::wire
