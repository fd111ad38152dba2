// The Python worker processes that program candidates and their Python
// references run in (docs/programs.md), as the verbs they answer: the
// transport under the program backend (engine/program_backend.h), as the
// Supervisor is under the kernel worker's. A context has one reference
// worker, which runs the problem's own code, and one candidate worker per
// lane, so expected outputs never exist in a candidate's address space. The
// engine cannot name the workers' host side (src/worker_host/ sits above it),
// so a context gets them from its Isolation factories (engine/backend.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/judge.h"
#include "engine/program_protocol.h"
#include "engine/result.h"
#include "exec/host_tensor.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

// The builder imports candidates without a device, ahead of the lanes, to
// build their load_inline modules (ProgramPrebuild).
enum class ProgramRole { reference, candidate, builder };
const char* program_role_name(ProgramRole r);

// A worker that did not answer (it hung past its deadline or died): the
// verdict that is the candidate's, in words, with the worker's facts.
struct ProgramWorkerFailure {
    kb_verdict verdict = KB_VERDICT_RUNTIME_ERROR;  // timeout or runtime_error
    std::string message;
    std::optional<double> deadline_s;
    std::string signal;
    std::optional<int> exit_code;
    WorkerFacts worker;
};

struct ProgramLoadReply {
    bool loaded = false;
    std::string error, where;       // why the import failed, and the candidate's lines in the traceback
    int line = 0;
    double import_ms = 0;
    std::vector<ProgramFinding> findings;  // the source scan's (severity "report")
    std::vector<std::string> triton_kernels, cuda_kernels;
    // The warm-up after the import (load_candidate's `warm`): the cases whose
    // Triton kernels it compiled, and the time it took.
    int warmed = 0;
    double warm_ms = 0;
    // How the import's load_inline / load calls were built: "fast", "torch"
    // (torch's own build), "fast+torch", or empty when it made none; and why
    // each that went to torch's build did (python/kbench_programs/kbench_load_inline.py).
    std::string build;
    std::vector<std::string> build_fallbacks;
    std::vector<ProgramBuild> builds;
    ProgramIntegrity integrity;
    std::optional<ProgramWorkerFailure> failure;
};

// What a builder worker built ahead for one candidate (docs/programs.md,
// "Builds ahead of the GPU"): per load_inline call, by the digest of its
// arguments, the library it built (written by the host into a folder of its
// own, which the candidate worker reads) or the compile error it met. The
// candidate worker's import then loads those instead of building them.
struct ProgramPrebuilt {
    std::string key;     // kbench_load_inline.call_key
    std::string module;  // the module name it was built as (its PyInit_ symbol)
    std::string path;    // the library, in `folder`
    std::string error;   // or the build's compile error ("" when built)
    Json record;         // the build's record (kbench_load_inline's), for the result
};
struct ProgramPrebuild {
    std::vector<ProgramPrebuilt> calls;
    std::string folder;   // the host's folder of this candidate's libraries ("" when none)
    std::string stopped;  // what ended the builder's import early ("": it ran to its end)
    std::optional<ProgramWorkerFailure> failure;  // the builder did not answer
};

// One input as the worker made it.
struct ProgramInput {
    int index = 0;
    bool is_tensor = true;
    std::string dtype;
    std::vector<int64_t> shape;
    std::string checksum;   // kbench_problem.checksum: equal bytes, equal checksum, in every process
    std::string value;      // a non-tensor input, as repr() wrote it
};

// An output another process exported (CUDA IPC): the 64-byte handle of its
// allocation, in hex, where in it the output starts, and its size.
struct SharedOutput {
    std::string handle;
    uint64_t offset = 0;
    uint64_t bytes = 0;
};

// One candidate output to compare on the GPU against the reference output at
// position `output` (of the reference's outputs) of the same run.
struct GpuCompareItem {
    size_t output = 0;
    SharedOutput candidate;
    Tolerance tolerance;
};

// The C core's comparator's statistics (Device::compare), or why there are none.
struct GpuCompareStats {
    std::optional<std::string> error;
    uint64_t mismatches = 0, unwritten = 0;
    double max_abs_err = 0, max_rel_err = 0, max_violation = 0;
    uint64_t worst_index = 0, worst_bits = 0, expected_bits = 0;
};

struct ProgramRunRequest {
    int case_index = 0;
    double reference_ms = 0;       // the reference's run time at the case (a candidate's deadline scales with it)
    SeedSpec seed, model_seed;
    std::string mode = "strict";   // how inputs are made (program_protocol.h)
    bool clone_inputs = true;
    bool record_ops = false, record_kernels = false;
    bool want_outputs = true;
    std::string poison_dtype;      // the candidate worker fills this much free device memory
    uint64_t poison_bytes = 0;     //   with the dtype's poison pattern first,
    std::vector<uint64_t> poison_sizes;  // and blocks of each reference output's size (see poison_plan)
    // GPU comparison (docs/programs.md, "Processes"): the candidate worker
    // exports its CUDA outputs as IPC handles instead of copying them to the
    // host; the reference worker keeps its outputs on the device for
    // compare_on_gpu, and sends their bytes only up to data_limit in all.
    bool share_outputs = false;
    bool keep_outputs = false;
    std::optional<uint64_t> data_limit;
    // A warm-up entry (program_load): the call runs on inputs of the case's
    // shapes on torch's meta device, which hold no memory, for a case too
    // large to warm on real inputs beside the lanes' runs.
    bool warm_on_meta = false;
    // The reference worker compares these candidate outputs with the run's
    // own as soon as it has them (kept outputs of the run: no run at all),
    // in the request that runs it: a run the host has not seen yet (a
    // recheck seed's first use), which otherwise ran once for its
    // description and, where the kept budget had no room, again at the
    // compare.
    std::vector<GpuCompareItem> compare_inline;
};

struct ProgramRunReply {
    std::vector<ProgramInput> inputs;
    std::vector<std::pair<int, std::string>> inputs_after;  // index, checksum after the call (candidate)
    std::vector<ProgramOutputMeta> outputs;
    std::vector<HostTensor> data;  // host copies of the tensor outputs that were sent
    std::vector<int> data_of;      // per output: its index in `data`, or -1
    std::vector<std::optional<SharedOutput>> shared;  // per output: exported for a GPU comparison
    bool gpu_compare = false;      // reference: its outputs are kept on the device for compare_on_gpu
    std::vector<GpuCompareStats> compared;  // reference: per compare_inline item, in order
    std::optional<uint64_t> seed_value;  // the seed the worker resolved
    std::optional<std::string> error;  // the model raised
    std::string error_stage, error_where;
    bool context_lost = false;
    double run_ms = 0;
    std::optional<double> span_ms;
    // Raw: kernels, operators, launches (compare/attribution.h's attribute() fills the rest).
    ProgramAttribution attribution;
    ProgramIntegrity integrity;
    std::optional<ProgramWorkerFailure> failure;
    // The reference's: its model's parameters and buffers, by name (a kernel
    // candidate, which gets only the inputs, cannot take such a problem).
    std::vector<std::string> model_state;
    // The candidate's: load_inline builds since its import or its last run
    // (a call in ModelNew.__init__ builds when the model is constructed).
    std::vector<ProgramBuild> builds;
    std::vector<std::string> build_fallbacks;
    size_t bytes() const {
        size_t n = 0;
        for (const HostTensor& t : data) n += t.bytes.size();
        return n;
    }
};

struct ProgramTimeRequest {
    ProgramTimingPlan plan;
    double reference_ms = 0;       // as ProgramRunRequest::reference_ms
    SeedSpec model_seed;
    std::string mode = "strict";
    // The candidate returns the outputs of its last timed call (`last`), for
    // the host to compare with the reference's at the timing seed: a
    // candidate that skips work while it is timed fails. `share_outputs` as
    // ProgramRunRequest's.
    bool check_outputs = false;
    bool share_outputs = false;
};

struct ProgramRunReply;

struct ProgramTimeReply {
    std::vector<double> event_ms, span_ms, wall_ms;  // per sample
    // With ProgramTimeRequest::check_outputs: the last timed call's outputs,
    // as a run's reply carries them (no inputs).
    std::shared_ptr<ProgramRunReply> last;
    bool events = false, cupti = false;
    unsigned warmup_calls = 0;
    double wall_total_ms = 0;
    ProgramAttribution attribution;
    ProgramIntegrity integrity;
    std::optional<std::string> error;
    std::string error_where;
    bool context_lost = false;  // the error broke the worker's CUDA context
    std::optional<ProgramWorkerFailure> failure;
};

// One candidate output for the precision audit (compare/precision.h), at
// position `output` of the reference's outputs: exported by the candidate
// worker (CUDA IPC), or its bytes on the host.
struct PrecisionItem {
    size_t output = 0;
    std::optional<SharedOutput> shared;
    const HostTensor* data = nullptr;  // not shared: the candidate's output as it reached the host
};

// A kernel candidate run as a program (engine/kernel_program.h): the table
// its ModelNew launches by, and the compiled image (CUDA, PTX, cubin; empty
// for Triton, which Triton's JIT compiles in the worker).
struct KernelCandidate {
    Json table;
    std::string image;
};

class PythonWorkers {
public:
    virtual ~PythonWorkers() = default;
    // The workers' facts (interpreter, torch, triton, CUPTI, device).
    virtual Json info() = 0;
    // Imports a candidate in the candidate worker (replacing the previous one).
    // With `kernel`, the candidate is a kernel: `source` is its code (Triton's
    // is imported; CUDA's only names its kernels) and the worker builds the
    // candidate's ModelNew from the table. `warm`: runs whose shapes the
    // worker compiles the candidate's Triton kernels for after the import
    // (calling the model with every Triton launch made compile-only), so that
    // the JIT compiles run here, on the CPU, in parallel over lanes, and not
    // inside the GPU phases that follow.
    // `prebuilt`: what a builder built ahead for this candidate.
    virtual ProgramLoadReply load_candidate(const TaskPtr& task, const std::string& source,
                                            const std::string& source_name, const KernelCandidate* kernel = nullptr,
                                            const std::vector<ProgramRunRequest>& warm = {},
                                            const ProgramPrebuild* prebuilt = nullptr) = 0;
    // The builder role: imports `source` without a device and returns the
    // load_inline libraries its calls built, written into a new folder the
    // candidate workers can read; the caller removes the folder when done
    // with it. Where `task` is a KernelBench problem, the builder then
    // constructs the candidate's model from its init inputs, so that calls
    // made in ModelNew.__init__ are built too. Workers without the builder
    // role return nullopt.
    virtual std::optional<ProgramPrebuild> prebuild(const std::string& source, const std::string& source_name,
                                                    const TaskPtr& task = nullptr) {
        (void)source;
        (void)source_name;
        (void)task;
        return std::nullopt;
    }
    // The reference (the problem's model) or the loaded candidate at one case.
    // A reference that fails is kbench's error: kb::Error(KB_ERR_REFERENCE_FAILED).
    virtual ProgramRunReply run(ProgramRole role, const TaskPtr& task, const ProgramRunRequest& req) = 0;
    virtual ProgramTimeReply time(ProgramRole role, const TaskPtr& task, const ProgramTimeRequest& req) = 0;
    // The reference worker compares the candidate's exported outputs with
    // its own of the run `req` names (run again when it no longer holds
    // them), on the GPU. One result per item; kb::Error when the reference
    // worker fails.
    virtual std::vector<GpuCompareStats> compare_on_gpu(const TaskPtr& task, const ProgramRunRequest& req,
                                                        const std::vector<GpuCompareItem>& items) = 0;
    // The precision audit (compare/precision.h): the reference worker
    // recomputes the reference of the run `req` names in each of `modes`
    // (once per task, case, seeds and mode; it keeps them) and measures the
    // candidate's outputs against it and the full reference. nullopt: this
    // worker does not audit precision. kb::Error when the reference worker fails.
    virtual std::optional<std::vector<PrecisionProbe>> audit_precision(const TaskPtr& task,
                                                                       const ProgramRunRequest& req,
                                                                       const std::vector<PrecisionItem>& items,
                                                                       const std::vector<std::string>& modes) {
        (void)task;
        (void)req;
        (void)items;
        (void)modes;
        return std::nullopt;
    }
    // The candidate worker drops the outputs its last run or timing exported
    // for compare_on_gpu, once compared: at KernelBench's sizes they are
    // gigabytes the next lane's GPU phase needs. Best effort: a worker that
    // fails here fails its next request.
    virtual void release_outputs() {}
    // The worker of `role` drops the copy of the inputs it kept across one
    // timing's rounds, and hands torch's freed blocks back to the driver:
    // at KernelBench's sizes 6-9 GB that an idle worker held while the next
    // lane timed (eight lanes ran out of device memory on them:
    // `MEM_TRACE=1 PROGRAM_LANES=8 bash bench/run_device.sh programs`).
    // Best effort, as release_outputs.
    virtual void release_timing_inputs(ProgramRole role) { (void)role; }
    // The worker of `role` drops everything it keeps for later requests (its
    // input cache, a timing's inputs; the reference's kept outputs and
    // precision recomputations, which it makes again when next asked) and
    // hands torch's cached blocks back to the driver: asked of the reference
    // before a run that ran out of device memory runs again with the GPU
    // alone. Best effort, as release_outputs.
    virtual void release_caches(ProgramRole role) { (void)role; }
    // As Backend::let_go.
    virtual void let_go() {}
};

}  // namespace kb
