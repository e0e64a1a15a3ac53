// ep-bench iallreduce: Iallreduce (MPI_INT32_T) + Wait over all ranks, alone
// and around a computation, by message size.

#include "iallreduce.hpp"

#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace ep::bench {

namespace {

constexpr const char* iallreduce_help = R"(
Data: --sizes bytes of MPI_INT32_T (multiples of 4), reduced out of place
with --op.

--validate: after the timed repetitions of a size, two more allreduces,
each started, overlapped with the computation (and its Tests) and waited
for, in which every rank contributes small numbers that depend on its rank,
the element and the call; every element is checked against its exact result
on every rank. A wrong result makes the exit status 1; the sweep goes on.

Examples:
  scripts/mpirun.sh -np 2 ep-bench iallreduce --impl ep --ep 2 --json iallreduce-ep.json
  scripts/mpirun.sh -np 4 ep-bench iallreduce --impl mpi --op max --test-calls 4)";

template <class Coll>
NbcTimes time_iallreduce(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                         const CollPlan& p, ReduceOp reduce, const NbcRun& run) {
  const auto count = static_cast<std::size_t>(bytes / 4);
  std::vector<std::int32_t> in(count);
  std::vector<std::int32_t> out(count);
  fill_contribution(in, rank, 0);
  const MPI_Op op = mpi_op(reduce);
  const int n = static_cast<int>(count);
  const auto start = [&] { return coll.iallreduce(in.data(), out.data(), n, MPI_INT32_T, op); };
  NbcTimes t = measure_nonblocking<Coll>(team, worker, start, bytes, run);
  if (run.bench.validate) {
    const ExpectedReduction want(p.layout.total, reduce);
    const Overlapped<Coll> checked{coll, t.computation};
    t.validation_errors = validate_together(
        team, worker, [&] { return check_allreduce(checked, in, out, rank, want, reduce); });
  }
  return t;
}

// Every check run_iallreduce makes before it measures (Subcommand::check),
// and what it plans.
CollPlan plan_iallreduce(const IallreduceOptions& o, const Invocation& inv) {
  CollPlan p = plan_nonblocking(o.nbc, inv, "iallreduce");
  p.element_bytes = 4;
  p.buffers_per_rank = 2;  // in and out
  for (const std::int64_t bytes : p.sizes) {
    if (bytes % p.element_bytes != 0)
      throw UsageError(fmt::format(
          "--sizes: {} bytes is not a whole number of 4-byte MPI_INT32_T elements", bytes));
  }
  if (parse_reduce_op(o.op) != ReduceOp::sum) p.name_suffix = fmt::format("/op:{}", o.op);
  p.detail = fmt::format("{} on MPI_INT32_T", o.op);
  p.labels = {{"op", o.op}, {"datatype", "MPI_INT32_T"}};
  return p;
}

}  // namespace

Subcommand setup_iallreduce(CLI::App& parent) {
  auto options = std::make_shared<IallreduceOptions>();
  CLI::App* app = parent.add_subcommand(
      "iallreduce",
      "Non-blocking allreduce (MPI_INT32_T): time to complete and overlap with computation");
  add_nbc_options(*app, options->nbc);
  app->add_option("--op", options->op, "The reduction")
      ->check(CLI::IsMember({"sum", "max", "min"}))
      ->capture_default_str();
  app->footer(std::string(coll_help) + nbc_help + iallreduce_help);
  Subcommand command{app,
                     [options] { return requested_thread_level(options->nbc.coll.comm.bench); },
                     [options](const Invocation& inv) { return run_iallreduce(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_iallreduce(*options, inv); };
  return command;
}

int run_iallreduce(const IallreduceOptions& o, const Invocation& inv) {
  const CollPlan p = plan_iallreduce(o, inv);
  const ReduceOp reduce = parse_reduce_op(o.op);
  NbcMeasures measures;
  measures.ep = [&](Team& team, int w, const EpColl& coll, int rank, std::int64_t bytes,
                    const NbcRun& run) {
    return time_iallreduce(team, w, coll, rank, bytes, p, reduce, run);
  };
  measures.mpi = [&](Team& team, int w, const MpiColl& coll, int rank, std::int64_t bytes,
                     const NbcRun& run) {
    return time_iallreduce(team, w, coll, rank, bytes, p, reduce, run);
  };
  return run_nonblocking(p, o.nbc, inv, measures);
}

}  // namespace ep::bench
