#include "emulate/emulated_module.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "compiler/compiler.h"
#include "emulate/runtime_sources.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"

namespace kb::emulate {
namespace {

constexpr const char* kTrampolineFile = "kbench-emulator-trampolines";

// The text with comments and the contents of string and character literals
// blanked out (same length, newlines kept), so that scans for code patterns
// do not match inside them.
std::string code_only(const std::string& s) {
    std::string out = s;
    enum { code, line_comment, block_comment, str, chr } st = code;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i], n = i + 1 < s.size() ? s[i + 1] : '\0';
        switch (st) {
            case code:
                if (c == '/' && n == '/') st = line_comment, out[i] = ' ';
                else if (c == '/' && n == '*') st = block_comment, out[i] = ' ', out[++i] = ' ';
                else if (c == '"') st = str;
                else if (c == '\'') st = chr;
                break;
            case line_comment:
                if (c == '\n') st = code;
                else out[i] = ' ';
                break;
            case block_comment:
                if (c == '*' && n == '/') st = code, out[i] = ' ', out[++i] = ' ';
                else if (c != '\n') out[i] = ' ';
                break;
            case str:
            case chr:
                if (c == '\\') out[i] = ' ', out[++i] = ' ';
                else if ((st == str && c == '"') || (st == chr && c == '\'')) st = code;
                else if (c != '\n') out[i] = ' ';
                break;
        }
    }
    return out;
}

size_t line_of(const std::string& s, size_t pos) { return size_t(std::count(s.begin(), s.begin() + long(pos), '\n')) + 1; }

std::string trim(std::string s) {
    size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The expression for a kernel's address from the name a plan uses: a plain
// or qualified name, a template instantiation ("k<float, 256>"), or a full
// signature ("void k(const float*, float*)") that picks one overload.
std::string kernel_address(const std::string& plan_name) {
    size_t open = plan_name.find('(');
    if (open == std::string::npos) return "&" + plan_name;
    size_t close = plan_name.rfind(')');
    std::string params = close > open ? plan_name.substr(open + 1, close - open - 1) : "";
    std::string before = trim(plan_name.substr(0, open));
    size_t start = before.find_last_of(" \t*&");
    std::string name = start == std::string::npos ? before : before.substr(start + 1);
    return "static_cast<void (*)(" + params + ")>(&" + name + ")";
}

std::string cache_root(const ModuleOptions& o) {
    if (!o.cache_dir.empty()) return o.cache_dir;
    if (const char* e = std::getenv("KBENCH_CACHE_DIR"); e && *e) return join_path(e, "emulate");
    if (const char* e = std::getenv("XDG_CACHE_HOME"); e && *e) return join_path(e, "kbench/emulate");
    if (const char* e = std::getenv("HOME"); e && *e) return join_path(e, ".cache/kbench/emulate");
    return "/tmp/kbench-emulate-" + std::to_string(getuid());
}

bool exists(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

std::string tail_lines(const std::string& text, size_t max_chars) {
    if (text.size() <= max_chars) return text;
    size_t cut = text.find('\n', text.size() - max_chars);
    return "...\n" + text.substr(cut == std::string::npos ? text.size() - max_chars : cut + 1);
}

// A compile failure, with what to change for the emulator's known limits.
[[noreturn]] void compile_failed(const std::string& label, const std::string& what, const ProcessResult& r,
                                 const std::vector<std::string>& kernel_names) {
    std::string hint;
    if (r.output.find("has no mask and is not available") != std::string::npos)
        hint = "\nwarp intrinsics without a mask were removed in CUDA 9: use the _sync variants (__shfl_down_sync, ...)";
    else if (r.output.find(kTrampolineFile) != std::string::npos) {
        std::string names;
        for (const std::string& n : kernel_names) names += (names.empty() ? "" : ", ") + n;
        hint = "\nthe launch plan names kernel(s) " + names +
               ": each must be a __global__ function of the code (or a template instantiation of one)";
    }
    std::string why = r.timed_out ? "timed out" : r.signal ? "was killed by signal " + std::to_string(r.signal)
                                                           : "failed (exit code " + std::to_string(r.exit_code) + ")";
    fail(KB_ERR_COMPILE, label + ": " + what + " for the CPU emulator " + why + ":\n" + tail_lines(r.output, 6000) + hint);
}

// Writes `data` to `path` unless the file is already there with it.
void put_file(const std::string& path, const std::string& data) {
    if (exists(path)) {
        try {
            if (read_file(path) == data) return;
        } catch (const Error&) {
        }
    }
    write_file_atomic(path, data);
}

struct Toolchain {
    HostCompiler cxx;
    std::string cuda_include;
    std::string runtime_dir;  // headers, runtime object and precompiled header
    std::string runtime_object;
};

std::vector<std::string> common_flags(const Toolchain& tc, const std::string& std_name) {
    return {"-std=" + std_name, "-O2", "-fPIC", "-fvisibility=hidden", "-fno-strict-aliasing", "-ffp-contract=off",
            "-fno-fast-math", "-U_FORTIFY_SOURCE", "-w", "-I" + tc.runtime_dir, "-I" + tc.cuda_include};
}

// The runtime's files in the cache, built once per compiler, toolkit, runtime
// text and language standard.
Toolchain toolchain(const ModuleOptions& o, const std::string& std_name, const std::string& label) {
    Toolchain tc;
    tc.cxx = find_host_compiler();
    tc.cuda_include = join_path(default_cuda_home(), "include");
    if (!exists(join_path(tc.cuda_include, "cuda_fp16.h")))
        fail(KB_ERR_NOT_FOUND, "the CPU emulator needs the CUDA toolkit's headers (cuda_fp16.h, cuda_bf16.h) and found "
                               "none in " + tc.cuda_include + "; install the toolkit or set CUDA_HOME");
    Sha256 h;
    h.field("kbench-emulator-runtime/1").field(tc.cxx.path).field(tc.cxx.version).field(tc.cuda_include);
    h.field(abi_header()).field(cuda_header()).field(runtime_source()).field(std_name);
    const std::string key = h.hex().substr(0, 24);
    const std::string root = cache_root(o);
    make_dirs(root);
    tc.runtime_dir = join_path(root, "runtime-" + key);
    tc.runtime_object = join_path(tc.runtime_dir, "kbemu_runtime.o");
    if (exists(tc.runtime_object)) return tc;

    // Build in a folder of our own, then move it into place: two kbench
    // processes may build the same runtime at once.
    std::string tmp = tc.runtime_dir + ".tmp" + std::to_string(getpid());
    make_dirs(tmp);
    put_file(join_path(tmp, "kbemu_abi.h"), abi_header());
    put_file(join_path(tmp, "kbemu_cuda.h"), cuda_header());
    put_file(join_path(tmp, "kbemu_runtime.cc"), runtime_source());
    Toolchain build = tc;
    build.runtime_dir = tmp;
    std::vector<std::string> argv = {tc.cxx.path};
    for (const std::string& f : common_flags(build, std_name)) argv.push_back(f);
    for (const char* f : {"-x", "c++", "-c", "kbemu_runtime.cc", "-o", "kbemu_runtime.o"}) argv.push_back(f);
    ProcessResult r = run_process(argv, tmp, o.compile_timeout_s);
    if (r.exit_code != 0) compile_failed(label, "the emulator's runtime (" + tc.cxx.version + ")", r, {});
    if (tc.cxx.is_gcc) {
        // A precompiled kbemu_cuda.h makes each reference compile about 5x
        // faster. GCC ignores a .gch that does not fit the flags and reads
        // the header instead, so a failure here only costs time.
        std::vector<std::string> pch = {tc.cxx.path};
        for (const std::string& f : common_flags(build, std_name)) pch.push_back(f);
        for (const char* f : {"-x", "c++-header", "kbemu_cuda.h", "-o", "kbemu_cuda.h.gch"}) pch.push_back(f);
        run_process(pch, tmp, o.compile_timeout_s);
    }
    if (std::rename(tmp.c_str(), tc.runtime_dir.c_str()) != 0) {
        // Another process won the race: use its copy, drop ours.
        run_process({"/bin/rm", "-rf", tmp}, "", 60);
        if (!exists(tc.runtime_object))
            fail(KB_ERR_IO, "cannot move the emulator's runtime into the cache at " + tc.runtime_dir + ": " +
                                std::strerror(errno));
    }
    return tc;
}

}  // namespace

std::string prepare_source(const Program& program) {
    if (program.language != Language::cuda)
        fail(KB_ERR_TASK_INVALID, std::string("the CPU emulator runs CUDA C++ programs, not ") +
                                      language_name(program.language) + " (" + program.source_name + ")");
    const std::string& src = program.source;
    std::string code = code_only(src);

    static const std::regex asm_re(R"(\b(asm|__asm__|__asm)\s*(volatile|__volatile__)?\s*\()");
    std::smatch m;
    if (std::regex_search(code, m, asm_re))
        fail(KB_ERR_COMPILE, program.source_name + ":" + std::to_string(line_of(code, size_t(m.position(0)))) +
                                 ": inline assembly (asm) cannot run on the CPU emulator; write the reference with "
                                 "CUDA C++ and its intrinsics (cuda_fp16.h's __half2float / __float2half_rn for f16 "
                                 "conversions, for instance)");

    // extern __shared__ T name[];  ->  T* name = (T*)::kbemu::dynamic_shared();
    static const std::regex shared_re(
        R"(extern\s+__shared__\s+((?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*)?)([A-Za-z_][\w:\s<>,*]*?)\s*((?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*)?)\b([A-Za-z_]\w*)\s*\[\s*\]\s*;)");
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), shared_re); it != std::sregex_iterator(); ++it) {
        const std::smatch& sm = *it;
        out += src.substr(last, size_t(sm.position(0)) - last);
        std::string type = trim(sm[2].str()), name = sm[4].str();
        out += type + "* " + name + " = reinterpret_cast<" + type + "*>(::kbemu::dynamic_shared());";
        last = size_t(sm.position(0) + sm.length(0));
    }
    out += src.substr(last);

    std::string prepared = "#line 1 \"" + program.source_name + "\"\n" + out + "\n";
    prepared += "#line 1 \"" + std::string(kTrampolineFile) + "\"\n";
    const std::vector<std::string> names = program.kernel_names();
    for (size_t i = 0; i < names.size(); ++i)
        prepared += "extern \"C\" __attribute__((visibility(\"default\"))) int kbemu_kernel_" + std::to_string(i) +
                    "(const kbemu_launch* lp) { return ::kbemu::launch(" + kernel_address(names[i]) + ", *lp); }\n";
    return prepared;
}

std::unique_ptr<EmulatedModule> EmulatedModule::build(const Program& program, const CompilePolicy& policy,
                                                      const std::string& label, const ModuleOptions& options) {
    auto t0 = std::chrono::steady_clock::now();
    const std::string prepared = prepare_source(program);
    Toolchain tc = toolchain(options, policy.std, label);
    std::vector<std::string> flags = common_flags(tc, policy.std);
    for (const std::string& d : policy.defines) flags.push_back("-D" + d);

    Sha256 h;
    h.field("kbench-emulator-module/1").field(tc.runtime_object);
    for (const std::string& f : flags) h.field(f);
    h.field(prepared);
    const std::string key = h.hex().substr(0, 32);
    const std::string root = cache_root(options);
    const std::string so = join_path(root, "module-" + key + ".so");

    auto mod = std::unique_ptr<EmulatedModule>(new EmulatedModule());
    mod->label_ = label;
    mod->names_ = program.kernel_names();
    mod->from_cache_ = exists(so);
    if (!mod->from_cache_) {
        std::string tmp = join_path(root, "build-" + key + "-" + std::to_string(getpid()));
        make_dirs(tmp);
        std::string base;
        for (char c : program.source_name) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
        if (base.empty()) base = "program.cu";
        write_file_atomic(join_path(tmp, base), prepared);
        std::vector<std::string> argv = {tc.cxx.path};
        for (const std::string& f : flags) argv.push_back(f);
        for (const std::string& f : {std::string("-include"), std::string("kbemu_cuda.h"), std::string("-x"),
                                     std::string("c++"), std::string("-c"), base, std::string("-o"),
                                     std::string("program.o")})
            argv.push_back(f);
        ProcessResult r = run_process(argv, tmp, options.compile_timeout_s);
        if (r.exit_code != 0) {
            run_process({"/bin/rm", "-rf", tmp}, "", 60);
            compile_failed(label, "compiling " + program.source_name, r, mod->names_);
        }
        r = run_process({tc.cxx.path, "-shared", "-o", "module.so", "program.o", tc.runtime_object}, tmp,
                        options.compile_timeout_s);
        if (r.exit_code != 0) {
            run_process({"/bin/rm", "-rf", tmp}, "", 60);
            compile_failed(label, "linking " + program.source_name, r, mod->names_);
        }
        if (std::rename(join_path(tmp, "module.so").c_str(), so.c_str()) != 0 && !exists(so))
            fail(KB_ERR_IO, "cannot move a compiled module into the emulator's cache at " + so + ": " +
                                std::strerror(errno));
        run_process({"/bin/rm", "-rf", tmp}, "", 60);
    }

    mod->handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!mod->handle_) fail(KB_ERR_IO, label + ": cannot load the emulated module " + so + ": " + dlerror());
    auto version = reinterpret_cast<kbemu_abi_version_fn>(dlsym(mod->handle_, "kbemu_abi_version"));
    mod->attach_ = reinterpret_cast<kbemu_attach_progress_fn>(dlsym(mod->handle_, "kbemu_attach_progress"));
    if (!version || version() != KBEMU_ABI_VERSION || !mod->attach_)
        fail(KB_ERR_IO, label + ": " + so + " is not a module of this kbench's emulator; remove it from the cache");
    for (size_t i = 0; i < mod->names_.size(); ++i) {
        auto fn = reinterpret_cast<kbemu_kernel_fn>(dlsym(mod->handle_, ("kbemu_kernel_" + std::to_string(i)).c_str()));
        if (!fn) fail(KB_ERR_IO, label + ": " + so + " lacks the trampoline of kernel '" + mod->names_[i] + "'");
        mod->kernels_.push_back(fn);
    }
    mod->compile_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return mod;
}

EmulatedModule::~EmulatedModule() {
    if (handle_) dlclose(handle_);
}

kbemu_kernel_fn EmulatedModule::kernel(const std::string& plan_name) const {
    for (size_t i = 0; i < names_.size(); ++i)
        if (names_[i] == plan_name) return kernels_[i];
    fail(KB_ERR_INTERNAL, label_ + ": no trampoline for kernel '" + plan_name + "'");
}

void EmulatedModule::attach_progress(kbemu_progress* progress) const { attach_(progress); }

}  // namespace kb::emulate
