// The decision rules for program candidates (docs/programs.md): Python
// modules that launch their own kernels, judged against a PyTorch reference.
// Pure functions of what the Python workers observed and the comparator
// found, so every rule has a CPU test (tests/unit/test_program_judge.cpp).
//
// A run on one case, in the order the rules decide:
//   1. the candidate raised (defining, constructing or calling its model)  -> runtime_error
//   2. its outputs differ from the reference's in number, kind, shape,
//      dtype or device (dtype and device where the protocol checks them)   -> wrong_answer
//   3. an input's checksum changed over the call (where checked)            -> input_modified
//   4. an output element still holds the poison of freed memory             -> output_not_written
//   5. an output element outside the tolerance (NaN never matches)          -> wrong_answer
//   6. otherwise                                                            -> pass
// Then, over all runs, the policy (program_findings): torch compute where
// the task forbids it, declared kernels that never ran (a decoy), functions
// a measurement relies on replaced, threads left running -> policy_violation
// where the protocol enforces its rules; findings that inform otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/comparator.h"
#include "compare/judge.h"

namespace kb {

// A kernel (or memcpy, memset) that ran inside a program candidate's calls,
// as CUPTI recorded it, and whose it is.
struct KernelUse {
    std::string name;
    std::string kind = "kernel";  // "kernel", "memcpy", "memset"
    std::string origin;           // "candidate", "torch", "cublas", "cudnn", "triton", "memory", "other"
    uint64_t launches = 0;
    double total_us = 0;
    unsigned streams = 0;
};

// Where a program candidate's device time went, and what it called.
struct ProgramAttribution {
    bool cupti = false;          // kernels were recorded (CUPTI ran)
    std::string cupti_why;       // why not, when not
    std::vector<KernelUse> kernels;
    std::map<std::string, double> share;           // origin -> fraction of the recorded time
    std::map<std::string, uint64_t> aten_ops;      // aten operator -> calls (torch dispatch mode)
    std::vector<std::string> torch_compute_ops;    // the operators among them that compute
    std::vector<std::string> triton_declared, cuda_declared;  // kernels the candidate defines
    std::map<std::string, uint64_t> triton_launches;          // per @triton.jit function
    bool decoy = false;          // it declares kernels, none ran
    unsigned streams = 0;        // distinct streams its work ran on
    uint64_t records_outside_calls = 0;  // device work recorded outside every call window
};

// Something a program candidate's source or behaviour showed: "fail"
// findings decide the verdict, "report" ones inform.
struct ProgramFinding {
    std::string rule;      // "torch_compute", "decoy", "patched", "thread_left_running", "gc_search", ...
    std::string severity;  // "fail" | "report"
    std::string message;
    int line = 0;          // in the candidate's source, when known
};

// ---- attribution ------------------------------------------------------------

// Whose a recorded kernel is: "candidate" when its name is one the candidate
// declares (a Triton kernel is named after its function; a CUDA kernel's
// mangled name holds <length><name>), else the library its name says
// ("cudnn", "cublas", "torch"), "triton" for other Triton kernels, "memory"
// for copies and fills, "other".
std::string kernel_origin(const std::string& name, const std::string& kind, const std::vector<std::string>& declared);

// Whether an aten operator (as a dispatch mode names it: "aten.relu",
// "aten.mm.default") computes something, as opposed to allocating,
// viewing, copying or filling memory.
bool aten_op_computes(const std::string& op);

// Fills origins, shares, torch_compute_ops and decoy from the raw records.
void attribute(ProgramAttribution& a);

// ---- one run ------------------------------------------------------------------

// One output of a model, as its worker described it.
struct ProgramOutputMeta {
    std::string label;       // "output", "output[1]", "output['test_case_1']"
    bool is_tensor = true;   // false: the model returned something else there
    std::string type;        // the Python type when not a tensor or number
    std::string dtype;       // kbench dtype name ("f32", "i64")
    std::vector<int64_t> shape;
    std::string device;      // "cuda:0", "cpu"
};

struct ProgramRunObservation {
    // The candidate raised: where ("definition", "construction", "call",
    // "cuda") and its message (the exception and the candidate's lines).
    std::optional<std::string> error;
    std::string error_stage;
    bool context_lost = false;
    std::vector<ProgramOutputMeta> reference_outputs, candidate_outputs;
    std::vector<std::string> inputs_modified;  // "input 0 (x)"
    // Every output compared against the reference (when the metadata agree).
    std::vector<OutputReport> outputs;
};

struct ProgramRules {
    std::string case_name;
    bool check_dtype = true;    // strict: an output's dtype must be the reference's
    bool check_device = true;   // strict: outputs on the reference's device
    bool check_inputs = true;   // strict: inputs unchanged by the call
};

// Differences in the outputs' number, kind, shape, dtype or device, in words;
// empty when they agree (and the values can be compared).
std::vector<std::string> output_mismatches(const std::vector<ProgramOutputMeta>& reference,
                                           const std::vector<ProgramOutputMeta>& candidate, const ProgramRules& rules);

Judgement judge_program_run(const ProgramRunObservation& run, const ProgramRules& rules);

// ---- the policy ---------------------------------------------------------------

struct ProgramPolicyRules {
    std::string torch_compute = "report";  // "allow" | "report" | "forbid"
    bool enforce = true;                   // false (the kernelbench protocol): everything is reported only
};

// What the candidate changed or left behind, over its calls.
struct ProgramIntegrity {
    std::vector<std::string> patched;              // functions replaced ("torch.cuda.Event")
    std::vector<std::string> threads_left;         // threads still running after a call
};

// The policy's findings over a candidate's runs, "fail" first.
std::vector<ProgramFinding> program_findings(const ProgramAttribution& a, const ProgramIntegrity& integrity,
                                             const ProgramPolicyRules& rules);

// policy_violation from the first "fail" finding; pass otherwise.
Judgement judge_policy(const std::vector<ProgramFinding>& findings);

}  // namespace kb
