#include "compiler/nvcc_backend.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/arch.h"
#include "compiler/compile_log.h"
#include "compiler/image_entries.h"
#include "compiler/implicit_headers.h"
#include "compiler/source_prep.h"
#include "util/clock.h"
#include "util/files.h"

namespace kb {
namespace {

std::string base_name(const std::string& name) {
    size_t slash = name.find_last_of('/');
    std::string b = slash == std::string::npos ? name : name.substr(slash + 1);
    std::string out;
    for (char c : b) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (out.empty() || out == "." || out == "..") out = "candidate.cu";
    return out;
}

// A header's name as a path under src/: relative, no "..", no empty or "."
// parts; "" when it is not one (names were checked when the document was
// read; a request from another process is checked again).
std::string safe_relative(const std::string& name) {
    if (name.empty() || name[0] == '/' || name.find('\0') != std::string::npos) return "";
    std::string out;
    for (size_t b = 0; b <= name.size();) {
        size_t e = name.find('/', b);
        if (e == std::string::npos) e = name.size();
        std::string part = name.substr(b, e - b);
        if (part == "..") return "";
        if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
        b = e + 1;
    }
    return out;
}

bool write_all(const std::string& path, const std::string& data) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(data.data(), std::streamsize(data.size()));
    return bool(f);
}

bool read_all(const std::string& path, std::string& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

}  // namespace

NvccResult run_nvcc(const NvccJob& job) {
    NvccResult r;
    auto t0 = std::chrono::steady_clock::now();
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/kbench-nvcc-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
        r.error = "cannot create a temporary folder under " + tmpl + ": " + std::strerror(errno);
        return r;
    }
    const std::string dir = buf.data();
    const std::string src_dir = dir + "/src", tmp_dir = dir + "/tmp";
    const std::string src = src_dir + "/" + base_name(job.source_name);
    const std::string out = dir + (job.ptx ? "/out.ptx" : "/out.cubin");
    struct Cleanup {
        std::string dir;
        ~Cleanup() { remove_tree(dir); }
    } cleanup{dir};
    if (::mkdir(src_dir.c_str(), 0700) != 0 || ::mkdir(tmp_dir.c_str(), 0700) != 0 || !write_all(src, job.source)) {
        r.error = "cannot write the source into " + dir;
        return r;
    }
    // Only the files the candidate named: nothing else is beside it.
    for (const SourceFile& h : job.headers) {
        std::string rel = safe_relative(h.name);
        if (rel.empty()) {
            r.error = "the header name '" + h.name + "' is not a relative path inside the candidate's folder";
            return r;
        }
        std::string path = src_dir + "/" + rel;
        for (size_t s = src_dir.size() + 1; (s = path.find('/', s)) != std::string::npos; ++s)
            ::mkdir(path.substr(0, s).c_str(), 0700);
        if (!write_all(path, h.text)) {
            r.error = "cannot write the header " + rel + " into " + dir;
            return r;
        }
    }

    r.argv.push_back(job.nvcc);
    r.argv.push_back(job.ptx ? "-ptx" : "-cubin");
    for (const std::string& f : job.flags) r.argv.push_back(f);
    r.argv.push_back("-I" + src_dir);
    r.argv.push_back("-x");
    r.argv.push_back("cu");
    r.argv.push_back("-o");
    r.argv.push_back(out);
    r.argv.push_back(src);

    SpawnSpec spec;
    spec.argv = r.argv;
    spec.cwd = src_dir;
    spec.limits = job.limits;
    // nvcc needs PATH for the host compiler; nothing else from the host
    // (CPATH, NVCC_APPEND_FLAGS, ... would change what it reads or does).
    const char* path = std::getenv("PATH");
    spec.env = {"PATH=" + std::string(path && *path ? path : "/usr/local/bin:/usr/bin:/bin"), "TMPDIR=" + tmp_dir,
                "LC_ALL=C"};
    RunResult run = run_limited(spec, job.timeout_s, size_t(16) << 20);
    if (!run.started) {
        r.error = run.error;
        return r;
    }
    r.started = true;
    r.limit = run.limit;
    r.timed_out = run.limit == LimitHit::wall;
    r.log = strip_temp_dir(strip_temp_dir(run.output, src_dir), dir);
    const std::string name = base_name(job.source_name);
    if (run.limit != LimitHit::none) {
        r.error = "nvcc was stopped by " + run.limit_detail;
        r.log += (r.log.empty() || r.log.back() == '\n' ? "" : "\n") + name + ": error: the compiler was stopped by " +
                 run.limit_detail + "\n";
    } else if (run.exit_code == 0) {
        if (read_all(out, r.image) && !r.image.empty()) {
            if (job.ptx)
                while (!r.image.empty() && r.image.back() == '\0') r.image.pop_back();
            r.ok = true;
        } else {
            r.error = "nvcc succeeded but wrote no image";
        }
    } else if (run.term_signal == 0) {
        r.error = "nvcc exited with status " + std::to_string(run.exit_code);
    } else {
        r.error = "nvcc was killed by signal " + std::to_string(run.term_signal);
    }
    r.ms = ms_since(t0);
    return r;
}

namespace {

// The kb_limits field that sets a compiler limit.
const char* limit_field(LimitHit hit) {
    switch (hit) {
        case LimitHit::wall: return "kb_limits.compile_wall_s";
        case LimitHit::cpu: return "kb_limits.compile_cpu_s";
        case LimitHit::memory: return "kb_limits.compile_memory_bytes";
        case LimitHit::file_size: return "kb_limits.compile_file_bytes";
        default: return "the limit";
    }
}

// The name without a parameter list ("k<float, 4>(float*)" -> "k<float, 4>").
std::string without_params(const std::string& name) {
    int depth = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == '(' && depth == 0) return name.substr(0, i);
    }
    return name;
}

}  // namespace

NvccBackend::NvccBackend(CompilerConfig config) : config_(std::move(config)) {
    std::string p = config_.cuda_home + "/bin/nvcc";
    struct stat st;
    if (::access(p.c_str(), X_OK) == 0 && ::stat(p.c_str(), &st) == 0) {
        path_ = p;
        version_ = "nvcc " + p + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtime);
    } else {
        version_ = "no nvcc";
    }
}

std::vector<std::string> NvccBackend::flags(const CompileRequest& rq) {
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

CompiledImage NvccBackend::compile(const CompileRequest& rq) {
    if (!available()) fail(KB_ERR_INVALID_ARGUMENT, "there is no nvcc at " + config_.cuda_home + "/bin/nvcc");
    // The candidate's own text. Template kernels the plan names are
    // instantiated by taking their address in host code, as a host launch would.
    std::vector<std::string> exprs;
    for (const std::string& n : rq.kernel_names)
        if (n.find('<') != std::string::npos) exprs.push_back(without_params(n));
    std::string source = rq.code;
    if (!exprs.empty()) {
        source += "\n// kbench: instantiate the kernel templates the launch plan names\n";
        for (size_t i = 0; i < exprs.size(); ++i)
            source += "void* __kbench_instantiate_" + std::to_string(i) + "() { return (void*)&" + exprs[i] + "; }\n";
    }
    std::vector<std::string> args = flags(rq);
    // cuda_fp16.h / cuda_bf16.h for code that uses the types without them,
    // as NVRTC gets them in its prelude.
    const PreparedSource prep = prepare_cuda_source(rq.code);
    for (const std::string& h : implicit_headers(rq.expect, prep.identifiers, prep.includes)) {
        args.push_back("-include");
        args.push_back(h);
    }
    NvccJob job;
    job.nvcc = path_;
    job.source = std::move(source);
    job.source_name = rq.source_name;
    job.headers = rq.headers;
    job.flags = std::move(args);
    job.ptx = rq.emit_ptx;
    job.timeout_s = config_.timeout_s;
    job.limits = config_.process_limits;
    NvccResult cr = run_nvcc(job);
    if (!cr.started) fail(KB_ERR_INTERNAL, "nvcc could not run: " + cr.error);
    if (!cr.ok) {
        cr.log = with_cuda_keywords(cr.log, rq.code);
        std::string log = cr.log;
        if (!cr.error.empty()) log += (log.empty() || log.back() == '\n' ? "" : "\n") + ("kbench: " + cr.error + "\n");
        if (cr.limit != LimitHit::none)  // the verdict names the limit, not the compiler's last words
            throw CompileError(rq.source_name + ": " + cr.error + "; simplify the code, or raise " +
                                   limit_field(cr.limit) + " if it is only large",
                               log);
        throw CompileError(summarize_compile_log(cr.log, "nvcc"), log);
    }
    CompiledImage img;
    img.arch = rq.arch;
    img.kind = rq.emit_ptx ? ImageKind::ptx : ImageKind::cubin;
    img.nvcc_ms = cr.ms;
    std::vector<std::string> entries = rq.emit_ptx ? ptx_entries(cr.image) : cubin_entries(cr.image);
    try {
        img.symbols = resolve_kernel_names(rq.kernel_names, entries, {}, rq.source_name, &rq.expect);
    } catch (const CompileError& e) {
        // nvcc spells template arguments its own way ("k<float, 256>" for
        // "k<float, BLOCK>"): a template with a single instantiation is the one.
        std::map<std::string, std::string> syms;
        for (const std::string& n : rq.kernel_names) {
            try {
                syms[n] = resolve_kernel_names({n}, entries, {}, rq.source_name, &rq.expect).at(n);
            } catch (const CompileError&) {
                if (n.find('<') == std::string::npos) throw CompileError(e.what(), cr.log + e.log());
                std::string base = split_demangled(without_params(n)).qualified;
                syms[n] = resolve_kernel_names({base}, entries, {}, rq.source_name).at(base);
            }
        }
        img.symbols = syms;
    }
    img.entries = std::move(entries);
    img.bytes = std::move(cr.image);
    img.log = cr.log;
    img.path = "nvcc";
    return img;
}

}  // namespace kb
