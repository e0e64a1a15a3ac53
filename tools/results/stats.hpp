// Summary statistics over the repetitions of one benchmark.
#pragma once

#include <string>
#include <vector>

namespace ep::results {

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

/// The spread that flags a case as noisy unless --noise-threshold says
/// otherwise: the slower repetitions (p90) 25% above the fastest, relative to
/// the median.
inline constexpr double default_noise_threshold = 0.25;

/// How much the repetitions of a case disagree. The spread is
/// (p90 - min) / median: p90 rather than max so that one late repetition
/// (a timer interrupt, a page fault) does not flag a case whose other
/// repetitions agree, min because the fastest repetition is the one least
/// disturbed.
struct Noise {
  double spread = 0;
  bool noisy = false;
};
Noise assess_noise(const Summary& times, double threshold);

/// What to do about a noisy case, for tables and JSON.
inline constexpr const char* noise_hint =
    "repetitions disagree: try more --repetitions or a longer --min-time, pin processes with "
    "mpirun --bind-to core where each runs one thread, and run on a quiet machine";

/// Numbers for tables: three significant digits at most, no exponent below 1e9.
std::string format_number(double value);

}  // namespace ep::results
