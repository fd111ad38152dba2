// Results as JSON: the one place the engine's result values (result.h)
// become the documents kb_result holds and the worker sends, and back.
// Field names carry their unit (median_us, run_ms); numbers JSON cannot hold
// (NaN, infinities) are written as the strings "nan", "inf", "-inf".
#pragma once

#include "engine/result.h"
#include "util/json.h"

namespace kb {

Json to_json(const CaseInfo& c);  // task, case, case_index, dims, seed
Json to_json(const WorkerFacts& w);
Json to_json(const ReferenceOutput& o);
Json to_json(const OutputReport& r);
Json to_json(const GuardBreachReport& b);
Json to_json(const TimedProgram& t);
Json to_json(const ReferenceResult& r);
Json to_json(const CompareResult& r);
Json to_json(const TimeResult& r);
Json to_json(const CompileFacts& c);
Json to_json(const ScoreResult& r);
// The stages of a score that ran twice because their first attempt timed out
// beside another lane's hang (engine/gpu_incidents.h), each as "<stage>: <why
// and what the first attempt said>", for one-line results (kbench run);
// an empty array when none did.
Json retried_stages(const ScoreResult& r);
// A Triton candidate's tuning: every config's time or failure, the chosen one.
Json to_json(const TuneResult& r);
Json to_json(const ProgramAttribution& a);
Json to_json(const ProgramFacts& p);
// The precision audit (compare/precision.h): verdict, mode, the relative
// errors of the mode named, and every mode's absolute errors per output.
Json to_json(const PrecisionAudit& a);
// kb_kernel_json: compile facts and the launch plan.
Json kernel_json(const Kernel& k);

// The inverses the worker's wire needs. Throw std::exception subclasses
// (nlohmann's, or kb::Error) on a document that is not what to_json wrote.
CaseInfo case_info_from_json(const Json& j);
WorkerFacts worker_facts_from_json(const Json& j);
ReferenceOutput reference_output_from_json(const Json& j);
OutputReport output_report_from_json(const Json& j);
ReferenceResult reference_result_from_json(const Json& j);
CompareResult compare_result_from_json(const Json& j);
TimeResult time_result_from_json(const Json& j);

}  // namespace kb
