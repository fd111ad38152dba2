#include "worker_host/compile_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/error.h"
#include "util/units.h"
#include "worker_host/deadlines.h"
#include "protocol/wire.h"
#include "worker_host/worker_backend.h"
#include "util/clock.h"
#include "util/profile.h"

namespace kb {
namespace {


size_t default_workers() { return default_compile_workers(); }

}  // namespace

CompilePool::CompilePool(WorkerSettings settings, CompilerConfig config, size_t max_workers, double deadline_s)
    : settings_(std::move(settings)),
      max_workers_(max_workers ? max_workers : default_workers()),
      // Past the compiler's own wall-clock limit, whose message is more precise.
      deadline_s_(deadline_s > 0 ? deadline_s
                  : config.timeout_s > 0 ? config.timeout_s + 30
                                         : DeadlinePolicy::kCompileS),
      memory_bytes_(config.process_limits.memory_bytes) {
    settings_.hello_extra["compiler"] = wire::compiler_config_to_json(config);
    settings_.standby = false;  // compile workers start on demand; they hold no device
    settings_.spawn.device = -1;
}

CompilePool::~CompilePool() = default;

size_t CompilePool::started_workers() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_.size();
}

void CompilePool::inject_fault_once(const std::string& fault) {
    std::lock_guard<std::mutex> lock(mutex_);
    fault_ = fault;
}

void CompilePool::let_go() {
    // Otherwise the pool's end asks each worker in turn to shut down and
    // waits for it to exit. Workers busy in a build are left to that.
    std::lock_guard<std::mutex> lock(mutex_);
    for (Supervisor* s : idle_) s->let_go();
}

Supervisor* CompilePool::acquire() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (!idle_.empty()) {
            Supervisor* s = idle_.back();
            idle_.pop_back();
            return s;
        }
        if (all_.size() < max_workers_) {
            all_.push_back(std::make_unique<Supervisor>(settings_));  // its worker starts at its first call
            return all_.back().get();
        }
        idle_cv_.wait(lock);
    }
}

void CompilePool::release(Supervisor* s) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_.push_back(s);
    }
    idle_cv_.notify_one();
}

CompiledImage CompilePool::build(const CompileRequest& request) {
    auto t0 = std::chrono::steady_clock::now();

    std::vector<std::string> blobs;
    Json body = {{"request", wire::compile_request_to_json(request, &blobs)}};
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!fault_.empty()) body["test_fault"] = fault_;
        fault_.clear();
    }
    Supervisor* s = acquire();
    Outcome o;
    try {
        KB_PROFILE_SPAN("host.compile_pool_call");
        o = s->call(wire::Msg::compile, body, blobs, deadline_s_);
    } catch (...) {
        release(s);
        throw;
    }
    release(s);

    const std::string& name = request.source_name;
    switch (o.kind) {
        case Outcome::Kind::reply: break;
        case Outcome::Kind::timeout:
            throw CompileError(name + ": the compiler did not finish within " + std::to_string(int(deadline_s_ + 0.5)) +
                                   " s and was stopped; simplify the code (deep template recursion and huge unrolled "
                                   "loops make the compiler slow)",
                               "");
        case Outcome::Kind::died:
            throw CompileError(name + ": the compiler crashed on this code (its process " + o.detail +
                                   (o.last_words.empty() ? "" : " while " + o.last_words) +
                                   "); kbench contained it in a compile worker. It is a compiler bug this code "
                                   "triggers, or the code needs more than the compile worker's memory limit (" +
                                   (memory_bytes_ ? format_bytes(memory_bytes_) : std::string("none")) +
                                   ", kb_limits.compile_memory_bytes): rewrite the construct it chokes on",
                               "");
        case Outcome::Kind::garbled:
            fail(KB_ERR_WORKER, "a kbench compile worker (pid " + std::to_string(o.pid) +
                                    ") broke the protocol: " + o.detail + "; it was replaced. This is a kbench bug, "
                                    "or a kbench-worker from another build (" + settings_.spawn.executable + ")");
    }
    const Json& r = o.reply.json;
    if (!wire::reply_ok(r)) {
        kb_status st = wire::reply_status(r);
        if (st == KB_ERR_COMPILE)
            throw CompileError(wire::reply_error(r), r.contains("log_blob") ? wire::blob_at(r, "log_blob", o.reply.blobs)
                                                                            : std::string());
        fail(st, wire::reply_error(r));
    }
    CompiledImage img;
    try {
        img = wire::image_from_json(r.at("result"), o.reply.blobs);
    } catch (const std::exception& e) {
        fail(KB_ERR_WORKER, std::string("a kbench compile worker sent an image this library cannot read: ") + e.what());
    }
    img.compile_ms = ms_since(t0);  // what the caller waited, the trip to the worker included
    return img;
}

std::unique_ptr<CompilePool> make_compile_pool(const ContextOptions& opts, const CompilerConfig& config) {
    return std::make_unique<CompilePool>(worker_settings(opts, -1), config);
}

}  // namespace kb
