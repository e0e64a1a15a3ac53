// How many iterations make one repetition last --min-time: the decision,
// apart from the timing so that it can be tested without MPI (measure.hpp
// runs the probes).
//
// Probes of growing counts are timed, as google/benchmark does (at most x10
// from one to the next). A single disturbed probe must not settle the count:
// with more threads than cores a probe of one iteration can be descheduled
// for longer than --min-time, and settling then would make every repetition
// one iteration long. So a probe that reaches --min-time settles the count
// only when the probes before it predicted that it would (their fastest time
// per iteration, times the count, reaches --min-time); otherwise the same
// count is probed again and settles only if that probe too reaches
// --min-time. Growth is predicted from the fastest time per iteration seen
// so far, which a disturbance can only have made slower.
//
// The decision depends on nothing but the recorded times: fed the slowest
// rank's time of each probe, every rank settles on the same count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace ep::bench {

class Calibration {
 public:
  /// Counts stop growing here, however fast an iteration is.
  static constexpr std::int64_t most = 100'000'000;

  explicit Calibration(double min_time) : min_time_(min_time) {}

  /// Iterations the next probe runs; once settled(), the answer.
  std::int64_t count() const { return count_; }
  bool settled() const { return settled_; }

  /// Records the seconds the probe of count() iterations took. Returns
  /// settled().
  bool record(double seconds) {
    if (settled_) return true;
    const double per_iteration = seconds / static_cast<double>(count_);
    const bool predicted_long = probes_ > 0 && fastest_ * static_cast<double>(count_) >= min_time_;
    ++probes_;
    fastest_ = std::min(fastest_, per_iteration);
    if (count_ >= most) return settled_ = true;
    if (seconds >= min_time_) {
      // Unconfirmed: a first probe, or one the earlier probes said would be
      // shorter. Probe this count once more.
      settled_ = predicted_long || confirming_;
      confirming_ = !settled_;
      return settled_;
    }
    confirming_ = false;
    grow();
    return false;
  }

 private:
  void grow() {
    const double predicted = fastest_ * static_cast<double>(count_);
    // Below a tenth of the goal the time says little (timer resolution,
    // overheads): grow by the largest step.
    const double factor =
        predicted > 0.1 * min_time_ ? std::min(10.0, 1.4 * min_time_ / predicted) : 10.0;
    const auto grown = static_cast<std::int64_t>(static_cast<double>(count_) * factor);
    count_ = std::min(most, std::max(count_ + 1, grown));
  }

  double min_time_;
  std::int64_t count_ = 1;
  double fastest_ = std::numeric_limits<double>::infinity();  ///< seconds per iteration
  int probes_ = 0;
  bool confirming_ = false;
  bool settled_ = false;
};

}  // namespace ep::bench
