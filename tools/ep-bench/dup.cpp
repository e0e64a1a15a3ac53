#include "dup.hpp"

#include <memory>

#include "comm_bench_measure.hpp"
#include "comm_bench_ops.hpp"

namespace ep::bench {

namespace {

constexpr const char* dup_help = R"(
Each rank duplicates the communicator of all ranks, then frees the
duplicate. Creation and free are timed in pairs; a call's time is that of
the slowest rank. The first pair of the run is reported apart (phase
"cold").

Ranks and processes:
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each);
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints

Examples:
  scripts/mpirun.sh -np 2 ep-bench dup --impl ep --ep 2 --json dup-ep.json
  scripts/mpirun.sh -np 4 ep-bench dup --impl mpi --json dup-mpi.json)";

template <class Ops>
PairTimes time_dup(Team& team, int w, const Parent& parent, int rank, int total,
                   const DupOptions& o, CommReport& report) {
  typename Ops::Comm made{};
  const auto create = [&] { Ops::dup(Ops::parent(parent), &made); };
  const auto destroy = [&] { Ops::free(&made); };
  if (w == 0) report.starting("create/free");
  // A duplicate ranks everyone as the parent does.
  CommFacts expected;
  expected.rank = rank;
  expected.size = total;
  return measure_and_validate(
      team, w, create, destroy, [&] { return Ops::facts(made); }, expected, o.comm.bench,
      [&](int r) { report.repetition_done("create/free", r); });
}

}  // namespace

namespace {

CommLayout plan_dup(const DupOptions& o, const Invocation& inv) {
  return plan_comm_run(o.comm, inv, 1, "dup");
}

}  // namespace

Subcommand setup_dup(CLI::App& parent) {
  auto options = std::make_shared<DupOptions>();
  CLI::App* app = parent.add_subcommand(
      "dup", "Time to duplicate a communicator and to free the duplicate, cold and warm");
  add_comm_bench_options(*app, options->comm);
  app->footer(dup_help);
  Subcommand command{app, [options] { return requested_thread_level(options->comm.bench); },
                     [options](const Invocation& inv) { return run_dup(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_dup(*options, inv); };
  return command;
}

int run_dup(const DupOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.comm.bench;
  const CommLayout layout = plan_dup(o, inv);
  const auto session = open_session(bench, inv);
  const nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  session->begin_run(describe_comm_run("dup", layout, bench, inv, labels), layout.first_rank,
                     layout.workers);
  CommReport report("dup", layout, bench, labels, "duplicate of all ranks", *session);

  std::vector<Parent> parents = make_parents(layout);
  Team team(layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    const int rank = layout.first_rank + w;
    const PairTimes times = layout.impl == Impl::ep
                                ? time_dup<EpOps>(team, w, parent, rank, layout.total, o, report)
                                : time_dup<MpiOps>(team, w, parent, rank, layout.total, o, report);
    if (w == 0) report.add_pairs(times);
  });
  free_parents(layout, parents);
  return report.finish();
}

}  // namespace ep::bench
