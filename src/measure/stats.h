// Summary statistics of timing samples.
#pragma once

#include <cstddef>
#include <vector>


namespace kb {

struct SampleStats {
    size_t count = 0;
    double median = 0, mean = 0, min = 0, max = 0, stdev = 0;
    double p10 = 0, p90 = 0;
    double mad = 0;  // median absolute deviation
    // Relative standard error of the median, from a robust spread estimate
    // (1.4826*MAD, immune to the odd slow sample): the noise the adaptive
    // stopping rule drives below its target.
    double rel_noise = 0;
};

SampleStats summarize(std::vector<double> samples);
// The q-quantile (0..1) of sorted values, linearly interpolated.
double quantile_sorted(const std::vector<double>& sorted, double q);

}  // namespace kb
