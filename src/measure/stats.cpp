#include "measure/stats.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kb {

double quantile_sorted(const std::vector<double>& v, double q) {
    if (v.empty()) return 0.0;
    double pos = q * double(v.size() - 1);
    size_t lo = size_t(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    double frac = pos - double(lo);
    return v[lo] + (v[hi] - v[lo]) * frac;
}

SampleStats summarize(std::vector<double> v) {
    SampleStats s;
    s.count = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = quantile_sorted(v, 0.5);
    s.p10 = quantile_sorted(v, 0.1);
    s.p90 = quantile_sorted(v, 0.9);
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / double(v.size());
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.stdev = v.size() > 1 ? std::sqrt(sq / double(v.size() - 1)) : 0.0;
    std::vector<double> dev(v.size());
    for (size_t i = 0; i < v.size(); ++i) dev[i] = std::fabs(v[i] - s.median);
    std::sort(dev.begin(), dev.end());
    s.mad = quantile_sorted(dev, 0.5);
    // The median's standard error is about 1.2533 sigma / sqrt(n) for normal noise.
    double sigma = 1.4826 * s.mad;
    s.rel_noise = s.median > 0 ? 1.2533 * sigma / std::sqrt(double(v.size())) / s.median : 0.0;
    return s;
}

}  // namespace kb
