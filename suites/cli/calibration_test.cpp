// ep-bench's calibration (tools/ep-bench/calibration.hpp) on simulated
// probes: a kernel whose iterations take a fixed time, and a scheduling
// hiccup that adds to one probe, as when a thread is descheduled with more
// threads than cores. No MPI: the decision is apart from the timing.

#include "calibration.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using ep::bench::Calibration;

struct Probe {
  std::int64_t count;
  double seconds;
};

/// Runs a calibration to the end: probe k of n iterations lasts
/// n * per_iteration seconds, plus `hiccup` if k == hiccup_at. Returns every
/// probe; the last one's count is the answer.
std::vector<Probe> calibrate(double min_time, double per_iteration, int hiccup_at = -1,
                             double hiccup = 0) {
  Calibration c(min_time);
  std::vector<Probe> probes;
  for (int k = 0; k < 200; ++k) {
    const double seconds =
        static_cast<double>(c.count()) * per_iteration + (k == hiccup_at ? hiccup : 0);
    probes.push_back({c.count(), seconds});
    if (c.record(seconds)) return probes;
  }
  ADD_FAILURE() << "no count after 200 probes";
  return probes;
}

std::int64_t settled_count(const std::vector<Probe>& probes) { return probes.back().count; }

// Undisturbed: counts grow until a probe lasts min_time, and the probes
// before it predicted as much, so it settles at once.
TEST(Calibration, GrowsUntilAProbeLastsMinTime) {
  const double per_iteration = 1.3e-6;
  const auto probes = calibrate(0.01, per_iteration);
  const std::int64_t n = settled_count(probes);
  EXPECT_GE(static_cast<double>(n) * per_iteration, 0.01);
  EXPECT_LE(static_cast<double>(n) * per_iteration, 0.014 * 1.01);
  // Each count at most ten times the one before.
  for (std::size_t i = 1; i < probes.size(); ++i)
    EXPECT_LE(probes[i].count, 10 * probes[i - 1].count);
}

// The bug this guards against: the first probe (one iteration) is
// descheduled for 15 ms with --min-time 10 ms. Deciding on that probe alone
// settled on one iteration per repetition.
TEST(Calibration, HiccupOnTheFirstProbeDoesNotSettleOnOneIteration) {
  const double per_iteration = 1.3e-6;
  const auto probes = calibrate(0.01, per_iteration, 0, 0.015);
  const std::int64_t n = settled_count(probes);
  EXPECT_GT(n, 1);
  EXPECT_GE(static_cast<double>(n) * per_iteration, 0.01);
}

// One hiccup on any probe, long enough to reach min_time on its own: the
// count still fills min_time when undisturbed.
TEST(Calibration, OneHiccupAnywhereStillFillsMinTime) {
  const double per_iteration = 1.3e-6;
  const std::int64_t undisturbed = settled_count(calibrate(0.01, per_iteration));
  for (int at = 0; at < 8; ++at) {
    const auto probes = calibrate(0.01, per_iteration, at, 0.02);
    const std::int64_t n = settled_count(probes);
    EXPECT_GE(static_cast<double>(n) * per_iteration, 0.01) << "hiccup on probe " << at;
    EXPECT_LE(n, 20 * undisturbed) << "hiccup on probe " << at;
  }
}

// A hiccup shorter than min_time only slows growth down.
TEST(Calibration, ShortHiccupOnTheFirstProbe) {
  const double per_iteration = 1.3e-6;
  const auto probes = calibrate(0.01, per_iteration, 0, 0.005);
  EXPECT_GE(static_cast<double>(settled_count(probes)) * per_iteration, 0.01);
}

// An iteration that truly lasts longer than min_time: one iteration, once a
// second probe has confirmed the first.
TEST(Calibration, SlowIterationSettlesOnOneAfterConfirming) {
  const auto probes = calibrate(0.01, 0.02);
  ASSERT_EQ(probes.size(), 2u);
  EXPECT_EQ(probes[0].count, 1);
  EXPECT_EQ(probes[1].count, 1);
}

// A kernel too fast to time stops at the largest count instead of looping.
TEST(Calibration, StopsAtTheLargestCount) {
  const auto probes = calibrate(0.01, 0.0);
  EXPECT_EQ(settled_count(probes), Calibration::most);
}

// Every rank records the same (slowest) times, so every rank settles alike.
TEST(Calibration, SameTimesSameCount) {
  const auto a = calibrate(0.01, 3e-6, 2, 0.03);
  const auto b = calibrate(0.01, 3e-6, 2, 0.03);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].count, b[i].count);
}

}  // namespace
