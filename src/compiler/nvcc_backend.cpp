#include "compiler/nvcc_backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

extern char** environ;

namespace kb {
namespace {

// Removes a folder we created and everything in it (nvcc leaves nothing
// deeper than one level, but be thorough).
void remove_tree(const std::string& path) {
    DIR* d = ::opendir(path.c_str());
    if (d) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n == "." || n == "..") continue;
            std::string p = path + "/" + n;
            struct stat st;
            if (::lstat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
            else ::unlink(p.c_str());
        }
        ::closedir(d);
    }
    ::rmdir(path.c_str());
}

std::string base_name(const std::string& name) {
    size_t slash = name.find_last_of('/');
    std::string b = slash == std::string::npos ? name : name.substr(slash + 1);
    std::string out;
    for (char c : b) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
    if (out.empty() || out == "." || out == "..") out = "candidate.cu";
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

NvccResult run_nvcc(const std::string& nvcc, const std::string& source, const std::string& source_name,
                    const std::vector<std::string>& flags, bool ptx, double timeout_s) {
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
    std::string dir = buf.data();
    std::string src = dir + "/" + base_name(source_name);
    std::string out = dir + (ptx ? "/out.ptx" : "/out.cubin");
    if (!write_all(src, source)) {
        r.error = "cannot write " + src;
        remove_tree(dir);
        return r;
    }

    r.argv.push_back(nvcc);
    r.argv.push_back(ptx ? "-ptx" : "-cubin");
    for (const std::string& f : flags) r.argv.push_back(f);
    r.argv.push_back("-x");
    r.argv.push_back("cu");
    r.argv.push_back("-o");
    r.argv.push_back(out);
    r.argv.push_back(src);
    std::vector<char*> argv;
    for (std::string& a : r.argv) argv.push_back(&a[0]);
    argv.push_back(nullptr);

    // nvcc's intermediate files go to our folder too, so nothing is left behind.
    std::vector<std::string> env_store;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_store.push_back(*e);
    env_store.push_back("TMPDIR=" + dir);
    std::vector<char*> envp;
    for (std::string& e : env_store) envp.push_back(&e[0]);
    envp.push_back(nullptr);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        remove_tree(dir);
        return r;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, nvcc.c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        r.error = "cannot run " + nvcc + ": " + std::strerror(rc);
        remove_tree(dir);
        return r;
    }
    r.started = true;

    std::string output;
    char chunk[4096];
    auto deadline = t0 + std::chrono::microseconds(static_cast<long long>(timeout_s * 1e6));
    for (;;) {
        int wait_ms = -1;
        if (timeout_s > 0) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                r.timed_out = true;
                break;
            }
            wait_ms = int(std::min<long long>(left.count(), 1000));
        }
        pollfd p{fds[0], POLLIN, 0};
        int n = ::poll(&p, 1, wait_ms);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) continue;
        ssize_t got = ::read(fds[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (output.size() < (16u << 20)) output.append(chunk, size_t(got));
    }
    ::close(fds[0]);
    if (r.timed_out) ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.log = strip_temp_dir(output, dir);
    if (r.timed_out) {
        r.log += "\n" + base_name(source_name) + ": error: nvcc did not finish within " +
                 std::to_string(static_cast<long long>(timeout_s)) + " s and was stopped\n";
        r.error = "nvcc timed out";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (read_all(out, r.image) && !r.image.empty()) {
            if (ptx)
                while (!r.image.empty() && r.image.back() == '\0') r.image.pop_back();
            r.ok = true;
        } else {
            r.error = "nvcc succeeded but wrote no image";
        }
    } else if (WIFEXITED(status)) {
        r.error = "nvcc exited with status " + std::to_string(WEXITSTATUS(status));
    } else {
        r.error = "nvcc was killed by signal " + std::to_string(WTERMSIG(status));
    }
    remove_tree(dir);
    r.ms = ms_since(t0);
    return r;
}

namespace {

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
    NvccResult cr = run_nvcc(path_, source, rq.source_name, args, rq.emit_ptx, config_.timeout_s);
    if (!cr.started) fail(KB_ERR_INTERNAL, "nvcc could not run: " + cr.error);
    if (!cr.ok) {
        std::string log = cr.log;
        if (!cr.error.empty()) log += (log.empty() || log.back() == '\n' ? "" : "\n") + ("kbench: " + cr.error + "\n");
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
