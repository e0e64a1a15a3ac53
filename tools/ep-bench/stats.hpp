// Summary statistics over the repetitions of one benchmark.
#pragma once

#include <vector>

namespace ep::bench {

struct Summary {
  double median = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  double p90 = 0;
  double stddev = 0;  ///< sample standard deviation (n - 1); 0 for one value
};

/// Percentile p in [0, 100] of sorted values, interpolating linearly between
/// the closest ranks (numpy's default), so the median of 4 values is the mean
/// of the middle two.
double percentile(const std::vector<double>& sorted, double p);

/// Summary of a non-empty set of values.
Summary summarize(std::vector<double> values);

}  // namespace ep::bench
