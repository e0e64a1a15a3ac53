// The watchdog: a monitor thread per process that ends a job whose
// measurement stopped making progress, instead of letting it hang until a
// batch system kills it without a word.
//
// Progress is a heartbeat per worker thread: every worker calls heartbeat()
// (through step_together) at each step of a measurement, outside the timed
// region; it costs one relaxed atomic increment. When no worker of a process
// has moved for --watchdog seconds, that process's monitor prints which case
// was running and which of its ranks had fallen behind, lets the other
// processes' monitors say the same, and calls MPI_Abort. A rank that is stuck
// shows as the one with fewer steps than its process's others; a process
// whose ranks all wait at the same step is waiting for another process.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "team.hpp"

namespace ep::bench {

class Watchdog {
 public:
  /// Starts the monitor thread; seconds <= 0 starts nothing and watches
  /// nothing. `on_stall` runs on the monitor thread of the process that
  /// detected the stall, after printing and before aborting (world rank 0
  /// uses it to record the stall in the result file).
  Watchdog(double seconds, int world_rank, int world_size,
           std::function<void(const std::string& report)> on_stall = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  /// Starts watching a team of `workers` threads that play the ranks
  /// first_rank, first_rank + 1, ... of the run named `run` (e.g. a suite's
  /// "case 'x'"; may be empty). A repetition must take less than the
  /// watchdog's time, since the workers beat between repetitions. A job that
  /// makes no step at all (stuck while creating its communicators) is caught
  /// too.
  void watch(std::string run, int first_rank, int workers);
  /// Stops watching (between runs, while results are written).
  void unwatch();

  double seconds() const { return seconds_; }

  struct State;  // shared with the heartbeat functions in watchdog.cpp

 private:
  double seconds_;
  std::unique_ptr<State> state_;
};

/// Records that `worker` of this process reached its next step. A no-op when
/// no watchdog is running.
void heartbeat(int worker);

/// Names what the process is measuring now (e.g. "p2p latency 8 B"), for the
/// watchdog's report. Called by worker 0 when a case starts.
void watchdog_case(std::string label);

/// The start line of every measured step: a heartbeat, then every worker of
/// every process together (Team::start_together). Measuring loops call this
/// instead of team.start_together() so that the watchdog sees them move.
void step_together(Team& team, int worker);

}  // namespace ep::bench
