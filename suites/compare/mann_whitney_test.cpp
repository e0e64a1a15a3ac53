// The Mann-Whitney U test of ep-bench compare against values that can be
// checked without the code: counts of orderings, published critical values,
// scipy's documented example, and the normal approximation worked by hand.

#include "mann_whitney.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using ep::results::mann_whitney_u;
using ep::results::MannWhitneyMethod;

// scipy.stats.mannwhitneyu's documentation, after Conover's example: ages at
// diagnosis of 5 males and 4 females. U of the males is 17 (of 20 pairs);
// the exact two-sided p is 0.1111: 7 of the C(9, 4) = 126 orderings have
// U <= 3 (U = 0: 1, 1: 1, 2: 2, 3: 3), and 2 * 7 / 126 = 1/9.
TEST(MannWhitney, ScipyDocumentationExampleExact) {
  const std::vector<double> males{19, 22, 16, 29, 24};
  const std::vector<double> females{20, 11, 17, 12};
  const auto r = mann_whitney_u(males, females);
  EXPECT_DOUBLE_EQ(r.u, 17);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p, 1.0 / 9, 1e-12);
}

// The same data by the normal approximation: mean 10, variance
// 5 * 4 * 10 / 12 = 50/3, z = (|17 - 10| - 0.5) / sqrt(50/3) = 1.59217,
// p = erfc(z / sqrt 2) = 0.1113469 (scipy reports 0.11134688653314041 for
// method="asymptotic").
TEST(MannWhitney, ScipyDocumentationExampleNormal) {
  const std::vector<double> males{19, 22, 16, 29, 24};
  const std::vector<double> females{20, 11, 17, 12};
  const auto r = mann_whitney_u(males, females, MannWhitneyMethod::normal);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 17);
  EXPECT_NEAR(r.p, 0.1113468865331404, 1e-9);
}

// Samples that do not overlap: only 1 of the C(n1 + n2, n1) orderings puts
// every x below every y, so p = 2 / C(n1 + n2, n1).
TEST(MannWhitney, SeparatedSamplesExact) {
  const std::vector<double> low3{1, 2, 3};
  const std::vector<double> high3{4, 5, 6};
  EXPECT_NEAR(mann_whitney_u(low3, high3).p, 2.0 / 20, 1e-12);  // C(6, 3) = 20
  EXPECT_DOUBLE_EQ(mann_whitney_u(low3, high3).u, 0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(high3, low3).u, 9);

  const std::vector<double> low5{1.0, 1.1, 1.2, 1.3, 1.4};
  const std::vector<double> high5{2.0, 2.1, 2.2, 2.3, 2.4};
  EXPECT_NEAR(mann_whitney_u(low5, high5).p, 2.0 / 252, 1e-12);  // C(10, 5) = 252
  EXPECT_NEAR(mann_whitney_u(high5, low5).p, 2.0 / 252, 1e-12);

  const std::vector<double> low4{1, 2, 3, 4};
  const std::vector<double> high2{5, 6};
  EXPECT_NEAR(mann_whitney_u(low4, high2).p, 2.0 / 15, 1e-12);  // C(6, 2) = 15
}

// Tables of critical values of U (two-sided, alpha = 0.05) give the largest
// U that is significant: 2 for n1 = n2 = 5, 13 for 8 and 8, 23 for 10 and 10.
// x below is built to have U exactly `u` against y = 10, 20, ..., 10 n.
std::vector<double> sample_with_u(int n, const std::vector<int>& beats) {
  // beats[i]: how many of y the i-th largest x exceeds; the rest lie below all y.
  std::vector<double> x;
  for (int b : beats) x.push_back(10.0 * b + 5);
  for (int i = static_cast<int>(beats.size()); i < n; ++i) x.push_back(1 + 0.1 * i);
  return x;
}

std::vector<double> tens(int n) {
  std::vector<double> y;
  for (int i = 1; i <= n; ++i) y.push_back(10.0 * i);
  return y;
}

TEST(MannWhitney, PublishedCriticalValues) {
  struct Row {
    int n;
    std::vector<int> at_critical;  // U = critical value
    std::vector<int> above;        // U = critical value + 1
  };
  const std::vector<Row> rows{{5, {2}, {3}}, {8, {8, 5}, {8, 6}}, {10, {9, 8, 6}, {9, 8, 7}}};
  for (const Row& row : rows) {
    const auto y = tens(row.n);
    const auto significant = mann_whitney_u(sample_with_u(row.n, row.at_critical), y);
    const auto not_significant = mann_whitney_u(sample_with_u(row.n, row.above), y);
    EXPECT_TRUE(significant.exact);
    EXPECT_LE(significant.p, 0.05) << "n = " << row.n << ", U = " << significant.u;
    EXPECT_GT(not_significant.p, 0.05) << "n = " << row.n << ", U = " << not_significant.u;
    EXPECT_DOUBLE_EQ(not_significant.u, significant.u + 1);
  }
}

// Ties, worked by hand. Pooled and sorted: 1x 2x 2x 2y 3x 3y 4y 5y; ranks
// 1, 3, 3, 3, 5.5, 5.5, 7, 8. R(x) = 1 + 3 + 3 + 5.5 = 12.5, U = 12.5 - 10 = 2.5.
// Ties: a group of 3 and one of 2, sum(t^3 - t) = 24 + 6 = 30; N = 8.
// Variance 4 * 4 / 12 * (9 - 30 / 56) = 11.2857; z = (|2.5 - 8| - 0.5) /
// sqrt(11.2857) = 1.48835; p = erfc(z / sqrt 2) = 0.136658.
TEST(MannWhitney, TiesUseTheCorrectedNormalApproximation) {
  const std::vector<double> x{1, 2, 2, 3};
  const std::vector<double> y{2, 3, 4, 5};
  const auto r = mann_whitney_u(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 2.5);
  EXPECT_NEAR(r.p, 0.1366582477, 1e-8);
}

// Beyond the exact limit: 30 values below 30 others. U = 0, mean 450,
// variance 30 * 30 * 61 / 12 = 4575, z = 449.5 / sqrt(4575) = 6.6456,
// p = erfc(z / sqrt 2) = 3.0199e-11.
TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> low, high;
  for (int i = 0; i < 30; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
  }
  const auto r = mann_whitney_u(low, high);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p / 3.019859359e-11, 1, 1e-6);
}

TEST(MannWhitney, NothingToTellApart) {
  const std::vector<double> same{4, 4, 4, 4, 4};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p, 1);  // every value tied
  const std::vector<double> a{1, 3, 5, 7, 9};
  EXPECT_DOUBLE_EQ(mann_whitney_u(a, a).p, 1);  // U at its centre: both tails
  const std::vector<double> empty;
  EXPECT_DOUBLE_EQ(mann_whitney_u(empty, a).p, 1);
}

// U and p do not depend on which sample comes first, beyond U's reflection.
TEST(MannWhitney, Symmetry) {
  const std::vector<double> x{3.1, 0.4, 2.2, 5.9, 1.7, 4.4, 0.9};
  const std::vector<double> y{2.5, 6.1, 3.3, 7.0, 4.8};
  const auto xy = mann_whitney_u(x, y);
  const auto yx = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(xy.u + yx.u, 35);
  EXPECT_DOUBLE_EQ(xy.p, yx.p);
  EXPECT_GT(xy.p, 0);
  EXPECT_LE(xy.p, 1);
}

}  // namespace
