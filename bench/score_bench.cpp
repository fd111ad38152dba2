// kb_score of vector add, end to end, in a context already created: the
// first call (which also compiles the reference and runs it on every case)
// and steady state with a fresh candidate source each call. Context creation
// is measured separately. Prints one JSON object.
#include <fstream>
#include <sstream>

#include "bench_util.h"

using namespace bench;

int main(int argc, char** argv) {
    int iters = argc > 1 ? std::atoi(argv[1]) : 20;
    const char* isolation = argc > 2 ? argv[2] : "in_process";
    // The task as its folder under tasks/ (family/name).
    std::string task_name = argc > 3 ? argv[3] : "elementwise/vector_add_f32";
    int devices = 0;
    kb_device_count(&devices);
    if (devices == 0) {
        std::printf("{\"skipped\": \"no CUDA device\"}\n");
        return 77;
    }
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.isolation = std::string(isolation) == "worker" ? KB_ISOLATION_WORKER : KB_ISOLATION_IN_PROCESS;
    kb_context* ctx = nullptr;
    double t0 = now_ms();
    kb_status s = kb_context_create(&o, &ctx);
    double ctx_ms = now_ms() - t0;
    if (s != KB_OK) die("context", s);
    kb_task* task = nullptr;
    std::string dir = source_dir() + "/tasks/" + task_name;
    s = kb_load_task((dir + "/task.json").c_str(), &task);
    if (s != KB_OK) die("task", s);
    std::ifstream in(dir + "/candidates/correct.cu");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string body = ss.str();

    auto score = [&](const std::string& src, kb::Json* out) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = src.c_str();
        kb_result* r = nullptr;
        double t = now_ms();
        kb_status st = kb_score(ctx, task, &c, nullptr, &r);
        double dt = now_ms() - t;
        if (st != KB_OK) die("score", st);
        *out = kb::Json::parse(kb_result_json(r));
        if (kb_result_verdict(r) != KB_VERDICT_PASS) {
            std::fprintf(stderr, "unexpected verdict: %s\n", kb_result_message(r));
            std::exit(1);
        }
        kb_result_destroy(r);
        return dt;
    };
    kb::Json r;
    double first = score("// first\n" + body, &r);
    kb::Json first_result = r;
    std::vector<double> total, compile, cases, timing, recheck;
    for (int i = 0; i < iters; ++i) {
        total.push_back(score("// candidate " + std::to_string(i) + "\n" + body, &r));
        compile.push_back(r["compile"]["compile_ms"].get<double>());
        double c = 0;
        for (const auto& x : r["cases"]) c += x["run_ms"].get<double>();
        cases.push_back(c);
        timing.push_back(r["timing"]["wall_ms"].get<double>());
        recheck.push_back(r["recheck"]["run_ms"].get<double>());
    }
    kb::Json out = {{"task", task_name},
                    {"isolation", isolation},
                    {"iterations", iters},
                    {"context_create_ms", ctx_ms},
                    {"first_score_ms", first},
                    {"score_median_ms", median(total)},
                    {"score_p90_ms", quantile(total, 0.9)},
                    {"score_max_ms", quantile(total, 1.0)},
                    {"compile_median_ms", median(compile)},
                    {"correctness_median_ms", median(cases)},
                    {"timing_median_ms", median(timing)},
                    {"recheck_median_ms", median(recheck)},
                    {"speedup_last", r["speedup"]},
                    {"timing_samples_last", r["timing"]["candidate"]["samples"]},
                    {"timing_stop_last", r["timing"]["stop_reason"]}};
    std::printf("%s\n", out.dump(2).c_str());
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return 0;
}
