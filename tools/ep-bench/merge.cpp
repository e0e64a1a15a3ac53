#include "merge.hpp"

#include <fmt/core.h>

#include <memory>

#include "comm_bench_measure.hpp"
#include "comm_bench_ops.hpp"
#include "intercomm.hpp"

namespace ep::bench {

namespace {

constexpr const char* merge_help = R"(
The ranks form the two groups of --groups and one inter-communicator between
them (as ep-bench intercomm, untimed); then Intercomm_merge with high = the
rank's group (group 0 first) and the free of the merged communicator are
timed in pairs. The first pair of the run is reported apart (phase "cold").
A call's time is that of the slowest rank.

Ranks and processes:
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each);
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints

Examples:
  scripts/mpirun.sh -np 2 ep-bench merge --impl ep --ep 2
  scripts/mpirun.sh -np 4 ep-bench merge --impl mpi --groups alternate)";

// Group 0 passes high = 0 and comes first; each group keeps its order.
template <class Ops>
PairTimes time_merge(Team& team, int w, const Parent& parent, const GroupSeat& seat,
                     const MergeOptions& o, CommReport& report) {
  typename Ops::Comm local{};
  typename Ops::Comm inter{};
  typename Ops::Comm merged{};
  Ops::split(Ops::parent(parent), seat.group, seat.rank_in_group, &local);
  Ops::intercomm(local, Ops::parent(parent), seat.remote_leader, intercomm_bench_tag, &inter);
  const auto create = [&] { Ops::merge(inter, seat.group, &merged); };
  const auto destroy = [&] { Ops::free(&merged); };
  const CommFacts expected{seat.rank_in_group + (seat.group == 0 ? 0 : seat.sizes[0]),
                           seat.sizes[0] + seat.sizes[1], 0};
  if (w == 0) report.starting("create/free");
  const PairTimes times = measure_and_validate(
      team, w, create, destroy, [&] { return Ops::facts(merged); }, expected, o.comm.bench,
      [&](int r) { report.repetition_done("create/free", r); });
  Ops::free(&inter);
  Ops::free(&local);
  return times;
}

}  // namespace

namespace {

CommLayout plan_merge(const MergeOptions& o, const Invocation& inv) {
  return plan_comm_run(o.comm, inv, 2, "merge");
}

}  // namespace

Subcommand setup_merge(CLI::App& parent) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* app = parent.add_subcommand(
      "merge", "Time to merge an inter-communicator and to free the result, cold and warm");
  add_comm_bench_options(*app, options->comm);
  add_groups_option(*app, options->groups);
  app->footer(merge_help);
  Subcommand command{app, [options] { return requested_thread_level(options->comm.bench); },
                     [options](const Invocation& inv) { return run_merge(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_merge(*options, inv); };
  return command;
}

int run_merge(const MergeOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.comm.bench;
  const CommLayout layout = plan_merge(o, inv);
  const auto session = open_session(bench, inv);
  const nlohmann::ordered_json labels = {{"groups", o.groups}};
  session->begin_run(describe_comm_run("merge", layout, bench, inv, labels), layout.first_rank,
                     layout.workers);
  CommReport report("merge", layout, bench, labels, fmt::format("groups {}", o.groups), *session);
  std::vector<Parent> parents = make_parents(layout);
  Team team(layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    const GroupSeat seat = group_seat(o.groups, layout.first_rank + w, layout.total);
    const PairTimes times = layout.impl == Impl::ep
                                ? time_merge<EpOps>(team, w, parent, seat, o, report)
                                : time_merge<MpiOps>(team, w, parent, seat, o, report);
    if (w == 0) report.add_pairs(times);
  });
  free_parents(layout, parents);
  return report.finish();
}

}  // namespace ep::bench
