#include "mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace ep::results {

namespace {

struct Ranks {
  double x_rank_sum = 0;  ///< the ranks (1-based) of x's values in the pooled sample
  double tie_term = 0;    ///< sum of t^3 - t over groups of t equal values
};

// Ranks of the pooled values, equal values sharing the mean of their ranks.
Ranks rank_pooled(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> pooled;  // value, whether it is from x
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  Ranks ranks;
  for (std::size_t first = 0; first < pooled.size();) {
    std::size_t end = first;
    while (end < pooled.size() && pooled[end].first == pooled[first].first) ++end;
    const auto t = static_cast<double>(end - first);
    const double mean_rank = (static_cast<double>(first + 1) + static_cast<double>(end)) / 2;
    for (std::size_t i = first; i < end; ++i)
      if (pooled[i].second) ranks.x_rank_sum += mean_rank;
    ranks.tie_term += t * t * t - t;
    first = end;
  }
  return ranks;
}

// How many of the C(m + n, m) orders of m + n distinct values give each U,
// for U = 0 .. m n. These are the coefficients of the Gaussian binomial
//   [m + n choose m](q) = prod_{k=1..m} (1 - q^(n+k)) / (1 - q^k),
// built one factor at a time; every division by (1 - q^k) is exact, so the
// integers stay exact. For m + n <= 50 they stay below C(50, 25) ~ 1.3e14.
std::vector<std::int64_t> u_counts(std::size_t m, std::size_t n) {
  std::vector<std::int64_t> c(m * n + m + 1, 0);
  c[0] = 1;
  for (std::size_t k = 1; k <= m; ++k) {
    const std::size_t top = n * k + k;  // the degree after multiplying
    const std::size_t step = n + k;
    for (std::size_t i = top; i >= step; --i) c[i] -= c[i - step];
    for (std::size_t i = k; i <= top; ++i) c[i] += c[i - k];
  }
  c.resize(m * n + 1);
  return c;
}

// Two-sided exact p: both tails, by the symmetry of U about m n / 2.
double exact_p(double u, std::size_t m, std::size_t n) {
  const std::vector<std::int64_t> counts = u_counts(std::min(m, n), std::max(m, n));
  const double low = std::min(u, static_cast<double>(m * n) - u);
  double tail = 0;
  double total = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const auto count = static_cast<double>(counts[k]);
    total += count;
    if (static_cast<double>(k) <= low + 0.25) tail += count;
  }
  return std::min(1.0, 2 * tail / total);
}

double normal_p(double u, double m, double n, double tie_term) {
  const double total = m + n;
  const double variance = m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return 1;  // every value the same
  const double z = (std::fabs(u - m * n / 2) - 0.5) / std::sqrt(variance);
  if (z <= 0) return 1;
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y,
                           MannWhitneyMethod method) {
  MannWhitney result;
  if (x.empty() || y.empty()) return result;
  const auto m = static_cast<double>(x.size());
  const auto n = static_cast<double>(y.size());
  const Ranks ranks = rank_pooled(x, y);
  result.u = ranks.x_rank_sum - m * (m + 1) / 2;
  const bool ties = ranks.tie_term > 0;
  result.exact = method != MannWhitneyMethod::normal && !ties &&
                 x.size() + y.size() <= static_cast<std::size_t>(mann_whitney_exact_limit);
  result.p = result.exact ? exact_p(result.u, x.size(), y.size())
                          : normal_p(result.u, m, n, ranks.tie_term);
  return result;
}

}  // namespace ep::results
