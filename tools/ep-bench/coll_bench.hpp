// What ep-bench bcast, allreduce and barrier (bcast.cpp, allreduce.cpp,
// barrier.cpp) share: the time of a collective over all ranks, played by
// libep endpoints (--impl ep, --ep per process) or by plain MPI processes
// (--impl mpi), over a sweep of message sizes; the sweep, the table and the
// JSON entries.
//
// The ranks and processes follow the communicator benchmarks (comm_bench.hpp):
// the same --ep layouts, the same rule that --impl mpi needs as many processes
// as the endpoint layout has endpoints. --impl mpi-threads is refused: a
// collective over threads that share one MPI rank cannot be written in MPI.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "coll_kernels.hpp"
#include "comm_bench.hpp"
#include "measure.hpp"
#include "report.hpp"
#include "subcommand.hpp"
#include "team.hpp"

namespace ep::bench {

/// The options of both collectives.
struct CollOptions {
  CommBenchOptions comm;
  std::string sizes = "4:4M:x2";
};

/// Adds --sizes and the options of every communicator benchmark.
void add_coll_options(CLI::App& app, CollOptions& options);

/// The part of --help that both collectives share.
extern const char* const coll_help;

/// What one run does, checked against the job.
struct CollPlan {
  std::string collective;  ///< "bcast", the family and the first part of names
  CommLayout layout;
  std::vector<std::int64_t> sizes;
  std::string name_suffix;         ///< after the size in run names, e.g. "/root:1"
  nlohmann::ordered_json labels;   ///< what distinguishes the series beyond impl, layout, size
  std::string detail;              ///< for the table's title, e.g. "root 0"
  std::int64_t element_bytes = 0;  ///< > 0: entries carry count = bytes / element_bytes
  bool reference = false;          ///< also time the memcpy reference (bcast)
  int buffers_per_rank = 1;        ///< buffers of a size each rank holds (allreduce: in, out)
  int root = 0;                    ///< the reference's source rank
};

/// The layout and the sizes from the options; throws UsageError on every
/// rank alike. The caller fills in the rest.
CollPlan plan_collective(const CollOptions& options, const Invocation& invocation,
                         const std::string& collective);

/// Refuses (UsageError, on every rank alike) a run whose buffers at the
/// largest of plan.sizes do not fit in the memory of some process: each
/// process allocates and frees them for all its ranks at once, so that a
/// lack of memory is said before the run instead of aborting it.
/// \note Collective over MPI_COMM_WORLD.
void check_buffers_fit(const CollPlan& plan, const Invocation& invocation);

/// One series of one size, reduced over all ranks: {wall, cpu} seconds of
/// the slowest rank per repetition, and the wrong buffers over all ranks.
using CollTimes = Measurement<>;

/// A repetition of {wall, cpu} seconds over all of `t`'s iterations, per
/// call: us, and bytes/s of a call moving `bytes`.
template <class Times>
Repetition per_call(std::int64_t bytes, const Times& t, double wall, double cpu) {
  const double seconds = wall / static_cast<double>(t.iterations);
  Repetition r;
  r.real_time = seconds * 1e6;
  r.cpu_time = cpu / static_cast<double>(t.iterations) * 1e6;
  if (seconds > 0) r.bytes_per_second = static_cast<double>(bytes) / seconds;
  return r;
}

/// A series of `plan`'s run without its repetitions: named
/// <family>/<impl>/<layout>/<bytes><name_suffix>, labelled with the layout,
/// the size and plan.labels.
Series coll_series(const CollPlan& plan, const std::string& family, std::int64_t bytes,
                   std::int64_t iterations);

/// Collectives are latency-bound at small sizes: they warm up as p2p
/// latency does.
inline Schedule coll_schedule(const BenchOptions& o, std::int64_t bytes) {
  return Schedule::of(o, default_warmup(bytes, true));
}

/// How a collective is measured at one size, by a worker that plays `rank`,
/// with each implementation's handle; `reference` times the memcpy
/// reference from the root's buffer `source` (all workers of the only
/// process share it), when the plan asks for it.
struct CollMeasures {
  template <class Coll>
  using Measure = std::function<CollTimes(Team& team, int worker, const Coll& coll, int rank,
                                          std::int64_t bytes, const OnRepetition& on_repetition)>;
  Measure<EpColl> ep;
  Measure<MpiColl> mpi;
  std::function<CollTimes(Team& team, int worker, int rank, std::span<std::byte> source,
                          const OnRepetition& on_repetition)>
      reference;
};

/// Runs the sweep and returns the exit status: exit_failed if --validate
/// found a wrong buffer.
/// \note Collective over MPI_COMM_WORLD.
int run_collective(const CollPlan& plan, const BenchOptions& bench, const Invocation& invocation,
                   const CollMeasures& measures);

}  // namespace ep::bench
