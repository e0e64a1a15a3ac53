// ep-bench ibcast: Ibcast + Wait over all ranks, alone and around a
// computation, by message size.

#include "ibcast.hpp"

#include <fmt/core.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cli_numbers.hpp"

namespace ep::bench {

namespace {

constexpr const char* ibcast_help = R"(
--validate: after the timed repetitions of a size, two more broadcasts, each
started, overlapped with the computation (and its Tests) and waited for,
whose payload depends on the call and on the byte index; every byte is
checked on every rank. A wrong buffer makes the exit status 1; the sweep
goes on.

Examples:
  scripts/mpirun.sh -np 2 ep-bench ibcast --impl ep --ep 2 --json ibcast-ep.json
  scripts/mpirun.sh -np 4 ep-bench ibcast --impl mpi --json ibcast-mpi.json
  scripts/mpirun.sh -np 2 ep-bench ibcast --ep 2 --test-calls 8 --sizes 64K:4M)";

template <class Coll>
NbcTimes time_ibcast(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                     const CollPlan& p, const NbcRun& run) {
  std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));  // zeroed: pages touched
  const int count = static_cast<int>(bytes);
  const auto start = [&] { return coll.ibcast(buffer.data(), count, MPI_BYTE, p.root); };
  NbcTimes t = measure_nonblocking<Coll>(team, worker, start, bytes, run);
  if (run.bench.validate) {
    const Overlapped<Coll> checked{coll, t.computation};
    t.validation_errors =
        validate_together(team, worker, [&] { return check_bcast(checked, buffer, rank, p.root); });
  }
  return t;
}

// Every check run_ibcast makes before it measures (Subcommand::check), and
// what it plans.
CollPlan plan_ibcast(const IbcastOptions& o, const Invocation& inv) {
  CollPlan p = plan_nonblocking(o.nbc, inv, "ibcast");
  if (o.root < 0 || o.root >= p.layout.total)
    throw UsageError(fmt::format("--root {}: this job has {} ranks, so the root is 0 to {}", o.root,
                                 p.layout.total, p.layout.total - 1));
  p.root = o.root;
  if (p.root != 0) p.name_suffix = fmt::format("/root:{}", p.root);
  p.detail = fmt::format("root {}", p.root);
  p.labels = {{"root", p.root}, {"datatype", "MPI_BYTE"}};
  return p;
}

}  // namespace

Subcommand setup_ibcast(CLI::App& parent) {
  auto options = std::make_shared<IbcastOptions>();
  CLI::App* app = parent.add_subcommand(
      "ibcast", "Non-blocking broadcast: time to complete and overlap with computation, by size");
  add_nbc_options(*app, options->nbc);
  app->add_option("--root", options->root, "Rank whose buffer is broadcast")
      ->transform(tools::integer_at_least(0))
      ->capture_default_str();
  app->footer(std::string(coll_help) + nbc_help + ibcast_help);
  Subcommand command{app,
                     [options] { return requested_thread_level(options->nbc.coll.comm.bench); },
                     [options](const Invocation& inv) { return run_ibcast(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_ibcast(*options, inv); };
  return command;
}

int run_ibcast(const IbcastOptions& o, const Invocation& inv) {
  const CollPlan p = plan_ibcast(o, inv);
  NbcMeasures measures;
  measures.ep = [&](Team& team, int w, const EpColl& coll, int rank, std::int64_t bytes,
                    const NbcRun& run) { return time_ibcast(team, w, coll, rank, bytes, p, run); };
  measures.mpi = [&](Team& team, int w, const MpiColl& coll, int rank, std::int64_t bytes,
                     const NbcRun& run) { return time_ibcast(team, w, coll, rank, bytes, p, run); };
  return run_nonblocking(p, o.nbc, inv, measures);
}

}  // namespace ep::bench
