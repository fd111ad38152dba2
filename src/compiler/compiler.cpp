#include "compiler/compiler.h"

#include <chrono>
#include <cstdlib>

#include "compiler/arch.h"
#include "compiler/device_headers.h"
#include "compiler/include_sandbox.h"
#include "compiler/source_prep.h"
#include "compiler/source_text.h"
#include "util/sha256.h"
#include "util/clock.h"
#include "util/profile.h"

#ifndef KB_BUILD_CUDA_HOME
#define KB_BUILD_CUDA_HOME "/usr/local/cuda"
#endif

namespace kb {
namespace {

using Clock = SteadyClock;


bool is_device_header(const std::string& name) {
    for (const VirtualHeader& h : device_headers())
        if (name == h.name) return true;
    return false;
}

CompilerConfig normalized(CompilerConfig c) {
    if (c.cuda_home.empty()) c.cuda_home = default_cuda_home();
    while (c.cuda_home.size() > 1 && c.cuda_home.back() == '/') c.cuda_home.pop_back();
    // A switch for measuring it against the full compile (bench/RESULTS.md).
    if (const char* v = std::getenv("KBENCH_NVRTC_MINIMAL"); v && std::string(v) == "0") c.nvrtc_minimal = false;
    // A switch over every context's choice, for measuring what containment
    // changes: 1 every build, "comparisons" the builds only compared, 0 none.
    if (const char* v = std::getenv("KBENCH_CONTAIN_TRAPS")) {
        const std::string s = v;
        if (s == "1" || s == "0" || s == "comparisons") {
            c.contain_traps = s == "1";
            c.contain_comparisons = s == "comparisons";
        }
    }
    if (const char* v = std::getenv("KBENCH_CHECKED_BUILD"); v && std::string(v) == "0") c.checked_build = false;
    if (const char* v = std::getenv("KBENCH_FAST_COMPILE"); v && std::string(v) == "0") c.comparisons_fast_compile = false;
    return c;
}

}  // namespace

const char* image_kind_name(ImageKind k) { return k == ImageKind::cubin ? "cubin" : "ptx"; }

ProcessLimits default_compile_limits() {
    ProcessLimits l;
    l.memory_bytes = uint64_t(8) << 30;
    l.cpu_s = 180;
    l.file_bytes = uint64_t(1) << 30;
    return l;
}

std::string default_cuda_home() {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        const char* v = std::getenv(var);
        if (v && *v) return v;
    }
    return KB_BUILD_CUDA_HOME;
}

Compiler::Compiler(CompilerConfig config, std::shared_ptr<CompileSandbox> sandbox)
    : config_(normalized(std::move(config))),
      nvcc_(config_),
      nvrtc_(config_, nvcc_.available()),
      triton_(config_),
      cache_(config_.cache_dir, config_.memory_cache_entries),
      sandbox_(std::move(sandbox)) {}

Compiler::~Compiler() = default;

std::string Compiler::nvrtc_version() {
    static const std::string v = nvrtc_version_string();
    return v;
}

bool Compiler::traps_contained(const CompilerConfig& config) { return normalized(config).contain_traps; }

std::string Compiler::containment_name(const CompilerConfig& config) {
    CompilerConfig c = normalized(config);
    if (c.contain_traps) return c.checked_build ? "all" : "traps";
    return c.contain_comparisons && c.checked_build ? "comparisons" : "none";
}

bool Compiler::faults_contained(const CompilerConfig& config) {
    CompilerConfig c = normalized(config);
    return c.contain_traps && c.checked_build;
}

std::vector<const CompileBackend*> Compiler::backends_for(const CompileRequest& rq) const {
    if (rq.language == Language::triton) return {&triton_};
    if (rq.language != Language::cuda) return {&given_};
    if (rq.force_nvcc) return {&nvcc_};
    return {&nvrtc_, &nvcc_};
}

std::string Compiler::cache_key(const CompileRequest& rq) const {
    Sha256 h;
    h.field("kbench-compile/2").field(std::to_string(KB_VERSION_NUMBER));
    // Which backends may build it, and what makes each one's output what it is.
    for (const CompileBackend* b : backends_for(rq)) h.field(b->name()).field(b->version());
    h.field(config_.cuda_home)
        .field(language_name(rq.language))
        .field(rq.arch)
        .field(rq.emit_ptx ? "ptx" : "cubin")
        .field(rq.policy.std)
        .field(rq.policy.fast_math ? "fast-math" : "precise")
        .field(rq.policy.deterministic ? "deterministic" : "")
        .field(std::to_string(rq.policy.max_registers))
        .field(std::to_string(rq.policy.defines.size()));
    for (const std::string& d : rq.policy.defines) h.field(d);
    h.field(rq.source_name).field(rq.code).field(rq.triton_metadata);
    h.field(std::to_string(rq.headers.size()));
    for (const SourceFile& f : rq.headers) h.field(f.name).field(f.text);
    h.field(std::to_string(rq.kernel_names.size()));
    for (const std::string& n : rq.kernel_names) h.field(n);
    h.field(expectations_key(rq.expect));
    // Only where it changes the build (NVRTC's, with faults contained:
    // nvrtc_backend.cpp); other keys stay as they were.
    if (NvrtcBackend::checked_copies_only(config_, rq)) h.field("comparisons-only");
    if (NvrtcBackend::fast_compiles(config_, rq)) h.field("fast-compile=mid");
    if (rq.language == Language::triton) h.field(rq.triton.key());
    return h.hex();
}

CompiledImage Compiler::compile(const CompileRequest& rq) {
    auto t0 = Clock::now();
    parse_arch(rq.arch);  // a bad target is the caller's error, not the code's
    if (rq.language != Language::cuda && rq.language != Language::triton) {
        // Given images: validated and indexed, nothing worth caching.
        CompiledImage img = build(rq);
        img.hash = cache_key(rq);
        img.compile_ms = ms_since(t0);
        return img;
    }
    std::string key = cache_key(rq);
    // The key leaves allow_nvcc_fallback out (an NVRTC image is the answer
    // either way); an image only nvcc could build is no answer for a request
    // that forbids the fallback: that request compiles afresh, uncached.
    auto usable = [&](const CompiledImage& img) {
        return rq.allow_nvcc_fallback || rq.force_nvcc || img.path != "nvcc";
    };
    auto uncached = [&]() {
        CompiledImage img = build(rq);
        img.hash = key;
        img.compile_ms = ms_since(t0);
        return img;
    };
    std::shared_future<CompiledImage> wait_for;
    std::promise<CompiledImage> promise;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        std::optional<CompiledImage> hit = cache_.find_in_memory(key);
        if (hit && usable(*hit)) {
            hit->cache_hit = true;
            hit->compile_ms = ms_since(t0);
            return *hit;
        }
        auto running = in_flight_.find(key);
        if (running != in_flight_.end()) {
            wait_for = running->second;
        } else {
            in_flight_[key] = promise.get_future().share();
        }
    }
    if (wait_for.valid()) {
        CompiledImage img;
        try {
            img = wait_for.get();  // rethrows the other thread's CompileError
        } catch (const CompileError&) {
            // That compile may have had other fallback settings: failures
            // are not shared (nor cached), each request gets its own verdict.
            return uncached();
        }
        if (!usable(img)) return uncached();
        img.cache_hit = true;
        img.compile_ms = ms_since(t0);
        return img;
    }
    CompiledImage img;
    try {
        std::optional<CompiledImage> stored = cache_.find(key);
        if (stored && usable(*stored)) {
            img = std::move(*stored);
            img.cache_hit = true;
        } else {
            img = build(rq);
            img.hash = key;
            cache_.put(key, img);
        }
        promise.set_value(img);
    } catch (...) {
        promise.set_exception(std::current_exception());
        std::lock_guard<std::mutex> lock(mutex_);
        in_flight_.erase(key);
        throw;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        in_flight_.erase(key);
    }
    img.compile_ms = ms_since(t0);
    return img;
}

CompiledImage Compiler::build(const CompileRequest& rq) {
    if (sandbox_)
        for (const CompileBackend* b : backends_for(rq))
            if (!b->out_of_process()) return sandbox_->build(rq);
    return compile_fresh(rq);
}

CompiledImage Compiler::compile_fresh(const CompileRequest& rq) {
    if (rq.language == Language::cuda) return compile_cuda(rq);
    if (rq.language == Language::triton) return triton_.compile(rq);
    return given_.compile(rq);
}

CompiledImage Compiler::compile_cuda(const CompileRequest& rq) {
    KB_PROFILE_SPAN("compiler.compile_cuda");
    // A binary or non-UTF-8 file: one clear message before any compiler
    // echoes its bytes into a log.
    std::string not_text = source_text_problem(rq.code, rq.source_name);
    if (!not_text.empty()) throw CompileError(not_text, "");
    // A framework extension (torch/extension.h, ...) gets the message that
    // says what a candidate is, before the sandbox calls the header unknown.
    reject_framework_includes(scan_includes(rq.code), rq.source_name);
    // The include sandbox (include_sandbox.h), before any backend: nothing
    // outside the toolkit, the host compiler's headers, kbench's in-memory
    // headers and the named headers is read by either compiler.
    IncludePolicy sandbox;
    sandbox.dirs = include_dirs();
    for (const std::string& d : host_compiler_include_dirs()) sandbox.dirs.push_back(d);
    sandbox.is_builtin = &is_device_header;
    { KB_PROFILE_SPAN("compiler.sandbox"); check_file_references(rq.source_name, rq.code, rq.headers, sandbox); }
    if (rq.force_nvcc) {
        if (!nvcc_.available())
            fail(KB_ERR_INVALID_ARGUMENT, "force_nvcc: there is no nvcc at " + config_.cuda_home + "/bin/nvcc");
        CompiledImage img = nvcc_.compile(rq);
        img.fallback_reason = "force_nvcc";
        return img;
    }
    try {
        return nvrtc_.compile(rq);
    } catch (const NvrtcDefers& d) {
        // NVRTC cannot give nvcc's verdict here: nvcc decides, and its log
        // says why it was asked.
        const std::string note = d.note() + "\n";
        CompiledImage img;
        try {
            img = nvcc_.compile(rq);
        } catch (const CompileError& e) {
            // A kernel missing from both images: the note ("NVRTC compiled
            // the code, but: <this message>") would only repeat the message.
            bool repeats = d.nvrtc_error() && std::string(d.nvrtc_error()->what()) == e.what() &&
                           d.note().find("NVRTC compiled the code") != std::string::npos;
            throw CompileError(e.what(), join_log(e.log(), repeats ? "" : note));
        } catch (const Error& e) {
            // nvcc could not run: NVRTC's verdict stands where it gave one.
            if (d.nvrtc_error())
                throw CompileError(d.nvrtc_error()->what(),
                                   join_log(d.nvrtc_error()->log(), std::string("kbench: ") + e.what()));
            throw;
        }
        img.nvrtc_ms = d.nvrtc_ms();
        img.log = join_log(img.log, note);
        img.fallback_reason = d.note();
        return img;
    }
}

}  // namespace kb
