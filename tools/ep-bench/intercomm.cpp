#include "intercomm.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "comm_bench_measure.hpp"
#include "comm_bench_ops.hpp"
#include "sizes.hpp"

namespace ep::bench {

namespace {

constexpr const char* intercomm_help = R"(
The ranks form two groups (--groups), each first split off the communicator
of all ranks (untimed), then joined by Intercomm_create with that
communicator as peer and rank 0 of each group as leader.
  create   Intercomm_create and the free of its result, timed in pairs; the
           first pair of the run is reported apart (phase "cold")
  latency  blocking ping-pong across the inter-communicator between rank i of
           group 0 and rank i of group 1 (all such pairs at once; a rank
           without a partner idles); one-way latency = round trip / 2
A call's or repetition's time is that of the slowest rank.

Ranks and processes:
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each);
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints

Examples:
  scripts/mpirun.sh -np 2 ep-bench intercomm --impl ep --ep 2 --groups alternate
  scripts/mpirun.sh -np 4 ep-bench intercomm --impl mpi --tests latency --sizes 8,64K)";

struct Plan {
  const IntercommOptions& o;
  const CommLayout& layout;
  bool create = false;
  bool latency = false;
  std::vector<std::int64_t> sizes;
};

// Ping-pong across `inter` for every size: rank i of group 0 with rank i of
// group 1.
template <class Ops>
void latency_all(const Plan& p, Team& team, int w, const GroupSeat& seat, typename Ops::Comm inter,
                 CommReport& report) {
  std::optional<typename Ops::Link> link;
  if (seat.rank_in_group < std::min(seat.sizes[0], seat.sizes[1]))
    link = typename Ops::Link{inter, seat.rank_in_group};
  const Role role = seat.group == 0 ? Role::sender : Role::receiver;
  for (const std::int64_t bytes : p.sizes) {
    const std::string what = fmt::format("latency {} B", format_size(bytes));
    if (w == 0) report.starting(what);
    const Measurement<> m =
        measure_latency(team, w, link, role, seat.rank_in_group, bytes, p.o.comm.bench,
                        [&](int r) { report.repetition_done(what, r); });
    if (w == 0) report.add_latency(bytes, m.iterations, m.repetitions, m.validation_errors);
  }
}

template <class Ops>
void run_with(const Plan& p, Team& team, int w, const Parent& parent, CommReport& report) {
  const BenchOptions& bench = p.o.comm.bench;
  const GroupSeat seat = group_seat(p.o.groups, p.layout.first_rank + w, p.layout.total);
  typename Ops::Comm local{};
  typename Ops::Comm inter{};
  Ops::split(Ops::parent(parent), seat.group, seat.rank_in_group, &local);
  const auto create = [&] {
    Ops::intercomm(local, Ops::parent(parent), seat.remote_leader, intercomm_bench_tag, &inter);
  };
  const auto destroy = [&] { Ops::free(&inter); };
  if (p.create) {
    const CommFacts expected{seat.rank_in_group, seat.sizes[seat.group],
                             seat.sizes[1 - seat.group]};
    if (w == 0) report.starting("create/free");
    const PairTimes times = measure_and_validate(
        team, w, create, destroy, [&] { return Ops::facts(inter); }, expected, bench,
        [&](int r) { report.repetition_done("create/free", r); });
    if (w == 0) report.add_pairs(times);
  }
  if (p.latency) {
    create();
    latency_all<Ops>(p, team, w, seat, inter, report);
    destroy();
  }
  Ops::free(&local);
}

}  // namespace

GroupSeat group_seat(const std::string& scheme, int rank, int total) {
  GroupSeat s;
  if (scheme == "alternate") {
    s.group = rank % 2;
    s.rank_in_group = rank / 2;
    s.sizes[0] = (total + 1) / 2;
    s.sizes[1] = total / 2;
    s.remote_leader = 1 - s.group;
  } else {
    const int half = total / 2;
    s.group = rank < half ? 0 : 1;
    s.rank_in_group = s.group == 0 ? rank : rank - half;
    s.sizes[0] = half;
    s.sizes[1] = total - half;
    s.remote_leader = s.group == 0 ? half : 0;
  }
  return s;
}

void add_groups_option(CLI::App& app, std::string& scheme) {
  app.add_option("--groups", scheme,
                 "halves: ranks below total/2 form group 0 (groups in different processes for "
                 "even layouts); alternate: rank % 2 (processes host both groups)")
      ->check(CLI::IsMember({"halves", "alternate"}))
      ->capture_default_str();
}

namespace {

CommLayout plan_intercomm(const IntercommOptions& o, const Invocation& inv) {
  return plan_comm_run(o.comm, inv, 2, "intercomm");
}

}  // namespace

Subcommand setup_intercomm(CLI::App& parent) {
  auto options = std::make_shared<IntercommOptions>();
  CLI::App* app = parent.add_subcommand(
      "intercomm", "Time to create and free an inter-communicator; ping-pong latency across one");
  add_comm_bench_options(*app, options->comm);
  add_groups_option(*app, options->groups);
  app->add_option("--tests", options->tests, "What to measure")
      ->delimiter(',')
      ->check(CLI::IsMember({"create", "latency"}))
      ->capture_default_str();
  app->add_option("--sizes", options->sizes, "Message sizes for latency (as in p2p)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_size_list(text);
              return {};
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
          },
          "SIZES"))
      ->capture_default_str();
  app->footer(intercomm_help);
  Subcommand command{app, [options] { return requested_thread_level(options->comm.bench); },
                     [options](const Invocation& inv) { return run_intercomm(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_intercomm(*options, inv); };
  return command;
}

int run_intercomm(const IntercommOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.comm.bench;
  const CommLayout layout = plan_intercomm(o, inv);
  const auto has = [&](const char* t) {
    return std::find(o.tests.begin(), o.tests.end(), t) != o.tests.end();
  };
  const Plan plan{o, layout, has("create"), has("latency"), parse_size_list(o.sizes)};
  const nlohmann::ordered_json labels = {{"groups", o.groups}};
  const auto session = open_session(bench, inv);
  session->begin_run(describe_comm_run("intercomm", layout, bench, inv, labels), layout.first_rank,
                     layout.workers);
  CommReport report("intercomm", layout, bench, labels, fmt::format("groups {}", o.groups),
                    *session);
  std::vector<Parent> parents = make_parents(layout);
  Team team(layout.workers);
  team.run([&](int w) {
    if (layout.impl == Impl::ep)
      run_with<EpOps>(plan, team, w, parents[static_cast<std::size_t>(w)], report);
    else
      run_with<MpiOps>(plan, team, w, parents[static_cast<std::size_t>(w)], report);
  });
  free_parents(layout, parents);
  return report.finish();
}

}  // namespace ep::bench
