// What ran inside a program candidate's calls and whose it is (docs/programs.md):
// the kernels CUPTI recorded, the aten operators a torch dispatch mode saw,
// the Triton launches, and the share of device time by origin. Observations,
// not rules: the judge (compare/judge.h) decides on them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

// Adds one run's raw records into `into` (kernels by name and kind, operator
// and launch counts summed).
void merge_attribution(ProgramAttribution& into, const ProgramAttribution& a);

// Fills origins, shares, torch_compute_ops and decoy from the raw records.
void attribute(ProgramAttribution& a);

}  // namespace kb
