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
Json program_load_body(const std::string& id, const std::string& source_name, const KernelCandidate* kernel,
                       std::vector<std::string>* blobs, const std::vector<ProgramRunRequest>& warm = {});
ProgramLoadReply program_load_reply(const Json& result);

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
