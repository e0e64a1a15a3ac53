// The Mann-Whitney U test (Wilcoxon rank-sum test) over two sets of
// repetition times: does one set tend to be larger than the other? It assumes
// nothing about the shape of the distributions, which suits benchmark times
// (skewed, with a long tail of interrupted repetitions).
#pragma once

#include <span>

namespace ep::results {

struct MannWhitney {
  /// U of the first sample: the pairs (x, y) with x > y, a tie counting 1/2.
  double u = 0;
  /// Two-sided p-value: the chance of a U at least this far from n1 n2 / 2
  /// if both samples came from one distribution. 1 when a sample is empty.
  double p = 1;
  /// True when p comes from the exact distribution of U, false when from
  /// the normal approximation.
  bool exact = false;
};

/// Samples up to this total size without ties get the exact p-value.
inline constexpr int mann_whitney_exact_limit = 50;

/// How p is found: as described below, or always by the normal approximation.
enum class MannWhitneyMethod { automatic, normal };

/// The two-sided Mann-Whitney U test of x against y.
///
/// Without ties and with n1 + n2 <= mann_whitney_exact_limit, p is exact:
/// the share of the C(n1 + n2, n1) equally likely orders of the pooled values
/// whose U lies at least as far from the centre. Otherwise p comes from the
/// normal approximation with the variance corrected for ties and a
/// continuity correction of 1/2 (scipy.stats.mannwhitneyu's "asymptotic"
/// method). When every value is the same the test has nothing to go on: p = 1.
MannWhitney mann_whitney_u(std::span<const double> x, std::span<const double> y,
                           MannWhitneyMethod method = MannWhitneyMethod::automatic);

}  // namespace ep::results
