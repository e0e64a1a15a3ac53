// What ep-bench ibcast and iallreduce (ibcast.cpp, iallreduce.cpp) share:
// OSU's non-blocking collective measurement on the ranks, processes and
// sizes of the blocking collectives (coll_bench.hpp), endpoints (ep::Ibcast,
// ep::Iallreduce + ep::Wait) beside plain MPI processes (MPI_Ibcast,
// MPI_Iallreduce + MPI_Wait).
//
// At each size, two measurements:
//   pure        start + Wait, back to back: the time to complete (series
//               "<collective>", shaped as bcast's and allreduce's);
//   overlapped  start, a computation of about the pure time, Wait (series
//               "<collective>/overlap"): the overall time, the computation's
//               time and the overlap,
//                 overlap = max(0, 100 * (1 - (overall - compute) / pure)) %,
//               how much of the collective the computation hid.
// The computation (nbc_kernels.hpp) is a busy loop that calls no MPI, sized
// from the pure median and this rank's rate of work, measured once per run
// and corrected at each size;
// with --test-calls N it is cut into N + 1 pieces with an MPI_Test (ep::Test)
// between them, which lets libraries that progress only inside MPI calls
// advance the collective.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>

#include "coll_bench.hpp"
#include "measure.hpp"
#include "nbc_kernels.hpp"
#include "subcommand.hpp"
#include "team.hpp"

namespace ep::bench {

/// The most Tests --test-calls may spread through one computation.
inline constexpr int most_test_calls = 1000;

/// The options of both non-blocking collectives.
struct NbcOptions {
  CollOptions coll;
  int test_calls = 0;  ///< Tests within the computation (OSU's -t)
};

/// Adds --test-calls and the options of the blocking collectives.
void add_nbc_options(CLI::App& app, NbcOptions& options);

/// The part of --help that both share (after coll_help).
extern const char* const nbc_help;

/// Checks what the blocking collectives check and --test-calls; throws
/// UsageError on every rank alike.
CollPlan plan_nonblocking(const NbcOptions& options, const Invocation& invocation,
                          const std::string& collective);

/// One size, reduced over all ranks.
struct NbcTimes {
  CollTimes pure;             ///< start + Wait
  Measurement<1> overlapped;  ///< start + computation + Wait; figure: computing seconds
  double pure_seconds = 0;    ///< median per call of `pure`, what the computation lasts
  Computation computation;    ///< this rank's, sized to pure_seconds
  std::optional<std::int64_t> validation_errors;  ///< set when --validate ran
};

/// What a size's measurement needs beside the collective: the options, this
/// rank's rate of busy_work, and the progress callbacks of worker 0.
struct NbcRun {
  const BenchOptions& bench;
  int test_calls = 0;
  double units_per_second = 0;
  OnRepetition on_pure;
  OnRepetition on_overlapped;

  Computation computation(double seconds) const {
    return {static_cast<std::int64_t>(seconds * units_per_second), test_calls};
  }
};

/// This rank's computation of about `seconds`: sized from the run's rate of
/// work, then rescaled once from its time alone, with all ranks computing at
/// once (the rate drifts as the machine's load does).
Computation fit_computation(Team& team, int worker, const NbcRun& run, double seconds);

/// Both measurements of one size; `start()` starts the collective on this
/// rank's buffers and returns its request.
template <class Coll, class Start>
NbcTimes measure_nonblocking(Team& team, int worker, const Start& start, std::int64_t bytes,
                             const NbcRun& run) {
  NbcTimes t;
  const auto pure = [&](std::int64_t n) { pure_loop<Coll>(start, n); };
  t.pure = measure(team, worker, pure, coll_schedule(run.bench, bytes), run.on_pure);
  std::vector<double> per_call;
  for (const auto& [wall, cpu] : t.pure.repetitions)
    per_call.push_back(wall / static_cast<double>(t.pure.iterations));
  // The same on every rank: the repetitions are already reduced.
  t.pure_seconds = summarize(std::move(per_call)).median;
  t.computation = fit_computation(team, worker, run, t.pure_seconds);
  const auto overlapped = [&](std::int64_t n) {
    return overlapped_loop<Coll>(start, t.computation, n);
  };
  // Calibrated on its own rather than given the pure count: where ranks
  // share cores, a computing rank can hold up the others' progress, and the
  // overall time was seen at 10 to 100 times the pure one.
  t.overlapped =
      measure(team, worker, overlapped, coll_schedule(run.bench, bytes), run.on_overlapped);
  return t;
}

/// How a collective is measured at one size, by a worker that plays `rank`.
struct NbcMeasures {
  template <class Coll>
  using Measure = std::function<NbcTimes(Team& team, int worker, const Coll& coll, int rank,
                                         std::int64_t bytes, const NbcRun& run)>;
  Measure<EpColl> ep;
  Measure<MpiColl> mpi;
};

/// Runs the sweep and returns the exit status: exit_failed if --validate
/// found a wrong buffer.
/// \note Collective over MPI_COMM_WORLD.
int run_nonblocking(const CollPlan& plan, const NbcOptions& options, const Invocation& invocation,
                    const NbcMeasures& measures);

}  // namespace ep::bench
