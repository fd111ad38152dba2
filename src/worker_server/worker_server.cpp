#include "worker_server/worker_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "engine/result_json.h"
#include "engine/verdict.h"
#include "exec/fault.h"
#include "util/error.h"
#include "ipc/pidfd.h"
#include "ipc/process_limits.h"
#include "protocol/wire.h"
#include "util/profile.h"

namespace kb {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr size_t kMaxTasks = 64;     // tasks kept per worker life (the host resends one it evicted)
constexpr size_t kMaxKernels = 256;  // kernels kept; their modules are cached separately (ModuleCache)

// --- the note a fatal signal sends -----------------------------------------
// Built ahead, in normal code, so the handler only has to write() it: the one
// thing a signal handler may safely do with a socket.
int g_note_fd = -1;
char g_note[8192];
volatile sig_atomic_t g_note_len = 0;

extern "C" void kb_worker_fatal_signal(int sig) {
    size_t n = size_t(g_note_len);
    if (n > 0 && g_note_fd >= 0) {
        ssize_t w = ::write(g_note_fd, g_note, n);
        (void)w;
    }
    // SA_RESETHAND restored the default action and SA_NODEFER lets this
    // arrive now: the process dies of the signal it got, as the host expects.
    ::raise(sig);
}

void install_fatal_handlers() {
    // Its own stack, so a stack overflow (deep template recursion in NVRTC)
    // can still send its note.
    static char altstack[64 * 1024];
    stack_t ss;
    std::memset(&ss, 0, sizeof ss);
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = kb_worker_fatal_signal;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::sigaction(s, &sa, nullptr);
}

// Writes everything or reports that the host is gone.
bool write_all(int fd, const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (w > 0) off += size_t(w);
        else if (w < 0 && errno == EINTR) continue;
        else return false;
    }
    return true;
}

// A request names something this worker does not hold (evicted, or the host
// thought it was sent to this worker): the host resends it.
struct Missing {
    std::vector<std::string> keys;
};

template <class T>
T take(std::list<std::pair<std::string, T>>& lru, const std::string& key) {
    for (auto it = lru.begin(); it != lru.end(); ++it)
        if (it->first == key) {
            lru.splice(lru.begin(), lru, it);
            return lru.front().second;
        }
    return T();
}

template <class T>
void put(std::list<std::pair<std::string, T>>& lru, const std::string& key, T value, size_t cap) {
    for (auto it = lru.begin(); it != lru.end(); ++it)
        if (it->first == key) {
            lru.erase(it);
            break;
        }
    lru.emplace_front(key, std::move(value));
    while (lru.size() > cap) lru.pop_back();
}

std::string case_label(const Task& t, int case_index) {
    if (case_index >= 0 && size_t(case_index) < t.cases.size()) return "'" + t.cases[size_t(case_index)].name + "'";
    return std::to_string(case_index);
}

int case_arg(const Json& j, const Task& t, bool allow_default) {
    int ci = j.value("case_index", -1);
    if (allow_default && ci == -1) return t.perf_index;
    check_case_index(t, ci);
    return ci;
}

// A candidate that took the CUDA context down with an error kbench's own
// work then met (not the launch itself): a runtime error all the same.
std::string crash_message(const Task& t, int case_index, const std::string& what) {
    return "the kernel crashed the CUDA context at case " + case_label(t, case_index) + ": " + what;
}

}  // namespace

// ---------------------------------------------------------------------------

void prepare_worker_process(int fd, pid_t parent) {
    ::signal(SIGPIPE, SIG_IGN);  // a vanished host is an EPIPE, handled
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // nvcc, started by the compiler, must not hold it
    // Descriptors the host leaked without close-on-exec (its files, pipes to
    // its other children) would stay open for the worker's whole life.
    bool closed = false;
#ifdef SYS_close_range
    if (fd > 3) closed = ::syscall(SYS_close_range, 3u, unsigned(fd - 1), 0u) == 0;
    else closed = true;
    closed = closed && ::syscall(SYS_close_range, unsigned(fd + 1), ~0u, 0u) == 0;
#endif
    if (!closed) {
        std::vector<int> fds;
        if (DIR* d = ::opendir("/proc/self/fd")) {
            while (dirent* e = ::readdir(d)) {
                int n = std::atoi(e->d_name);
                if (n > 2 && n != fd && n != ::dirfd(d)) fds.push_back(n);
            }
            ::closedir(d);
        }
        for (int n : fds) ::close(n);
    }
    // The host may die without closing the socket in an orderly way, and a
    // busy worker would not notice: a watcher thread exits with it.
    if (parent > 0) {
        if (::getppid() != parent) ::_exit(0);
        std::thread([parent] {
            int pfd = open_pidfd(parent);
            if (pfd >= 0) {
                pollfd p{pfd, POLLIN, 0};
                while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
                }
                ::_exit(0);
            }
            for (;;) {
                if (::getppid() != parent) ::_exit(0);
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
        }).detach();
    }
}

WorkerServer::WorkerServer(WorkerServerOptions opts) : opts_(opts) {}

WorkerServer::~WorkerServer() = default;

void WorkerServer::set_doing(uint64_t id, const std::string& what) {
    g_note_len = 0;
    std::string frame = wire::encode_frame(uint16_t(wire::Msg::note), id, Json{{"doing", what.substr(0, 2048)}});
    if (frame.size() <= sizeof g_note) {
        std::memcpy(g_note, frame.data(), frame.size());
        g_note_len = sig_atomic_t(frame.size());
    }
}

void WorkerServer::send(uint16_t type, uint64_t id, const Json& json, const std::vector<std::string>& blobs) {
    std::string bytes;
    try {
        bytes = wire::encode_frame(type, id, json, blobs);
    } catch (const wire::ProtocolError& e) {
        bytes = wire::encode_frame(type, id,
                                   Json{{"ok", false},
                                        {"status", int(KB_ERR_WORKER)},
                                        {"error", std::string("the worker's reply could not be sent: ") + e.what()}});
    }
    if (!write_all(opts_.fd, bytes)) shutting_down_ = true;  // the host is gone
}

int WorkerServer::run() {
    g_note_fd = opts_.fd;
    install_fatal_handlers();
    wire::FrameDecoder decoder;
    char buf[65536];
    while (!shutting_down_) {
        wire::Frame req;
        bool have = false;
        try {
            have = decoder.next(&req);
        } catch (const wire::ProtocolError& e) {
            // The stream can no longer be trusted; the host will see the
            // connection close and replace this worker.
            std::fprintf(stderr, "kbench-worker: malformed request from the host: %s\n", e.what());
            return 3;
        }
        if (!have) {
            ssize_t n = ::read(opts_.fd, buf, sizeof buf);
            if (n > 0) decoder.feed(buf, size_t(n));
            else if (n < 0 && errno == EINTR) continue;
            else return 0;  // the host closed the connection: nothing more to do
            continue;
        }
        Reply r = handle(req);
        if (r.json.is_null()) continue;  // a test hook wrote its own bytes
        send(wire::reply_type(wire::Msg(req.type)), req.id, r.json, r.blobs);
    }
    return 0;
}

WorkerServer::Reply WorkerServer::handle(const wire::Frame& req) {
    Reply r;
    std::string log;
    try {
        r = dispatch(req);
    } catch (const Missing& m) {
        r.json = {{"ok", false},
                  {"status", int(KB_ERR_WORKER)},
                  {"error", "this worker does not hold what the request names; resend it"},
                  {"missing", m.keys}};
    } catch (const CompileError& e) {
        r.blobs = {e.log()};
        r.json = {{"ok", false}, {"status", int(KB_ERR_COMPILE)}, {"error", e.what()}, {"log_blob", 0}};
    } catch (const wire::ProtocolError& e) {
        r.json = {{"ok", false},
                  {"status", int(KB_ERR_WORKER)},
                  {"error", std::string("the worker could not read the ") + wire::msg_name(req.type) + ": " + e.what()}};
    } catch (const Error& e) {
        r.json = {{"ok", false}, {"status", int(e.status())}, {"error", e.what()}};
    } catch (const KernelFault& e) {
        r.json = {{"ok", false},
                  {"status", int(KB_ERR_INTERNAL)},
                  {"error", std::string("a kernel fault escaped the backend: ") + e.what()}};
    } catch (const std::bad_alloc&) {
        r.json = {{"ok", false}, {"status", int(KB_ERR_OUT_OF_MEMORY)}, {"error", "the worker ran out of host memory"}};
    } catch (const std::exception& e) {
        r.json = {{"ok", false}, {"status", int(KB_ERR_INTERNAL)}, {"error", std::string("internal error in the worker: ") + e.what()}};
    }
    g_note_len = 0;
    if (r.json.is_null()) return r;
    if (backend_) {
        Device& d = backend_->device();
        if (d.lost()) {
            r.json["device_lost"] = true;
            r.json["lost_reason"] = d.lost_reason();
        } else {
            try {
                size_t free_bytes = 0, total = 0;
                d.memory_info(&free_bytes, &total);
                r.json["free_bytes"] = free_bytes;
                r.json["total_bytes"] = total;
            } catch (const std::exception&) {
                r.json["device_lost"] = d.lost();
            }
        }
    }
    return r;
}

WorkerServer::Reply WorkerServer::dispatch(const wire::Frame& req) {
    const Json& j = req.json;
    Reply r;
    auto ok = [](Json result) { return Json{{"ok", true}, {"result", std::move(result)}}; };
    switch (wire::Msg(req.type)) {
        case wire::Msg::hello:
            set_doing(req.id, "starting up (device " + std::to_string(opts_.device) + ")");
            r.json = ok(hello(j));
            return r;
        case wire::Msg::canary:
            set_doing(req.id, "running the canary");
            r.json = ok(canary());
            return r;
        case wire::Msg::compile:
            { KB_PROFILE_SPAN("worker.compile"); return compile(req); }
        case wire::Msg::run_reference:
            { KB_PROFILE_SPAN("worker.run_reference"); return run_reference(req); }
        case wire::Msg::install_reference:
            r.json = ok(install_reference(req));
            return r;
        case wire::Msg::compare:
            { KB_PROFILE_SPAN("worker.compare"); r.json = ok(compare(req)); }
            return r;
        case wire::Msg::compare_cases:
            { KB_PROFILE_SPAN("worker.compare_cases"); r.json = ok(compare_cases(req)); }
            return r;
        case wire::Msg::time:
            { KB_PROFILE_SPAN("worker.time"); r.json = ok(time(req)); }
            return r;
        case wire::Msg::shutdown:
            shutting_down_ = true;
            r.json = ok(Json::object());
            return r;
        case wire::Msg::test:
            if (!opts_.test_hooks) break;
            return test(req);
        default:
            break;
    }
    fail(KB_ERR_WORKER, "the worker does not serve " + wire::msg_name(req.type) +
                            (req.type == uint16_t(wire::Msg::test) ? " (it was not started with --test-hooks)" : ""));
}

LocalBackend& WorkerServer::backend() {
    if (!backend_)
        fail(KB_ERR_NO_DEVICE, "this kbench worker has no device (it was started for compilation, or has not said hello)");
    return *backend_;
}

Json WorkerServer::hello(const Json& req) {
    int protocol = req.value("protocol", -1);
    unsigned version = req.value("kbench_version", 0u);
    if (protocol != wire::kProtocolVersion || version != unsigned(KB_VERSION_NUMBER))
        fail(KB_ERR_WORKER, "this kbench-worker is kbench " + std::to_string(KB_VERSION_NUMBER) + " (protocol " +
                                std::to_string(wire::kProtocolVersion) + ") but the library is " +
                                std::to_string(version) + " (protocol " + std::to_string(protocol) +
                                "); use the kbench-worker installed with the library");
    if (req.contains("compiler")) {
        compiler_config_ = wire::compiler_config_from_json(req["compiler"]);
        // A compile worker runs NVRTC on untrusted code in this process: the
        // compile memory limit holds for it too (never for a device worker,
        // whose CUDA context reserves far more address space than it uses).
        if (opts_.device < 0) {
            ProcessLimits self;
            self.memory_bytes = compiler_config_.process_limits.memory_bytes;
            std::string err = apply_process_limits(self);
            if (!err.empty()) fail(KB_ERR_WORKER, "a compile worker could not limit its memory: " + err);
        }
    }
    auto t0 = Clock::now();
    Json out;
    out["pid"] = ::getpid();
    out["protocol"] = wire::kProtocolVersion;
    out["kbench_version"] = KB_VERSION_NUMBER;
    if (opts_.device >= 0 && !backend_) {
        backend_ = std::make_unique<LocalBackend>(opts_.device);
        // A reference whose rerun does not reproduce is answered as missing
        // (compare_case), and the host asks for it again with its outputs.
        // $KBENCH_KEEP_REFERENCE_COPIES=1 keeps them (a measuring knob).
        const char* keep = std::getenv("KBENCH_KEEP_REFERENCE_COPIES");
        backend_->keep_gpu_outputs(keep && std::string(keep) == "1");
    }
    out["device"] = backend_ ? backend_->device_info() : Json();
    out["init_ms"] = ms_since(t0);
    return out;
}

Json WorkerServer::canary() {
    if (!backend_) return {{"healthy", true}, {"device", false}};
    // kbench's own kernels on a few known values: input generation, the
    // comparison (equal buffers match; a poisoned one reads as unwritten) and
    // a guard check. Any fault here is a device or driver problem.
    auto t0 = Clock::now();
    Device& d = backend_->device();
    d.make_current();
    d.throw_if_lost();
    const uint64_t n = 1024;
    DeviceBuffer a = d.alloc(n * sizeof(float));
    DeviceBuffer b = d.alloc(n * sizeof(float));
    InitSpec init;
    d.fill_random(a.data(), n, DType::f32, init, 0x63616e617279ull, 0);  // "canary"
    d.fill_random(b.data(), n, DType::f32, init, 0x63616e617279ull, 0);
    CompareStats same = d.compare(b.data(), a.data(), n, DType::f32, Tolerance{});
    d.poison(b.data(), n, DType::f32);
    CompareStats poisoned = d.compare(b.data(), a.data(), n, DType::f32, Tolerance{});
    GuardReport guards = d.check_guards(a);
    d.sync("the canary");
    std::string detail;
    if (same.mismatches || same.unwritten)
        detail = "two buffers filled from one seed compared unequal (" + std::to_string(same.mismatches) + " mismatches)";
    else if (poisoned.unwritten != n)
        detail = "a poisoned buffer read as " + std::to_string(poisoned.unwritten) + " of " + std::to_string(n) +
                 " unwritten elements";
    else if (!guards.intact())
        detail = "a guard zone nobody wrote changed (" + std::to_string(guards.bad_bytes) + " bytes)";
    Json out = {{"healthy", detail.empty()}, {"canary_ms", ms_since(t0)}};
    if (!detail.empty()) out["detail"] = "the canary failed: " + detail;
    return out;
}

WorkerServer::Reply WorkerServer::compile(const wire::Frame& req) {
    CompileRequest cr = wire::compile_request_from_json(req.json.at("request"), req.blobs);
    set_doing(req.id, "compiling " + cr.source_name + " for " + cr.arch);
    apply_test_fault(req.json);
    if (!compiler_) {
        if (compiler_config_.cuda_home.empty()) compiler_config_.cuda_home = default_cuda_home();
        compiler_ = std::make_unique<Compiler>(compiler_config_);
    }
    // The host's compile service caches; this worker only builds.
    CompiledImage img = compiler_->compile_fresh(cr);
    Reply r;
    Json image = wire::image_to_json(img, &r.blobs);
    r.json = {{"ok", true}, {"result", image}};
    return r;
}

TaskPtr WorkerServer::task_of(const wire::Frame& req, std::vector<std::string>* missing) {
    const Json& t = req.json.at("task");
    std::string hash = t.at("hash").get<std::string>();
    if (t.contains("json")) {
        // Keyed by the host's hash, whatever re-normalising here would give:
        // it is the name both sides use.
        // The host checked the task against its caller's limits already.
        TaskPtr task = load_task_json(t["json"].get<std::string>(), "", Limits::trusted());
        put(tasks_, hash, task, kMaxTasks);
        return task;
    }
    TaskPtr task = take(tasks_, hash);
    if (!task) missing->push_back("task:" + hash);
    return task;
}

void WorkerServer::load_kernels(const wire::Frame& req, const TaskPtr& task) {
    if (!req.json.contains("kernels")) return;
    for (const Json& k : req.json["kernels"]) {
        KernelPtr kernel = wire::kernel_from_json(k, req.blobs, *task);
        put(kernels_, kernel->id, kernel, kMaxKernels);
    }
}

KernelPtr WorkerServer::kernel_of(const wire::Frame& req, const char* field, std::vector<std::string>* missing) {
    if (!req.json.contains(field) || req.json[field].is_null()) return nullptr;
    std::string id = req.json[field].get<std::string>();
    KernelPtr k = take(kernels_, id);
    if (!k) missing->push_back("kernel:" + id);
    return k;
}

// The task of a request with its reference and baseline, from what this
// worker holds or the request carries; names what is missing otherwise.
TaskBinding WorkerServer::binding_of(const wire::Frame& req, std::vector<std::string>* missing) {
    TaskPtr task = task_of(req, missing);
    if (task) load_kernels(req, task);
    return TaskBinding{task, kernel_of(req, "reference", missing), kernel_of(req, "baseline", missing)};
}

namespace {

// Whether the host asks for the reference at (case, seed) with every output
// copied to the host ("gpu_outputs_for": its keys): it saw that reference's
// rerun on the device differ once, so its comparisons upload its outputs
// rather than reproduce them.
bool wants_gpu_outputs(const Json& req, const Task& task, int ci, uint64_t seed) {
    auto it = req.find("gpu_outputs_for");
    if (it == req.end() || !it->is_array()) return false;
    const std::string key = ReferenceCache::key(task.hash, ci, seed);
    for (const Json& k : *it)
        if (k.is_string() && k.get<std::string>() == key) return true;
    return false;
}

}  // namespace

WorkerServer::Reply WorkerServer::run_reference(const wire::Frame& req) {
    std::vector<std::string> missing;
    TaskBinding tb = binding_of(req, &missing);
    const TaskPtr& task = tb.task;
    if (!missing.empty()) throw Missing{missing};
    int ci = case_arg(req.json, *task, false);
    uint64_t seed = req.json.at("seed").get<uint64_t>();
    set_doing(req.id, "running the reference of task '" + task->name + "' at case " + case_label(*task, ci));
    apply_test_fault(req.json);
    // A host that only needs the run time (its deadline for the candidate)
    // says so: the statistics of every output were about a third of this
    // request's time (44.5 ms mean, 30.5 of it the run, in a `kbench run`
    // profile), and nobody would read them.
    Json result = req.json.value("statistics", true)
                      ? to_json(backend().run_reference(tb, ci, seed))
                      : to_json(backend().reference_run_time(tb, ci, seed, wants_gpu_outputs(req.json, *task, ci, seed)));
    Reply r;
    // The host keeps the digest for this worker's replacement (exec/reference_cache.h).
    if (req.json.value("digest", false))
        if (std::optional<ReferenceDigest> d = backend().reference_digest(tb, ci, seed))
            result["digest"] = wire::reference_digest_to_json(*d, &r.blobs);
    r.json = {{"ok", true}, {"result", std::move(result)}};
    return r;
}

Json WorkerServer::install_reference(const wire::Frame& req) {
    std::vector<std::string> missing;
    TaskBinding tb = binding_of(req, &missing);
    if (!missing.empty()) throw Missing{missing};
    int ci = case_arg(req.json, *tb.task, false);
    uint64_t seed = req.json.at("seed").get<uint64_t>();
    set_doing(req.id, "holding the reference of task '" + tb.task->name + "' at case " + case_label(*tb.task, ci) +
                          " from an earlier worker's digest");
    backend().install_reference(tb, ci, seed, wire::reference_digest_from_json(req.json.at("digest"), req.blobs));
    return Json::object();
}

namespace {

// The host's limit on one run (a hang then costs that, not the request's
// whole deadline); absent from an older host: wait as before.
KernelLimit kernel_limit_of(const Json& j) {
    KernelLimit limit;
    limit.seconds = j.value("kernel_limit_s", 0.0);
    limit.why = j.value("kernel_limit_why", std::string());
    limit.loop_seconds = j.value("kernel_loop_limit_s", 0.0);
    limit.loop_why = j.value("kernel_loop_limit_why", std::string());
    return limit;
}

}  // namespace

CompareResult WorkerServer::compare_case(uint64_t id, const TaskBinding& tb, const KernelPtr& kernel, int ci,
                                         uint64_t seed, unsigned runs, const KernelLimit& limit, const Json& req) {
    const Task& task = *tb.task;
    LocalBackend& b = backend();
    // The reference first, on its own: its failure is the task's, not the
    // candidate's (normally a cache hit: the host asked for it already).
    set_doing(id, "running the reference of task '" + task.name + "' at case " + case_label(task, ci));
    b.reference_outputs(tb, ci, seed, true, wants_gpu_outputs(req, task, ci, seed));
    set_doing(id, "comparing " + kernel->label + " at case " + case_label(task, ci) + " of task '" + task.name + "'");
    apply_test_fault(req);
    CompareResult r;
    try {
        r = b.compare(tb, kernel, ci, seed, runs, limit);
    } catch (const Error& e) {
        if (!b.device().lost()) {
            // A reference held without its large outputs (from a digest, or
            // run here without copying them) that did not reproduce on the
            // device (it is gone from this worker now): the host resends the
            // request, and the reference runs first, with its outputs.
            if (auto* n = dynamic_cast<const ReferenceNotReproduced*>(&e)) throw Missing{{"ref:" + n->key}};
            throw;
        }
        r.where = case_info(task, ci, seed);
        r.kernel = kernel->label;
        r.verdict = KB_VERDICT_RUNTIME_ERROR;
        r.message = crash_message(task, ci, e.what());
        r.context_lost = true;
    }
    return r;
}

std::pair<TaskBinding, KernelPtr> WorkerServer::candidate_of(const wire::Frame& req) {
    std::vector<std::string> missing;
    TaskBinding tb = binding_of(req, &missing);
    KernelPtr kernel = kernel_of(req, "kernel", &missing);
    if (!missing.empty()) throw Missing{missing};
    if (!kernel) fail(KB_ERR_WORKER, "a " + wire::msg_name(req.type) + " request without a kernel");
    return {std::move(tb), std::move(kernel)};
}

Json WorkerServer::compare(const wire::Frame& req) {
    auto [tb, kernel] = candidate_of(req);
    int ci = case_arg(req.json, *tb.task, false);
    uint64_t seed = req.json.at("seed").get<uint64_t>();
    unsigned runs = req.json.value("runs", 1u);
    // The checked build where there is one, but for the recheck after timing,
    // which must see the module that was timed (engine/backend.h).
    KernelLimit limit = kernel_limit_of(req.json);
    limit.checked_build = !req.json.value("timed_build", false);
    return to_json(compare_case(req.id, tb, kernel, ci, seed, runs, limit, req.json));
}

Json WorkerServer::compare_cases(const wire::Frame& req) {
    auto [tb, kernel] = candidate_of(req);
    uint64_t seed = req.json.at("seed").get<uint64_t>();
    const Json& cases = req.json.at("cases");
    if (!cases.is_array() || cases.empty()) fail(KB_ERR_WORKER, "a compare_cases request without cases");
    Json results = Json::array();
    for (const Json& c : cases) {
        int ci = case_arg(c, *tb.task, false);
        // Correctness runs: the checked build where there is one.
        KernelLimit limit = kernel_limit_of(c);
        limit.checked_build = true;
        CompareResult r = compare_case(req.id, tb, kernel, ci, seed, c.value("runs", 1u), limit, req.json);
        results.push_back(to_json(r));
        if (r.verdict != KB_VERDICT_PASS) break;
    }
    return Json{{"results", std::move(results)}};
}

Json WorkerServer::time(const wire::Frame& req) {
    std::vector<std::string> missing;
    TaskBinding tb = binding_of(req, &missing);
    const TaskPtr& task = tb.task;
    KernelPtr kernel = kernel_of(req, "kernel", &missing);
    if (!missing.empty()) throw Missing{missing};
    TimeRequest tr = wire::time_request_from_json(req.json.at("request"));
    int ci = tr.case_index < 0 ? task->perf_index : case_arg(Json{{"case_index", tr.case_index}}, *task, false);
    set_doing(req.id, "timing " + (kernel ? kernel->label : std::string("the baseline")) + " at case " +
                          case_label(*task, ci) + " of task '" + task->name + "'");
    apply_test_fault(req.json);
    LocalBackend& b = backend();
    TimeResult r;
    try {
        r = b.time(tb, kernel, tr);
    } catch (const Error& e) {
        if (!b.device().lost() || !kernel) throw;
        r.where = case_info(*task, ci, std::nullopt);
        r.verdict = KB_VERDICT_RUNTIME_ERROR;
        r.message = "while timing: " + crash_message(*task, ci, e.what());
        r.context_lost = true;
    }
    return to_json(r);
}

// --- test hooks ----------------------------------------------------------------
// Used by kbench's own tests to make a worker misbehave on demand, so that the
// host's watchdog, respawn and reporting are proven without a GPU. A worker
// serves them only when started with --test-hooks.

void WorkerServer::apply_test_fault(const Json& req) {
    if (!opts_.test_hooks || !req.contains("test_fault")) return;
    std::string f = req["test_fault"].get<std::string>();
    if (f == "abort") std::abort();
    if (f == "segv") ::raise(SIGSEGV);
    if (f.rfind("exit:", 0) == 0) ::_exit(std::atoi(f.c_str() + 5));
    if (f.rfind("sleep:", 0) == 0) std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(f.c_str() + 6)));
}

WorkerServer::Reply WorkerServer::test(const wire::Frame& req) {
    const Json& j = req.json;
    std::string action = j.value("action", "");
    set_doing(req.id, "the test action '" + action + "'");
    Reply r;
    if (action == "echo") {
        r.json = {{"ok", true}, {"result", {{"value", j.value("value", Json())}, {"pid", ::getpid()}}}};
        r.blobs = req.blobs;
    } else if (action == "sleep") {
        double s = j.value("seconds", 1.0);
        std::this_thread::sleep_for(std::chrono::duration<double>(s));
        r.json = {{"ok", true}, {"result", {{"slept_s", s}}}};
    } else if (action == "abort") {
        std::abort();
    } else if (action == "segv") {
        ::raise(SIGSEGV);
    } else if (action == "exit") {
        ::_exit(j.value("code", 0));
    } else if (action == "garble") {
        write_all(opts_.fd, "GARBAGE!GARBAGE!GARBAGE!GARBAGE!");
    } else if (action == "bad_json") {
        std::string frame = wire::encode_frame(wire::reply_type(wire::Msg::test), req.id, Json{{"x", 1}});
        // Same length, broken content: a header that is right and a body that is not.
        std::string body = "{\"x\":!}";
        frame.replace(wire::kHeaderBytes, body.size(), body);
        write_all(opts_.fd, frame);
    } else if (action == "wrong_id") {
        write_all(opts_.fd, wire::encode_frame(wire::reply_type(wire::Msg::test), req.id + 7, Json{{"ok", true}}));
    } else if (action == "partial") {
        std::string frame = wire::encode_frame(wire::reply_type(wire::Msg::test), req.id, Json{{"ok", true}});
        write_all(opts_.fd, frame.substr(0, frame.size() / 2));
        std::this_thread::sleep_for(std::chrono::duration<double>(j.value("seconds", 60.0)));
    } else if (action == "grandchild") {
        // A child in the worker's process group (as nvcc is): a kill of the
        // group must take it too.
        pid_t child = ::fork();
        if (child == 0) {
            std::this_thread::sleep_for(std::chrono::duration<double>(j.value("seconds", 60.0)));
            ::_exit(0);
        }
        r.json = {{"ok", true}, {"result", {{"child", child}}}};
    } else if (action == "lose_device") {
        // What a reply after a sticky CUDA error looks like.
        r.json = {{"ok", true}, {"result", {{"lost", true}}}, {"device_lost", true}, {"lost_reason", "a test"}};
    } else if (action == "fds") {
        Json fds = Json::array();
        if (DIR* d = ::opendir("/proc/self/fd")) {
            while (dirent* e = ::readdir(d))
                if (e->d_name[0] != '.' && std::atoi(e->d_name) != ::dirfd(d)) fds.push_back(std::atoi(e->d_name));
            ::closedir(d);
        }
        r.json = {{"ok", true}, {"result", {{"fds", fds}}}};
    } else if (action == "big") {
        r.blobs = {std::string(size_t(j.value("bytes", 1 << 20)), 'x')};
        r.json = {{"ok", true}, {"result", Json::object()}};
    } else {
        fail(KB_ERR_INVALID_ARGUMENT, "unknown test action '" + action + "'");
    }
    return r;
}

}  // namespace kb
