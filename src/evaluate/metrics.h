// The figures benchmarks publish, from result records (docs/batch.md,
// "Metrics"): call and execution accuracy (TritonBench), fast_p and the
// geometric-mean speedup (KernelBench), pass@k by the unbiased estimator
// (Codex; KernelLLM reports pass@1/10/20), efficiency, and the verdicts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/results.h"

namespace kb::evaluate {

// The thresholds fast_p is reported at.
const std::vector<double>& fast_p_thresholds();  // {0, 1, 1.5, 2}
// "0", "1", "1.5", "2": how a threshold is written in keys and headers.
std::string threshold_name(double p);

// pass@k for one problem with n samples of which c are correct:
// 1 - C(n-c, k) / C(n, k), computed as 1 - prod_{i=n-c+1..n} (1 - k/i),
// which stays exact where the binomials overflow. Requires 0 <= c <= n, 1 <= k <= n.
double pass_at_k(int n, int c, int k);

struct PassAtK {
    int k = 0;
    double value = 0;  // mean over the problems with at least k samples
    int problems = 0;  // how many such problems
};

struct Metrics {
    int candidates = 0;              // result records
    int problems = 0;                // distinct (task, model): the unit pass@k averages over
    int compiled = 0;                // verdict other than compile_error, no_code, error
    int passed = 0;                  // verdict pass
    bool run = false;                // some candidate was run (not a compile-only result set)
    std::optional<double> call_accuracy;   // compiled / candidates
    std::optional<double> exec_accuracy;   // passed / candidates; unset for compile-only results
    std::vector<std::pair<double, double>> fast_p;  // (p, value); empty for compile-only results
    std::optional<double> geomean_speedup;  // over passing candidates with a speedup
    int speedups = 0;                // passing candidates with a (finite, positive) speedup
    int passed_without_speedup = 0;  // passing, but not timed (or no usable speedup)
    std::vector<PassAtK> pass_at_k;  // k = 1 .. the largest n
    std::optional<double> efficiency_median;  // of the records' efficiency figures
    int efficiencies = 0;
    std::map<std::string, int> verdicts;  // every verdict and its count
};

// Computes every figure over `records` (which may be any subset: a group).
Metrics compute_metrics(const std::vector<const ResultRecord*>& records);

enum class GroupBy { none, task, family, model };
const char* group_by_name(GroupBy g);  // "none", "task", "family", "model"
bool parse_group_by(const std::string& s, GroupBy* out);

// The key of a record in a grouping: its task (display name), family or
// model; "(none)" where the record has no family or model.
std::string group_key(const ResultRecord& r, GroupBy g);

// The records split by key, keys in sorted order.
std::vector<std::pair<std::string, std::vector<const ResultRecord*>>> group_records(
    const std::vector<ResultRecord>& records, GroupBy g);

}  // namespace kb::evaluate
