#include "engine/tune.h"

#include <chrono>

#include "util/error.h"

namespace kb {

std::vector<std::vector<int>> triton_config_choices(const Program& p, size_t max_combinations) {
    std::vector<std::vector<int>> out = {std::vector<int>(p.launch.size(), -1)};
    for (size_t i = 0; i < p.launch.size(); ++i) {
        const size_t n = p.launch[i].triton_configs.size();
        if (n == 0) continue;
        if (out.size() * n > max_combinations)
            fail(KB_ERR_TASK_INVALID, p.launch[i].json_path + ".configs: " + std::to_string(out.size() * n) +
                                          " combinations of configs across the launch entries; expected at most " +
                                          std::to_string(max_combinations) + " (tune fewer entries or configs)");
        std::vector<std::vector<int>> next;
        for (const std::vector<int>& prefix : out)
            for (size_t c = 0; c < n; ++c) {
                next.push_back(prefix);
                next.back()[i] = int(c);
            }
        out = std::move(next);
    }
    return out;
}

std::string triton_choice_label(const Program& p, const std::vector<int>& choice) {
    std::string s;
    for (size_t i = 0; i < p.launch.size(); ++i) {
        const LaunchStep& st = p.launch[i];
        if (!st.triton || st.triton_configs.empty()) continue;
        const int c = i < choice.size() ? choice[i] : -1;
        const TritonConfig& cfg = c >= 0 ? st.triton_configs[size_t(c)] : *st.triton;
        s += (s.empty() ? "" : "; ") + std::string("launch[") + std::to_string(i) + "]: " + cfg.label();
    }
    return s;
}

int pick_fastest(const std::vector<TunedConfig>& configs) {
    int best = -1;
    for (size_t i = 0; i < configs.size(); ++i)
        if (configs[i].ok && (best < 0 || configs[i].median_us < configs[size_t(best)].median_us)) best = int(i);
    return best;
}

TuneResult tune_triton_configs(Context& ctx, const TaskPtr& task, const Program& p, const std::string& label,
                               const TimingOptions& timing, uint64_t seed) {
    auto t0 = std::chrono::steady_clock::now();
    TuneResult r;
    for (const std::vector<int>& choice : triton_config_choices(p)) {
        TunedConfig c;
        c.choice = choice;
        c.label = triton_choice_label(p, choice);
        Program one = p.with_triton_configs(choice);
        try {
            KernelPtr k = ctx.compile(*task, one, label, {task->perf_index});
            CompareResult check = ctx.compare(task, k, task->perf_index, seed);
            c.verdict = check.verdict;
            c.message = check.message;
            if (check.verdict == KB_VERDICT_PASS) {
                TimeRequest tr;
                tr.case_index = task->perf_index;
                tr.against_baseline = false;
                tr.timing = timing;
                TimeResult t = ctx.time(task, k, tr);
                if (t.failed() || !t.candidate) {
                    c.verdict = t.failed() ? t.verdict : KB_VERDICT_NONE;
                    c.message = t.message;
                } else {
                    c.ok = true;
                    c.median_us = t.candidate->stats.median;
                    c.rel_noise = t.candidate->stats.rel_noise;
                }
            }
        } catch (const CompileError& e) {
            c.verdict = KB_VERDICT_COMPILE_ERROR;
            c.message = e.what();
        } catch (const Error& e) {
            if (e.status() != KB_ERR_TASK_INVALID) throw;  // kbench's own failures are not a config's
            c.verdict = KB_VERDICT_LAUNCH_ERROR;
            c.message = e.what();
        }
        r.configs.push_back(std::move(c));
    }
    r.chosen = pick_fastest(r.configs);
    r.program = p.with_triton_configs(r.chosen >= 0 ? r.configs[size_t(r.chosen)].choice : std::vector<int>{});
    r.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace kb
