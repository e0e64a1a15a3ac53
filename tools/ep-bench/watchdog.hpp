// The watchdog: a monitor thread per process that ends a job whose
// measurement stopped making progress, instead of letting it hang until a
// batch system kills it without a word.
//
// Progress is a count per worker thread: every worker beats (heartbeat(),
// through step_together) at each step of a measurement, and the timed
// kernels count each iteration (kernel_progress(): a relaxed load and store
// of a counter on the worker's own cache line, no locked instruction). So a
// repetition of any length that keeps iterating is progress, however long
// --iterations or --min-time make it; only an iteration that lasts longer
// than --watchdog is not. When no worker of a process has moved for
// --watchdog seconds, that process's monitor prints which case was running
// and which of its ranks had fallen behind, lets the other processes'
// monitors say the same, and calls MPI_Abort. A rank that is stuck shows as
// the one with fewer steps than its process's others; a process whose ranks
// all wait at the same step is waiting for another process.
//
// A rank with nothing to do in a step (the target of passive-target RMA,
// kernel_passive()) waits for the ranks that work on it, in other processes;
// a process all of whose ranks wait so leaves the verdict to the monitors
// of those processes, which see their kernels' progress (or its absence).
//
// Each monitor knows only its own process: world rank 0's report is the one
// kept in the result file, and every process's is on stderr.
#pragma once

#include <atomic>
#include <cstdint>
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
  /// "case 'x'"; may be empty). An iteration of a kernel must take less than
  /// the watchdog's time. A job that makes no step at all (stuck while
  /// creating its communicators) is caught too.
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

namespace detail {
/// A worker's progress, on a cache line of its own, so that counting in a
/// timed loop never contends with another worker.
struct alignas(64) Progress {
  std::atomic<std::uint64_t> steps{0};
  std::atomic<bool> passive{false};  ///< nothing to do until the next step
};
/// This thread's Progress while a watchdog runs (set by step_together), or
/// null.
inline constinit thread_local Progress* current_progress = nullptr;
}  // namespace detail

/// Counts one iteration of a timed kernel as progress, so that a repetition
/// longer than --watchdog is not taken for a stall. Cheap enough for the
/// timed loops: only this thread writes the counter (a load and a store,
/// relaxed), on its own cache line; nothing when no watchdog runs.
inline void kernel_progress() {
  if (detail::Progress* p = detail::current_progress)
    p->steps.store(p->steps.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// Says that this worker's rank has nothing to do in this step but wait for
/// ranks of other processes (the target of passive-target RMA), until its
/// next step_together.
inline void kernel_passive() {
  if (detail::Progress* p = detail::current_progress)
    p->passive.store(true, std::memory_order_relaxed);
}

/// Names what the process is measuring now (e.g. "p2p latency 8 B"), for the
/// watchdog's report. Called by worker 0 when a case starts.
void watchdog_case(std::string label);

/// The start line of every measured step: a heartbeat, then every worker of
/// every process together (Team::start_together). Measuring loops call this
/// instead of team.start_together() so that the watchdog sees them move.
void step_together(Team& team, int worker);

}  // namespace ep::bench
