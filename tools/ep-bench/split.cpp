#include "split.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

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

With --parents K > 1, the ranks are first split (untimed) into K siblings,
rank r into sibling r % K ordered by rank, and each rank then splits its
own sibling as above, with its rank in the sibling as r. With endpoints, a
process that hosts ranks of several siblings makes their communicators at
once, one leader per sibling: the case where creations of one process wait
for each other (docs/design.md, Known limits).

Ranks and processes:
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each);
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints

Examples:
  scripts/mpirun.sh -np 2 ep-bench split --impl ep --ep 2 --json split-ep.json
  scripts/mpirun.sh -np 4 ep-bench split --impl mpi --json split-mpi.json
  scripts/mpirun.sh -np 3 ep-bench split --impl ep --ep 2 --parents 2 --colors 1
  scripts/mpirun.sh -np 6 ep-bench split --impl mpi --parents 2 --colors 1)";

// How many of the ranks 0..total-1 share `rank`'s remainder modulo k.
int same_remainder(int rank, int total, int k) { return (total - 1 - rank % k) / k + 1; }

// What the split gives `rank`: its color's members are the ranks with that
// remainder, ordered by key -rank, so the larger ones come first.
CommFacts split_facts(int rank, int total, int colors) {
  CommFacts f;
  f.size = same_remainder(rank, total, colors);
  f.rank = (total - 1 - rank) / colors;
  return f;
}

// The sibling of `rank` among `parents` (rank % parents, ordered by rank):
// the rank and size it has there.
CommFacts sibling_facts(int rank, int total, int parents) {
  CommFacts f;
  f.size = same_remainder(rank, total, parents);
  f.rank = rank / parents;
  return f;
}

template <class Ops>
PairTimes time_split(Team& team, int w, const Parent& parent, int rank, int total,
                     const SplitOptions& o, CommReport& report) {
  // The communicator split: the parent of all ranks, or this rank's sibling
  // (made once, untimed, and freed after the measurement).
  typename Ops::Comm from = Ops::parent(parent);
  typename Ops::Comm sibling{};
  const CommFacts in = sibling_facts(rank, total, o.parents);
  if (o.parents > 1) {
    Ops::split(from, rank % o.parents, rank, &sibling);
    from = sibling;
  }
  typename Ops::Comm made{};
  const auto create = [&] { Ops::split(from, in.rank % o.colors, -in.rank, &made); };
  const auto destroy = [&] { Ops::free(&made); };
  if (w == 0) report.starting("create/free");
  PairTimes times = measure_and_validate(
      team, w, create, destroy, [&] { return Ops::facts(made); },
      split_facts(in.rank, in.size, o.colors), o.comm.bench,
      [&](int r) { report.repetition_done("create/free", r); });
  if (o.parents > 1) Ops::free(&sibling);
  return times;
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
  app->add_option("--parents", options->parents,
                  "Siblings split at once: each rank splits its sibling, rank % parents "
                  "(1: every rank splits the communicator of all ranks)")
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
  const nlohmann::ordered_json labels = {{"colors", o.colors}, {"parents", o.parents}};
  session->begin_run(describe_comm_run("split", layout, bench, inv, labels), layout.first_rank,
                     layout.workers);
  const std::string detail =
      o.parents > 1 ? fmt::format("{} colors, each of {} siblings at once", o.colors, o.parents)
                    : fmt::format("{} colors", o.colors);
  CommReport report("split", layout, bench, labels, detail, *session);

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
