// ep-bench allreduce: the time of an allreduce of MPI_INT32_T over all
// ranks, by message size.

#include "allreduce.hpp"

#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace ep::bench {

namespace {

constexpr const char* allreduce_help = R"(
Data: --sizes bytes of MPI_INT32_T (multiples of 4), reduced out of place
with --op.

--validate: after the timed repetitions of a size, two more allreduces in
which every rank contributes small numbers that depend on its rank, the
element and the call; every element is checked against its exact result on
every rank. A wrong result makes the exit status 1; the sweep goes on.

Examples:
  scripts/mpirun.sh -np 2 ep-bench allreduce --impl ep --ep 2 --json allreduce-ep.json
  scripts/mpirun.sh -np 4 ep-bench allreduce --impl mpi --op max)";

template <class Coll>
CollTimes time_allreduce(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                         const CollPlan& p, ReduceOp reduce, const BenchOptions& o,
                         const OnRepetition& on_repetition) {
  const auto count = static_cast<std::size_t>(bytes / 4);
  std::vector<std::int32_t> in(count);
  std::vector<std::int32_t> out(count);
  fill_contribution(in, rank, 0);
  const MPI_Op op = mpi_op(reduce);
  const auto kernel = [&](std::int64_t n) { allreduce_loop(coll, in, out, op, n); };
  CollTimes t = measure(team, worker, kernel, coll_schedule(o, bytes), on_repetition);
  if (o.validate) {
    const ExpectedReduction want(p.layout.total, reduce);
    t.validation_errors = validate_together(
        team, worker, [&] { return check_allreduce(coll, in, out, rank, want, reduce); });
  }
  return t;
}

}  // namespace

namespace {

// Every check run_allreduce makes before it measures (Subcommand::check), and
// what it plans.
CollPlan plan_allreduce(const AllreduceOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  require_thread_level(bench, inv.thread_level_provided);
  CollPlan p = plan_collective(o.coll, inv, "allreduce");
  p.element_bytes = 4;
  p.buffers_per_rank = 2;  // in and out
  for (const std::int64_t bytes : p.sizes) {
    if (bytes % p.element_bytes != 0)
      throw UsageError(fmt::format(
          "--sizes: {} bytes is not a whole number of 4-byte MPI_INT32_T elements", bytes));
  }
  const ReduceOp reduce = parse_reduce_op(o.op);
  if (reduce != ReduceOp::sum) p.name_suffix = fmt::format("/op:{}", o.op);
  p.detail = fmt::format("{} on MPI_INT32_T", o.op);
  p.labels = {{"op", o.op}, {"datatype", "MPI_INT32_T"}};
  return p;
}

}  // namespace

Subcommand setup_allreduce(CLI::App& parent) {
  auto options = std::make_shared<AllreduceOptions>();
  CLI::App* app = parent.add_subcommand(
      "allreduce", "Allreduce (MPI_INT32_T) latency and bandwidth over all ranks, by size");
  add_coll_options(*app, options->coll);
  app->add_option("--op", options->op, "The reduction")
      ->check(CLI::IsMember({"sum", "max", "min"}))
      ->capture_default_str();
  app->footer(std::string(coll_help) + allreduce_help);
  Subcommand command{app, [options] { return requested_thread_level(options->coll.comm.bench); },
                     [options](const Invocation& inv) { return run_allreduce(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_allreduce(*options, inv); };
  return command;
}

int run_allreduce(const AllreduceOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  CollPlan p = plan_allreduce(o, inv);
  const ReduceOp reduce = parse_reduce_op(o.op);

  CollMeasures measures;
  measures.ep = [&](Team& team, int w, const EpColl& coll, int rank, std::int64_t bytes,
                    const OnRepetition& on_repetition) {
    return time_allreduce(team, w, coll, rank, bytes, p, reduce, bench, on_repetition);
  };
  measures.mpi = [&](Team& team, int w, const MpiColl& coll, int rank, std::int64_t bytes,
                     const OnRepetition& on_repetition) {
    return time_allreduce(team, w, coll, rank, bytes, p, reduce, bench, on_repetition);
  };
  return run_collective(p, bench, inv, measures);
}

}  // namespace ep::bench
