#include "stats.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ep::results {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double position = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Summary summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  s.min = values.front();
  s.max = values.back();
  s.median = percentile(values, 50);
  s.p90 = percentile(values, 90);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / (n - 1));
  }
  return s;
}

Noise assess_noise(const Summary& times, double threshold) {
  Noise n;
  if (times.median > 0) n.spread = (times.p90 - times.min) / times.median;
  n.noisy = threshold > 0 && n.spread > threshold;
  return n;
}

std::string format_number(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude >= 1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

}  // namespace ep::results
