// What the communicator benchmarks (split, intercomm, merge) share: the
// layout of ranks over processes, the handles each rank starts from, and the
// report (tables and google/benchmark-shaped JSON entries).
//
// Each benchmark times a creation and the free of what it created, in pairs;
// the first pair of the run (cold: nothing cached yet, first use of the
// parent) is reported apart from the warm ones. --impl ep runs the ranks as
// endpoints (--ep gives how many per process); --impl mpi runs the same
// operation on plain MPI processes, one rank each, so that the job needs as
// many processes as the endpoint layout has endpoints.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdint>
#include <ep/ep.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "report.hpp"
#include "session.hpp"
#include "subcommand.hpp"

namespace ep::bench {

struct CommBenchOptions {
  BenchOptions bench;
  std::string ep = "2";  ///< endpoints per process: N or N0,N1,... by process (--impl ep)
  CLI::Option* ep_option = nullptr;
};

/// Adds --ep and the options every benchmark has.
void add_comm_bench_options(CLI::App& app, CommBenchOptions& options);

/// Who hosts which rank: processes host consecutive ranks, as
/// Comm_create_endpoints orders them.
struct CommLayout {
  Impl impl = Impl::ep;
  std::vector<int> per_process;  ///< ranks hosted by each process
  int total = 0;
  int process = 0;     ///< this process
  int workers = 1;     ///< ranks (threads) of this process
  int first_rank = 0;  ///< rank of this process's worker 0

  std::string name() const;  ///< "2,2"; for mpi "1,1,1,1"
  int max_per_process() const;
};

/// The thread level and the layout of a communicator benchmark: every check
/// its run makes before measuring (also its Subcommand::check).
CommLayout plan_comm_run(const CommBenchOptions& o, const Invocation& inv, int minimum_ranks,
                         const std::string& subcommand);

/// Checks the options against the job; throws UsageError (on every rank
/// alike) with what to change. `minimum_ranks`: what the pattern needs.
CommLayout plan_comm_layout(const CommBenchOptions& o, const Invocation& inv, int minimum_ranks,
                            const std::string& subcommand);

/// The handle a rank starts from: a rank of an endpoint communicator over
/// MPI_COMM_WORLD (ep), or of a duplicate of MPI_COMM_WORLD (mpi).
struct Parent {
  ep::Comm ep = ep::COMM_NULL;
  MPI_Comm mpi = MPI_COMM_NULL;
};

/// Creates this process's parents (one per worker), in the order of
/// `layout`; release with free_parents. \note Collective over MPI_COMM_WORLD.
std::vector<Parent> make_parents(const CommLayout& layout);
void free_parents(const CommLayout& layout, std::vector<Parent>& parents);

/// Timings of create/free pairs, reduced over all ranks (each component the
/// slowest rank's), per call, in seconds: {create wall, create cpu, free
/// wall, free cpu}.
struct PairTimes {
  std::array<double, 4> cold{};
  std::int64_t iterations = 0;
  std::vector<std::array<double, 4>> repetitions;
  std::optional<std::int64_t> validation_errors;  ///< set when --validate ran
};

/// What a rank sees of a communicator, for --validate.
struct CommFacts {
  int rank = -1;
  int size = -1;
  int remote_size = 0;  ///< 0 for an intra-communicator
};
CommFacts facts_of(ep::Comm comm);
CommFacts facts_of_mpi(MPI_Comm comm);
/// How many of the facts differ from what the pattern expects.
int count_wrong(const CommFacts& got, const CommFacts& expected);

/// Tables and JSON entries of one run, kept by the session. Every process's
/// worker 0 calls it alike; only the writer (world rank 0) prints and keeps.
class CommReport {
 public:
  CommReport(std::string subcommand, const CommLayout& layout, const BenchOptions& bench,
             nlohmann::ordered_json labels, std::string detail, Session& session);

  /// Worker 0, before measuring `what` ("create/free", "latency 8 B"): names
  /// it for the watchdog.
  void starting(const std::string& what);
  /// Worker 0, after each repetition: the progress line.
  void repetition_done(const std::string& what, int repetition);

  /// Four series: create and free, cold and warm.
  void add_pairs(const PairTimes& t);
  /// One-way latency across (wall, cpu seconds per repetition over
  /// `iterations` round trips).
  void add_latency(std::int64_t bytes, std::int64_t iterations,
                   const std::vector<std::array<double, 2>>& seconds,
                   std::optional<std::int64_t> validation_errors);
  /// Wrong communicators or payloads found by --validate, over the run.
  std::int64_t validation_errors() const { return validation_errors_; }
  /// Ends the session's run and returns the exit status: exit_failed if
  /// --validate found anything wrong (the same on every rank).
  int finish();

 private:
  void add_series(const std::string& operation, const std::string& phase, std::int64_t iterations,
                  std::vector<Repetition> reps, std::int64_t bytes,
                  std::optional<std::int64_t> validation_errors);
  void title(const std::string& what, std::vector<Table::Column> columns);

  std::string subcommand_;
  const CommLayout& layout_;
  const BenchOptions& bench_;
  nlohmann::ordered_json labels_;
  std::string detail_;
  Session& session_;
  bool writer_;
  std::FILE* out_;
  std::string current_table_;
  std::vector<Table::Column> columns_;
  std::int64_t validation_errors_ = 0;
};

/// The result file's context block for a communicator benchmark
/// (describe_bench_run with the layout).
/// \note Collective over MPI_COMM_WORLD; null except on world rank 0.
nlohmann::ordered_json describe_comm_run(const std::string& subcommand, const CommLayout& layout,
                                         const BenchOptions& bench, const Invocation& inv,
                                         const nlohmann::ordered_json& extra);

}  // namespace ep::bench
