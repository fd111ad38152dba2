// The compiler: request in, loadable image out (docs/compilation.md).
//
//   CUDA C++ ─ framework-include check ─ host-code split ─ NVRTC (+ shims) ─┐
//                                             │ compile error / no kernel   ├─ entries, names ─ image
//                                             └────────── nvcc fallback ────┘
//   PTX / cubin / Triton cubin ─ validation ─ entries, names ─ image ("given")
//
// Results are cached by content: memory (per Compiler) and, when configured,
// a directory shared between processes.
#include "compiler/compiler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <regex>

#include "compiler/compile_log.h"
#include "compiler/device_headers.h"
#include "compiler/image_entries.h"
#include "compiler/nvcc_backend.h"
#include "compiler/nvrtc_backend.h"
#include "compiler/source_prep.h"
#include "util/files.h"
#include "util/json.h"
#include "util/sha256.h"

#ifndef KB_BUILD_CUDA_HOME
#define KB_BUILD_CUDA_HOME "/usr/local/cuda"
#endif

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Arch {
    int sm = 0;          // 90
    std::string digits;  // "90"
    std::string suffix;  // "", "a" or "f"
};

// "sm_90", "sm_90a", "sm_100f", "compute_90" -> {90, "90", suffix}.
Arch parse_arch(const std::string& arch) {
    static const std::regex re("^(sm|compute)_([0-9]{2,3})([af]?)$");
    std::smatch m;
    if (!std::regex_match(arch, m, re))
        fail(KB_ERR_INVALID_ARGUMENT, "architecture '" + arch + "': expected sm_XY, sm_XYa or sm_XYf (e.g. sm_90)");
    Arch a;
    a.digits = m[2];
    a.sm = std::stoi(a.digits);
    a.suffix = m[3];
    return a;
}

bool is_executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }
bool is_dir(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The name expression NVRTC needs for a template kernel name: the name
// without a parameter list ("k<float, 4>(float*)" -> "k<float, 4>").
std::string name_expression(const std::string& name) {
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == '(' && depth == 0) return name.substr(0, i);
    }
    return name;
}

std::string notes_of(const PreparedSource& prep) {
    std::string n;
    if (!prep.removed.empty()) {
        n += "kbench: host-only code left out of the NVRTC compilation:\n";
        for (const std::string& r : prep.removed) n += "kbench:   " + r + "\n";
    }
    if (!prep.annotated.empty()) {
        n += "kbench: constexpr functions compiled as __host__ __device__ (as nvcc --expt-relaxed-constexpr allows):\n";
        for (const std::string& a : prep.annotated) n += "kbench:   " + a + "\n";
    }
    if (!prep.understood) n += "kbench: the host-code splitter could not follow this source; it went to NVRTC unchanged\n";
    for (const std::string& w : prep.nvcc_only) n += "kbench: warning: nvcc may reject this: " + w + "\n";
    return n;
}

std::string join_log(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + (a.back() == '\n' ? "" : "\n") + b;
}

const char* kind_name(ImageKind k) { return k == ImageKind::cubin ? "cubin" : "ptx"; }


}  // namespace

std::string default_cuda_home() {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        const char* v = std::getenv(var);
        if (v && *v) return v;
    }
    return KB_BUILD_CUDA_HOME;
}

Compiler::Compiler(CompilerConfig config) : config_(std::move(config)) {
    if (config_.cuda_home.empty()) config_.cuda_home = default_cuda_home();
    while (config_.cuda_home.size() > 1 && config_.cuda_home.back() == '/') config_.cuda_home.pop_back();
    if (!config_.cache_dir.empty()) make_dirs(config_.cache_dir);
}

Compiler::~Compiler() = default;

std::string Compiler::nvrtc_version() {
    static const std::string v = nvrtc_version_string();
    return v;
}

std::vector<std::string> Compiler::include_dirs() const {
    std::vector<std::string> dirs;
    for (const char* sub : {"/include", "/include/cccl"}) {
        std::string d = config_.cuda_home + sub;
        if (is_dir(d)) dirs.push_back(d);
    }
    return dirs;
}

std::string Compiler::nvcc_path() const {
    std::string p = config_.cuda_home + "/bin/nvcc";
    return is_executable(p) ? p : "";
}

std::vector<std::string> Compiler::nvrtc_options(const CompileRequest& rq) const {
    Arch a = parse_arch(rq.arch);
    std::vector<std::string> o;
    o.push_back(std::string("--gpu-architecture=") + (rq.emit_ptx ? "compute_" : "sm_") + a.digits + a.suffix);
    o.push_back("-std=" + rq.policy.std);
    if (rq.policy.fast_math) o.push_back("--use_fast_math");
    for (const std::string& d : rq.policy.defines) o.push_back("-D" + d);
    if (rq.policy.max_registers > 0) o.push_back("--maxrregcount=" + std::to_string(rq.policy.max_registers));
    for (const std::string& d : include_dirs()) o.push_back("-I" + d);
    o.push_back(std::string("--pre-include=") + prelude_header_name());
    return o;
}

std::vector<std::string> Compiler::nvcc_flags(const CompileRequest& rq) {
    Arch a = parse_arch(rq.arch);
    std::vector<std::string> f;
    f.push_back(std::string("-arch=") + (rq.emit_ptx ? "compute_" : "sm_") + a.digits + a.suffix);
    f.push_back("-std=" + rq.policy.std);
    // As PyTorch's extension builds do: constexpr functions (std::numeric_limits,
    // std::min/max, the candidate's own) are callable from device code.
    f.push_back("--expt-relaxed-constexpr");
    if (rq.policy.fast_math) f.push_back("-use_fast_math");
    for (const std::string& d : rq.policy.defines) f.push_back("-D" + d);
    if (rq.policy.max_registers > 0) f.push_back("-maxrregcount=" + std::to_string(rq.policy.max_registers));
    return f;
}

std::string Compiler::cache_key(const CompileRequest& rq) const {
    Sha256 h;
    h.field("kbench-compile/1")
        .field(std::to_string(KB_VERSION_NUMBER))
        .field(device_headers_version())
        .field(nvrtc_version())
        .field(config_.cuda_home)
        .field(language_name(rq.language))
        .field(rq.arch)
        .field(rq.emit_ptx ? "ptx" : "cubin")
        .field(rq.force_nvcc ? "nvcc" : "auto")
        .field(rq.policy.std)
        .field(rq.policy.fast_math ? "fast-math" : "precise")
        .field(rq.policy.deterministic ? "deterministic" : "")
        .field(std::to_string(rq.policy.max_registers))
        .field(std::to_string(rq.policy.defines.size()));
    for (const std::string& d : rq.policy.defines) h.field(d);
    h.field(rq.source_name).field(rq.code).field(rq.triton_metadata);
    h.field(std::to_string(rq.kernel_names.size()));
    for (const std::string& n : rq.kernel_names) h.field(n);
    return h.hex();
}

CompiledImage Compiler::compile(const CompileRequest& rq) {
    auto t0 = Clock::now();
    parse_arch(rq.arch);  // a bad target is the caller's error, not the code's
    if (rq.language != Language::cuda) {
        // Given images: validated and indexed, nothing worth caching.
        CompiledImage img = compile_uncached(rq);
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
        CompiledImage img = compile_uncached(rq);
        img.hash = key;
        img.compile_ms = ms_since(t0);
        return img;
    };
    std::shared_future<CompiledImage> wait_for;
    std::promise<CompiledImage> promise;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto hit = memory_cache_.find(key);
        if (hit != memory_cache_.end() && usable(hit->second)) {
            CompiledImage img = hit->second;
            img.cache_hit = true;
            img.compile_ms = ms_since(t0);
            return img;
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
        if (load_from_disk(key, img) && usable(img)) {
            img.cache_hit = true;
        } else {
            img = compile_uncached(rq);
            img.hash = key;
            store_to_disk(key, img);
        }
        remember(key, img);
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

void Compiler::remember(const std::string& key, const CompiledImage& image) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (memory_cache_.emplace(key, image).second) memory_order_.push_back(key);
    while (memory_cache_.size() > std::max<size_t>(1, config_.memory_cache_entries) && !memory_order_.empty()) {
        memory_cache_.erase(memory_order_.front());
        memory_order_.pop_front();
    }
}

bool Compiler::load_from_disk(const std::string& key, CompiledImage& out) const {
    if (config_.cache_dir.empty()) return false;
    std::string meta_path = join_path(config_.cache_dir, key + ".json");
    std::string bin_path = join_path(config_.cache_dir, key + ".bin");
    if (!file_exists(meta_path) || !file_exists(bin_path)) return false;
    try {
        Json meta = Json::parse(read_file(meta_path));
        std::string bytes = read_file(bin_path);
        // A cached image that belonged to other source would give a wrong
        // verdict: check the key and the bytes before trusting the files.
        if (meta.value("format", "") != "kbench-compiled/1" || meta.value("key", "") != key ||
            meta.value("bytes_sha256", "") != sha256_hex(bytes))
            return false;
        CompiledImage img;
        img.kind = meta.at("kind").get<std::string>() == "ptx" ? ImageKind::ptx : ImageKind::cubin;
        img.bytes = std::move(bytes);
        for (auto& kv : meta.at("symbols").items()) img.symbols[kv.key()] = kv.value().get<std::string>();
        img.entries = meta.at("entries").get<std::vector<std::string>>();
        img.log = meta.value("log", "");
        img.path = meta.value("path", "nvrtc");
        img.arch = meta.value("arch", "");
        img.nvrtc_ms = meta.value("nvrtc_ms", 0.0);
        img.nvcc_ms = meta.value("nvcc_ms", 0.0);
        img.fallback_reason = meta.value("fallback_reason", "");
        img.hash = key;
        out = std::move(img);
        return true;
    } catch (const std::exception&) {
        return false;  // unreadable or partial: compile again (and overwrite)
    }
}

void Compiler::store_to_disk(const std::string& key, const CompiledImage& img) const {
    if (config_.cache_dir.empty()) return;
    Json meta;
    meta["format"] = "kbench-compiled/1";
    meta["key"] = key;
    meta["kind"] = kind_name(img.kind);
    meta["arch"] = img.arch;
    meta["path"] = img.path;
    Json syms = Json::object();
    for (const auto& kv : img.symbols) syms[kv.first] = kv.second;
    meta["symbols"] = syms;
    meta["entries"] = img.entries;
    meta["log"] = img.log;
    meta["nvrtc_ms"] = img.nvrtc_ms;
    meta["nvcc_ms"] = img.nvcc_ms;
    meta["fallback_reason"] = img.fallback_reason;
    meta["bytes_sha256"] = sha256_hex(img.bytes);
    try {
        // The image first, its description last: a reader that finds the
        // .json finds a complete .bin (each file is written atomically).
        write_file_atomic(join_path(config_.cache_dir, key + ".bin"), img.bytes);
        write_file_atomic(join_path(config_.cache_dir, key + ".json"), meta.dump(1));
    } catch (const Error&) {
        // A cache that cannot be written is not a compile failure.
    }
}

CompiledImage Compiler::compile_uncached(const CompileRequest& rq) {
    Arch arch = parse_arch(rq.arch);
    if (rq.language == Language::cuda) return compile_cuda(rq);

    CompiledImage img;
    img.path = "given";
    img.arch = rq.arch;
    img.bytes = rq.code;
    if (rq.language == Language::ptx) {
        img.kind = ImageKind::ptx;
        std::string why = ptx_problem(rq.code);
        if (!why.empty()) throw CompileError(rq.source_name + ": not PTX: " + why, why + "\n");
        while (!img.bytes.empty() && img.bytes.back() == '\0') img.bytes.pop_back();
        img.entries = ptx_entries(img.bytes);
    } else {  // cubin, triton
        img.kind = ImageKind::cubin;
        std::string why = cubin_problem(rq.code);
        if (!why.empty()) throw CompileError(rq.source_name + ": not a loadable cubin: " + why, why + "\n");
        img.entries = cubin_entries(rq.code);
        int sm = cubin_sm(rq.code);
        if (sm > 0) {
            img.arch = "sm_" + std::to_string(sm);
            // A cubin runs on its own major architecture, at the same or a
            // higher minor version.
            bool loads = sm / 10 == arch.sm / 10 && sm <= arch.sm;
            if (!loads) {
                std::string msg = rq.source_name + ": the cubin was built for sm_" + std::to_string(sm) +
                                  " and cannot run on " + rq.arch + "; build it for " + rq.arch +
                                  " or hand kbench PTX instead";
                if (!rq.emit_ptx) throw CompileError(msg, msg + "\n");
                img.log += "kbench: warning: " + msg + "\n";
            }
        }
        if (rq.language == Language::triton && !rq.triton_metadata.empty()) {
            TritonKernelInfo t = parse_triton_metadata(rq.triton_metadata);
            bool found = false;
            for (const std::string& e : img.entries) found = found || e == t.name;
            if (!found) {
                std::string msg = rq.source_name + ": Triton metadata names kernel '" + t.name +
                                  "', which is not in the cubin";
                throw CompileError(msg, msg + "\n");
            }
        }
    }
    img.symbols = resolve_kernel_names(rq.kernel_names, img.entries, {}, rq.source_name);
    return img;
}

CompiledImage Compiler::compile_cuda(const CompileRequest& rq) {
    PreparedSource prep = prepare_cuda_source(rq.code);
    reject_framework_includes(prep.includes, rq.source_name);

    std::string nvcc = nvcc_path();
    bool can_fallback = (rq.allow_nvcc_fallback || rq.force_nvcc) && !nvcc.empty();
    std::vector<std::string> exprs;
    for (const std::string& n : rq.kernel_names)
        if (n.find('<') != std::string::npos) exprs.push_back(name_expression(n));

    CompiledImage img;
    img.arch = rq.arch;
    img.kind = rq.emit_ptx ? ImageKind::ptx : ImageKind::cubin;
    std::string nvrtc_note;                // why NVRTC's result was not used
    std::unique_ptr<CompileError> nvrtc_error;  // NVRTC's verdict, if nvcc cannot be asked

    bool ask_nvcc_first = !prep.nvcc_only.empty() && can_fallback;
    if (ask_nvcc_first) {
        nvrtc_note = "kbench: compiled with nvcc, not NVRTC, for nvcc's verdict on:";
        for (const std::string& why : prep.nvcc_only) nvrtc_note += "\nkbench:   " + why;
    }
    if (!rq.force_nvcc && !ask_nvcc_first) {
        std::vector<std::pair<std::string, std::string>> headers;
        for (const VirtualHeader& h : device_headers()) headers.emplace_back(h.name, h.text);
        std::vector<std::string> include_names;
        for (const IncludeDirective& inc : prep.includes) include_names.push_back(inc.name);
        std::string prelude = prelude_for(prep.identifiers, include_names);
        bool heavy = prelude.find("__KB_CCCL") != std::string::npos;
        headers.emplace_back(prelude_header_name(), std::move(prelude));
        // Kernel templates the removed host code launches with explicit
        // arguments (k<float, 256><<<...>>>) are instantiated, as nvcc would.
        std::vector<std::string> nvrtc_exprs = exprs;
        for (const std::string& e : prep.host_launched_templates)
            if (std::find(nvrtc_exprs.begin(), nvrtc_exprs.end(), e) == nvrtc_exprs.end()) nvrtc_exprs.push_back(e);
        std::vector<std::string> options = nvrtc_options(rq);
        // Removing host code leaves constants and helpers only it used:
        // "declared but never referenced" would point at the splitting.
        if (!prep.removed.empty()) options.push_back("--diag-suppress=177");
        if (heavy && config_.nvrtc_pch) {
            // Parsing CUB/libcu++ dominates these compiles; NVRTC keeps the
            // parsed headers in memory for the next compile with the same
            // include prefix (it checks validity itself).
            options.push_back("--pch");
            options.push_back("--pch-messages=false");
            options.push_back("--pch-verbose=false");
        }
        NvrtcResult nr = run_nvrtc(prep.text, rq.source_name, options, headers, nvrtc_exprs, !rq.emit_ptx,
                                   config_.timeout_s);
        if (nr.invalid_option && heavy && config_.nvrtc_pch) {
            // an NVRTC older than 12.8 has no PCH options
            options.resize(options.size() - 3);
            nr = run_nvrtc(prep.text, rq.source_name, options, headers, nvrtc_exprs, !rq.emit_ptx, config_.timeout_s);
        }
        // (If an instantiation kbench added is what fails, nvcc decides: the
        // host launch instantiates it there too, so its verdict is the same.)
        img.nvrtc_ms = nr.ms;
        std::string notes = notes_of(prep);
        if (nr.ok) {
            std::vector<std::string> entries = nr.is_cubin ? cubin_entries(nr.image) : ptx_entries(nr.image);
            try {
                img.symbols = resolve_kernel_names(rq.kernel_names, entries, nr.lowered, rq.source_name);
                img.entries = std::move(entries);
                img.bytes = std::move(nr.image);
                img.log = join_log(nr.log, notes);
                img.path = "nvrtc";
                return img;
            } catch (const CompileError& e) {
                // A kernel template instantiated only by host code (which NVRTC
                // never saw) is in nvcc's image: ask nvcc before giving up.
                nvrtc_error = std::make_unique<CompileError>(e.what(), join_log(join_log(nr.log, notes), e.log()));
                nvrtc_note = std::string("kbench: NVRTC compiled the code, but: ") + e.what();
            }
        } else if (nr.compile_error) {
            std::string summary = summarize_compile_log(nr.log, "nvrtc");
            nvrtc_error = std::make_unique<CompileError>(summary, join_log(nr.log, notes));
            nvrtc_note = "kbench: NVRTC failed first: " + summary;
        } else if (nr.invalid_option) {
            fail(KB_ERR_INVALID_ARGUMENT, "NVRTC rejected the compile options (" + nr.error + "): " + nr.log);
        } else {
            if (!can_fallback) fail(KB_ERR_INTERNAL, "NVRTC failed: " + nr.error + (nr.log.empty() ? "" : "\n" + nr.log));
            nvrtc_note = "kbench: NVRTC failed first: " + nr.error;
        }
        if (!can_fallback) {
            if (nvrtc_error) throw *nvrtc_error;
            fail(KB_ERR_INTERNAL, "NVRTC produced no image");
        }
    } else if (nvcc.empty()) {
        fail(KB_ERR_INVALID_ARGUMENT, "force_nvcc: there is no nvcc at " + config_.cuda_home + "/bin/nvcc");
    }

    // The nvcc fallback compiles the candidate's own text. Template kernels the
    // plan names are instantiated by taking their address in host code, as a
    // host launch would.
    std::string source = rq.code;
    if (!exprs.empty()) {
        source += "\n// kbench: instantiate the kernel templates the launch plan names\n";
        for (size_t i = 0; i < exprs.size(); ++i)
            source += "void* __kbench_instantiate_" + std::to_string(i) + "() { return (void*)&" + exprs[i] + "; }\n";
    }
    NvccResult cr = run_nvcc(nvcc, source, rq.source_name, nvcc_flags(rq), rq.emit_ptx, config_.timeout_s);
    img.nvcc_ms = cr.ms;
    if (!cr.started) {
        if (nvrtc_error) throw CompileError(nvrtc_error->what(), join_log(nvrtc_error->log(), "kbench: the nvcc fallback could not run: " + cr.error));
        fail(KB_ERR_INTERNAL, "could not run nvcc: " + cr.error);
    }
    std::string note = nvrtc_note.empty() ? "" : nvrtc_note + "\n";
    if (!cr.ok) {
        std::string log = join_log(cr.log, note + (cr.error.empty() ? "" : "kbench: " + cr.error + "\n"));
        throw CompileError(summarize_compile_log(cr.log, "nvcc"), log);
    }
    std::vector<std::string> entries = rq.emit_ptx ? ptx_entries(cr.image) : cubin_entries(cr.image);
    try {
        img.symbols = resolve_kernel_names(rq.kernel_names, entries, {}, rq.source_name);
    } catch (const CompileError& e) {
        // nvcc spells template arguments its own way ("k<float, 256>" for
        // "k<float, BLOCK>"): a template with a single instantiation is the one.
        std::map<std::string, std::string> syms;
        for (const std::string& n : rq.kernel_names) {
            try {
                syms[n] = resolve_kernel_names({n}, entries, {}, rq.source_name).at(n);
            } catch (const CompileError&) {
                if (n.find('<') == std::string::npos) throw CompileError(e.what(), join_log(join_log(cr.log, note), e.log()));
                std::string base = split_demangled(name_expression(n)).qualified;
                syms[n] = resolve_kernel_names({base}, entries, {}, rq.source_name).at(base);
            }
        }
        img.symbols = syms;
    }
    img.entries = std::move(entries);
    img.bytes = std::move(cr.image);
    img.log = join_log(cr.log, note);
    img.path = "nvcc";
    img.fallback_reason = rq.force_nvcc ? "force_nvcc" : nvrtc_note;
    return img;
}

TritonKernelInfo parse_triton_metadata(const std::string& json) {
    Json j;
    try {
        j = Json::parse(json);
    } catch (const std::exception& e) {
        fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: not valid JSON: ") + e.what());
    }
    if (!j.is_object()) fail(KB_ERR_INVALID_ARGUMENT, "Triton metadata: expected a JSON object");
    TritonKernelInfo t;
    auto it = j.find("name");
    if (it == j.end() || !it->is_string() || it->get<std::string>().empty())
        fail(KB_ERR_INVALID_ARGUMENT, "Triton metadata: \"name\" (the kernel's symbol) is required and must be a string");
    t.name = it->get<std::string>();
    auto integer = [&](const char* key, int min, bool required, int& out) {
        auto f = j.find(key);
        if (f == j.end()) {
            if (required) fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: \"") + key + "\" is required");
            return;
        }
        if (!f->is_number_integer() || f->get<long long>() < min || f->get<long long>() > (1 << 30))
            fail(KB_ERR_INVALID_ARGUMENT, std::string("Triton metadata: \"") + key + "\" must be an integer >= " +
                                              std::to_string(min));
        out = f->get<int>();
    };
    integer("num_warps", 1, true, t.num_warps);
    integer("shared", 0, true, t.shared);
    integer("num_ctas", 1, false, t.num_ctas);
    return t;
}

}  // namespace kb
