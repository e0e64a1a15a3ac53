// How every ep-bench benchmark measures, in one place: warm-up, calibration
// of the iteration count (calibration.hpp), the timed repetitions, and the
// validation that follows them. Every worker of every process runs these in
// lockstep (Team) and gets the same reduced numbers back.
//
// A benchmark gives a kernel: kernel(n) runs n iterations of its pattern on
// this rank. A repetition starts on all ranks together (step_together) and
// is timed around the kernel; its time is the slowest rank's. A kernel may
// return figures of its own (std::array<double, K>: e.g. the time of the
// creations and of the frees within create/free pairs), which are reduced
// the same way. Nothing but the kernel runs between a repetition's clocks:
// no allocation, no indirect call; the kernel's loop only counts its
// iterations for the watchdog (kernel_progress, a load and a store).
#pragma once

#include <time.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "bench_options.hpp"
#include "calibration.hpp"
#include "team.hpp"
#include "watchdog.hpp"

namespace ep::bench {

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

/// Warm-up iterations when --warmup is not given: enough to fault in buffers
/// and set up connections, fewer where one iteration moves much data.
/// `latency_bound`: one message (or call) per iteration, as in ping-pong and
/// collectives, rather than a window of them.
inline std::int64_t default_warmup(std::int64_t bytes, bool latency_bound) {
  constexpr std::int64_t large = 64 * 1024;
  if (latency_bound) return bytes <= large ? 100 : 10;
  return bytes <= large ? 10 : 2;
}

/// What the runner does, from the options every subcommand shares.
struct Schedule {
  std::int64_t warmup = 0;
  std::int64_t iterations = 0;  ///< per repetition; 0: calibrate to min_time
  double min_time = 0.01;
  int repetitions = 1;

  /// --warmup if given, else `default_warmup`.
  static Schedule of(const BenchOptions& o, std::int64_t default_warmup) {
    return {o.warmup >= 0 ? o.warmup : default_warmup, o.iterations, o.min_time, o.repetitions};
  }
};

/// What a kernel returns beside its time: nothing, or K figures.
template <class Kernel>
using KernelFigures = std::invoke_result_t<Kernel&, std::int64_t>;

template <class Figures>
inline constexpr std::size_t figure_count = 0;
template <std::size_t K>
inline constexpr std::size_t figure_count<std::array<double, K>> = K;

/// A measurement, reduced over all ranks.
template <std::size_t K = 0>
struct Measurement {
  std::int64_t iterations = 0;  ///< per repetition
  /// Per repetition: {wall, cpu} seconds of all its iterations, then the
  /// kernel's K figures; each component the largest over ranks.
  std::vector<std::array<double, 2 + K>> repetitions;
  std::optional<std::int64_t> validation_errors;  ///< set when --validate ran
};

using OnRepetition = std::function<void(int repetition)>;

/// Probes kernel(n) for growing n until Calibration settles; the same count
/// on every rank, since each decides on the slowest rank's time.
template <class Kernel>
std::int64_t calibrate(Team& team, int worker, Kernel& kernel, double min_time) {
  Calibration calibration(min_time);
  for (;;) {
    step_together(team, worker);
    const auto mine = time_it([&] { kernel(calibration.count()); });
    const double slowest = team.allreduce(worker, std::array{mine[0]}, MPI_MAX)[0];
    if (calibration.record(slowest)) return calibration.count();
  }
}

/// Warm-up, calibration (unless the schedule fixes the iterations) and the
/// timed repetitions of `kernel`. Worker 0 calls on_repetition(r) after each
/// repetition (the progress line).
template <class Kernel>
auto measure(Team& team, int worker, Kernel& kernel, const Schedule& schedule,
             const OnRepetition& on_repetition = {}) {
  using Figures = KernelFigures<Kernel>;
  constexpr std::size_t K = figure_count<std::remove_cvref_t<Figures>>;
  static_assert(std::is_void_v<Figures> || K > 0,
                "a kernel returns nothing or std::array<double, K>");
  Measurement<K> m;
  step_together(team, worker);
  kernel(schedule.warmup);
  m.iterations = schedule.iterations > 0 ? schedule.iterations
                                         : calibrate(team, worker, kernel, schedule.min_time);
  m.repetitions.reserve(static_cast<std::size_t>(schedule.repetitions));
  for (int r = 0; r < schedule.repetitions; ++r) {
    std::array<double, 2 + K> mine{};
    step_together(team, worker);
    if constexpr (K == 0) {
      const auto t = time_it([&] { kernel(m.iterations); });
      mine = t;
    } else {
      Figures figures{};
      const auto t = time_it([&] { figures = kernel(m.iterations); });
      std::copy(t.begin(), t.end(), mine.begin());
      std::copy(figures.begin(), figures.end(), mine.begin() + 2);
    }
    const auto slowest = team.allreduce(worker, mine, MPI_MAX);
    auto& kept = m.repetitions.emplace_back();
    std::copy(slowest.begin(), slowest.end(), kept.begin());
    if (worker == 0 && on_repetition) on_repetition(r);
  }
  return m;
}

/// --validate, after the timed repetitions: `check()` (the wrong results
/// this rank sees) once all ranks are ready, summed over all ranks. Never
/// timed.
template <class Check>
std::int64_t validate_together(Team& team, int worker, Check&& check) {
  step_together(team, worker);
  const auto wrong = static_cast<double>(check());
  return static_cast<std::int64_t>(team.allreduce(worker, std::array{wrong}, MPI_SUM)[0]);
}

}  // namespace ep::bench
