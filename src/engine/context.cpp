#include "engine/context.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "compiler/triton_specialize.h"

#include "engine/efficiency.h"
#include "engine/empty_candidate.h"
#include "engine/local_backend.h"
#include "util/env_number.h"
#include "util/error.h"
#include "util/files.h"
#include "util/release_together.h"
#include "util/text.h"

namespace kb {
namespace {

// A factory of the worker's host side, which the creator of the context must
// have supplied when it asks for isolation.
template <class F>
const F& require(const F& factory) {
    if (!factory)
        fail(KB_ERR_WORKER, "worker isolation was asked for (or is the default of a device context), but this "
                            "context was created without the worker's host side; create it through "
                            "kb_context_create, or ask for KB_ISOLATION_IN_PROCESS for trusted kernels");
    return factory;
}

// Code past the size limit is the candidate's fault: a compile error its
// author can act on (a verdict from kb_score), found before it is compiled.
[[noreturn]] void code_too_large(const std::string& label, uint64_t size, uint64_t max, const char* field) {
    std::string what = label + ": the candidate is " + std::to_string(size) + " bytes long, more than " +
                       format_bytes(max) + "; " + raise_hint(field);
    if (std::string(field) == "max_document_bytes") fail(KB_ERR_TASK_INVALID, what);
    throw CompileError(what, label + ": error: the code is larger than " + format_bytes(max) + "\n");
}

}  // namespace

Context::Context(const ContextOptions& opts, const Isolation& isolation) : opts_(opts), isolation_(isolation) {
    CompilerConfig cc;
    cc.cuda_home = opts.cuda_home.empty() ? default_cuda_home() : opts.cuda_home;
    cc.cache_dir = opts.cache_dir;
    cc.timeout_s = opts.compile_timeout_s;
    cc.process_limits = opts.compile_limits;
    cc.contain_traps = opts.contain_traps;
    cc.contain_comparisons = opts.contain_comparisons;
    if (cc.cache_dir.empty())
        if (const char* env = std::getenv("KBENCH_CACHE_DIR")) cc.cache_dir = env;
    if (!cc.cache_dir.empty()) make_dirs(cc.cache_dir);

    // $KBENCH_GPU_SHARERS: how many lanes may run correctness work on the
    // GPU at once (unset: all of them). Fewer than the lanes lets the rest
    // import and compile candidates meanwhile without adding to the work
    // that time-slices on the GPU.
    if (auto n = env_number("KBENCH_GPU_SHARERS", 1, 1024,
                            "every lane to run correctness work on the GPU at once (a number caps how many)"))
        gpu_phase_.set_max_sharers(unsigned(*n));
    info_["gpu_sharers"] = gpu_phase_.max_sharers();

    // Worker isolation (docs/isolation.md): asked for, or the default for a
    // context that runs kernels. A compile-only context runs no kernels and
    // compiles in this process unless KB_ISOLATION_WORKER asks otherwise.
    const bool isolate = opts.isolation == KB_ISOLATION_WORKER ||
                         (opts.isolation == KB_ISOLATION_DEFAULT && opts.device != KB_DEVICE_NONE);
    isolated_ = isolate;

    info_["kbench_version"] = KB_VERSION_MAJOR * 10000 + KB_VERSION_MINOR * 100 + KB_VERSION_PATCH;
    info_["nvrtc_version"] = Compiler::nvrtc_version();
    info_["cuda_home"] = cc.cuda_home;
    info_["cache_dir"] = cc.cache_dir;
    info_["contain_traps"] = Compiler::traps_contained(cc);
    info_["containment"] = Compiler::containment_name(cc);
    // Whether this context asks for its Python workers to be confined
    // (false: KB_CONTEXT_NO_CONFINE); what is in force is each score's "sandbox".
    info_["confine"] = opts.confine;
    if (opts.device == KB_DEVICE_NONE) {
        // No device: validate and compile only, to PTX unless a target was named.
        arch_ = opts.arch.empty() ? "sm_90" : opts.arch;
        opts_.emit_ptx = opts.arch.empty() || opts.emit_ptx;
        info_["device"] = nullptr;
        info_["isolation"] = "none";
    } else {
        if (isolate) backend_ = require(isolation.backend)(opts);
        else backend_ = std::make_unique<LocalBackend>(opts.device);
        Json dev = backend_->device_info();
        arch_ = opts.arch.empty() ? dev["arch"].get<std::string>() : opts.arch;
        info_["device"] = dev;
        info_["isolation"] = dev.value("isolation", "in_process");
        std::string warning;
        ceilings_ = cached_ceilings(dev, &warning);
        if (!warning.empty()) info_["ceilings_warning"] = warning;
    }
    // After the backend: a context without a device fails with
    // KB_ERR_NO_DEVICE before it looks for a worker.
    std::shared_ptr<CompileSandbox> sandbox;
    if (isolate) sandbox = require(isolation.compile_sandbox)(opts_, cc);
    compiler_ = std::make_unique<Compiler>(cc, std::move(sandbox));
    info_["compile_isolation"] = compiler_->sandboxed() ? "worker" : "in_process";
    info_["arch"] = arch_;
    info_["emit"] = opts_.emit_ptx ? "ptx" : "cubin";
    info_["nvcc_fallback"] = opts_.nvcc_fallback;
    info_["compile_limits"] = {{"memory_bytes", cc.process_limits.memory_bytes},
                               {"cpu_s", cc.process_limits.cpu_s},
                               {"wall_s", cc.timeout_s},
                               {"file_bytes", cc.process_limits.file_bytes}};
}

Context::~Context() {
    // In-process backends free device memory on the thread that holds their
    // CUDA context: they end here, in member order.
    if (!isolated_) return;
    // Every worker process (each lane's, the programs', the compile
    // workers') is asked to end and waited for, side by side: a device
    // worker's end frees its CUDA context, which takes a while, and a
    // context of several lanes waited for their sum (util/release_together.h).
    if (end_without_waiting_) {
        for (auto& lane : lanes_)
            if (lane->backend) lane->backend->let_go();
        if (backend_) backend_->let_go();
        for (auto& lane : lanes_)
            if (lane->programs) lane->programs->let_go();
        if (programs_) programs_->let_go();
        if (program_refs_) program_refs_->let_go();
        if (program_builders_) program_builders_->let_go();
        if (compiler_) compiler_->let_go();
    }
    std::vector<std::shared_ptr<void>> owners;
    for (auto& lane : lanes_)
        if (lane->backend) owners.emplace_back(std::move(lane->backend));
    if (backend_) owners.emplace_back(std::move(backend_));
    for (auto& lane : lanes_)
        if (lane->programs) owners.emplace_back(std::move(lane->programs));
    if (programs_) owners.emplace_back(std::move(programs_));
    if (program_refs_) owners.emplace_back(program_refs_->release());
    if (program_builders_)
        for (auto& w : program_builders_->release()) owners.emplace_back(std::move(w));
    if (compiler_) owners.emplace_back(std::move(compiler_));
    release_together(std::move(owners));
}

Backend& Context::lane_programs(size_t lane) {
    // The caller holds the lane's mutex: only it makes the lane's backend.
    std::unique_ptr<Backend>* slot = &programs_;
    if (lane > 0) {
        std::lock_guard<std::mutex> lock(lanes_mutex_);
        if (lane > lanes_.size()) fail(KB_ERR_INTERNAL, "lane " + std::to_string(lane) + " does not exist");
        slot = &lanes_[lane - 1]->programs;
    }
    if (!*slot) {
        if (!isolation_.python_workers)
            fail(KB_ERR_WORKER, "this context was created without the Python workers' host side; create it through "
                                "kb_context_create to score program candidates");
        unsigned sharing = 0;
        {
            std::lock_guard<std::mutex> lock(lanes_mutex_);
            // The reference worker and a candidate worker per lane share the device.
            sharing = unsigned(lanes_.size()) + 2;
            if (!program_refs_) {
                // Half the device for the correctness runs of all lanes at
                // once; the workers' input caches and the reference's kept
                // outputs have most of the rest.
                const Json dev = info_.value("device", Json());
                const uint64_t total = dev.is_object() ? dev.value("total_memory_bytes", uint64_t(0)) : 0;
                program_refs_ = std::make_unique<ProgramReferences>(
                    [this, sharing] { return isolation_.python_workers(opts_, ProgramRole::reference, sharing); },
                    total / 2);
            }
        }
        ContextOptions o = opts_;
        o.arch = arch_;  // where the worker sees no device (compile only): its load_inline builds' -gencode flags
        *slot = std::make_unique<ProgramBackend>(
            *program_refs_, [this, o, sharing] { return isolation_.python_workers(o, ProgramRole::candidate, sharing); },
            sharing);
    }
    return **slot;
}

ProgramBuilders* Context::program_builders() {
    std::lock_guard<std::mutex> lock(builders_mutex_);
    if (!builders_decided_) {
        const char* env = std::getenv("KBENCH_PREBUILD");
        const std::string setting = env ? env : "";
        if (!setting.empty() && setting != "0" && setting != "1")
            fail(KB_ERR_INVALID_ARGUMENT, "$KBENCH_PREBUILD is '" + setting +
                                              "': 1 builds load_inline answers ahead of the lanes, 0 leaves them to "
                                              "the lanes' workers; unset, a context with a device builds ahead");
        const bool on = setting == "1" || (setting.empty() && has_device());
        if (on && isolation_.python_workers) {
            ContextOptions o = opts_;
            o.arch = arch_;  // the device's: the builder's -gencode flags
            program_builders_ = std::make_unique<ProgramBuilders>(
                [this, o] { return isolation_.python_workers(o, ProgramRole::builder, 1); },
                ProgramBuilders::default_count(std::max(1u, std::thread::hardware_concurrency())));
        }
        builders_decided_ = true;  // a bad setting above fails every score that asks, each with its fix
    }
    return program_builders_.get();
}

Backend& Context::stage_backend(const DeviceScore& s, size_t lane) {
    return s.kernel && s.kernel->host_program ? lane_programs(lane) : lane_backend(lane);
}

Backend& Context::backend() {
    if (!backend_)
        fail(KB_ERR_NO_DEVICE, "this context has no device (it was created with device = KB_DEVICE_NONE or none is "
                               "present): it validates and compiles, but cannot run kernels");
    return *backend_;
}

Program Context::resolve_candidate(const Task& task, const CandidateInput& in, std::string* label) const {
    std::string code = in.code;
    std::string base_dir;
    Language lang = in.language;
    if (!in.language_given) {
        lang = Language::cuda;
        if (ends_with(in.path, ".ptx")) lang = Language::ptx;
        if (ends_with(in.path, ".cubin")) lang = Language::cubin;
        if (ends_with(in.path, ".py")) lang = Language::triton;
    }
    *label = !in.label.empty() ? in.label : !in.path.empty() ? in.path : "candidate";
    const Limits& limits = opts_.limits;
    if (code.empty()) {
        if (in.path.empty()) fail(KB_ERR_INVALID_ARGUMENT, "the candidate has neither code nor a path");
        const bool document = !in.language_given && ends_with(in.path, ".json");
        const uint64_t max = document ? limits.max_document_bytes : limits.max_source_bytes;
        FileRead file = read_regular_file(in.path, max);  // never a device, a FIFO or endless data
        if (file.too_large)
            code_too_large(*label, file.size, max, document ? "max_document_bytes" : "max_source_bytes");
        code = std::move(file.data);
        base_dir = dirname_of(in.path);
        if (document) {
            Json doc = parse_json_text(code, in.path, limits);
            // A plan passed by the caller overrides the document's own.
            if (in.launch_json && doc.is_object()) {
                Json plan = parse_json_text(*in.launch_json, "launch_json", limits);
                if (plan.is_object()) {
                    doc.erase("launch");
                    doc.erase("scratch");
                    for (auto& kv : plan.items()) doc[kv.key()] = kv.value();
                }
            }
            return parse_candidate_document(doc, task, base_dir, limits);
        }
    } else if (code.size() > limits.max_source_bytes) {
        code_too_large(*label, code.size(), limits.max_source_bytes, "max_source_bytes");
    }
    refuse_empty_candidate(code, *label, task);  // a compile error, not "no launch" or an internal error
    Program p;
    const std::string source_name = in.path.empty() ? *label : in.path.substr(in.path.find_last_of('/') + 1);
    if (in.launch_json) {
        p = parse_launch_plan(parse_json_text(*in.launch_json, "launch_json", limits), task, "launch_json", false, lang,
                              limits);
    } else if (lang == Language::triton) {
        // A bare Triton file carries its launch in `# kbench: launch ...`
        // comments (docs/triton.md); the task's default plan is for CUDA.
        Json plan = triton_plan_from_comments(code, source_name, task);
        if (plan.is_null())
            fail(KB_ERR_TASK_INVALID, source_name + ": a Triton candidate needs its launch (kernel, grid, constexprs): "
                                                    "add a comment `# kbench: launch kernel=NAME grid=EXPR "
                                                    "BLOCK=1024 num_warps=4` to the file, pass launch_json, or wrap "
                                                    "it in a kbench-candidate/1 document (docs/triton.md)");
        p = parse_launch_plan(plan, task, source_name, false, lang, limits);
    } else if (task.candidate_default) {
        p = *task.candidate_default;
    } else {
        fail(KB_ERR_TASK_INVALID, "the candidate brings no launch plan and the task '" + task.name +
                                      "' defines no default (task.candidate.launch); pass one as launch_json");
    }
    p.language = lang;
    p.source = std::move(code);
    p.source_name = lang == Language::triton ? (source_name.empty() ? "candidate.py" : source_name) : *label;
    p.triton_metadata = in.triton_metadata;
    return p;
}

KernelPtr Context::compile(const Task& task, const Program& program, const std::string& label,
                           const std::vector<int>& cases, bool comparisons_only) {
    if (program.language == Language::python)
        fail(KB_ERR_INVALID_ARGUMENT, "'" + label + "' is Python (a program candidate): it is not compiled but run by "
                                      "kbench's Python workers; score it with kb_score against a task whose reference "
                                      "is Python (docs/programs.md)");
    if (!program.has_code()) {
        // A baseline of built-in steps only: nothing to compile, no image.
        if (!program.kernel_names().empty())
            fail(KB_ERR_INTERNAL, label + " launches kernels but has no code (the loader should have refused it)");
        Kernel k;
        k.label = label;
        k.program = program;
        k.image.path = "builtin";  // how it was "built": library calls only
        k.image.arch = arch_;
        return finish_kernel(std::move(k));
    }
    CompileRequest req;
    req.language = program.language;
    req.code = program.source;
    req.source_name = program.source_name.empty() ? label : program.source_name;
    req.kernel_names = program.kernel_names();
    req.policy = task.policy;
    req.arch = arch_;
    req.emit_ptx = opts_.emit_ptx;
    req.comparisons_only = comparisons_only;
    req.allow_nvcc_fallback = opts_.nvcc_fallback;
    req.triton_metadata = program.triton_metadata;
    req.expect = launch_expectations(task, program);
    req.headers = program.headers;
    Kernel k;
    k.label = label;
    k.program = program;
    if (program.language == Language::triton) {
        // One binary per launch entry and specialisation key of the cases
        // (Triton compiles in processes of its own: the service calls it from
        // here even when the context sandboxes compiles).
        auto t0 = std::chrono::steady_clock::now();
        k.variants = compile_triton_variants(*compiler_, req, task, program, cases);
        if (k.variants.empty()) fail(KB_ERR_TASK_INVALID, label + ": the Triton program has no kernel launch entry");
        k.image = k.variants.front().image;
        k.image.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        k.image.log.clear();
        for (const TritonVariant& v : k.variants) {
            k.image.cache_hit = k.image.cache_hit && v.image.cache_hit;
            k.image.log += v.image.log;
        }
        return finish_kernel(std::move(k));
    }
    k.image = compiler_->compile(req);
    // A kernel whose name fits but whose parameters do not take what the plan
    // passes is rejected here, as a host launch would be by nvcc. Not a
    // Triton cubin: Triton's launcher appends its scratch pointers to the
    // plan's arguments (compiler/given_backend.cpp).
    if (req.language != Language::triton_binary) check_kernel_parameters(req.expect, k.image, req.source_name);
    return finish_kernel(std::move(k));
}

KernelPtr Context::compile_candidate(const TaskPtr& task, const CandidateInput& in) {
    std::string label;
    Program p = resolve_candidate(*task, in, &label);
    return compile(*task, p, label);
}

KernelPtr Context::compile_task_program(const TaskPtr& task, kb_program_role role) {
    if (role == KB_ROLE_REFERENCE) return compile(*task, task->reference, "reference");
    if (task->baseline) return compile(*task, *task->baseline, "baseline");
    return compile(*task, task->reference, "reference");
}

TaskBinding Context::bind(const TaskPtr& task) {
    if (task->python)
        fail(KB_ERR_INVALID_ARGUMENT, "task '" + task->name + "' has a Python reference, which kbench's Python workers "
                                      "run: score program candidates against it (kb_score with a Python candidate); "
                                      "running its reference or a kernel on it directly is not supported");
    std::promise<TaskBinding> mine;
    std::shared_future<TaskBinding> bound;
    bool binder = false;
    {
        std::lock_guard<std::mutex> lock(bind_mutex_);
        auto it = bindings_.find(task->hash);
        if (it != bindings_.end()) {
            bound = it->second;
        } else {
            bound = mine.get_future().share();
            bindings_.emplace(task->hash, bound);
            binder = true;
        }
    }
    if (!binder) return bound.get();  // another caller binds it; its error is rethrown here
    try {
        TaskBinding tb;
        tb.task = task;
        try {
            // The baseline compiles beside the reference, in a compile worker of its own.
            std::future<KernelPtr> baseline;
            if (task->baseline)
                baseline = std::async(std::launch::async, [this, &task] { return compile_task_program(task, KB_ROLE_BASELINE); });
            tb.reference = compile_task_program(task, KB_ROLE_REFERENCE);
            tb.baseline = task->baseline ? baseline.get() : tb.reference;
        } catch (const CompileError& e) {
            fail(KB_ERR_REFERENCE_FAILED, "the task's reference or baseline does not compile: " + std::string(e.what()) +
                                              "\n" + e.log());
        }
        mine.set_value(tb);
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(bind_mutex_);
            bindings_.erase(task->hash);
        }
        mine.set_exception(std::current_exception());
    }
    return bound.get();
}

size_t Context::ensure_lanes(size_t wanted) {
    if (!has_device()) {
        // Lanes for program candidates alone: their Python workers run
        // without a device (torch on the CPU, for tests).
        if (!isolation_.python_workers) return 1;
        std::lock_guard<std::mutex> lock(lanes_mutex_);
        while (lanes_.size() + 1 < wanted) lanes_.push_back(std::make_unique<Lane>());
        return std::max<size_t>(1, std::min(wanted, lanes_.size() + 1));
    }
    // Lanes need workers: in one process, two lanes would share one CUDA
    // stream and one set of buffers.
    if (info_.value("isolation", std::string()) != "worker" || !isolation_.backend) return 1;
    std::lock_guard<std::mutex> lock(lanes_mutex_);
    while (lanes_.size() + 1 < wanted) lanes_.push_back(std::make_unique<Lane>());
    // A batch asking for fewer lanes than an earlier one made uses the first ones.
    return std::max<size_t>(1, std::min(wanted, lanes_.size() + 1));
}

std::mutex& Context::lane_mutex(size_t lane) {
    if (lane == 0) return device_mutex_;
    std::lock_guard<std::mutex> lock(lanes_mutex_);
    if (lane > lanes_.size()) fail(KB_ERR_INTERNAL, "lane " + std::to_string(lane) + " does not exist");
    return lanes_[lane - 1]->mutex;
}

void Context::start_lane(size_t lane, bool kernels, bool programs) {
    try {
        std::lock_guard<std::mutex> device_lock(lane_mutex(lane));
        // The context started lane 0's kernel worker; without a device there
        // are none (a program lane's Python worker runs on the CPU).
        if (kernels && lane > 0 && has_device()) lane_backend(lane);
        if (programs) lane_programs(lane).start();
    } catch (const std::exception&) {
        // The lane's first score starts it again, and its result says why
        // it cannot.
    }
}

Backend& Context::lane_backend(size_t lane) {
    if (lane == 0 || !has_device()) return backend();  // without a device: KB_ERR_NO_DEVICE
    Lane* l;
    {
        std::lock_guard<std::mutex> lock(lanes_mutex_);
        if (lane > lanes_.size()) fail(KB_ERR_INTERNAL, "lane " + std::to_string(lane) + " does not exist");
        l = lanes_[lane - 1].get();
    }
    // The caller holds the lane's mutex: only it starts the lane's worker.
    if (!l->backend) l->backend = isolation_.backend(opts_);
    return *l->backend;
}

ReferenceResult Context::run_reference(const TaskPtr& task, int case_index, uint64_t seed) {
    Backend& b = backend();
    std::lock_guard<std::mutex> device_lock(device_mutex_);
    std::shared_lock<GpuPhaseLock> phase(gpu_phase_);
    return b.run_reference(bind(task), case_index, seed);
}

CompareResult Context::compare(const TaskPtr& task, const KernelPtr& kernel, int case_index, uint64_t seed,
                               unsigned runs) {
    Backend& b = backend();
    std::lock_guard<std::mutex> device_lock(device_mutex_);
    std::shared_lock<GpuPhaseLock> phase(gpu_phase_);
    return b.compare(bind(task), kernel, case_index, seed, runs);
}

void Context::launch(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x) {
    Backend& b = backend();
    std::lock_guard<std::mutex> device_lock(device_mutex_);
    std::shared_lock<GpuPhaseLock> phase(gpu_phase_);
    b.launch_external(task, kernel, x);
}

TimeResult Context::time(const TaskPtr& task, const KernelPtr& kernel, const TimeRequest& req) {
    if (kernel && kernel->image.checked_only)
        fail(KB_ERR_INVALID_ARGUMENT, kernel->label + " was built for comparisons only (a correctness-only score's "
                                      "build: checked copies alone, slower than the kernel itself): compile it "
                                      "without skipping timing to time it");
    Backend& b = backend();
    std::lock_guard<std::mutex> device_lock(device_mutex_);
    std::unique_lock<GpuPhaseLock> phase(gpu_phase_);  // the GPU alone while timing
    return b.time(bind(task), kernel, req);
}

}  // namespace kb
