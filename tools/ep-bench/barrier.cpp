// ep-bench barrier: the time of a barrier over all ranks. It moves no data,
// so the sweep has one size, 0 bytes, and the results have the shape of
// bcast's and allreduce's (family "barrier", run names barrier/<impl>/<layout>/0).

#include "barrier.hpp"

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace ep::bench {

namespace {

constexpr const char* barrier_help = R"(
A barrier moves no data: there is no --sizes, and the results are those of
one size, 0 bytes (MB/s is 0).

--validate: after the timed repetitions, one more barrier per rank in which
that rank arrives 2 ms late; no rank may leave any of these barriers before
the last one arrived (compared on the host's monotonic clock, so all
processes must run on one host). A barrier that lets a rank out early makes
the exit status 1.

Examples:
  scripts/mpirun.sh -np 2 ep-bench barrier --impl ep --ep 2 --json barrier-ep.json
  scripts/mpirun.sh -np 4 ep-bench barrier --impl mpi --json barrier-mpi.json)";

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Checked barriers, one per rank of the job, each with that rank late.
/// Returns (on every rank alike) the number of barriers some rank left
/// before the late rank arrived.
template <class Coll>
std::int64_t check_barriers(Team& team, int worker, const Coll& coll, int rank, int ranks) {
  std::int64_t wrong = 0;
  for (int late = 0; late < ranks; ++late) {
    step_together(team, worker);
    if (rank == late) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const double arrived = now_seconds();
    coll.barrier();
    const double left = now_seconds();
    // The latest arrival and (as the largest of -left) the earliest departure.
    const auto r = team.allreduce(worker, std::array{arrived, -left}, MPI_MAX);
    if (-r[1] < r[0]) ++wrong;
  }
  return wrong;
}

template <class Coll>
CollTimes time_barrier(Team& team, int worker, const Coll& coll, int rank, const CollPlan& p,
                       const BenchOptions& o, const OnRepetition& on_repetition) {
  const auto kernel = [&](std::int64_t n) { barrier_loop(coll, n); };
  CollTimes t = measure(team, worker, kernel, coll_schedule(o, 0), on_repetition);
  if (o.validate) {
    // Every rank counts the same barriers: report them once, from rank 0.
    const std::int64_t wrong = check_barriers(team, worker, coll, rank, p.layout.total);
    t.validation_errors = validate_together(team, worker, [&] { return rank == 0 ? wrong : 0; });
  }
  return t;
}

}  // namespace

namespace {

// Every check run_barrier makes before it measures (Subcommand::check), and
// what it plans.
CollPlan plan_barrier(const BarrierOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  require_thread_level(bench, inv.thread_level_provided);
  CollPlan p = plan_collective(o.coll, inv, "barrier");
  p.sizes = {0};
  p.detail = "no data";
  p.labels = nlohmann::ordered_json::object();  // nothing beyond impl and layout
  return p;
}

}  // namespace

Subcommand setup_barrier(CLI::App& parent) {
  auto options = std::make_shared<BarrierOptions>();
  CLI::App* app = parent.add_subcommand("barrier", "Barrier latency over all ranks");
  add_comm_bench_options(*app, options->coll.comm);
  app->footer(std::string(coll_help) + barrier_help);
  Subcommand command{app, [options] { return requested_thread_level(options->coll.comm.bench); },
                     [options](const Invocation& inv) { return run_barrier(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_barrier(*options, inv); };
  return command;
}

int run_barrier(const BarrierOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  CollPlan p = plan_barrier(o, inv);

  CollMeasures measures;
  measures.ep = [&](Team& team, int w, const EpColl& coll, int rank, std::int64_t /*bytes*/,
                    const OnRepetition& on_repetition) {
    return time_barrier(team, w, coll, rank, p, bench, on_repetition);
  };
  measures.mpi = [&](Team& team, int w, const MpiColl& coll, int rank, std::int64_t /*bytes*/,
                     const OnRepetition& on_repetition) {
    return time_barrier(team, w, coll, rank, p, bench, on_repetition);
  };
  return run_collective(p, bench, inv, measures);
}

}  // namespace ep::bench
