#include "exec/launcher.h"

#include <algorithm>
#include <cstring>

#include "compiler/fault_containment.h"
#include "compiler/trap_containment.h"
#include "compiler/triton_specialize.h"
#include <sstream>

#include "exec/memory_budget.h"
#include "task/scalar_param.h"
#include "util/error.h"

namespace kb {

// ---------------------------------------------------------------------------
// Faults

KernelFault fault_from_cuda(CUresult r, const std::string& during) {
    std::string text = cuda_error_text(r);
    switch (r) {
        case CUDA_ERROR_LAUNCH_TIMEOUT:
            return KernelFault(KB_VERDICT_TIMEOUT, "the kernel ran past the driver's watchdog during " + during, r);
        case CUDA_ERROR_ASSERT:
            return KernelFault(KB_VERDICT_RUNTIME_ERROR,
                               "a device-side assert failed during " + during + " (" + text + ")", r);
        case CUDA_ERROR_ILLEGAL_ADDRESS:
            return KernelFault(KB_VERDICT_RUNTIME_ERROR,
                               "the kernel accessed memory outside any allocation during " + during + " (" + text +
                                   "): check index bounds against the sizes at this case",
                               r);
        case CUDA_ERROR_MISALIGNED_ADDRESS:
            return KernelFault(KB_VERDICT_RUNTIME_ERROR,
                               "the kernel made a misaligned access during " + during + " (" + text +
                                   "): vector loads (float4, ...) need addresses aligned to their size",
                               r);
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
            return KernelFault(KB_VERDICT_RUNTIME_ERROR,
                               "the kernel executed an illegal instruction or __trap() during " + during + " (" +
                                   text + ")",
                               r);
        case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
            return KernelFault(KB_VERDICT_LAUNCH_ERROR,
                               "too many resources requested for launch during " + during +
                                   ": the block needs more registers than the SM has; use a smaller block or "
                                   "__launch_bounds__ (" + text + ")",
                               r);
        case CUDA_ERROR_INVALID_VALUE:
        case CUDA_ERROR_INVALID_HANDLE:
        case CUDA_ERROR_NOT_SUPPORTED:
            return KernelFault(KB_VERDICT_LAUNCH_ERROR, "the launch was refused during " + during + " (" + text + ")",
                               r);
        default:
            return KernelFault(cuda_error_is_sticky(r) ? KB_VERDICT_RUNTIME_ERROR : KB_VERDICT_LAUNCH_ERROR,
                               "the kernel failed during " + during + " (" + text + ")", r);
    }
}

// ---------------------------------------------------------------------------
// Modules

CUmodule LoadedModule::load(const CompiledImage& img, const std::string& label) {
    char log[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(sizeof log - 1))};
    // PTX text must be NUL-terminated for the driver's JIT.
    std::string ptx;
    const void* image = img.bytes.data();
    if (img.kind == ImageKind::ptx) {
        ptx = img.bytes;
        image = ptx.c_str();
    }
    CUmodule module = nullptr;
    CUresult r = dev_.driver().cuModuleLoadDataEx(&module, image, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        if (cuda_error_is_sticky(r)) dev_.mark_lost(r, "loading a module");
        std::string msg = "the driver could not load the compiled " + std::string(img.kind == ImageKind::ptx ? "PTX" : "cubin") +
                          " of " + label + ": " + cuda_error_text(r);
        if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE)
            msg += "; the image targets " + (img.arch.empty() ? std::string("another architecture") : img.arch) +
                   " but the device is " + dev_.props().arch();
        if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
            msg += "; the PTX is newer than this driver supports: compile for this device's driver";
        if (log[0]) msg += std::string("\n") + log;
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR, msg, r);
    }
    return module;
}

LoadedModule::LoadedModule(Device& dev, const Kernel& k) : dev_(dev) {
    dev.throw_if_lost();
    if (!k.variants.empty()) {
        // Triton: one module per launch entry and specialisation key.
        struct Unload {  // the modules loaded so far, if a later one fails
            LoadedModule& self;
            bool armed = true;
            ~Unload() {
                if (armed && !self.dev_.lost())
                    for (CUmodule m : self.variant_modules_) self.dev_.driver().cuModuleUnload(m);
            }
        } unload{*this};
        for (const TritonVariant& v : k.variants) {
            CUmodule m = load(v.image, k.label);
            variant_modules_.push_back(m);
            TritonBinary b;
            b.launch = derive_triton_launch(v.image.triton_metadata, v.image.triton_signature, v.image.triton_ptx_entry);
            CUresult fr = dev.driver().cuModuleGetFunction(&b.function, m, b.launch.kernel.c_str());
            if (fr != CUDA_SUCCESS)
                throw KernelFault(KB_VERDICT_LAUNCH_ERROR, "the Triton binary of " + k.label + " has no entry point '" +
                                                               b.launch.kernel + "' (" + cuda_error_text(fr) + ")",
                                  fr);
            triton_.push_back(std::move(b));
            variant_keys_.push_back({v.step, v.key, CompiledImage{}});
        }
        unload.armed = false;
        return;
    }
    // A plan that launches no kernel (a built-in baseline) needs no module,
    // and has no image when it has no code.
    if (k.program.kernel_names().empty()) return;
    if (k.program.language == Language::triton_binary)
        triton_metadata_ = !k.image.triton_metadata.empty() ? k.image.triton_metadata : k.program.triton_metadata;
    module_ = load(k.image, k.label);
    if (!k.image.trap_flag.empty()) {
        size_t bytes = 0;
        CUresult fr = dev.driver().cuModuleGetGlobal(&trap_flag_, &bytes, module_, k.image.trap_flag.c_str());
        if (fr != CUDA_SUCCESS || bytes < sizeof(TrapFlag))
            fail(KB_ERR_INTERNAL, "the contained-trap flag '" + k.image.trap_flag + "' of " + k.label +
                                      " is not in its module (" + cuda_error_text(fr) + ")");
    }
    checked_only_ = k.image.checked_only;
    for (const std::string& name : k.program.kernel_names()) {
        auto it = k.image.symbols.find(name);
        // An image built for comparisons alone holds each kernel's checked copy only.
        const std::string& symbol = it != k.image.symbols.end() ? it->second : name;
        const std::string loaded = checked_only_ ? symbol + kCheckedSuffix : symbol;
        CUfunction f = nullptr;
        CUresult fr = dev.driver().cuModuleGetFunction(&f, module_, loaded.c_str());
        if (fr != CUDA_SUCCESS) {
            std::string entries;
            for (const std::string& e : k.image.entries) entries += (entries.empty() ? "" : ", ") + e;
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                              "the launch plan names kernel '" + name + "' but " + k.label +
                                  " has no entry point '" + symbol + "' (entries: " +
                                  (entries.empty() ? "none" : entries) + ")",
                              fr);
        }
        (checked_only_ ? checked_functions_ : functions_)[name] = f;
    }
    if (!k.image.checked_arm.empty()) resolve_checked(k);
    else if (checked_only_)
        fail(KB_ERR_INTERNAL, k.label + "'s image holds checked copies alone but names no entry that arms them");
}

void LoadedModule::resolve_checked(const Kernel& k) {
    // The checked copies live in the same module (compiler/fault_containment.h):
    // their flag is the module's trap flag.
    const CudaDriver& d = dev_.driver();
    std::map<std::string, CUfunction> copies;
    CUfunction arm = nullptr;
    CUresult r = d.cuModuleGetFunction(&arm, module_, k.image.checked_arm.c_str());
    if (checked_only_) {  // resolved with the kernels
        if (r != CUDA_SUCCESS || !trap_flag_)
            fail(KB_ERR_INTERNAL, "the arming entry of " + k.label + " is not in its module (" + cuda_error_text(r) + ")");
        arm_ = arm;
        return;
    }
    for (const auto& entry : functions_) {
        if (r != CUDA_SUCCESS) break;
        auto it = k.image.symbols.find(entry.first);
        const std::string copy = (it != k.image.symbols.end() ? it->second : entry.first) + kCheckedSuffix;
        r = d.cuModuleGetFunction(&copies[entry.first], module_, copy.c_str());
    }
    if (r != CUDA_SUCCESS || !trap_flag_)
        fail(KB_ERR_INTERNAL, "the checked copies of " + k.label + " are not in its module (" + cuda_error_text(r) + ")");
    arm_ = arm;
    checked_functions_ = std::move(copies);
}

CUresult LoadedModule::enqueue_arm(CUdeviceptr lo, CUdeviceptr hi, uint64_t limit_ns) const {
    if (!arm_) fail(KB_ERR_INTERNAL, "arming a module without a checked build");
    uint64_t args[3] = {uint64_t(lo), uint64_t(hi), limit_ns};
    void* params[3] = {&args[0], &args[1], &args[2]};
    return dev_.driver().cuLaunchKernel(arm_, 1, 1, 1, 1, 1, 1, 0, dev_.stream(), params, nullptr);
}

LoadedModule::~LoadedModule() {
    if (dev_.lost()) return;
    if (module_) dev_.driver().cuModuleUnload(module_);
    for (CUmodule m : variant_modules_) dev_.driver().cuModuleUnload(m);
}


CUfunction LoadedModule::function(const std::string& plan_name, bool checked) const {
    if (checked_only_ && !checked)
        fail(KB_ERR_INVALID_ARGUMENT, "kernel '" + plan_name + "' was built for comparisons only (a correctness-only "
                                      "score's build, with checked copies alone): it cannot be timed or launched "
                                      "unchecked; compile it without skipping timing to do that");
    const auto& functions = checked ? checked_functions_ : functions_;
    auto it = functions.find(plan_name);
    if (it == functions.end())
        fail(KB_ERR_INTERNAL, "kernel '" + plan_name + "' was not resolved at module load" + (checked ? " (checked build)" : ""));
    return it->second;
}

std::shared_ptr<LoadedModule> ModuleCache::get(Device& dev, const Kernel& k) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first == k.id) {
            entries_.splice(entries_.begin(), entries_, it);
            return entries_.front().second;
        }
    }
    auto m = std::make_shared<LoadedModule>(dev, k);
    entries_.emplace_front(k.id, m);
    while (entries_.size() > capacity_) entries_.pop_back();
    return m;
}

// ---------------------------------------------------------------------------
// Buffers

CaseBuffers::CaseBuffers(Device& dev, const Task& task, int case_index)
    : dev_(dev), task_(task), case_index_(case_index) {
    const Case& c = the_case();
    check_case_fits(task, case_index, uint64_t(dev.props().total_memory_bytes), host_memory_bytes(),
                    dev.props().name);
    args_.resize(task.args.size());
    shapes_.resize(task.args.size());
    counts_.resize(task.args.size(), 0);
    for (size_t i = 0; i < task.args.size(); ++i) {
        const Arg& a = task.args[i];
        if (!a.is_buffer()) continue;
        for (const Expr& e : a.shape) shapes_[i].push_back(e.eval(c.dims));
        counts_[i] = uint64_t(element_count(a.shape, c.dims, "args[" + std::to_string(i) + "] ('" + a.name + "')"));
        args_[i] = dev.alloc(counts_[i] * dtype_size(a.dtype));
    }
}

CaseBuffers::CaseBuffers(Device& dev, const Task& task, int case_index, std::vector<External> external)
    : dev_(dev), task_(task), case_index_(case_index) {
    const Case& c = the_case();
    args_.resize(task.args.size());
    shapes_.resize(task.args.size());
    counts_.resize(task.args.size(), 0);
    for (size_t i = 0; i < task.args.size(); ++i) {
        const Arg& a = task.args[i];
        if (!a.is_buffer()) continue;
        for (const Expr& e : a.shape) shapes_[i].push_back(e.eval(c.dims));
        counts_[i] = uint64_t(element_count(a.shape, c.dims, "args[" + std::to_string(i) + "] ('" + a.name + "')"));
    }
    set_external(std::move(external));
}

void CaseBuffers::set_external(std::vector<External> external) {
    if (external.size() != task_.args.size())
        fail(KB_ERR_INTERNAL, "CaseBuffers::set_external: " + std::to_string(external.size()) + " pointers for " +
                                  std::to_string(task_.args.size()) + " arguments");
    external_ = std::move(external);
}

CUdeviceptr CaseBuffers::arg_data(int arg_index) const {
    return external_.empty() ? args_.at(size_t(arg_index)).data() : external_.at(size_t(arg_index)).ptr;
}

size_t CaseBuffers::arg_bytes(int arg_index) const {
    return external_.empty() ? args_.at(size_t(arg_index)).bytes() : external_.at(size_t(arg_index)).bytes;
}

void CaseBuffers::require_own(const char* what) const {
    if (!external_.empty())
        fail(KB_ERR_INTERNAL, std::string("CaseBuffers::") + what + " on the caller's buffers (kb_launch)");
}

std::map<std::string, DeviceBuffer>& CaseBuffers::scratch(const Program& p, const std::string& key) {
    std::string signature;
    std::vector<uint64_t> counts;
    for (const Scratch& s : p.scratch) {
        counts.push_back(uint64_t(element_count(s.shape, the_case().dims, "scratch '" + s.name + "'")));
        signature += s.name + ":" + dtype_name(s.dtype) + ":" + std::to_string(counts.back()) + ";";
    }
    auto it = scratch_.find(key);
    if (it != scratch_.end() && scratch_signatures_[key] == signature) return it->second;
    auto& set = scratch_[key];
    set.clear();
    uint64_t in_use = 0;
    for (const DeviceBuffer& b : args_) in_use += b ? b.total_bytes() : 0;
    check_scratch_fits(p, the_case(), in_use, uint64_t(dev_.props().total_memory_bytes), dev_.props().name);
    for (size_t i = 0; i < p.scratch.size(); ++i)
        set.emplace(p.scratch[i].name, dev_.alloc(counts[i] * dtype_size(p.scratch[i].dtype)));
    auto& types = scratch_types_[key];
    types.clear();
    for (const Scratch& s : p.scratch) types.emplace_back(s.name, s.dtype);
    scratch_signatures_[key] = signature;
    return set;
}

void CaseBuffers::prepare(uint64_t seed) {
    require_own("prepare");
    for (size_t i = 0; i < task_.args.size(); ++i) {
        const Arg& a = task_.args[i];
        if (!a.is_buffer()) continue;
        if (a.is_input())
            dev_.fill_random(args_[i].data(), counts_[i], a.dtype, a.init.at(the_case().dims), seed, uint32_t(i));
        else dev_.poison(args_[i].data(), counts_[i], a.dtype);
    }
}

void CaseBuffers::reset_scratch(const Program& p, const std::string& key) {
    auto& set = scratch(p, key);
    for (const Scratch& s : p.scratch) {
        const DeviceBuffer& b = set.at(s.name);
        if (s.zero) dev_.fill_bytes(b.data(), b.bytes(), 0);
        else dev_.poison(b.data(), b.bytes() / dtype_size(s.dtype), s.dtype);
    }
}

void CaseBuffers::scrub(const std::string& key) {
    require_own("scrub");
    for (size_t i = 0; i < task_.args.size(); ++i)
        if (task_.args[i].is_output()) dev_.poison(args_[i].data(), counts_[i], task_.args[i].dtype);
    for (const auto& [name, dtype] : scratch_types_[key]) {
        const DeviceBuffer& b = scratch_[key].at(name);
        dev_.poison(b.data(), b.bytes() / dtype_size(dtype), dtype);
    }
}

std::vector<Device::Range> CaseBuffers::input_ranges() const {
    std::vector<Device::Range> out;
    for (size_t i = 0; i < task_.args.size(); ++i)
        if (task_.args[i].role == Role::in) out.push_back({args_[i].data(), args_[i].bytes()});
    return out;
}

std::vector<uint64_t> CaseBuffers::input_checksums() {
    require_own("input_checksums");
    return dev_.post_run_checks(input_ranges(), {}).checksums;
}

std::vector<uint64_t> CaseBuffers::prepared_input_checksums(uint64_t seed) {
    require_own("prepared_input_checksums");
    for (const auto& [s, sums] : prepared_checksums_)
        if (s == seed) return sums;
    constexpr size_t kSeedsKept = 4;
    if (prepared_checksums_.size() >= kSeedsKept) prepared_checksums_.erase(prepared_checksums_.begin());
    prepared_checksums_.emplace_back(seed, input_checksums());
    return prepared_checksums_.back().second;
}

std::pair<CUdeviceptr, CUdeviceptr> CaseBuffers::span(const std::string& key) const {
    CUdeviceptr lo = ~CUdeviceptr(0), hi = 0;
    auto add = [&](const DeviceBuffer& b) {
        if (!b) return;
        lo = std::min(lo, b.base());
        hi = std::max(hi, b.base() + b.total_bytes());
    };
    for (const DeviceBuffer& b : args_) add(b);
    auto it = scratch_.find(key);
    if (it != scratch_.end())
        for (const auto& kv : it->second) add(kv.second);
    for (const auto& kv : triton_scratch_) add(kv.second);
    return hi ? std::make_pair(lo, hi) : std::make_pair(CUdeviceptr(0), CUdeviceptr(0));
}

void CaseBuffers::arm_guards() {
    for (const DeviceBuffer& b : args_)
        if (b) dev_.arm_guards(b);
    for (auto& set : scratch_)
        for (auto& kv : set.second) dev_.arm_guards(kv.second);
    for (auto& kv : triton_scratch_) dev_.arm_guards(kv.second);
}

CUdeviceptr CaseBuffers::triton_scratch(const std::string& key, size_t bytes, size_t align) {
    // Device allocations start 256-byte aligned and the guard zone in front
    // keeps that (DeviceBuffer::kGuardBytes is a multiple of 256), which
    // covers every alignment Triton asks for (128 for TMA descriptors).
    if (align > 256) fail(KB_ERR_INTERNAL, "Triton asks for scratch aligned to " + std::to_string(align) + " bytes");
    // Binding the same key at the same size reuses the buffer: freeing it
    // while an earlier binding's launch may still run (kb_launch does not
    // wait) would not be safe, and poisoning it again is on the stream.
    auto it = triton_scratch_.find(key);
    if (it != triton_scratch_.end() && it->second.bytes() == bytes) {
        dev_.fill_bytes(it->second.data(), bytes, 0xa5);
        return it->second.data();
    }
    DeviceBuffer b = dev_.alloc(bytes);
    dev_.fill_bytes(b.data(), bytes, 0xa5);  // not zeroed, as with Triton: a kernel must not count on zeros
    CUdeviceptr p = b.data();
    triton_scratch_[key] = std::move(b);
    return p;
}

std::vector<std::pair<std::string, const DeviceBuffer*>> CaseBuffers::guarded_buffers() const {
    std::vector<std::pair<std::string, const DeviceBuffer*>> out;
    for (size_t i = 0; i < args_.size(); ++i)
        if (args_[i]) out.emplace_back(task_.args[i].name, &args_[i]);
    for (const auto& set : scratch_)
        for (const auto& kv : set.second) out.emplace_back("scratch '" + kv.first + "'", &kv.second);
    for (const auto& kv : triton_scratch_) out.emplace_back("Triton's " + kv.first, &kv.second);
    return out;
}

CUresult CaseBuffers::enqueue_after_run(const std::vector<int>& outputs, PendingAfterRun* out) {
    // One read-back for everything: a check per buffer and zone, or a
    // download per output, each waiting for the device, cost more than the
    // run of a small kernel.
    if (!outputs.empty()) require_own("enqueue_after_run");
    *out = PendingAfterRun{};
    std::vector<const DeviceBuffer*> buffers;
    for (auto& g : guarded_buffers()) {
        out->guarded.push_back(std::move(g.first));
        buffers.push_back(g.second);
    }
    std::vector<Device::Range> copies;
    for (int i : outputs)
        copies.push_back({args_[size_t(i)].data(), counts_[size_t(i)] * dtype_size(task_.args[size_t(i)].dtype)});
    out->outputs = outputs;
    std::vector<Device::Range> inputs = external_.empty() ? input_ranges() : std::vector<Device::Range>{};
    return dev_.enqueue_readback(inputs, buffers, copies, &out->readback);
}

CaseBuffers::AfterRun CaseBuffers::collect_after_run(const PendingAfterRun& pending) {
    PostRunChecks c = dev_.checks_of(pending.readback);
    AfterRun out;
    out.input_checksums = std::move(c.checksums);
    for (size_t i = 0; i < pending.guarded.size(); ++i)
        if (!c.guards[i].intact()) out.breaches.push_back({pending.guarded[i], c.guards[i]});
    for (size_t k = 0; k < pending.outputs.size(); ++k) {
        HostTensor t = tensor_of(pending.outputs[k]);
        const uint8_t* p = dev_.downloaded(pending.readback, k);
        t.bytes.assign(p, p + pending.readback.downloads[k].bytes);
        out.outputs.emplace(pending.outputs[k], std::move(t));
    }
    return out;
}

HostTensor CaseBuffers::tensor_of(int arg_index) const {
    const Arg& a = task_.args[size_t(arg_index)];
    HostTensor t;
    t.name = a.name;
    t.dtype = a.dtype;
    t.shape = shapes_[size_t(arg_index)];
    return t;
}

HostTensor CaseBuffers::download(int arg_index) {
    require_own("download");
    HostTensor t = tensor_of(arg_index);
    t.bytes.resize(counts_[size_t(arg_index)] * dtype_size(t.dtype));
    if (!t.bytes.empty()) dev_.download(t.bytes.data(), args_[size_t(arg_index)].data(), t.bytes.size());
    return t;
}

// ---------------------------------------------------------------------------
// Binding plans

namespace {

std::string dim3_text(const unsigned (&d)[3]) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

int64_t eval_at(const Expr& e, const Case& c, const std::string& where, const char* field) {
    try {
        return e.eval(c.dims);
    } catch (const ExprError& x) {
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR, where + ": " + field + " '" + e.text() + "' cannot be evaluated at case '" +
                                                       c.name + "': " + x.what());
    }
}

void check_param_sizes(Device& dev, CUfunction f, const std::vector<size_t>& sizes, const std::vector<std::string>& names,
                       const std::string& where) {
    std::vector<size_t> expected;
    for (size_t i = 0;; ++i) {
        size_t offset = 0, size = 0;
        CUresult r = dev.driver().cuFuncGetParamInfo(f, i, &offset, &size);
        if (r == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
        if (r != CUDA_SUCCESS) return;             // not supported for this image: nothing to check
        expected.push_back(size);
    }
    if (expected.size() != sizes.size())
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR, where + ": the kernel takes " + std::to_string(expected.size()) +
                                                       " parameter(s) but the launch plan passes " +
                                                       std::to_string(sizes.size()) +
                                                       "; make the plan's args match the kernel's signature");
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (expected[i] != sizes[i])
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                              where + ": parameter " + std::to_string(i) + " of the kernel is " +
                                  std::to_string(expected[i]) + " bytes but the plan passes '" + names[i] + "' (" +
                                  std::to_string(sizes[i]) + " bytes); check the parameter's type (a buffer is a "
                                  "pointer, 8 bytes; an i32 scalar is 4)");
    }
}

struct Marshalled {
    std::vector<uint64_t> slots;
    std::vector<size_t> sizes;
    std::vector<std::string> names;
    std::vector<bool> pointer;
};

// Device allocations are 256-byte aligned and the guard zone in front of a
// buffer's data keeps that: every buffer kbench passes meets Triton's
// 16-byte pointer assumption ("D"). bind_triton_step checks it anyway.
static_assert(DeviceBuffer::kGuardBytes % 256 == 0, "guard zones must keep buffers 256-byte aligned");

// A Triton launch (research notes A2) bound into `b`: block 32 x num_warps,
// the metadata's dynamic shared memory (opted in above 48 KiB as Triton's
// loader does), the parameters Triton compiled plus its hidden scratch
// pointers, and the cluster attributes. `grid` is the launch entry's.
void bind_triton_step(Device& dev, CaseBuffers& bufs, const TritonLaunch& t, const int64_t grid[3],
                      const Marshalled& args, const std::string& scratch_key, BoundStep& b) {
    const DeviceProps& props = dev.props();
    int64_t driver_grid[3];
    t.driver_grid(grid, driver_grid);
    for (int d = 0; d < 3; ++d) {
        if (grid[d] < 1 || driver_grid[d] > props.max_grid_dim[d])
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                              b.where + ": grid." + "xyz"[d] + " = " + std::to_string(grid[d]) +
                                  (t.cluster[d] > 1 ? " x " + std::to_string(t.cluster[d]) + " CTAs per cluster" : "") +
                                  "; the device allows 1.." + std::to_string(props.max_grid_dim[d]));
        b.grid[d] = unsigned(driver_grid[d]);
        b.cluster[d] = unsigned(t.cluster[d]);
    }
    b.block[0] = t.threads_per_block();
    b.block[1] = b.block[2] = 1;
    int max_for_kernel = 0, static_smem = 0;
    dev.check(dev.driver().cuFuncGetAttribute(&max_for_kernel, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, b.function),
              "cuFuncGetAttribute");
    dev.check(dev.driver().cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, b.function),
              "cuFuncGetAttribute");
    if (int64_t(b.block[0]) > max_for_kernel)
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                          b.where + ": num_warps " + std::to_string(t.num_warps) + " needs " + std::to_string(b.block[0]) +
                              " threads per block but this kernel allows at most " + std::to_string(max_for_kernel) +
                              " (its register use); use fewer warps");
    const int64_t optin = props.max_shared_per_block_optin;
    if (t.shared + static_smem > optin)
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                          b.where + ": out of resource: shared memory, required " + std::to_string(t.shared) +
                              " bytes, hardware limit " + std::to_string(optin) +
                              "; use smaller blocks or fewer num_stages");
    if (t.shared > 49152 && optin > 49152) {
        // Triton's loader: prefer shared memory, and allow the device's
        // opt-in maximum less the static part (not just what it needs).
        CUresult r = dev.driver().cuFuncSetCacheConfig(b.function, CU_FUNC_CACHE_PREFER_SHARED);
        if (r == CUDA_SUCCESS)
            r = dev.driver().cuFuncSetAttribute(b.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                int(optin - static_smem));
        if (r != CUDA_SUCCESS) throw fault_from_cuda(r, b.where + " (raising the dynamic shared memory limit)");
    }
    b.shared_mem = unsigned(t.shared);
    if (t.cluster_size() > 1 && props.cc_major < 9)
        throw KernelFault(KB_VERDICT_LAUNCH_ERROR, b.where + ": num_ctas " + std::to_string(t.num_ctas) +
                                                       " needs thread block clusters (sm_90 or newer); this device is " +
                                                       props.arch());
    if (t.num_ctas == 16) {
        CUresult r = dev.driver().cuFuncSetAttribute(b.function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        if (r != CUDA_SUCCESS) throw fault_from_cuda(r, b.where + " (allowing a cluster of 16)");
    }
    b.launch_ex = t.needs_launch_attributes();
    b.cooperative = t.cooperative;
    b.pdl = t.pdl;

    // The parameters in the kernel's order: the plan's arguments Triton kept
    // (constexprs and values specialised to 1 are compiled in), then the
    // hidden scratch pointers.
    std::vector<size_t> sizes;
    std::vector<std::string> names;
    for (const TritonParam& p : t.params) {
        if (p.kind == TritonParam::Kind::arg) {
            if (p.arg < 0 || size_t(p.arg) >= args.slots.size())
                fail(KB_ERR_INTERNAL, b.where + ": Triton parameter '" + p.name + "' takes argument " +
                                          std::to_string(p.arg) + " of " + std::to_string(args.slots.size()));
            size_t i = size_t(p.arg);
            if (p.bytes && p.bytes != args.sizes[i])
                fail(KB_ERR_INTERNAL, b.where + ": Triton compiled parameter '" + p.name + "' as " + p.type + " (" +
                                          std::to_string(p.bytes) + " bytes) but kbench passes '" + args.names[i] +
                                          "' in " + std::to_string(args.sizes[i]) + " bytes (a kbench bug)");
            if (args.pointer[i] && args.slots[i] % 16 != 0)
                fail(KB_ERR_INTERNAL, b.where + ": buffer '" + args.names[i] +
                                          "' is not 16-byte aligned, which Triton assumed (a kbench bug)");
            b.storage.push_back(args.slots[i]);
            sizes.push_back(args.sizes[i]);
            names.push_back(args.names[i]);
            continue;
        }
        const bool global = p.kind == TritonParam::Kind::global_scratch;
        const int64_t per_cta = global ? t.global_scratch_size : t.profile_scratch_size;
        const int64_t align = global ? t.global_scratch_align : t.profile_scratch_align;
        const int64_t bytes = t.scratch_bytes(per_cta, grid);
        CUdeviceptr ptr = 0;  // NULL when the kernel needs none, as Triton passes
        if (bytes > 0)
            ptr = bufs.triton_scratch(std::string(global ? "global" : "profile") + " scratch of " + scratch_key,
                                      size_t(bytes), size_t(align));
        b.storage.push_back(uint64_t(ptr));
        sizes.push_back(sizeof(CUdeviceptr));
        names.push_back(p.name);
    }
    check_param_sizes(dev, b.function, sizes, names, b.where);
    for (uint64_t& slot : b.storage) b.params.push_back(&slot);
}

}  // namespace

BoundPlan bind_plan(Device& dev, const LoadedModule& mod, const Program& p, CaseBuffers& bufs,
                    const std::string& scratch_key, BuiltinLibraries* builtins, bool checked) {
    const Task& task = bufs.task();
    const Case& c = bufs.the_case();
    const DeviceProps& props = dev.props();
    auto& scratch = bufs.scratch(p, scratch_key);
    auto find_buffer = [&](const std::string& name, size_t* bytes) -> CUdeviceptr {
        int ai = task.arg_index(name);
        if (ai >= 0 && task.args[size_t(ai)].is_buffer()) {
            *bytes = bufs.arg_bytes(ai);
            return bufs.arg_data(ai);
        }
        auto it = scratch.find(name);
        if (it != scratch.end()) {
            *bytes = it->second.bytes();
            return it->second.data();
        }
        return 0;
    };
    auto dtype_of = [&](const std::string& name) {
        if (const Arg* a = task.find_arg(name)) return a->dtype;
        for (const Scratch& s : p.scratch)
            if (s.name == name) return s.dtype;
        fail(KB_ERR_TASK_INVALID, "no argument or scratch buffer named '" + name + "'");
    };

    // A step's arguments, each in an 8-byte slot: buffers as device
    // pointers, scalars as their dtype's bytes.
    auto marshal = [&](const LaunchStep& s, const std::string& where) {
        Marshalled m;
        for (const LaunchArg& a : s.args) {
            if (a.kind == LaunchArg::Kind::scalar) {
                int64_t iv = a.is_float ? 0 : eval_at(a.value, c, where, "scalar argument");
                m.slots.push_back(scalar_param_slot(a.dtype, iv, a.float_value, a.is_float));
                m.sizes.push_back(dtype_size(a.dtype));
                m.names.push_back(a.is_float ? std::to_string(a.float_value) : a.value.text());
                m.pointer.push_back(false);
                continue;
            }
            int ai = task.arg_index(a.name);
            if (ai >= 0 && !task.args[size_t(ai)].is_buffer()) {
                const Arg& arg = task.args[size_t(ai)];
                int64_t iv = arg.scalar_is_float ? 0 : eval_at(arg.scalar_expr, c, where, "scalar");
                m.slots.push_back(scalar_param_slot(arg.dtype, iv, arg.scalar_float, arg.scalar_is_float));
                m.sizes.push_back(dtype_size(arg.dtype));
                m.pointer.push_back(false);
            } else {
                size_t bytes = 0;
                CUdeviceptr ptr = find_buffer(a.name, &bytes);
                if (!ptr) fail(KB_ERR_TASK_INVALID, where + ": no argument or scratch buffer named '" + a.name + "'");
                m.slots.push_back(uint64_t(ptr));
                m.sizes.push_back(sizeof(CUdeviceptr));
                m.pointer.push_back(true);
            }
            m.names.push_back(a.name);
        }
        return m;
    };

    BoundPlan plan;
    for (size_t si = 0; si < p.launch.size(); ++si) {
        const LaunchStep& s = p.launch[si];
        BoundStep b;
        if (s.kind == LaunchStep::Kind::zero) {
            b.zero = true;
            b.where = "launch[" + std::to_string(si) + "] (zero '" + s.target + "')";
            b.zero_ptr = find_buffer(s.target, &b.zero_bytes);
            if (!b.zero_ptr) fail(KB_ERR_TASK_INVALID, b.where + ": no buffer named '" + s.target + "'");
            plan.steps.push_back(std::move(b));
            continue;
        }
        if (s.kind == LaunchStep::Kind::builtin) {
            b.where = "launch[" + std::to_string(si) + "] (built-in '" + s.builtin + "') at case '" + c.name + "'";
            if (!builtins) fail(KB_ERR_INTERNAL, b.where + ": no library state was given to bind a built-in step");
            CUdeviceptr ptr[3];
            const std::string* names[3] = {&s.gemm.a, &s.gemm.b, &s.gemm.c};
            for (int i = 0; i < 3; ++i) {
                size_t bytes = 0;
                ptr[i] = find_buffer(*names[i], &bytes);
                if (!ptr[i]) fail(KB_ERR_TASK_INVALID, b.where + ": no buffer named '" + *names[i] + "'");
            }
            b.gemm = builtins->bind_gemm(s.gemm, c.dims, ptr[0], ptr[1], ptr[2], dtype_of(s.gemm.a),
                                         dtype_of(s.gemm.c), b.where);
            plan.steps.push_back(std::move(b));
            continue;
        }
        b.where = "launch[" + std::to_string(si) + "] (kernel '" + s.kernel + "') at case '" + c.name + "'";
        if (s.triton) {
            // Triton source: the binary compiled for this case's specialisation
            // (the selection throws, as a kbench bug, when there is none).
            const TritonVariant& v = triton_variant_for(mod.triton_variants(), task, p, si, c.dims, c.name);
            const LoadedModule::TritonBinary* bin = &mod.triton(size_t(&v - mod.triton_variants().data()));
            DimValues env;
            try {
                env = s.triton->env(c.dims);
            } catch (const ExprError& x) {
                throw KernelFault(KB_VERDICT_LAUNCH_ERROR, b.where + ": a constexpr cannot be evaluated: " + x.what());
            }
            int64_t grid[3];
            for (int d = 0; d < 3; ++d) {
                try {
                    grid[d] = s.grid[d].eval(env);
                } catch (const ExprError& x) {
                    throw KernelFault(KB_VERDICT_LAUNCH_ERROR, b.where + ": grid '" + s.grid[d].text() +
                                                                   "' cannot be evaluated: " + x.what());
                }
            }
            b.function = bin->function;
            bind_triton_step(dev, bufs, bin->launch, grid, marshal(s, b.where), scratch_key + " launch[" +
                                                                                    std::to_string(si) + "]", b);
            plan.steps.push_back(std::move(b));
            continue;
        }
        b.function = mod.function(s.kernel, checked);
        if (p.language == Language::triton_binary) {
            // A precompiled Triton cubin: the block and shared memory are the
            // metadata's, and the version's hidden parameters follow the plan's.
            TritonLaunch launch = derive_triton_binary_launch(mod.triton_metadata(), s.args.size());
            int64_t grid[3];
            for (int d = 0; d < 3; ++d) {
                grid[d] = eval_at(s.grid[d], c, b.where, "grid");
                int64_t want = d == 0 ? launch.threads_per_block() : 1;
                int64_t block = eval_at(s.block[d], c, b.where, "block");
                if (block != want)
                    throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                                      b.where + ": the plan's block." + "xyz"[d] + " is " + std::to_string(block) +
                                          " but Triton compiled the kernel for num_warps " +
                                          std::to_string(launch.num_warps) + ": the block must be (" +
                                          std::to_string(launch.threads_per_block()) + ", 1, 1)");
            }
            bind_triton_step(dev, bufs, launch, grid, marshal(s, b.where),
                             scratch_key + " launch[" + std::to_string(si) + "]", b);
            plan.steps.push_back(std::move(b));
            continue;
        }
        int64_t grid[3], block[3];
        for (int d = 0; d < 3; ++d) {
            grid[d] = eval_at(s.grid[d], c, b.where, "grid");
            block[d] = eval_at(s.block[d], c, b.where, "block");
        }
        int64_t smem = eval_at(s.shared_mem_bytes, c, b.where, "shared_mem");
        static const char* axis = "xyz";
        for (int d = 0; d < 3; ++d) {
            if (grid[d] < 1 || grid[d] > props.max_grid_dim[d])
                throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                                  b.where + ": grid." + axis[d] + " = " + std::to_string(grid[d]) + " ('" +
                                      s.grid[d].text() + "'); the device allows 1.." +
                                      std::to_string(props.max_grid_dim[d]));
            if (block[d] < 1 || block[d] > props.max_block_dim[d])
                throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                                  b.where + ": block." + axis[d] + " = " + std::to_string(block[d]) + " ('" +
                                      s.block[d].text() + "'); the device allows 1.." +
                                      std::to_string(props.max_block_dim[d]));
            b.grid[d] = unsigned(grid[d]);
            b.block[d] = unsigned(block[d]);
        }
        int64_t threads = block[0] * block[1] * block[2];
        if (threads > props.max_threads_per_block)
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR, b.where + ": block " + dim3_text(b.block) + " has " +
                                                           std::to_string(threads) + " threads; the device allows at most " +
                                                           std::to_string(props.max_threads_per_block) + " per block");
        int max_for_kernel = 0, static_smem = 0;
        dev.check(dev.driver().cuFuncGetAttribute(&max_for_kernel, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, b.function),
                  "cuFuncGetAttribute");
        dev.check(dev.driver().cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, b.function),
                  "cuFuncGetAttribute");
        if (threads > max_for_kernel)
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                              b.where + ": block of " + std::to_string(threads) + " threads exceeds this kernel's limit of " +
                                  std::to_string(max_for_kernel) +
                                  " (set by its register use or __launch_bounds__); launch fewer threads per block");
        if (smem < 0 || static_smem + smem > props.max_shared_per_block_optin)
            throw KernelFault(KB_VERDICT_LAUNCH_ERROR,
                              b.where + ": needs " + std::to_string(static_smem + smem) + " bytes of shared memory (" +
                                  std::to_string(static_smem) + " static + " + std::to_string(smem) +
                                  " dynamic) but the device allows at most " +
                                  std::to_string(props.max_shared_per_block_optin) + " per block");
        if (static_smem + smem > props.max_shared_per_block) {
            // What a host program does with cudaFuncSetAttribute before such a launch.
            CUresult r = dev.driver().cuFuncSetAttribute(b.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                         int(smem));
            if (r != CUDA_SUCCESS) throw fault_from_cuda(r, b.where + " (raising the dynamic shared memory limit)");
        }
        b.shared_mem = unsigned(smem);

        Marshalled m = marshal(s, b.where);
        b.storage = std::move(m.slots);
        check_param_sizes(dev, b.function, m.sizes, m.names, b.where);
        for (uint64_t& slot : b.storage) b.params.push_back(&slot);
        plan.steps.push_back(std::move(b));
    }
    return plan;
}

void BoundPlan::enqueue(Device& dev) const {
    const CudaDriver& d = dev.driver();
    for (const BoundStep& s : steps) {
        if (s.gemm) {
            s.gemm->enqueue(dev);
            continue;
        }
        CUresult r;
        if (s.zero) {
            r = d.cuMemsetD8Async(s.zero_ptr, 0, s.zero_bytes, dev.stream());
        } else if (s.launch_ex) {
            // Triton's launch attributes: cluster shape (spread scheduling, as
            // Triton asks), cooperative grid, programmatic dependent launch.
            CUlaunchAttribute attrs[4];
            unsigned n = 0;
            if (s.cluster[0] * s.cluster[1] * s.cluster[2] > 1) {
                attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                attrs[n].value.clusterDim.x = s.cluster[0];
                attrs[n].value.clusterDim.y = s.cluster[1];
                attrs[n].value.clusterDim.z = s.cluster[2];
                ++n;
                attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
                attrs[n].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
                ++n;
            }
            if (s.cooperative) {
                attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
                attrs[n].value.cooperative = 1;
                ++n;
            }
            if (s.pdl) {
                attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                attrs[n].value.programmaticStreamSerializationAllowed = 1;
                ++n;
            }
            CUlaunchConfig cfg{};
            cfg.gridDimX = s.grid[0];
            cfg.gridDimY = s.grid[1];
            cfg.gridDimZ = s.grid[2];
            cfg.blockDimX = s.block[0];
            cfg.blockDimY = s.block[1];
            cfg.blockDimZ = s.block[2];
            cfg.sharedMemBytes = s.shared_mem;
            cfg.hStream = dev.stream();
            cfg.attrs = attrs;
            cfg.numAttrs = n;
            r = d.cuLaunchKernelEx(&cfg, s.function, const_cast<void**>(s.params.data()), nullptr);
        } else {
            r = d.cuLaunchKernel(s.function, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2],
                                 s.shared_mem, dev.stream(), const_cast<void**>(s.params.data()), nullptr);
        }
        if (r != CUDA_SUCCESS) {
            if (cuda_error_is_sticky(r)) dev.mark_lost(r, s.where);
            throw fault_from_cuda(r, s.where);
        }
    }
}

}  // namespace kb
