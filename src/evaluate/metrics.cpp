#include "evaluate/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace kb::evaluate {

const std::vector<double>& fast_p_thresholds() {
    static const std::vector<double> p = {0.0, 1.0, 1.5, 2.0};
    return p;
}

std::string threshold_name(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", p);
    return buf;
}

double pass_at_k(int n, int c, int k) {
    // Every size-k draw holds a correct sample once fewer than k are wrong.
    if (n - c < k) return 1.0;
    double none_correct = 1.0;  // C(n-c, k) / C(n, k)
    for (int i = n - c + 1; i <= n; ++i) none_correct *= 1.0 - double(k) / double(i);
    return 1.0 - none_correct;
}

namespace {

// Verdicts that mean the code never compiled into something runnable (or
// was never scored); everything else compiled.
bool compiled_verdict(const std::string& v) { return v != "compile_error" && v != "no_code" && v != "error"; }
// Verdicts of candidates that were not run.
bool unrun_verdict(const std::string& v) {
    return v == "compiled" || v == "compile_error" || v == "no_code" || v == "error";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

Metrics compute_metrics(const std::vector<const ResultRecord*>& records) {
    Metrics m;
    m.candidates = int(records.size());
    std::map<std::pair<std::string, std::string>, std::pair<int, int>> problems;  // (task, model) -> (n, c)
    std::vector<double> log_speedups, efficiencies;
    std::vector<std::optional<double>> pass_speedups;  // of passing records, for fast_p
    for (const ResultRecord* r : records) {
        ++m.verdicts[r->verdict];
        bool pass = r->verdict == "pass";
        if (compiled_verdict(r->verdict)) ++m.compiled;
        if (!unrun_verdict(r->verdict)) m.run = true;
        auto& p = problems[{r->display_task(), r->model}];
        ++p.first;
        if (pass) {
            ++m.passed;
            ++p.second;
            if (r->speedup && std::isfinite(*r->speedup) && *r->speedup > 0) {
                log_speedups.push_back(std::log(*r->speedup));
                pass_speedups.push_back(*r->speedup);
            } else {
                pass_speedups.push_back(std::nullopt);
                ++m.passed_without_speedup;
            }
        }
        if (r->efficiency && std::isfinite(*r->efficiency)) efficiencies.push_back(*r->efficiency);
    }
    m.problems = int(problems.size());
    if (m.candidates == 0) return m;
    m.call_accuracy = double(m.compiled) / m.candidates;
    m.speedups = int(log_speedups.size());
    if (!efficiencies.empty()) {
        m.efficiency_median = median(efficiencies);
        m.efficiencies = int(efficiencies.size());
    }
    if (!m.run) return m;  // compile-only results: nothing ran, nothing else to say
    m.exec_accuracy = double(m.passed) / m.candidates;
    // fast_p as KernelBench defines it (ScalingIntelligence/KernelBench src/score.py @7ed4e989, `fastp`):
    // the number of candidates that are correct AND whose speedup (baseline time / candidate time) is
    // strictly greater than p, divided by the number of ALL candidates. A passing candidate without a
    // speedup (timing skipped) is correct but not known to be faster than anything: it never counts.
    for (double p : fast_p_thresholds()) {
        int faster = 0;
        for (const auto& s : pass_speedups)
            if (s && *s > p) ++faster;
        m.fast_p.emplace_back(p, double(faster) / m.candidates);
    }
    // Geometric mean of the speedups of correct candidates (KernelBench's
    // geometric_mean_speed_ratio_correct_only, same file), in log space.
    if (!log_speedups.empty()) {
        double sum = 0;
        for (double l : log_speedups) sum += l;
        m.geomean_speedup = std::exp(sum / double(log_speedups.size()));
    }
    int max_n = 0;
    for (const auto& kv : problems) max_n = std::max(max_n, kv.second.first);
    for (int k = 1; k <= max_n; ++k) {
        PassAtK pk;
        pk.k = k;
        double sum = 0;
        for (const auto& kv : problems) {
            auto [n, c] = kv.second;
            if (n < k) continue;
            sum += pass_at_k(n, c, k);
            ++pk.problems;
        }
        pk.value = sum / pk.problems;
        m.pass_at_k.push_back(pk);
    }
    return m;
}

const char* group_by_name(GroupBy g) {
    switch (g) {
        case GroupBy::task: return "task";
        case GroupBy::family: return "family";
        case GroupBy::model: return "model";
        case GroupBy::none: break;
    }
    return "none";
}

bool parse_group_by(const std::string& s, GroupBy* out) {
    if (s == "task") *out = GroupBy::task;
    else if (s == "family") *out = GroupBy::family;
    else if (s == "model") *out = GroupBy::model;
    else if (s == "none") *out = GroupBy::none;
    else return false;
    return true;
}

std::string group_key(const ResultRecord& r, GroupBy g) {
    switch (g) {
        case GroupBy::task: return r.display_task();
        case GroupBy::family: return r.family.empty() ? "(none)" : r.family;
        case GroupBy::model: return r.model.empty() ? "(none)" : r.model;
        case GroupBy::none: break;
    }
    return "all";
}

std::vector<std::pair<std::string, std::vector<const ResultRecord*>>> group_records(
    const std::vector<ResultRecord>& records, GroupBy g) {
    std::map<std::string, std::vector<const ResultRecord*>> by;
    for (const ResultRecord& r : records) by[group_key(r, g)].push_back(&r);
    return {by.begin(), by.end()};
}

}  // namespace kb::evaluate
