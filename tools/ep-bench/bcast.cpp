// ep-bench bcast: the time of a broadcast over all ranks, by message size,
// with a memcpy reference where all ranks share one process.

#include "bcast.hpp"

#include <fmt/core.h>

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "cli_numbers.hpp"

namespace ep::bench {

namespace {

constexpr const char* bcast_help = R"(
memcpy reference: when --impl ep runs in one process with two or more
endpoints, every size is also run as plain memcpy: each rank but the root
copies the root's buffer into its own, all at once, with no synchronisation,
which is the copying a shared-memory broadcast cannot avoid. The table adds
its MB/s and the ratio bcast/memcpy; the JSON has it as family bcast/memcpy.

--validate: after the timed repetitions of a size, two more broadcasts whose
payload depends on the call and on the byte index; every byte is checked on
every rank. A wrong buffer makes the exit status 1; the sweep goes on.

Examples:
  scripts/mpirun.sh -np 2 ep-bench bcast --impl ep --ep 2 --json bcast-ep.json
  scripts/mpirun.sh -np 4 ep-bench bcast --impl mpi --json bcast-mpi.json
  scripts/mpirun.sh -np 1 ep-bench bcast --ep 4 --sizes 64K:4M)";

template <class Coll>
CollTimes time_bcast(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                     const CollPlan& p, const BenchOptions& o, const OnRepetition& on_repetition) {
  std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));  // zeroed: pages touched
  const auto kernel = [&](std::int64_t n) { bcast_loop(coll, buffer, p.root, n); };
  CollTimes t = measure(team, worker, kernel, coll_schedule(o, bytes), on_repetition);
  if (o.validate)
    t.validation_errors =
        validate_together(team, worker, [&] { return check_bcast(coll, buffer, rank, p.root); });
  return t;
}

/// The memcpy reference at one size; `source` is the root's buffer, which
/// all workers of this (only) process share.
CollTimes time_memcpy(Team& team, int worker, int rank, std::span<std::byte> source,
                      const CollPlan& p, const BenchOptions& o, const OnRepetition& on_repetition) {
  const bool copier = rank != p.root;
  std::vector<std::byte> destination(copier ? source.size() : 0);
  const auto kernel = [&](std::int64_t n) {
    if (copier) memcpy_loop(source, destination, n);
  };
  CollTimes t = measure(team, worker, kernel,
                        coll_schedule(o, static_cast<std::int64_t>(source.size())), on_repetition);
  if (o.validate) {
    const std::uint32_t seed = payload_seed(p.root, 0, Role::sender);
    step_together(team, worker);
    if (!copier) fill_payload(source, seed);
    t.validation_errors = validate_together(team, worker, [&] {
      if (!copier) return 0;
      clear_payload(destination, seed);
      memcpy_loop(source, destination, 1);
      return payload_matches(destination, seed) ? 0 : 1;
    });
  }
  return t;
}

}  // namespace

namespace {

// Every check run_bcast makes before it measures (Subcommand::check), and
// what it plans.
CollPlan plan_bcast(const BcastOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  require_thread_level(bench, inv.thread_level_provided);
  CollPlan p = plan_collective(o.coll, inv, "bcast");
  if (o.root < 0 || o.root >= p.layout.total)
    throw UsageError(fmt::format("--root {}: this job has {} ranks, so the root is 0 to {}", o.root,
                                 p.layout.total, p.layout.total - 1));
  p.root = o.root;
  if (p.root != 0) p.name_suffix = fmt::format("/root:{}", p.root);
  p.detail = fmt::format("root {}", p.root);
  p.reference =
      p.layout.impl == Impl::ep && p.layout.per_process.size() == 1 && p.layout.total >= 2;
  p.labels = {{"root", p.root}, {"datatype", "MPI_BYTE"}, {"memcpy_reference", p.reference}};
  return p;
}

}  // namespace

Subcommand setup_bcast(CLI::App& parent) {
  auto options = std::make_shared<BcastOptions>();
  CLI::App* app = parent.add_subcommand(
      "bcast", "Broadcast latency and bandwidth over all ranks, by message size");
  add_coll_options(*app, options->coll);
  app->add_option("--root", options->root, "Rank whose buffer is broadcast")
      ->transform(tools::integer_at_least(0))
      ->capture_default_str();
  app->footer(std::string(coll_help) + bcast_help);
  Subcommand command{app, [options] { return requested_thread_level(options->coll.comm.bench); },
                     [options](const Invocation& inv) { return run_bcast(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_bcast(*options, inv); };
  return command;
}

int run_bcast(const BcastOptions& o, const Invocation& inv) {
  const BenchOptions& bench = o.coll.comm.bench;
  CollPlan p = plan_bcast(o, inv);

  CollMeasures measures;
  measures.ep = [&](Team& team, int w, const EpColl& coll, int rank, std::int64_t bytes,
                    const OnRepetition& on_repetition) {
    return time_bcast(team, w, coll, rank, bytes, p, bench, on_repetition);
  };
  measures.mpi = [&](Team& team, int w, const MpiColl& coll, int rank, std::int64_t bytes,
                     const OnRepetition& on_repetition) {
    return time_bcast(team, w, coll, rank, bytes, p, bench, on_repetition);
  };
  measures.reference = [&](Team& team, int w, int rank, std::span<std::byte> source,
                           const OnRepetition& on_repetition) {
    return time_memcpy(team, w, rank, source, p, bench, on_repetition);
  };
  return run_collective(p, bench, inv, measures);
}

}  // namespace ep::bench
