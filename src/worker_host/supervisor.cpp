#include "worker_host/supervisor.h"

#include <chrono>

#include "util/error.h"
#include "worker_host/deadlines.h"
#include "util/clock.h"
#include "util/profile.h"

namespace kb {
namespace {


WorkerClock::time_point after(WorkerClock::time_point t, double seconds) {
    return t + std::chrono::duration_cast<WorkerClock::duration>(std::chrono::duration<double>(seconds));
}

std::string describe(const Outcome& o) {
    std::string s = std::string(outcome_kind_name(o.kind)) + ": " + o.detail;
    if (!o.last_words.empty()) s += " (while " + o.last_words + ")";
    return s;
}

}  // namespace

Supervisor::Supervisor(WorkerSettings settings) : settings_(std::move(settings)) {}

Supervisor::~Supervisor() {
    if (active_) {
        // Politely first: the worker frees its device memory and exits.
        try {
            Outcome o = active_->call(wire::Msg::shutdown, Json::object(), {},
                                      after(WorkerClock::now(), DeadlinePolicy::kShutdownS));
            if (o.ok()) active_->reap(DeadlinePolicy::kShutdownS);
        } catch (...) {
            // Killed below instead.
        }
        park(std::move(active_));
    }
    if (standby_) park(std::move(standby_->proc));  // killed: it holds nothing
    reap_pending(5.0);
    // Whatever is still there now is stuck in the kernel; ~WorkerProcess
    // tries once more, and the host's exit collects the rest.
}

void Supervisor::let_go() {
    if (active_) active_->let_go();
    if (standby_) standby_->proc->let_go();
    for (auto& p : pending_) p->let_go();
    active_.reset();
    standby_.reset();
    pending_.clear();
    has_.clear();
    hello_ = Json();
}

pid_t Supervisor::pid() const { return active_ ? active_->pid() : 0; }

bool Supervisor::has(const std::string& key) const { return has_.count(key) != 0; }
void Supervisor::remember(const std::string& key) {
    // Bounded: a long life of fresh secret seeds would grow it without end.
    // Forgetting is harmless (the worker is sent again what it already has).
    if (has_.size() >= 65536) has_.clear();
    has_.insert(key);
}
void Supervisor::forget(const std::string& key) { has_.erase(key); }

void Supervisor::park(std::unique_ptr<WorkerProcess> proc) {
    if (!proc) return;
    proc->kill();
    if (!proc->reap(0.0)) pending_.push_back(std::move(proc));
}

bool Supervisor::reap_pending(double wait_s) {
    auto until = after(WorkerClock::now(), wait_s);
    for (auto it = pending_.begin(); it != pending_.end();) {
        double left = std::chrono::duration<double>(until - WorkerClock::now()).count();
        if ((*it)->reap(left > 0 ? left : 0.0)) it = pending_.erase(it);
        else ++it;
    }
    return pending_.empty();
}

Supervisor::Starting Supervisor::start_worker() {
    Starting s;
    s.proc = WorkerProcess::spawn(settings_.spawn);  // throws KB_ERR_WORKER
    ++spawned_;
    Json hello = settings_.hello_extra.is_object() ? settings_.hello_extra : Json::object();
    hello["protocol"] = wire::kProtocolVersion;
    hello["kbench_version"] = KB_VERSION_NUMBER;
    hello["device"] = settings_.spawn.device;
    s.sent = WorkerClock::now();
    // The hello goes out at once; the worker starts its device while the
    // host does other things, and its answer waits in the socket.
    s.hello_id = s.proc->send(wire::Msg::hello, hello, {}, after(s.sent, hello_deadline()), &s.send_failure);
    return s;
}

double Supervisor::hello_deadline() const {
    return settings_.hello_s > 0 ? settings_.hello_s : DeadlinePolicy::kHelloS;
}

void Supervisor::start_standby() {
    if (!settings_.standby || standby_ || standby_failed_) return;
    if (settings_.standby_after_loss && !lost_one_) return;
    try {
        standby_ = std::make_unique<Starting>(start_worker());
    } catch (const Error& e) {
        // The standby only saves time; without one, a respawn starts a worker then.
        last_failure_ = std::string("standby: ") + e.what();
        standby_failed_ = true;
    }
}

void Supervisor::lose_active() {
    if (active_) lost_one_ = true;
    park(std::move(active_));
    has_.clear();
    hello_ = Json();
}

void Supervisor::retire() { lose_active(); }

void Supervisor::ensure_ready() {
    reap_pending(0.0);
    // A worker that died while idle (the OOM killer, a stray kill) is
    // replaced before the next request, which must not be blamed for it.
    if (active_ && active_->exited()) {
        last_failure_ = "the worker " + std::to_string(active_->pid()) + " died while idle";
        lose_active();
    }
    if (active_) return;
    KB_PROFILE_SPAN("host.worker_ready");  // the standby's hello and canary, or a fresh worker's start
    auto t0 = WorkerClock::now();
    std::string errors;
    // Three tries: the standby, then fresh workers. A fresh one waits for the
    // killed worker to be gone first: a GPU in exclusive-process mode admits
    // one context at a time.
    for (int attempt = 0; attempt < 3; ++attempt) {
        bool from_standby = false;
        Starting s;
        if (standby_) {
            s = std::move(*standby_);
            standby_.reset();
            from_standby = true;
        } else {
            if (attempt > 0) reap_pending(2.0);
            s = start_worker();
        }
        Outcome h = s.hello_id ? s.proc->await(s.hello_id, wire::Msg::hello, s.sent, after(s.sent, hello_deadline()))
                               : s.send_failure;
        if (!h.ok()) {
            errors += "\n  worker " + std::to_string(s.proc->pid()) + " did not start: " + describe(h);
            park(std::move(s.proc));
            continue;
        }
        const Json& r = h.reply.json;
        if (!wire::reply_ok(r)) {
            park(std::move(s.proc));
            if (from_standby) {
                // A standby that could not start beside a live worker (a GPU
                // in exclusive-process mode refuses a second context): try a
                // fresh one now that the old worker is gone, and stop keeping
                // standbys if that one starts.
                errors += "\n  the standby refused to start: " + wire::reply_error(r);
                standby_failed_ = true;
                continue;
            }
            // A fresh worker's refusal is final (no such device, no driver).
            fail(wire::reply_status(r), wire::reply_error(r));
        }
        if (from_standby) standby_failed_ = false;
        auto c0 = WorkerClock::now();
        Outcome k = s.proc->call(wire::Msg::canary, Json::object(), {},
                                 after(c0, settings_.canary_s > 0 ? settings_.canary_s : DeadlinePolicy::kCanaryS));
        last_canary_ms_ = ms_since(c0);
        bool healthy = k.ok() && wire::reply_ok(k.reply.json) &&
                       k.reply.json.value("result", Json::object()).value("healthy", false);
        if (!healthy) {
            std::string why = !k.ok() ? describe(k)
                              : !wire::reply_ok(k.reply.json)
                                  ? wire::reply_error(k.reply.json)
                                  : k.reply.json["result"].value("detail", std::string("the canary's results were wrong"));
            errors += "\n  worker " + std::to_string(s.proc->pid()) + " failed the canary: " + why;
            park(std::move(s.proc));
            continue;
        }
        active_ = std::move(s.proc);
        hello_ = r.value("result", Json::object());
        has_.clear();
        const bool respawn = ever_ready_;
        if (respawn) {
            ++respawns_;
            last_respawn_ms_ = ms_since(t0);
            max_respawn_ms_ = std::max(max_respawn_ms_, last_respawn_ms_);
        }
        ever_ready_ = true;
        // After a failure, the next standby starts now rather than after
        // this worker's first reply: failures come in runs (a model's answers
        // for one task crash alike), and a replacement waits for whatever is
        // left of its standby's start (replacements can take over a second:
        // bench/trace_lanes.py shows them). The first worker's
        // standby still waits for its first reply, so that a context's
        // creation is not slowed by a second start.
        if (respawn) start_standby();
        return;
    }
    last_failure_ = errors;
    const SpawnOptions& sp = settings_.spawn;
    const std::string program = sp.command.empty() ? sp.executable : sp.command.back();
    fail(KB_ERR_WORKER, "could not start a healthy " + sp.what + " (" + program + "):" + errors +
                            (sp.command.empty() ? "\nthe device may be unusable (check nvidia-smi), or the worker does not "
                                                  "belong to this library (set kb_context_options.worker_path or "
                                                  "$KBENCH_WORKER)"
                                                : "\n" + sp.fix));
}

Outcome Supervisor::call(wire::Msg type, const Json& body, const std::vector<std::string>& blobs, double deadline_s) {
    ensure_ready();
    Outcome o = active_->call(type, body, blobs, after(WorkerClock::now(), deadline_s));
    if (!o.ok()) {
        last_failure_ = describe(o);
        lose_active();
    } else {
        // The worker in use has done real work: now is the time to warm the next.
        start_standby();
    }
    reap_pending(0.0);
    return o;
}

Json Supervisor::stats() const {
    Json j;
    j["pid"] = pid();
    j["executable"] = settings_.spawn.executable;
    j["workers_started"] = spawned_;
    j["respawns"] = respawns_;
    j["last_respawn_ms"] = last_respawn_ms_;
    j["max_respawn_ms"] = max_respawn_ms_;
    j["last_canary_ms"] = last_canary_ms_;
    j["standby"] = !settings_.standby                       ? "off"
                   : standby_                               ? "starting or ready"
                   : standby_failed_                        ? "unavailable"
                   : settings_.standby_after_loss && !lost_one_ ? "after a loss"
                                                            : "not yet";
    j["pending_reaps"] = pending_.size();
    if (!last_failure_.empty()) j["last_failure"] = last_failure_;
    return j;
}

}  // namespace kb
