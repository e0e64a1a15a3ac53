#include "coll_bench.hpp"

#include <fmt/core.h>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "coll_kernels.hpp"
#include "measure.hpp"
#include "mpi_check.hpp"
#include "report.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "team.hpp"
#include "watchdog.hpp"

namespace ep::bench {

namespace {

constexpr const char* common_help = R"(
Every rank calls the collective back to back, as a loop in an application
would: --iterations calls per repetition (by default as many as fill
--min-time). A repetition starts on all ranks together and is timed as its
slowest rank; the table shows the time per call (that time / iterations) in
us, and MB/s = bytes / median time per call (10^6 bytes/s).

Ranks and processes (as for split, intercomm and merge):
  --impl ep  --ep 2        every process hosts 2 endpoints (one thread each)
             --ep 1,3,2    process i hosts the i-th count (mpirun -np 3)
  --impl mpi               one rank per process: launch as many processes as
                           the endpoint layout has endpoints (--ep 2 on 2
                           processes compares with mpirun -np 4)
  --impl mpi-threads       refused: threads that share one MPI rank cannot
                           take part in one MPI collective as separate ranks,
                           and a collective per thread on its own duplicate
                           communicator would measure another pattern
Where a process hosts several threads it must not be bound to one core
(scripts/mpirun.sh runs processes unbound; ep-bench warns otherwise).
)";

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

enum class Collective { bcast, allreduce };

const char* name_of(Collective c) { return c == Collective::bcast ? "bcast" : "allreduce"; }

ReduceOp parse_op(const std::string& text) {
  if (text == "max") return ReduceOp::max;
  if (text == "min") return ReduceOp::min;
  return ReduceOp::sum;
}

/// What one run does, checked against the job.
struct CollPlan {
  Collective what = Collective::bcast;
  CommLayout layout;
  std::vector<std::int64_t> sizes;
  int root = 0;
  ReduceOp op = ReduceOp::sum;
  std::string op_name = "sum";
  bool reference = false;  ///< also time the memcpy reference (bcast)

  /// What distinguishes this run's series beyond impl, layout and size.
  nlohmann::ordered_json labels() const {
    if (what == Collective::bcast)
      return {{"root", root}, {"datatype", "MPI_BYTE"}, {"memcpy_reference", reference}};
    return {{"op", op_name}, {"datatype", "MPI_INT32_T"}};
  }
};

CollPlan plan_collective(const CollOptions& o, const Invocation& inv, Collective what) {
  CollPlan p;
  p.what = what;
  p.layout = plan_comm_layout(o.comm, inv, 1, name_of(what));
  try {
    p.sizes = parse_size_list(o.sizes);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--sizes: {}", e.what()));
  }
  if (what == Collective::allreduce) {
    for (const std::int64_t bytes : p.sizes) {
      if (bytes % 4 != 0)
        throw UsageError(fmt::format(
            "--sizes: {} bytes is not a whole number of 4-byte MPI_INT32_T elements", bytes));
    }
  }
  p.root = o.root;
  if (what == Collective::bcast && (p.root < 0 || p.root >= p.layout.total))
    throw UsageError(fmt::format("--root {}: this job has {} ranks, so the root is 0 to {}", p.root,
                                 p.layout.total, p.layout.total - 1));
  p.op_name = o.op;
  p.op = parse_op(o.op);
  p.reference = what == Collective::bcast && p.layout.impl == Impl::ep &&
                p.layout.per_process.size() == 1 && p.layout.total >= 2;
  return p;
}

// --- measuring ---------------------------------------------------------------------

/// One series of one size, reduced over all ranks: {wall, cpu} seconds of
/// the slowest rank per repetition, and the wrong buffers over all ranks.
using CollTimes = Measurement<>;

/// Collectives are latency-bound at small sizes: warm up as p2p latency does.
Schedule schedule_of(const BenchOptions& o, std::int64_t bytes) {
  return Schedule::of(o, default_warmup(bytes, true));
}

template <class Coll>
CollTimes time_bcast(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                     const CollPlan& p, const BenchOptions& o, const OnRepetition& on_repetition) {
  std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));  // zeroed: pages touched
  const auto kernel = [&](std::int64_t n) { bcast_loop(coll, buffer, p.root, n); };
  CollTimes t = measure(team, worker, kernel, schedule_of(o, bytes), on_repetition);
  if (o.validate)
    t.validation_errors =
        validate_together(team, worker, [&] { return check_bcast(coll, buffer, rank, p.root); });
  return t;
}

template <class Coll>
CollTimes time_allreduce(Team& team, int worker, const Coll& coll, int rank, std::int64_t bytes,
                         const CollPlan& p, const BenchOptions& o,
                         const OnRepetition& on_repetition) {
  const auto count = static_cast<std::size_t>(bytes / 4);
  std::vector<std::int32_t> in(count);
  std::vector<std::int32_t> out(count);
  fill_contribution(in, rank, 0);
  const MPI_Op op = mpi_op(p.op);
  const auto kernel = [&](std::int64_t n) { allreduce_loop(coll, in, out, op, n); };
  CollTimes t = measure(team, worker, kernel, schedule_of(o, bytes), on_repetition);
  if (o.validate) {
    const ExpectedReduction want(p.layout.total, p.op);
    t.validation_errors = validate_together(
        team, worker, [&] { return check_allreduce(coll, in, out, rank, want, p.op); });
  }
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
                        schedule_of(o, static_cast<std::int64_t>(source.size())), on_repetition);
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

// --- results --------------------------------------------------------------------

/// The table and the JSON entries of a run, kept by the session. Every
/// process's worker 0 calls it alike; only the writer (world rank 0) prints
/// and keeps.
class CollReport {
 public:
  CollReport(const CollPlan& plan, const BenchOptions& bench, Session& session)
      : plan_(plan),
        bench_(bench),
        session_(session),
        writer_(session.writer()),
        out_(session.table_out()) {}

  void begin() const;
  /// Worker 0, before measuring `what` at `bytes`: names it for the watchdog.
  static void starting(std::string_view what, std::int64_t bytes);
  /// Worker 0, after each repetition: the progress line.
  void repetition_done(std::string_view what, std::int64_t bytes, int repetition);
  /// The collective at one size, and the memcpy reference if it ran.
  void add(std::int64_t bytes, const CollTimes& times, const std::optional<CollTimes>& reference);
  /// Ends the session's run and returns the exit status: exit_failed if
  /// --validate found anything wrong (the same on every rank).
  int finish();

 private:
  Table table() const;
  Series series_of(bool reference, std::int64_t bytes, const CollTimes& t) const;

  const CollPlan& plan_;
  const BenchOptions& bench_;
  Session& session_;
  bool writer_;
  std::FILE* out_;
  std::int64_t validation_errors_ = 0;
};

Table CollReport::table() const {
  std::vector<Table::Column> columns{{"bytes", 9}, {"iters", 9}, {"median", 11},
                                     {"min", 11},  {"max", 11},  {"MB/s", 11}};
  if (plan_.reference) columns.insert(columns.end(), {{"memcpy MB/s", 13}, {"ratio", 8}});
  if (bench_.validate) columns.push_back({"valid", 9});
  return Table(out_, std::move(columns));
}

void CollReport::begin() const {
  if (!writer_) return;
  const CommLayout& l = plan_.layout;
  const std::string ep = l.impl == Impl::ep ? fmt::format(" --ep {}", l.name()) : std::string();
  const std::string detail = plan_.what == Collective::bcast
                                 ? fmt::format("root {}", plan_.root)
                                 : fmt::format("{} on MPI_INT32_T", plan_.op_name);
  session_.clear_progress();
  const Table t = table();
  t.print_title(
      fmt::format("{} --impl {}{}: {} ranks on {} process{}, {}; us per call, {} "
                  "repetitions{}",
                  name_of(plan_.what), impl_name(l.impl), ep, l.total, l.per_process.size(),
                  l.per_process.size() == 1 ? "" : "es", detail, bench_.repetitions,
                  plan_.reference ? "; ratio = MB/s of bcast / memcpy" : ""));
  t.print_header();
}

void CollReport::starting(std::string_view what, std::int64_t bytes) {
  watchdog_case(fmt::format("{} {} B", what, format_size(bytes)));
}

void CollReport::repetition_done(std::string_view what, std::int64_t bytes, int repetition) {
  session_.progress(fmt::format("{} {} bytes: repetition {}/{}", what, format_size(bytes),
                                repetition + 1, bench_.repetitions));
}

Series CollReport::series_of(bool reference, std::int64_t bytes, const CollTimes& t) const {
  const CommLayout& l = plan_.layout;
  const std::string sub = name_of(plan_.what);
  Series s;
  s.family = reference ? sub + "/memcpy" : sub;
  s.name = fmt::format("{}/{}/{}/{}", s.family, impl_name(l.impl), l.name(), bytes);
  if (plan_.what == Collective::bcast && plan_.root != 0)
    s.name += fmt::format("/root:{}", plan_.root);
  if (plan_.what == Collective::allreduce && plan_.op != ReduceOp::sum)
    s.name += fmt::format("/op:{}", plan_.op_name);
  s.labels = {{"impl", impl_name(l.impl)},
              {"layout", l.name()},
              {"ranks", l.total},
              {"processes", l.per_process.size()},
              {"endpoints_per_process", l.impl == Impl::ep ? l.max_per_process() : 0},
              {"bytes", bytes}};
  s.labels.update(plan_.labels());
  if (plan_.what == Collective::allreduce) s.labels["count"] = bytes / 4;
  s.iterations = t.iterations;
  for (const auto& [wall, cpu] : t.repetitions) {
    const double per_call = wall / static_cast<double>(t.iterations);
    Repetition r;
    r.real_time = per_call * 1e6;
    r.cpu_time = cpu / static_cast<double>(t.iterations) * 1e6;
    if (per_call > 0) r.bytes_per_second = static_cast<double>(bytes) / per_call;
    s.repetitions.push_back(r);
  }
  s.validation_errors = t.validation_errors;
  return s;
}

void CollReport::add(std::int64_t bytes, const CollTimes& times,
                     const std::optional<CollTimes>& reference) {
  // Reduced over all ranks: every process counts alike and exits alike.
  std::int64_t wrong = times.validation_errors.value_or(0);
  if (reference) wrong += reference->validation_errors.value_or(0);
  validation_errors_ += wrong;
  if (!writer_) return;
  std::vector<std::string> row{format_size(bytes), std::to_string(times.iterations)};
  const Series s = series_of(false, bytes, times);
  const Summary t = summarize_metric(s, &Repetition::real_time);
  const double mb_per_s = t.median > 0 ? static_cast<double>(bytes) / t.median : 0.0;
  row.insert(row.end(), {format_number(t.median), format_number(t.min), format_number(t.max),
                         format_number(mb_per_s)});
  Noise noise = session_.add(s);
  if (reference) {
    const Series r = series_of(true, bytes, *reference);
    const double copy_median = summarize_metric(r, &Repetition::real_time).median;
    const double copy_mb_per_s = copy_median > 0 ? static_cast<double>(bytes) / copy_median : 0;
    row.insert(row.end(), {format_number(copy_mb_per_s),
                           copy_mb_per_s > 0 ? format_number(mb_per_s / copy_mb_per_s) : "-"});
    // One row shows both series: it is marked if either is noisy.
    if (const Noise copy_noise = session_.add(r); !noise.noisy) noise = copy_noise;
  }
  if (bench_.validate) row.push_back(wrong == 0 ? "ok" : fmt::format("{} BAD", wrong));
  session_.clear_progress();
  table().print_row(row, noise_mark(noise));
}

int CollReport::finish() {
  if (validation_errors_ == 0) return session_.end_run(0);
  if (writer_)
    fmt::print(stderr, "{}: --validate: {} result buffer(s) with wrong contents\n",
               tools::program_name(), validation_errors_);
  return session_.end_run(exit_failed);
}

// --- running ---------------------------------------------------------------------

/// Every size of the sweep, on one rank; `source` is the memcpy reference's
/// shared root buffer (empty unless the reference runs).
template <class Coll>
void sweep(Team& team, int worker, const Coll& coll, const CollPlan& p, const BenchOptions& o,
           CollReport& report, std::span<std::byte> source) {
  const int rank = p.layout.first_rank + worker;
  const char* what = name_of(p.what);
  for (const std::int64_t bytes : p.sizes) {
    if (worker == 0) CollReport::starting(what, bytes);
    const auto on_repetition = [&](int r) { report.repetition_done(what, bytes, r); };
    const CollTimes times =
        p.what == Collective::bcast
            ? time_bcast(team, worker, coll, rank, bytes, p, o, on_repetition)
            : time_allreduce(team, worker, coll, rank, bytes, p, o, on_repetition);
    std::optional<CollTimes> reference;
    if (p.reference) {
      if (worker == 0) CollReport::starting("bcast memcpy", bytes);
      const auto on_copy = [&](int r) { report.repetition_done("bcast memcpy", bytes, r); };
      reference = time_memcpy(team, worker, rank, source.first(static_cast<std::size_t>(bytes)), p,
                              o, on_copy);
    }
    if (worker == 0) report.add(bytes, times, reference);
  }
}

int run_collective(const CollOptions& o, const Invocation& inv, Collective what) {
  const BenchOptions& bench = o.comm.bench;
  require_thread_level(bench, inv.thread_level_provided);
  const CollPlan plan = plan_collective(o, inv, what);
  const auto session = open_session(bench, inv);
  session->begin_run(describe_comm_run(name_of(what), plan.layout, bench, inv, plan.labels()),
                     plan.layout.first_rank, plan.layout.workers);
  CollReport report(plan, bench, *session);
  report.begin();

  std::vector<std::byte> source(plan.reference ? static_cast<std::size_t>(plan.sizes.back()) : 0);
  std::vector<Parent> parents = make_parents(plan.layout);
  Team team(plan.layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    if (plan.layout.impl == Impl::ep)
      sweep(team, w, EpColl{parent.ep}, plan, bench, report, source);
    else
      sweep(team, w, MpiColl{parent.mpi}, plan, bench, report, source);
  });
  free_parents(plan.layout, parents);
  return report.finish();
}

void add_coll_options(CLI::App& app, CollOptions& o) {
  add_comm_bench_options(app, o.comm);
  app.add_option("--sizes", o.sizes,
                 "Message sizes in bytes: a list like 4,1K,64K and/or ranges lo:hi[:xF|:+S]")
      ->capture_default_str();
}

}  // namespace

Subcommand setup_bcast(CLI::App& parent) {
  auto options = std::make_shared<CollOptions>();
  CLI::App* app = parent.add_subcommand(
      "bcast", "Broadcast latency and bandwidth over all ranks, by message size");
  add_coll_options(*app, *options);
  app->add_option("--root", options->root, "Rank whose buffer is broadcast")->capture_default_str();
  app->footer(std::string(common_help) + bcast_help);
  return {app, [options] { return requested_thread_level(options->comm.bench); },
          [options](const Invocation& inv) { return run_bcast(*options, inv); }};
}

Subcommand setup_allreduce(CLI::App& parent) {
  auto options = std::make_shared<CollOptions>();
  CLI::App* app = parent.add_subcommand(
      "allreduce", "Allreduce (MPI_INT32_T) latency and bandwidth over all ranks, by size");
  add_coll_options(*app, *options);
  app->add_option("--op", options->op, "The reduction")
      ->check(CLI::IsMember({"sum", "max", "min"}))
      ->capture_default_str();
  app->footer(std::string(common_help) + allreduce_help);
  return {app, [options] { return requested_thread_level(options->comm.bench); },
          [options](const Invocation& inv) { return run_allreduce(*options, inv); }};
}

int run_bcast(const CollOptions& o, const Invocation& inv) {
  return run_collective(o, inv, Collective::bcast);
}

int run_allreduce(const CollOptions& o, const Invocation& inv) {
  return run_collective(o, inv, Collective::allreduce);
}

}  // namespace ep::bench
