// How one worker measures one point-to-point case: warm-up, sizing the
// repetitions (calibration), the timed repetitions, then the optional payload check. Every
// worker of every process runs this in lockstep; all of them get the same
// reduced numbers back.
#pragma once

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bench_options.hpp"
#include "p2p_kernels.hpp"
#include "team.hpp"
#include "watchdog.hpp"

namespace ep::bench {

enum class Family { latency, bandwidth, msgrate };

/// One benchmark: a family at one message size.
struct P2pCase {
  Family family = Family::latency;
  std::int64_t bytes = 0;
  int window = 1;  ///< messages in flight per pair (streaming families)
};

/// What a case measured, reduced over all ranks: each repetition's real and
/// CPU seconds are those of the slowest rank.
struct P2pOutcome {
  std::int64_t iterations = 0;
  std::vector<std::array<double, 2>> repetitions;  ///< {real seconds, cpu seconds}
  std::optional<std::int64_t> validation_errors;
};

/// A worker's place in the pattern.
struct P2pSeat {
  Role role = Role::sender;
  int pair = 0;
};

/// Warm-up iterations when --warmup is not given: enough to fault in buffers
/// and set up connections, fewer where one iteration moves much data.
inline std::int64_t default_warmup(const P2pCase& c) {
  constexpr std::int64_t large = 64 * 1024;
  if (c.family == Family::latency) return c.bytes <= large ? 100 : 10;
  return c.bytes <= large ? 10 : 2;
}

/// {wall seconds, this thread's CPU seconds} spent in body(). The CPU time
/// shows whether a library waits by spinning (CPU ~ wall) or by sleeping.
template <class Body>
std::array<double, 2> time_it(Body&& body) {
  const auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  };
  const double cpu0 = cpu_now();
  const auto wall0 = std::chrono::steady_clock::now();
  body();
  const auto wall1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_now();
  return {std::chrono::duration<double>(wall1 - wall0).count(), cpu1 - cpu0};
}

/// Iterations that make one repetition last at least min_time, found as
/// google/benchmark does: time growing trial runs (at most x10 each) until one
/// lasts min_time. Trials are not kept. Sizing from trials rather than from the
/// warm-up keeps a single scheduling hiccup in the warm-up (milliseconds, with
/// more threads than cores) from shrinking every repetition to a few iterations.
template <class Kernel>
std::int64_t calibrate(Team& team, int worker, Kernel& kernel, double min_time) {
  constexpr std::int64_t most = 100'000'000;
  std::int64_t n = 1;
  for (;;) {
    step_together(team, worker);
    const auto mine = time_it([&] { kernel(n); });
    // Every worker gets the same slowest time, so all choose the same n.
    const double slowest = team.allreduce(worker, std::array{mine[0]}, MPI_MAX)[0];
    if (slowest >= min_time || n >= most) return n;
    const double grow = slowest > 0.1 * min_time ? std::min(10.0, 1.4 * min_time / slowest) : 10.0;
    n = std::min(most, std::max(n + 1, static_cast<std::int64_t>(static_cast<double>(n) * grow)));
  }
}

template <class Link>
P2pOutcome measure_p2p_case(Team& team, int worker, const Link& link, P2pSeat seat,
                            const P2pCase& c, const BenchOptions& options,
                            const std::function<void(int repetition)>& on_repetition) {
  const bool latency = c.family == Family::latency;
  // Ping-pong uses one slot; a streaming receiver one per message in flight.
  Buffers buffers(c.bytes, latency || seat.role == Role::sender ? 1 : c.window);
  const auto kernel = [&](std::int64_t iterations) {
    if (latency)
      ping_pong(link, seat.role, buffers, iterations);
    else
      stream(link, seat.role, buffers, c.window, iterations);
  };

  P2pOutcome outcome;
  step_together(team, worker);
  kernel(options.warmup >= 0 ? options.warmup : default_warmup(c));
  outcome.iterations = options.iterations > 0 ? options.iterations
                                              : calibrate(team, worker, kernel, options.min_time);

  for (int r = 0; r < options.repetitions; ++r) {
    step_together(team, worker);
    const auto mine = time_it([&] { kernel(outcome.iterations); });
    const auto slowest = team.allreduce(worker, mine, MPI_MAX);
    outcome.repetitions.push_back({slowest[0], slowest[1]});
    if (worker == 0 && on_repetition) on_repetition(r);
  }

  if (options.validate) {
    step_together(team, worker);
    const std::int64_t errors = latency
                                    ? check_ping_pong(link, seat.role, seat.pair, buffers)
                                    : check_stream(link, seat.role, seat.pair, buffers, c.window);
    const auto total = team.allreduce(worker, std::array{static_cast<double>(errors)}, MPI_SUM);
    outcome.validation_errors = static_cast<std::int64_t>(total[0]);
  }
  return outcome;
}

}  // namespace ep::bench
