// What worker isolation costs and how it holds up, on vector_add_f32:
//   (a) kb_score through a worker against kb_score in process (target: at most 1.25x);
//   (b) a crash to the next healthy verdict, respawn included (target: at most 0.5 s);
//   (c) a hang reported past its deadline by (target: at most 0.5 s);
//   (d) N candidates in a row (default 1000), 10% crashing and 2% hanging: the
//       host survives, every verdict is right, the live worker's free device
//       memory stays flat.
// Prints one JSON object with flat keys (units in the names).
//
//   kbench_isolation_bench [N=1000] [score_iterations=20]
#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "bench_util.h"
#include "engine/context.h"
#include "engine/result_json.h"
#include "engine/verdict.h"
#include "worker_host/isolation.h"
#include "worker_host/worker_backend.h"

using namespace bench;

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().empty()) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return ss.str();
}

std::string kernel(const std::string& rel) { return read(source_dir() + "/" + rel); }

std::unique_ptr<kb::Context> context(kb_isolation isolation, double timeout_s = 0) {
    kb::ContextOptions o;
    o.device = 0;
    o.isolation = isolation;
    o.timeout_s = timeout_s;
    return std::make_unique<kb::Context>(o, kb::worker_isolation());
}

struct Scored {
    kb_verdict verdict;
    double ms;
    kb::Json json;
};

Scored score(kb::Context& ctx, const kb::TaskPtr& task, const std::string& code, bool timing) {
    kb::CandidateInput in;
    in.code = code;
    in.label = "candidate.cu";
    kb::ScoreOptions so;
    so.skip_timing = !timing;
    double t0 = now_ms();
    kb::Json r = to_json(ctx.score(task, in, so));
    return {kb::verdict_from_name(r.value("verdict", "none")), now_ms() - t0, r};
}

kb::Supervisor& supervisor(kb::Context& ctx) { return dynamic_cast<kb::WorkerBackend&>(ctx.backend()).supervisor(); }

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

size_t open_fds() {
    size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

// Children of this process that died and were never reaped.
int zombie_children() {
    int zombies = 0;
    pid_t me = ::getpid();
    if (DIR* d = ::opendir("/proc")) {
        while (dirent* e = ::readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
            std::string line;
            if (!std::getline(stat, line)) continue;
            size_t close = line.rfind(')');
            if (close == std::string::npos) continue;
            char state = 0;
            int ppid = 0;
            if (std::sscanf(line.c_str() + close + 2, "%c %d", &state, &ppid) == 2 && ppid == me && state == 'Z')
                ++zombies;
        }
        ::closedir(d);
    }
    return zombies;
}

double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

}  // namespace

int main(int argc, char** argv) {
    int n_candidates = argc > 1 ? std::atoi(argv[1]) : 1000;
    int iters = argc > 2 ? std::atoi(argv[2]) : 20;
    int devices = 0;
    kb_device_count(&devices);
    if (devices == 0) {
        std::printf("{\"skipped\": \"no CUDA device\"}\n");
        return 77;
    }
    kb::Json out;
    size_t fds_at_start = open_fds();
    kb::TaskPtr task = kb::load_task(source_dir() + "/tasks/elementwise/vector_add_f32/task.json");
    const std::string correct = kernel("tasks/elementwise/vector_add_f32/candidates/correct.cu");
    const std::string crashes[] = {kernel("tests/adversarial/kernels/illegal_address.cu"),
                                   kernel("tests/adversarial/kernels/trap.cu"),
                                   kernel("tests/adversarial/kernels/misaligned.cu")};
    const std::string hang = kernel("tests/adversarial/kernels/infinite_loop.cu");
    int failures = 0;
    auto expect = [&](const Scored& s, kb_verdict v, const char* what) {
        if (s.verdict == v) return;
        ++failures;
        std::fprintf(stderr, "%s: expected %s, got %s: %s\n", what, kb::verdict_name(v), kb::verdict_name(s.verdict),
                     s.json.value("message", "").c_str());
    };

    // (a) The cost of isolation on a full kb_score (compile, every case, timing, recheck).
    for (kb_isolation iso : {KB_ISOLATION_IN_PROCESS, KB_ISOLATION_WORKER}) {
        const char* name = iso == KB_ISOLATION_WORKER ? "worker" : "inprocess";
        double t0 = now_ms();
        auto ctx = context(iso);
        double create_ms = now_ms() - t0;
        Scored first = score(*ctx, task, "// first\n" + correct, true);
        expect(first, KB_VERDICT_PASS, "(a) first");
        sleep_ms(500);  // the worker's standby starts after its first request: not while measuring
        std::vector<double> total, compile, nvrtc;
        for (int i = 0; i < iters; ++i) {
            Scored s = score(*ctx, task, "// candidate " + std::to_string(i) + "\n" + correct, true);
            expect(s, KB_VERDICT_PASS, "(a)");
            total.push_back(s.ms);
            compile.push_back(s.json["compile"].value("compile_ms", 0.0));
            nvrtc.push_back(s.json["compile"].value("nvrtc_ms", 0.0));
        }
        out[std::string("a_") + name + "_context_create_ms"] = create_ms;
        out[std::string("a_") + name + "_first_score_ms"] = first.ms;
        out[std::string("a_") + name + "_score_median_ms"] = median(total);
        out[std::string("a_") + name + "_score_p90_ms"] = quantile(total, 0.9);
        out[std::string("a_") + name + "_compile_median_ms"] = median(compile);
        out[std::string("a_") + name + "_nvrtc_median_ms"] = median(nvrtc);
    }
    out["a_worker_over_inprocess_ratio"] =
        out["a_worker_score_median_ms"].get<double>() / out["a_inprocess_score_median_ms"].get<double>();

    // (b) A crash, then the next candidate: how long until its verdict, respawn included.
    {
        auto ctx = context(KB_ISOLATION_WORKER);
        std::vector<double> steady, after_crash, respawn;
        for (int round = 0; round < 10; ++round) {
            Scored warm = score(*ctx, task, "// steady " + std::to_string(round) + "\n" + correct, false);
            expect(warm, KB_VERDICT_PASS, "(b) steady");
            steady.push_back(warm.ms);
            sleep_ms(500);  // the standby, started after the worker's first request, is ready
            Scored crash = score(*ctx, task, crashes[round % 3], false);
            expect(crash, KB_VERDICT_RUNTIME_ERROR, "(b) crash");
            Scored next = score(*ctx, task, "// after " + std::to_string(round) + "\n" + correct, false);
            expect(next, KB_VERDICT_PASS, "(b) after the crash");
            after_crash.push_back(next.ms);
            respawn.push_back(supervisor(*ctx).last_respawn_ms());
        }
        out["b_crash_to_healthy_verdict_median_ms"] = median(after_crash);
        out["b_crash_to_healthy_verdict_max_ms"] = quantile(after_crash, 1.0);
        out["b_steady_score_median_ms"] = median(steady);
        out["b_respawn_overhead_median_ms"] = median(after_crash) - median(steady);
        out["b_worker_respawn_median_ms"] = median(respawn);
        out["b_worker_respawn_max_ms"] = quantile(respawn, 1.0);
    }

    // (c) A hang under a 1 s deadline: reported how long past it.
    {
        const double deadline_s = 1.0;
        auto ctx = context(KB_ISOLATION_WORKER, deadline_s);
        std::vector<double> overshoot, total, next_ms;
        for (int round = 0; round < 3; ++round) {
            expect(score(*ctx, task, correct, false), KB_VERDICT_PASS, "(c) warm");
            sleep_ms(1000);
            Scored h = score(*ctx, task, hang, false);
            expect(h, KB_VERDICT_TIMEOUT, "(c) hang");
            const kb::Json& c = h.json["cases"].back();
            overshoot.push_back(c.value("run_ms", 0.0) - 1000.0 * c.value("deadline_s", deadline_s));
            total.push_back(h.ms);
            Scored n = score(*ctx, task, "// after hang " + std::to_string(round) + "\n" + correct, false);
            expect(n, KB_VERDICT_PASS, "(c) after the hang");
            next_ms.push_back(n.ms);
        }
        out["c_deadline_s"] = deadline_s;
        out["c_hang_overshoot_median_ms"] = median(overshoot);
        out["c_hang_overshoot_max_ms"] = quantile(overshoot, 1.0);
        out["c_hang_score_median_ms"] = median(total);
        out["c_hang_to_healthy_verdict_median_ms"] = median(next_ms);
    }

    // (d) N candidates in a row: 10% crash (i % 10 == 5), 2% hang
    // (i % 50 == 10), the rest correct.
    {
        // A 0.5 s deadline: every honest request here takes under 0.1 s on
        // an H100, and each hang costs the deadline.
        auto ctx = context(KB_ISOLATION_WORKER, 0.5);
        int crashed = 0, hung = 0, passed = 0;
        std::vector<uint64_t> free_bytes;
        double t0 = now_ms();
        for (int i = 0; i < n_candidates; ++i) {
            Scored s;
            if (i % 50 == 10) {
                s = score(*ctx, task, hang, false);
                expect(s, KB_VERDICT_TIMEOUT, "(d) hang");
                ++hung;
            } else if (i % 10 == 5) {
                s = score(*ctx, task, crashes[(i / 10) % 3], false);
                expect(s, KB_VERDICT_RUNTIME_ERROR, "(d) crash");
                ++crashed;
            } else {
                // A handful of distinct sources: compile caching is not what this measures.
                s = score(*ctx, task, "// variant " + std::to_string(i % 16) + "\n" + correct, false);
                expect(s, KB_VERDICT_PASS, "(d) correct");
                ++passed;
                const kb::Json& w = s.json["recheck"]["worker"];
                if (i >= 20 && w.contains("device_free_bytes")) free_bytes.push_back(w["device_free_bytes"].get<uint64_t>());
            }
        }
        out["d_candidates"] = n_candidates;
        out["d_crashes"] = crashed;
        out["d_hangs"] = hung;
        out["d_passes"] = passed;
        out["d_wall_s"] = (now_ms() - t0) / 1000.0;
        out["d_wrong_verdicts"] = failures;
        out["d_respawns"] = supervisor(*ctx).respawns();
        out["d_max_respawn_ms"] = supervisor(*ctx).stats()["max_respawn_ms"];
        if (!free_bytes.empty()) {
            uint64_t lo = *std::min_element(free_bytes.begin(), free_bytes.end());
            uint64_t hi = *std::max_element(free_bytes.begin(), free_bytes.end());
            out["d_device_free_first_mib"] = mib(free_bytes.front());
            out["d_device_free_last_mib"] = mib(free_bytes.back());
            out["d_device_free_min_mib"] = mib(lo);
            out["d_device_free_max_mib"] = mib(hi);
            out["d_device_free_drift_mib"] = mib(free_bytes.front()) - mib(free_bytes.back());
        }
    }
    // Every context is gone: its workers were reaped and their descriptors closed.
    out["host_survived"] = true;
    out["host_fd_leak"] = long(open_fds()) - long(fds_at_start);
    out["host_zombie_children"] = zombie_children();
    out["wrong_verdicts_total"] = failures;
    std::printf("%s\n", out.dump(2).c_str());
    return failures == 0 ? 0 : 1;
}
