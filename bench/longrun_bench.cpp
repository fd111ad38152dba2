// The long run (issue 15): N candidates (default 1,000) through one
// worker-isolated context's batch, about 10% crashing and 2% hanging among
// them, distinct sources (every one compiles). Asserts, and prints as JSON:
//   - every verdict is the one its candidate must get;
//   - host memory (this process's RSS, and with its workers') and device
//     memory in use stay flat after a warm-up (sampled every 50 candidates);
//   - once the context is destroyed, no process this one started is left
//     (workers, their standbys, compile workers, nvcc), zombies included.
//
//   kbench_longrun_bench [N=1000] [deadline_s=1.0]
//
// Exit 0: every check held; 1: one failed (the JSON says which); 77: no GPU.
// A gpu CTest (longrun_gpu) runs it; bench/run_device.sh's `longrun` step
// keeps its JSON for bench/RESULTS.md.
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "bench_util.h"
#include "longrun_checks.h"

using namespace bench;

namespace {

struct Job {
    kb_task* task;
    std::string code;
    kb_verdict expect;
    bool timed;
};

uint64_t family_rss(long root) {
    uint64_t sum = longrun::rss_bytes(root);
    for (long pid : longrun::descendants(root)) sum += longrun::rss_bytes(pid);
    return sum;
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    const double deadline_s = argc > 2 ? std::atof(argv[2]) : 1.0;
    int devices = 0;
    kb_device_count(&devices);
    if (devices == 0) {
        std::printf("{\"skipped\": \"no CUDA device\"}\n");
        return 77;
    }
    const char* names[] = {"elementwise/vector_add_f32", "softmax/softmax_f32", "reductions/sum_f32"};
    std::vector<kb_task*> tasks;
    std::vector<std::string> bodies;
    for (const char* name : names) {
        std::string dir = source_dir() + "/tasks/" + name;
        kb_task* t = nullptr;
        if (kb_status s = kb_load_task((dir + "/task.json").c_str(), &t)) die(name, s);
        tasks.push_back(t);
        bodies.push_back(read_file(dir + "/candidates/correct.cu"));
    }
    const std::string crash = read_file(source_dir() + "/tests/adversarial/kernels/illegal_address.cu");
    const std::string hang = read_file(source_dir() + "/tests/adversarial/kernels/infinite_loop.cu");
    std::vector<Job> jobs;
    for (int i = 0; i < n; ++i) {
        const std::string tag = "// longrun " + std::to_string(i) + "\n";
        if (i % 50 == 7) jobs.push_back({tasks[0], tag + hang, KB_VERDICT_TIMEOUT, false});
        else if (i % 10 == 3) jobs.push_back({tasks[0], tag + crash, KB_VERDICT_RUNTIME_ERROR, false});
        else jobs.push_back({tasks[size_t(i) % tasks.size()], tag + bodies[size_t(i) % tasks.size()], KB_VERDICT_PASS,
                             i % 5 == 0});  // every fifth clean one timed too
    }

    const long self = long(getpid());
    kb::Json out;
    out["n"] = n;
    out["deadline_s"] = deadline_s;
    double t0 = now_ms();
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = KB_ISOLATION_WORKER;
    o.timeout_s = deadline_s;
    kb_context* ctx = nullptr;
    if (kb_status s = kb_context_create(&o, &ctx)) die("context", s);
    uint64_t total_device = kb::Json::parse(kb_context_json(ctx))["device"].value("total_memory_bytes", uint64_t(0));

    kb_batch* b = nullptr;
    if (kb_status s = kb_batch_create(ctx, nullptr, &b)) die("kb_batch_create", s);
    std::vector<uint64_t> rss, family, device_used;
    std::map<std::string, int> verdicts;
    std::vector<std::string> wrong;
    unsigned max_respawns = 0;
    uint64_t last_free = 0;
    size_t submitted = 0, collected = 0;
    auto collect = [&](double timeout_s) {
        kb_batch_job* job = nullptr;
        kb_status st = kb_batch_next(b, timeout_s, &job);
        if (st == KB_ERR_TIMEOUT || st == KB_ERR_NOT_FOUND) return false;
        if (st != KB_OK) die("kb_batch_next", st);
        const Job& j = jobs[kb_batch_job_tag(job)];
        kb_result* r = nullptr;
        st = kb_batch_job_take_result(job, &r);
        if (st != KB_OK) {
            wrong.push_back("job " + std::to_string(kb_batch_job_tag(job)) + ": " + kb_status_string(st) + ": " +
                            kb_last_error());
        } else {
            kb_verdict v = kb_result_verdict(r);
            verdicts[kb_verdict_string(v)]++;
            if (v != j.expect && wrong.size() < 20)
                wrong.push_back("job " + std::to_string(kb_batch_job_tag(job)) + ": " + kb_verdict_string(v) +
                                ", expected " + kb_verdict_string(j.expect) + ": " + kb_result_message(r));
            kb::Json doc = kb::Json::parse(kb_result_json(r));
            for (const char* part : {"cases", "recheck"}) {
                const kb::Json& p = doc.value(part, kb::Json());
                const kb::Json& last = p.is_array() && !p.empty() ? p.back() : p;
                if (last.is_object() && last.contains("worker")) {
                    const kb::Json& w = last["worker"];
                    if (w.contains("device_free_bytes")) last_free = w["device_free_bytes"].get<uint64_t>();
                    max_respawns = std::max(max_respawns, w.value("respawns", 0u));
                }
            }
            kb_result_destroy(r);
        }
        kb_batch_job_destroy(job);
        if (++collected % 50 == 0) {
            rss.push_back(longrun::rss_bytes(self));
            family.push_back(family_rss(self));
            device_used.push_back(total_device && last_free ? total_device - last_free : 0);
        }
        return true;
    };
    kb_score_options timed = KB_SCORE_OPTIONS_INIT, quick = KB_SCORE_OPTIONS_INIT;
    quick.flags = KB_SCORE_SKIP_TIMING;
    while (submitted < jobs.size()) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = jobs[submitted].code.c_str();
        kb_status s = kb_batch_submit(b, jobs[submitted].task, &c, jobs[submitted].timed ? &timed : &quick, submitted,
                                      0, nullptr);
        if (s == KB_ERR_TIMEOUT) {
            collect(-1);
            continue;
        }
        if (s != KB_OK) die("kb_batch_submit", s);
        ++submitted;
        while (collect(0)) {
        }
    }
    while (collected < jobs.size() && collect(-1)) {
    }
    double scored_s = (now_ms() - t0) / 1000.0;
    kb_batch_destroy(b);
    std::vector<long> before_destroy = longrun::descendants(self);
    kb_context_destroy(ctx);
    for (kb_task* t : tasks) kb_task_destroy(t);
    // Workers are killed and reaped in kb_context_destroy; allow the kernel a
    // moment to finish tearing down what was killed.
    std::vector<long> left;
    for (int tries = 0; tries < 20; ++tries) {
        left = longrun::descendants(self);
        if (left.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }

    out["collected"] = collected;
    out["verdicts"] = verdicts;
    out["wrong"] = wrong;
    out["wall_s"] = (now_ms() - t0) / 1000.0;
    out["per_s"] = double(collected) / scored_s;
    out["max_respawns"] = max_respawns;
    out["processes_while_running"] = before_destroy.size();
    kb::Json leftover = kb::Json::array();
    for (long pid : left) leftover.push_back(std::to_string(pid) + ": " + longrun::command_of(pid));
    out["leftover_processes"] = leftover;
    out["rss_bytes"] = rss;
    out["family_rss_bytes"] = family;
    out["device_used_bytes"] = device_used;
    // Flat from the 200th candidate on (sample 3: caches and workers warm):
    // this process within 64 MiB; the workers together and the device within
    // 1 GiB, because a sample may fall while a killed worker's CUDA context is
    // torn down and its replacement's standby starts (a context is some
    // hundreds of MiB). A leak of a perf case's buffers per candidate would be
    // tens of GiB by the end.
    const size_t warm = 3;
    std::string why;
    kb::Json checks;
    checks["verdicts"] = wrong.empty() && collected == jobs.size();
    checks["host_rss_flat"] = longrun::flat(rss, warm, uint64_t(64) << 20, &why);
    if (!checks["host_rss_flat"].get<bool>()) out["host_rss_why"] = why;
    checks["family_rss_flat"] = longrun::flat(family, warm, uint64_t(1) << 30, &why);
    if (!checks["family_rss_flat"].get<bool>()) out["family_rss_why"] = why;
    checks["device_memory_flat"] = longrun::flat(device_used, warm, uint64_t(1) << 30, &why);
    if (!checks["device_memory_flat"].get<bool>()) out["device_memory_why"] = why;
    checks["no_leftover_processes"] = left.empty();
    out["checks"] = checks;
    bool ok = true;
    for (auto& [k, v] : checks.items()) ok = ok && v.get<bool>();
    out["ok"] = ok;
    std::printf("%s\n", out.dump().c_str());
    return ok ? 0 : 1;
}
