#include "compiler/triton_backend.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <regex>

#include "compiler/image_entries.h"
#include "compiler/triton_launch.h"
#include "ipc/worker_process.h"
#include "util/error.h"
#include "util/files.h"
#include "util/install_dirs.h"

#ifndef KB_TRITON_WORKER_SOURCE
#define KB_TRITON_WORKER_SOURCE ""
#endif

namespace kb {
namespace {

constexpr double kHelloS = 120;  // importing triton cold (first run after install) can take a while
constexpr size_t kDefaultWorkers = 2;

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

bool is_file(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The program a name runs: itself when it holds a '/', else the first
// executable of that name on PATH ("" when there is none).
std::string find_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
    std::string path = env("PATH");
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string dir = path.substr(start, end - start);
        std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (is_file(candidate) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
    }
    return "";
}

int arch_number(const std::string& arch) {
    static const std::regex re("^(sm|compute)_([0-9]{2,3})[af]?$");
    std::smatch m;
    if (!std::regex_match(arch, m, re))
        fail(KB_ERR_INVALID_ARGUMENT, "architecture '" + arch + "': expected sm_XY, sm_XYa or sm_XYf (e.g. sm_90)");
    return std::stoi(m[2]);
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", s);
    return buf;
}

}  // namespace

std::string locate_triton_python(const CompilerConfig& config) {
    if (!config.python.empty()) return config.python;
    std::string e = env("KBENCH_PYTHON");
    return e.empty() ? "python3" : e;
}

std::string locate_triton_worker_script(const CompilerConfig& config) {
    if (!config.triton_worker_script.empty()) return config.triton_worker_script;
    std::string e = env("KBENCH_TRITON_WORKER");
    if (!e.empty()) return e;
    // Installed beside kbench-worker (cmake/install.cmake).
    for (const std::string& dir : libexec_dirs()) {
        std::string script = join_path(dir, "kbench-triton-worker.py");
        if (is_file(script)) return script;
    }
    return KB_TRITON_WORKER_SOURCE;
}

struct TritonBackend::Worker {
    std::unique_ptr<WorkerProcess> proc;
    std::string work_dir;
    ~Worker() {
        proc.reset();  // killed if still running, and reaped
        if (!work_dir.empty()) remove_tree(work_dir);
    }
    std::string stderr_tail() const { return tail_of_file(work_dir + "/stderr.log", 1500); }
};

TritonBackend::TritonBackend(const CompilerConfig& config)
    : python_(locate_triton_python(config)),
      script_(locate_triton_worker_script(config)),
      max_workers_(config.triton_workers),
      deadline_s_(config.triton_timeout_s > 0 ? config.triton_timeout_s : 120),
      memory_mb_(config.triton_memory_mb) {
    if (max_workers_ == 0) {
        long n = std::strtol(env("KBENCH_TRITON_WORKERS").c_str(), nullptr, 10);
        max_workers_ = n > 0 && n <= 64 ? size_t(n) : kDefaultWorkers;
    }
}

TritonBackend::~TritonBackend() = default;

size_t TritonBackend::live_workers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_.size();
}

void TritonBackend::inject_fault_once(const std::string& fault) {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_ = fault;
}

void TritonBackend::remember_version(const std::string& v) const {
    std::lock_guard<std::mutex> lock(mutex_);
    version_ = v;
}

std::unique_ptr<TritonBackend::Worker> TritonBackend::start_worker() const {
    const std::string how = "; kbench runs Triton with the Python interpreter named by CompilerConfig::python or "
                            "$KBENCH_PYTHON (default python3 on PATH), which needs `pip install triton` (3.3 or "
                            "newer; no GPU needed)";
    std::string program = find_program(python_);
    if (program.empty())
        fail(KB_ERR_NOT_FOUND, "Triton candidates need Python, but the interpreter '" + python_ + "' was not found" +
                                   how);
    if (script_.empty() || !is_file(script_))
        fail(KB_ERR_NOT_FOUND, "kbench's Triton compile worker script was not found (" +
                                   (script_.empty() ? std::string("no path") : "'" + script_ + "'") +
                                   "); set $KBENCH_TRITON_WORKER or CompilerConfig::triton_worker_script to "
                                   "python/kbench_triton/compile_worker.py of this kbench");
    auto w = std::make_unique<Worker>();
    w->work_dir = make_temp_dir("kbench-triton-");
    SpawnOptions o;
    o.command = {program, "-B", script_};
    o.device = -1;
    o.test_hooks = test_hooks_;
    o.extra_args = {"--work-dir", w->work_dir, "--memory-mb", std::to_string(memory_mb_)};
    o.what = "Triton compile worker";
    o.fix = "check that '" + program + "' runs" + how;
    o.stderr_file = w->work_dir + "/stderr.log";
    o.confine = true;
    w->proc = WorkerProcess::spawn(o);

    auto sent = WorkerClock::now();
    auto deadline = sent + std::chrono::duration_cast<WorkerClock::duration>(std::chrono::duration<double>(kHelloS));
    Outcome h = w->proc->call(wire::Msg::hello, Json{{"protocol", wire::kProtocolVersion}}, {}, deadline);
    const std::string who = "the Triton compile worker ('" + program + " " + script_ + "')";
    if (!h.ok()) {
        std::string err = w->stderr_tail();
        fail(KB_ERR_WORKER, who + " did not start: " + h.detail + (err.empty() ? "" : "; its stderr: " + err) + how);
    }
    const Json& r = h.reply.json;
    if (!wire::reply_ok(r)) {
        kb_status st = wire::reply_status(r);
        fail(st == KB_ERR_WORKER ? KB_ERR_NOT_FOUND : st,
             "Triton cannot be used with the Python interpreter '" + program + "': " + wire::reply_error(r) + how);
    }
    const Json& info = r.value("result", Json::object());
    std::string version = info.value("triton_version", "");
    if (version.empty()) fail(KB_ERR_WORKER, who + " did not report Triton's version");
    remember_version(version);
    return w;
}

TritonBackend::Worker* TritonBackend::acquire() const {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (!idle_.empty()) {
            Worker* w = idle_.back();
            idle_.pop_back();
            return w;
        }
        if (all_.size() + starting_ < max_workers_) {
            ++starting_;
            lock.unlock();
            std::unique_ptr<Worker> w;
            try {
                w = start_worker();
            } catch (...) {
                lock.lock();
                --starting_;
                idle_cv_.notify_one();
                throw;
            }
            lock.lock();
            --starting_;
            all_.push_back(std::move(w));
            return all_.back().get();
        }
        idle_cv_.wait(lock);
    }
}

void TritonBackend::release(Worker* w, bool keep) const {
    std::unique_ptr<Worker> gone;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (keep) {
            idle_.push_back(w);
        } else {
            auto it = std::find_if(all_.begin(), all_.end(), [&](const std::unique_ptr<Worker>& p) { return p.get() == w; });
            if (it != all_.end()) {
                gone = std::move(*it);
                all_.erase(it);
            }
        }
    }
    idle_cv_.notify_one();
    // gone's destructor kills and reaps the process and removes its folder,
    // outside the lock.
}

std::string TritonBackend::version() const {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!version_.empty()) return version_;
    }
    Worker* w = acquire();
    release(w, true);
    std::lock_guard<std::mutex> lock(mutex_);
    return version_;
}

CompiledImage TritonBackend::compile(const CompileRequest& rq) {
    const TritonCompileSpec& spec = rq.triton;
    if (spec.empty())
        fail(KB_ERR_INVALID_ARGUMENT, rq.source_name + ": a Triton compile request names no kernel (a kbench bug)");
    const int sm = arch_number(rq.arch);
    Json args = Json::array();
    for (const TritonArg& a : spec.args) args.push_back(Json{{"name", a.name}, {"type", a.type}, {"spec", a.spec}});
    Json constexprs = Json::object();
    for (const auto& kv : spec.constexprs) constexprs[kv.first] = kv.second;
    Json request = {{"source_name", rq.source_name}, {"code_blob", 0},           {"kernel", spec.kernel},
                    {"args", args},                  {"constexprs", constexprs}, {"num_warps", spec.num_warps},
                    {"num_stages", spec.num_stages}, {"num_ctas", spec.num_ctas}, {"maxnreg", rq.policy.max_registers},
                    {"arch", sm}};
    Json body = {{"request", request}};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!fault_.empty()) body["test_fault"] = fault_;
        fault_.clear();
    }

    Worker* w = acquire();
    auto sent = WorkerClock::now();
    auto deadline = sent + std::chrono::duration_cast<WorkerClock::duration>(std::chrono::duration<double>(deadline_s_));
    Outcome o;
    try {
        o = w->proc->call(wire::Msg::compile, body, {rq.code}, deadline);
    } catch (...) {
        release(w, false);
        throw;
    }
    std::string err_tail = o.ok() ? "" : w->stderr_tail();
    release(w, o.ok());

    const std::string what = "kernel '" + spec.kernel + "' of " + rq.source_name;
    switch (o.kind) {
        case Outcome::Kind::reply: break;
        case Outcome::Kind::timeout:
            throw CompileError(rq.source_name + ": Triton did not finish compiling " + what + " within " +
                                   seconds_text(deadline_s_) +
                                   " and was stopped; simplify the kernel (huge static unrolling and very large "
                                   "blocks make Triton's compiler slow)",
                               "");
        case Outcome::Kind::died:
            throw CompileError(rq.source_name + ": Triton crashed compiling " + what + " (its process " + o.detail +
                                   "); kbench contained it in a compile worker. Rewrite the construct Triton chokes on",
                               err_tail.empty() ? "" : "the compile worker's stderr:\n" + err_tail + "\n");
        case Outcome::Kind::garbled:
            fail(KB_ERR_WORKER, "the Triton compile worker (pid " + std::to_string(o.pid) + ") broke the protocol: " +
                                    o.detail + "; it was replaced. This is a kbench bug (" + script_ + ")");
    }
    const Json& r = o.reply.json;
    if (!wire::reply_ok(r)) {
        kb_status st = wire::reply_status(r);
        if (st == KB_ERR_COMPILE) {
            std::string log;
            if (r.contains("log_blob") && r["log_blob"].is_number_unsigned()) {
                size_t i = r["log_blob"].get<size_t>();
                if (i < o.reply.blobs.size()) log = o.reply.blobs[i];
            }
            throw CompileError(wire::reply_error(r), log);
        }
        fail(st, wire::reply_error(r));
    }

    CompiledImage img;
    try {
        const Json& res = r.at("result");
        size_t cubin = res.at("cubin_blob").get<size_t>(), ptx = res.at("ptx_blob").get<size_t>();
        if (cubin >= o.reply.blobs.size() || ptx >= o.reply.blobs.size())
            throw std::runtime_error("a blob index is out of range");
        img.kind = ImageKind::cubin;
        img.bytes = o.reply.blobs[cubin];
        img.triton_metadata = res.at("metadata").get<std::string>();
        for (const Json& e : res.at("signature")) {
            TritonSignatureEntry s;
            s.name = e.at(0).get<std::string>();
            s.type = e.at(1).get<std::string>();
            s.arg = e.at(2).get<int>();
            img.triton_signature.push_back(s);
        }
        std::string version = res.value("triton_version", "");
        if (!version.empty()) remember_version(version);
        TritonLaunch launch = derive_triton_launch(img.triton_metadata, img.triton_signature, "");
        img.triton_ptx_entry = ptx_entry_declaration(o.reply.blobs[ptx], launch.kernel);
        img.log = "triton " + version + ": kernel '" + spec.kernel + "' compiled for " + spec.key() + " in " +
                  std::to_string(int(res.value("compile_ms", 0.0) + 0.5)) + " ms\n";
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        fail(KB_ERR_WORKER, std::string("the Triton compile worker sent a result kbench cannot read: ") + e.what());
    }
    // Checks the signature against the PTX and the version's hidden
    // parameters now: a Triton whose ABI kbench does not know fails here,
    // at compile time, rather than at launch.
    TritonLaunch launch = derive_triton_launch(img.triton_metadata, img.triton_signature, img.triton_ptx_entry);
    if (img.triton_ptx_entry.empty())
        fail(KB_ERR_INTERNAL, "Triton's PTX for " + what + " has no .entry '" + launch.kernel + "' (a kbench bug)");
    img.path = "triton";
    img.arch = rq.arch;
    img.entries = cubin_entries(img.bytes);
    img.symbols[spec.kernel] = launch.kernel;
    img.triton_key = spec.key();
    return img;
}

}  // namespace kb
