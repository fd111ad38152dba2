// Running a Program's launch plan on one case: modules loaded from compiled
// images, per-case buffers, and plans bound to those buffers (expressions
// evaluated, limits checked, parameters marshalled) so that enqueueing a plan
// in a timed loop is only the launches themselves.
#pragma once

#include <cuda.h>

#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/triton_launch.h"
#include "device/device.h"
#include "exec/builtin_steps.h"
#include "exec/fault.h"
#include "exec/host_tensor.h"
#include "exec/kernel.h"
#include "task/task.h"

namespace kb {

// A compiled image loaded into the device's context, its kernels resolved.
// A program that launches no kernel (a built-in baseline) loads nothing.
class LoadedModule {
public:
    // Throws KernelFault(launch_error) when the driver rejects the image
    // (wrong architecture, PTX too new for the driver, missing symbol).
    LoadedModule(Device& dev, const Kernel& k);
    ~LoadedModule();
    LoadedModule(const LoadedModule&) = delete;
    LoadedModule& operator=(const LoadedModule&) = delete;

    // `checked`: the kernel of the checked build (has_checked()).
    CUfunction function(const std::string& plan_name, bool checked = false) const;
    // The module's contained-trap flag (a kb::TrapFlag in device memory,
    // compiler/trap_containment.h), or 0 when its traps are not contained.
    CUdeviceptr trap_flag() const { return trap_flag_; }

    // The checked copies of its kernels (compiler/fault_containment.h), when
    // the image has them; they set the module's trap flag.
    bool has_checked() const { return arm_ != nullptr; }
    // The image holds the checked copies alone (CompiledImage::checked_only):
    // every run is a checked one, and function(name, false) refuses.
    bool checked_only() const { return checked_only_; }
    // Enqueues the arming entry: accesses inside [lo, hi) (or the module's
    // own variables) pass, loops end `limit_ns` after it runs, the flag is
    // cleared. Returns the driver's result.
    CUresult enqueue_arm(CUdeviceptr lo, CUdeviceptr hi, uint64_t limit_ns) const;

    // Language::triton: the binary of launch entry `step` compiled for the
    // specialisation `key`, with its derived launch; nullptr when none was.
    struct TritonBinary {
        CUfunction function = nullptr;
        TritonLaunch launch;
    };
    // The binary of triton_variants()[i].
    const TritonBinary& triton(size_t i) const { return triton_.at(i); }
    // Which launch entry and key each binary serves (images left out).
    const std::vector<TritonVariant>& triton_variants() const { return variant_keys_; }
    // Language::triton_binary: Triton's metadata of the image.
    const std::string& triton_metadata() const { return triton_metadata_; }

private:
    CUmodule load(const CompiledImage& image, const std::string& label);

    Device& dev_;
    CUmodule module_ = nullptr;
    CUdeviceptr trap_flag_ = 0;
    std::map<std::string, CUfunction> functions_;
    CUfunction arm_ = nullptr;
    bool checked_only_ = false;
    std::map<std::string, CUfunction> checked_functions_;
    void resolve_checked(const Kernel& k);
    std::vector<CUmodule> variant_modules_;
    std::vector<TritonVariant> variant_keys_;
    std::vector<TritonBinary> triton_;
    std::string triton_metadata_;
};

// Keeps the most recently used modules loaded (by Kernel::id), so scoring a
// kernel several times loads it once, and thousands of candidates do not
// accumulate in device memory.
class ModuleCache {
public:
    explicit ModuleCache(size_t capacity = 32) : capacity_(capacity) {}
    std::shared_ptr<LoadedModule> get(Device& dev, const Kernel& k);
    void clear() { entries_.clear(); }

private:
    size_t capacity_;
    std::list<std::pair<std::string, std::shared_ptr<LoadedModule>>> entries_;  // front = most recent
};

// The device buffers of one task at one case: one per buffer argument, plus
// scratch buffers per program. Every buffer has guard zones.
class CaseBuffers {
public:
    CaseBuffers(Device& dev, const Task& task, int case_index);

    // The caller's own device memory for every buffer argument (kb_launch,
    // exec/external_launch.h), in argument order (scalars: {0, 0}). Nothing is
    // allocated for the arguments and kbench never touches them: prepare,
    // scrub, input_checksums, arm_guards, enqueue_after_run and download are for
    // kbench's own buffers and throw KB_ERR_INTERNAL here. Scratch buffers
    // (the plan's and Triton's hidden ones) are still kbench's.
    struct External {
        CUdeviceptr ptr = 0;
        size_t bytes = 0;
    };
    CaseBuffers(Device& dev, const Task& task, int case_index, std::vector<External> external);
    // New pointers for the next launch (the same task and case).
    void set_external(std::vector<External> external);
    bool external() const { return !external_.empty(); }

    // Where argument `arg_index`'s data is, kbench's buffer or the caller's.
    CUdeviceptr arg_data(int arg_index) const;
    size_t arg_bytes(int arg_index) const;

    const Task& task() const { return task_; }
    int case_index() const { return case_index_; }
    const Case& the_case() const { return task_.cases[size_t(case_index_)]; }

    // Buffer of task argument `arg_index` (an empty buffer for scalars).
    const DeviceBuffer& arg(int arg_index) const { return args_[size_t(arg_index)]; }
    const std::vector<int64_t>& shape(int arg_index) const { return shapes_[size_t(arg_index)]; }
    uint64_t count(int arg_index) const { return counts_[size_t(arg_index)]; }

    // Scratch buffers of a program, allocated on first use and reallocated
    // when the program under `key` needs other ones. `key` tells programs
    // apart (the reference and a candidate may both say "partial").
    std::map<std::string, DeviceBuffer>& scratch(const Program& p, const std::string& key);

    // Inputs (in and inout) from the seeded RNG; outputs (out) poisoned.
    void prepare(uint64_t seed);
    // Scratch of a program poisoned (or zeroed, as the plan asks).
    void reset_scratch(const Program& p, const std::string& key);
    // Poisons every output and the scratch of `key`: used after a reference
    // run so its results do not stay on the device.
    void scrub(const std::string& key);
    // Checksums of every `in` buffer, in argument order.
    std::vector<uint64_t> input_checksums();
    // input_checksums() right after prepare(seed): the inputs are a pure
    // function of the seed, so each seed's checksums are computed once and
    // remembered (a few seeds per case are in use: the score's, the recheck's).
    std::vector<uint64_t> prepared_input_checksums(uint64_t seed);
    // The address range that holds every argument buffer and the scratch of
    // `key`, their guard zones included: what a checked build of the
    // candidate may touch (compiler/fault_containment.h).
    std::pair<CUdeviceptr, CUdeviceptr> span(const std::string& key) const;
    // Rewrites every guard zone; enqueue_after_run checks them.
    void arm_guards();
    struct GuardBreach {
        std::string buffer;  // arg or scratch name
        GuardReport report;
    };
    // After a run: the `in` buffers' checksums, every guard zone, and copies
    // of the output arguments `outputs` (indexes), enqueued behind the run so
    // that one synchronisation waits for the run and all of it
    // (Device::enqueue_readback). Returns the first failing driver call's
    // result: the run before may have crashed, and the caller says so.
    struct PendingAfterRun {
        Device::Readback readback;
        std::vector<std::string> guarded;  // the breach report's names, in readback order
        std::vector<int> outputs;
    };
    CUresult enqueue_after_run(const std::vector<int>& outputs, PendingAfterRun* out);
    // Reads what enqueue_after_run asked for, once the stream has synchronised.
    struct AfterRun {
        std::vector<uint64_t> input_checksums;
        std::vector<GuardBreach> breaches;
        std::map<int, HostTensor> outputs;  // by argument index
    };
    AfterRun collect_after_run(const PendingAfterRun& pending);

    // A Triton kernel's hidden global (or profile) scratch for one plan
    // binding (docs/triton.md): `bytes` at `align`, poisoned, guard-checked
    // like scratch buffers; binding the same `key` again replaces it.
    CUdeviceptr triton_scratch(const std::string& key, size_t bytes, size_t align);

    HostTensor download(int arg_index);
    // download's tensor without its bytes: name, dtype and shape.
    HostTensor tensor_of(int arg_index) const;

private:
    Device& dev_;
    const Task& task_;
    int case_index_;
    std::vector<DeviceBuffer> args_;
    std::vector<std::vector<int64_t>> shapes_;
    std::vector<uint64_t> counts_;
    std::map<std::string, std::map<std::string, DeviceBuffer>> scratch_;  // key -> name -> buffer
    std::map<std::string, std::vector<std::pair<std::string, DType>>> scratch_types_;  // key -> (name, dtype)
    std::map<std::string, std::string> scratch_signatures_;  // key -> names, dtypes and sizes
    std::map<std::string, DeviceBuffer> triton_scratch_;     // key -> Triton's hidden scratch
    std::vector<External> external_;                         // empty: kbench owns the arguments
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> prepared_checksums_;  // seed -> checksums, newest last
    // post_run_checks' arguments: the `in` buffers' ranges, and every guarded
    // buffer with the name a breach report gives it.
    std::vector<Device::Range> input_ranges() const;
    std::vector<std::pair<std::string, const DeviceBuffer*>> guarded_buffers() const;
    void require_own(const char* what) const;
};

// A plan bound to a case's buffers: ready to enqueue.
struct BoundStep {
    std::shared_ptr<const BoundGemm> gemm;  // a built-in step
    bool zero = false;
    CUdeviceptr zero_ptr = 0;
    size_t zero_bytes = 0;
    CUfunction function = nullptr;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_mem = 0;
    // Triton launch attributes (cuLaunchKernelEx): the cluster shape in CTAs,
    // cooperative grid, programmatic dependent launch.
    bool launch_ex = false;
    unsigned cluster[3] = {1, 1, 1};
    bool cooperative = false;
    bool pdl = false;
    std::vector<uint64_t> storage;  // one 8-byte slot per parameter
    std::vector<void*> params;      // pointers into storage
    std::string where;              // "launch[0] (kernel 'vadd')", for messages
};

class BoundPlan {
public:
    BoundPlan() = default;
    BoundPlan(BoundPlan&&) = default;
    BoundPlan& operator=(BoundPlan&&) = default;
    BoundPlan(const BoundPlan&) = delete;
    BoundPlan& operator=(const BoundPlan&) = delete;

    // Enqueues every step on the device's stream. Throws KernelFault when a
    // launch is refused (launch_error) or a sticky error surfaces.
    void enqueue(Device& dev) const;
    std::vector<BoundStep> steps;
};

// Evaluates the plan at the case, checks every launch against the device's
// and the kernel's limits and the kernel's parameter list, and marshals the
// arguments. Throws KernelFault(launch_error) naming the step, the limit and
// the fix. `scratch_key` selects the program's scratch set in `bufs`.
// Built-in steps are bound through `builtins` (kb::Error(KB_ERR_REFERENCE_FAILED)
// when a library is missing; KB_ERR_INTERNAL when `builtins` is null).
// `checked`: launch the kernels of the module's checked build.
BoundPlan bind_plan(Device& dev, const LoadedModule& mod, const Program& p, CaseBuffers& bufs,
                    const std::string& scratch_key, BuiltinLibraries* builtins = nullptr, bool checked = false);

// Maps a failed CUresult of a candidate's run to a fault with a message
// a model can act on.
KernelFault fault_from_cuda(CUresult r, const std::string& during);

}  // namespace kb
