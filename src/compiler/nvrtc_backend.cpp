#include "compiler/nvrtc_backend.h"
#include "compiler/nvrtc_errors.h"
#include "compiler/nvrtc_minimal.h"
#include "compiler/ptx_assembler.h"

#include <nvrtc.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "compiler/arch.h"
#include "compiler/compile_log.h"
#include "compiler/device_headers.h"
#include "compiler/image_entries.h"
#include "compiler/implicit_headers.h"
#include "compiler/include_sandbox.h"
#include "ipc/process_limits.h"
#include "compiler/source_prep.h"
#include "compiler/fault_containment.h"
#include "compiler/trap_containment.h"
#include "util/sha256.h"
#include "util/clock.h"
#include "util/units.h"
#include "util/profile.h"

namespace kb {
namespace {

struct Deadline {
    std::chrono::steady_clock::time_point until;
};

int cancel_after_deadline(void* payload, void*) {
    const Deadline* d = static_cast<const Deadline*>(payload);
    return std::chrono::steady_clock::now() > d->until ? 1 : 0;
}

// NVRTC runs in this process: in a compile worker, under the compile memory
// limit. A failure for want of memory says which limit it met.
std::string memory_limit_note(const std::string& log) {
    uint64_t cap = own_address_space_limit();
    bool memory = log.find("out of memory") != std::string::npos || log.find("mapped memory") != std::string::npos ||
                  log.find("Out of memory") != std::string::npos || log.find("bad_alloc") != std::string::npos;
    if (!cap || !memory) return "";
    return " (the compiler ran out of memory under the compile memory limit of " + format_bytes(cap) +
           ": kb_limits.compile_memory_bytes)";
}

struct NvrtcProgram {
    nvrtcProgram p = nullptr;
    ~NvrtcProgram() {
        if (p) nvrtcDestroyProgram(&p);
    }
};

// The flag's name in a contained image: unknown to the candidate's source.
uint64_t random_nonce() {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
}

}  // namespace

NvrtcResult run_nvrtc(const std::string& source, const std::string& source_name,
                      const std::vector<std::string>& options,
                      const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::vector<std::string>& name_expressions, bool want_cubin, double timeout_s) {
    NvrtcResult r;
    r.is_cubin = want_cubin;
    auto t0 = std::chrono::steady_clock::now();
    std::vector<const char*> hdr_text, hdr_name;
    for (const auto& h : headers) {
        hdr_name.push_back(h.first.c_str());
        hdr_text.push_back(h.second.c_str());
    }
    NvrtcProgram prog;
    nvrtcResult rc = nvrtcCreateProgram(&prog.p, source.c_str(), source_name.c_str(), int(headers.size()),
                                        hdr_text.data(), hdr_name.data());
    if (rc != NVRTC_SUCCESS) {
        r.error = nvrtcGetErrorString(rc);
        return r;
    }
    for (const std::string& e : name_expressions) {
        rc = nvrtcAddNameExpression(prog.p, e.c_str());
        if (rc != NVRTC_SUCCESS) {
            r.error = std::string(nvrtcGetErrorString(rc)) + " (name expression '" + e + "')";
            r.compile_error = true;
            r.log = source_name + ": error: invalid kernel name '" + e + "'\n";
            return r;
        }
    }
    Deadline deadline;
    if (timeout_s > 0) {
        deadline.until = t0 + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
        nvrtcSetFlowCallback(prog.p, &cancel_after_deadline, &deadline);
    }
    std::vector<const char*> opts;
    for (const std::string& o : options) opts.push_back(o.c_str());
    {
        KB_PROFILE_SPAN("nvrtc.compile_program");
        rc = nvrtcCompileProgram(prog.p, int(opts.size()), opts.data());
    }

    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog.p, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        r.log.resize(log_size);
        nvrtcGetProgramLog(prog.p, &r.log[0]);
        r.log.resize(log_size - 1);  // drop the terminating NUL
    }
    if (rc != NVRTC_SUCCESS) {
        r.error = nvrtcGetErrorString(rc);
        r.invalid_option = rc == NVRTC_ERROR_INVALID_OPTION;
        r.compile_error = rc == NVRTC_ERROR_COMPILATION || rc == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID ||
                          rc == NVRTC_ERROR_CANCELLED;
        if (rc == NVRTC_ERROR_CANCELLED)
            r.log += "\n" + source_name + ": error: NVRTC compilation cancelled after " +
                     std::to_string(static_cast<long long>(timeout_s)) + " s\n";
        r.ms = ms_since(t0);
        return r;
    }
    size_t size = 0;
    if (want_cubin) {
        rc = nvrtcGetCUBINSize(prog.p, &size);
        if (rc == NVRTC_SUCCESS && size > 0) {
            r.image.resize(size);
            rc = nvrtcGetCUBIN(prog.p, &r.image[0]);
        }
    } else {
        rc = nvrtcGetPTXSize(prog.p, &size);
        if (rc == NVRTC_SUCCESS && size > 0) {
            r.image.resize(size);
            rc = nvrtcGetPTX(prog.p, &r.image[0]);
            while (!r.image.empty() && r.image.back() == '\0') r.image.pop_back();
        }
    }
    if (rc != NVRTC_SUCCESS || r.image.empty()) {
        r.error = rc != NVRTC_SUCCESS ? nvrtcGetErrorString(rc) : "NVRTC produced an empty image";
        return r;
    }
    for (const std::string& e : name_expressions) {
        const char* lowered = nullptr;
        if (nvrtcGetLoweredName(prog.p, e.c_str(), &lowered) == NVRTC_SUCCESS && lowered) r.lowered[e] = lowered;
    }
    r.ok = true;
    r.ms = ms_since(t0);
    return r;
}

std::string nvrtc_version_string() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "";
    return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

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

// The content of every in-memory header kbench hands NVRTC: a change to any
// of them changes what compiles, so it is part of every cache key.
const std::string& device_headers_hash() {
    static const std::string h = [] {
        Sha256 s;
        for (const VirtualHeader& v : device_headers()) s.field(v.name).field(v.text);
        return s.hex().substr(0, 16);
    }();
    return h;
}

}  // namespace

std::string join_log(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return a + (a.back() == '\n' ? "" : "\n") + b;
}

NvrtcBackend::NvrtcBackend(CompilerConfig config, bool nvcc_available)
    : config_(std::move(config)), nvcc_available_(nvcc_available) {}

std::string NvrtcBackend::version() const {
    return "nvrtc " + nvrtc_version_string() + ", headers " + device_headers_hash() +
           (config_.contain_traps ? (config_.checked_build ? ", traps contained, checked build" : ", traps contained") : "");
}

std::vector<std::string> NvrtcBackend::include_dirs() const {
    std::vector<std::string> dirs;
    for (const char* sub : {"/include", "/include/cccl"}) {
        std::string d = config_.cuda_home + sub;
        if (is_dir(d)) dirs.push_back(d);
    }
    return dirs;
}

std::vector<std::string> NvrtcBackend::options(const CompileRequest& rq) const {
    Arch a = parse_arch(rq.arch);
    std::vector<std::string> o;
    const bool ptx = rq.emit_ptx || contains(config_, rq);  // contained traps: PTX to rewrite
    o.push_back(std::string("--gpu-architecture=") + (ptx ? "compute_" : "sm_") + a.digits + a.suffix);
    o.push_back("-std=" + rq.policy.std);
    if (rq.policy.fast_math) o.push_back("--use_fast_math");
    for (const std::string& d : rq.policy.defines) o.push_back("-D" + d);
    if (rq.policy.max_registers > 0) o.push_back("--maxrregcount=" + std::to_string(rq.policy.max_registers));
    for (const std::string& d : include_dirs()) o.push_back("-I" + d);
    // Only -I and in-memory headers: not the folder of the program's name
    // (the host's working directory), which NVRTC searches by default.
    o.push_back("--no-source-include");
    o.push_back(std::string("--pre-include=") + prelude_header_name());
    return o;
}

bool NvrtcBackend::fast_compiles(const CompilerConfig& config, const CompileRequest& rq) {
    return config.comparisons_fast_compile && rq.comparisons_only && rq.language == Language::cuda && !rq.emit_ptx &&
           !rq.force_nvcc;
}

bool NvrtcBackend::contains(const CompilerConfig& config, const CompileRequest& rq) {
    if (config.contain_traps) return true;
    return config.contain_comparisons && config.checked_build && rq.comparisons_only &&
           rq.language == Language::cuda && !rq.emit_ptx;
}

bool NvrtcBackend::checked_copies_only(const CompilerConfig& config, const CompileRequest& rq) {
    return contains(config, rq) && config.checked_build && rq.comparisons_only && rq.language == Language::cuda &&
           !rq.emit_ptx;
}

int registers_for_block(int64_t threads) {
    if (threads <= 0 || threads > 1024) threads = 1024;
    // 64K registers a block, given out a warp at a time in units of 256.
    const int64_t warps = (threads + 31) / 32;
    return int(std::min<int64_t>(255, (65536 / warps / 256) * 8));
}

std::string launch_misfit(const CompiledImage& img, const LaunchExpectations& expect, bool copies_alone) {
    if (img.kind != ImageKind::cubin) return "";
    const std::map<std::string, int> regs = cubin_registers(img.bytes);
    for (const auto& [plan_name, symbol] : img.symbols) {
        int64_t threads = 0;
        auto it = expect.kernels.find(plan_name);
        if (it == expect.kernels.end() || it->second.empty()) threads = 1024;  // unknown: the most there is
        else
            for (const KernelSpec& k : it->second)
                threads = k.max_block_threads > 0 ? std::max(threads, k.max_block_threads) : int64_t(1024);
        const int limit = registers_for_block(threads);
        auto too_many = [&](const std::string& fn) {
            auto r = regs.find(fn);
            return r != regs.end() && r->second > limit ? r->second : 0;
        };
        const int own = too_many(symbol), copy = too_many(symbol + kCheckedSuffix);
        // A function that cannot launch is the candidate's own launch error:
        // without its copy the build would not launch either.
        if (copies_alone && (!copy || own)) continue;
        if (!own && !copy) continue;
        return std::string(copies_alone || !own ? "its checked copy of " : "its build of ") + plan_name + " uses " +
               std::to_string(own ? own : copy) + " registers a thread, more than a block of " +
               std::to_string(threads) + " threads may have (" + std::to_string(limit) + ")";
    }
    return "";
}

CompiledImage NvrtcBackend::compile(const CompileRequest& rq) {
    CompiledImage img = compile_with(rq, true, true);
    // Builds `img` again as asked, its time counted, its log saying why.
    auto again = [&](bool allow_fast, bool allow_checked, const std::string& why) {
        CompiledImage next = compile_with(rq, allow_fast, allow_checked);
        next.nvrtc_ms += img.nvrtc_ms;
        next.log = join_log(next.log, why);
        img = std::move(next);
    };
    // A fast build may use more registers than the full one (NVVM's fast
    // mode keeps more values live, and ptxas at =mid allocates more), and a
    // block the full build launches may then not launch: a correct kernel
    // would fail as a launch error in a correctness-only score alone. Such a
    // build is made again at full optimisation, as a timed score's is.
    if (fast_compiles(config_, rq)) {
        const std::string misfit = launch_misfit(img, rq.expect, false);
        if (!misfit.empty()) {
            KB_PROFILE_SPAN("nvrtc.full_after_fast");
            again(false, true, "kbench: built again at full optimisation: " + misfit);
        }
    }
    // A checked copy carries its checks in registers too: where one still
    // needs more than its block may have and the function would not, the
    // function is built alone (no checked build, as when ptxas refuses the
    // copies) so that the launch is the candidate's own.
    if (!img.checked_arm.empty()) {
        const std::string misfit = launch_misfit(img, rq.expect, true);
        if (!misfit.empty()) {
            KB_PROFILE_SPAN("nvrtc.without_checked_copies");
            again(false, false, "kbench: no checked build of this kernel: " + misfit);
        }
    }
    return img;
}

CompiledImage NvrtcBackend::compile_with(const CompileRequest& rq, bool allow_fast, bool allow_checked) {
    KB_PROFILE_SPAN("nvrtc.backend_compile");
    PreparedSource prep = [&] { KB_PROFILE_SPAN("nvrtc.prepare_source"); return prepare_cuda_source(rq.code); }();
    reject_framework_includes(prep.includes, rq.source_name);
    const bool may_defer = nvcc_available_ && rq.allow_nvcc_fallback;

    if (!prep.nvcc_only.empty() && may_defer) {
        std::string note = "kbench: compiled with nvcc, not NVRTC, for nvcc's verdict on:";
        for (const std::string& why : prep.nvcc_only) note += "\nkbench:   " + why;
        throw NvrtcDefers(note, 0.0, nullptr);
    }

    std::vector<std::pair<std::string, std::string>> headers;
    for (const VirtualHeader& h : device_headers()) headers.emplace_back(h.name, h.text);
    for (const SourceFile& f : headers_for_nvrtc(rq.headers)) headers.emplace_back(f.name, f.text);
    std::vector<std::string> include_names;
    for (const IncludeDirective& inc : prep.includes) include_names.push_back(inc.name);
    std::string prelude = prelude_for(prep.identifiers, include_names);
    // cuda_fp16.h / cuda_bf16.h for code that uses the types without them.
    for (const std::string& h : implicit_headers(rq.expect, prep.identifiers, prep.includes))
        prelude += "#include <" + h + ">\n";
    bool heavy = prelude.find("__KB_CCCL") != std::string::npos;
    headers.emplace_back(prelude_header_name(), std::move(prelude));
    // Template kernels the plan names, and those the removed host code
    // launches with explicit arguments (k<float, 256><<<...>>>), are
    // instantiated, as nvcc would.
    std::vector<std::string> exprs;
    for (const std::string& n : rq.kernel_names)
        if (n.find('<') != std::string::npos) exprs.push_back(name_expression(n));
    for (const std::string& e : prep.host_launched_templates)
        if (std::find(exprs.begin(), exprs.end(), e) == exprs.end()) exprs.push_back(e);
    std::vector<std::string> opts = options(rq);
    const bool contained = contains(config_, rq);
    const bool want_cubin = !rq.emit_ptx && !contained;
    // Compared, never timed: NVVM's costly optimisations left out, ptxas's
    // kept where NVRTC assembles, so register use and what a launch may ask
    // stay close to the full build's. Measured on the three small bench
    // tasks: a fifth less time to a cubin (`kbench_compile_bench`).
    // (Checked copies, which kbench assembles after containing the traps,
    // get ptxas at =mid: below.)
    std::vector<std::string> fast_opts;
    if (allow_fast && fast_compiles(config_, rq)) {
        fast_opts.push_back("--Ofast-compile=mid");
        if (want_cubin) fast_opts.push_back("-Xptxas=--Ofast-compile=0");
        opts.insert(opts.end(), fast_opts.begin(), fast_opts.end());
    }
    // Removing host code leaves constants and helpers only it used:
    // "declared but never referenced" would point at the splitting.
    if (!prep.removed.empty()) opts.push_back("--diag-suppress=177");
    if (heavy && config_.nvrtc_pch) {
        // Parsing CUB/libcu++ dominates these compiles; NVRTC keeps the
        // parsed headers in memory for the next compile with the same
        // include prefix (it checks validity itself).
        opts.push_back("--pch");
        opts.push_back("--pch-messages=false");
        opts.push_back("--pch-verbose=false");
    }
    const bool minimal = config_.nvrtc_minimal && !heavy && rq.headers.empty() &&
                         nvrtc_minimal_suffices(prep.identifiers, prep.text);
    if (minimal) opts.push_back("-minimal");
    NvrtcResult nr = run_nvrtc(prep.text, rq.source_name, opts, headers, exprs, want_cubin, config_.timeout_s);
    if (minimal && !nr.ok && (!nr.compile_error || nvrtc_minimal_may_explain(nr.log))) {
        // A name -minimal leaves out, or an NVRTC older than 12.4 without
        // the option: the full compile answers (compiler/nvrtc_minimal.h).
        opts.pop_back();
        nr = run_nvrtc(prep.text, rq.source_name, opts, headers, exprs, want_cubin, config_.timeout_s);
    }
    if (nr.invalid_option && heavy && config_.nvrtc_pch) {
        // an NVRTC older than 12.8 has no PCH options
        opts.resize(opts.size() - 3);
        nr = run_nvrtc(prep.text, rq.source_name, opts, headers, exprs, want_cubin, config_.timeout_s);
    }
    if (nr.invalid_option && !fast_opts.empty()) {
        // an NVRTC older than 12.8 has no -Ofast-compile: the full build
        for (const std::string& f : fast_opts) opts.erase(std::find(opts.begin(), opts.end(), f));
        fast_opts.clear();
        nr = run_nvrtc(prep.text, rq.source_name, opts, headers, exprs, want_cubin, config_.timeout_s);
    }
    // (If an instantiation kbench added is what fails, nvcc decides: the host
    // launch instantiates it there too, so its verdict is the same.)
    std::string notes = notes_of(prep);
    if (nr.ok) {
        bool is_cubin = nr.is_cubin;
        std::string trap_flag;
        CheckedPtx checked;
        std::vector<std::string> contained_entries;
        if (contained) {
            // NVRTC gave PTX: its traps contained (compiler/trap_containment.h),
            // then assembled here for a cubin target, so that ptxas's errors
            // are compile errors and its work stays off the GPU's lanes.
            nr.image = [&] { KB_PROFILE_SPAN("nvrtc.contain_traps"); return contain_traps(nr.image, random_nonce()); }();
            trap_flag = trap_flag_symbol(nr.image);
            if (!rq.emit_ptx) {
                // The entries are the candidate's own, not the checked copies.
                contained_entries = ptx_entries(nr.image);
                // A checked copy of every function beside it, for the
                // comparisons (compiler/fault_containment.h): one module,
                // assembled once. An image that is only compared holds the
                // copies alone, which ptxas assembles in 55-93% of the time
                // of both (bench/contained_compile_cost.cpp).
                if (config_.checked_build && allow_checked) {
                    KB_PROFILE_SPAN("nvrtc.check_faults");
                    checked = check_faults(nr.image, checked_copies_only(config_, rq) ? CheckedForm::copies_only
                                                                                       : CheckedForm::beside_plain);
                }
                PtxAssembly a;
                if (!checked.ptx.empty()) {
                    // Checked copies that are only compared, under the fast
                    // compile: ptxas at --Ofast-compile=mid too. On an H200
                    // host the correctness-only batch went from 143.8 to
                    // 153.5 verdicts a second (six runs each; plain builds
                    // 159.3), its mean compile from 77 to 70 ms. At =max
                    // the copies assembled faster still but ran slower on the
                    // GPU, and the batch fell to 120-123 (`kbench_batch_bench`).
                    std::vector<std::string> ptxas_fast;
                    if (allow_fast && checked_copies_only(config_, rq) && fast_compiles(config_, rq))
                        ptxas_fast.push_back("-Xptxas=--Ofast-compile=mid");
                    a = assemble_ptx(config_.cuda_home, checked.ptx, rq.arch, rq.policy.max_registers, ptxas_fast);
                    if (!a.ok && a.available && !ptxas_fast.empty()) {
                        // A toolkit older than 12.8 has no --Ofast-compile:
                        // the copies at full optimisation, as before.
                        nr.ms += a.ms;
                        a = assemble_ptx(config_.cuda_home, checked.ptx, rq.arch, rq.policy.max_registers);
                    }
                    if (!a.ok && a.available) {
                        // ptxas refused the checked copies, not necessarily the code:
                        // the build without them decides, and stands alone.
                        notes = join_log(notes, "kbench: no checked build of this kernel (ptxas: " +
                                                    summarize_compile_log(a.log, "ptxas") + ")");
                        nr.ms += a.ms;
                        checked = CheckedPtx{};
                    }
                }
                if (checked.ptx.empty()) a = assemble_ptx(config_.cuda_home, nr.image, rq.arch, rq.policy.max_registers);
                nr.ms += a.ms;
                if (a.ok) {
                    nr.image = std::move(a.cubin);
                    is_cubin = true;
                    if (!a.log.empty()) nr.log = join_log(nr.log, a.log);
                } else if (a.available) {
                    throw CompileError(summarize_compile_log(a.log, "ptxas"), join_log(join_log(nr.log, a.log), notes));
                } else {
                    // The driver assembles the PTX (without checked copies: one build is enough).
                    checked = CheckedPtx{};
                    notes = join_log(notes, "kbench: the driver assembles this PTX when it loads it (" + a.why_unavailable + ")");
                }
            }
        }
        std::vector<std::string> entries = !contained_entries.empty() ? contained_entries
                                           : is_cubin                 ? cubin_entries(nr.image)
                                                                      : ptx_entries(nr.image);
        try {
            CompiledImage img;
            img.arch = rq.arch;
            img.kind = is_cubin ? ImageKind::cubin : ImageKind::ptx;
            img.nvrtc_ms = nr.ms;
            img.symbols = resolve_kernel_names(rq.kernel_names, entries, nr.lowered, rq.source_name, &rq.expect);
            img.entries = std::move(entries);
            img.bytes = std::move(nr.image);
            img.trap_flag = trap_flag;
            img.checked_arm = checked.arm_entry;
            img.checked_only = !checked.arm_entry.empty() && rq.comparisons_only;
            img.fast_compiled = !fast_opts.empty();
            img.log = join_log(nr.log, notes);
            img.path = "nvrtc";
            return img;
        } catch (const CompileError& e) {
            // A kernel template instantiated only by host code (which NVRTC
            // never saw) is in nvcc's image: ask nvcc before giving up.
            auto own = std::make_shared<CompileError>(e.what(), join_log(join_log(nr.log, notes), e.log()));
            // Without removed host code nvcc sees what NVRTC saw and finds
            // the same kernels: its answer would be this one, a second later.
            if (!may_defer || prep.removed.empty()) throw *own;
            throw NvrtcDefers(std::string("kbench: NVRTC compiled the code, but: ") + e.what(), nr.ms, own);
        }
    }
    if (nr.compile_error) {
        std::string summary = summarize_compile_log(nr.log, "nvrtc") + memory_limit_note(nr.log);
        auto own = std::make_shared<CompileError>(summary, join_log(nr.log, notes));
        // A syntax error in code nvcc would see unchanged is nvcc's verdict
        // too: answer now instead of 400 ms later (compiler/nvrtc_errors.h).
        if (!may_defer || !nvcc_could_cure(nr.log, prep)) throw *own;
        throw NvrtcDefers("kbench: NVRTC failed first: " + summary, nr.ms, own);
    }
    if (nr.invalid_option)
        fail(KB_ERR_INVALID_ARGUMENT, "NVRTC rejected the compile options (" + nr.error + "): " + nr.log);
    if (!may_defer && !memory_limit_note(nr.log).empty())
        throw CompileError("NVRTC failed: " + nr.error + memory_limit_note(nr.log), nr.log);
    if (!may_defer) fail(KB_ERR_INTERNAL, "NVRTC failed: " + nr.error + (nr.log.empty() ? "" : "\n" + nr.log));
    throw NvrtcDefers("kbench: NVRTC failed first: " + nr.error, nr.ms, nullptr);
}

}  // namespace kb
