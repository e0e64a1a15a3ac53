#include "split.hpp"

#include <fmt/core.h>

#include <memory>

#include "cli_numbers.hpp"
#include "comm_bench_measure.hpp"
#include "comm_bench_ops.hpp"
#include "mpi_check.hpp"

namespace ep::bench {

namespace {

constexpr const char* split_help = R"(
Each rank splits the communicator of all ranks with color = rank % --colors
and key = -rank (so the new order is reversed and, with endpoints, a
process's ranks interleave with other processes'), then frees the result.
Creation and free are timed in pairs; a call's time is that of the slowest
rank. The first pair of the run is reported apart (phase "cold").

Ranks and processes:
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each);
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints

Examples:
  scripts/mpirun.sh -np 2 ep-bench split --impl ep --ep 2 --json split-ep.json
  scripts/mpirun.sh -np 4 ep-bench split --impl mpi --json split-mpi.json)";

// What the split gives `rank`: its color's members are the ranks with that
// remainder, ordered by key -rank, so the larger ones come first.
CommFacts split_facts(int rank, int total, int colors) {
  CommFacts f;
  f.size = (total - 1 - rank % colors) / colors + 1;
  f.rank = (total - 1 - rank) / colors;
  return f;
}

template <class Ops>
PairTimes time_split(Team& team, int w, const Parent& parent, int rank, int total,
                     const SplitOptions& o, CommReport& report) {
  typename Ops::Comm made{};
  const auto create = [&] { Ops::split(Ops::parent(parent), rank % o.colors, -rank, &made); };
  const auto destroy = [&] { Ops::free(&made); };
  if (w == 0) report.starting("create/free");
  return measure_and_validate(
      team, w, create, destroy, [&] { return Ops::facts(made); },
      split_facts(rank, total, o.colors), o.comm.bench,
      [&](int r) { report.repetition_done("create/free", r); });
}

}  // namespace

namespace {

CommLayout plan_split(const SplitOptions& o, const Invocation& inv) {
  return plan_comm_run(o.comm, inv, 1, "split");
}

}  // namespace

Subcommand setup_split(CLI::App& parent) {
  auto options = std::make_shared<SplitOptions>();
  CLI::App* app = parent.add_subcommand(
      "split", "Time to split a communicator and to free the result, cold and warm");
  add_comm_bench_options(*app, options->comm);
  app->add_option("--colors", options->colors, "Colors of the split: color = rank % colors")
      ->transform(tools::integer_in(1, 1024))
      ->capture_default_str();
  app->footer(split_help);
  Subcommand command{app, [options] { return requested_thread_level(options->comm.bench); },
                     [options](const Invocation& inv) { return run_split(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_split(*options, inv); };
  return command;
}

int run_split(const SplitOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.comm.bench;
  const CommLayout layout = plan_split(o, inv);
  const auto session = open_session(bench, inv);
  const nlohmann::ordered_json labels = {{"colors", o.colors}};
  session->begin_run(describe_comm_run("split", layout, bench, inv, labels), layout.first_rank,
                     layout.workers);
  CommReport report("split", layout, bench, labels, fmt::format("{} colors", o.colors), *session);

  std::vector<Parent> parents = make_parents(layout);
  Team team(layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    const int rank = layout.first_rank + w;
    const PairTimes times =
        layout.impl == Impl::ep
            ? time_split<EpOps>(team, w, parent, rank, layout.total, o, report)
            : time_split<MpiOps>(team, w, parent, rank, layout.total, o, report);
    if (w == 0) report.add_pairs(times);
  });
  free_parents(layout, parents);
  return report.finish();
}

}  // namespace ep::bench
