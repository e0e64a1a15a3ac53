#include "coll_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "mpi_check.hpp"
#include "report.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "watchdog.hpp"

namespace ep::bench {

const char* const coll_help = R"(
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

namespace {

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
  session_.clear_progress();
  const Table t = table();
  t.print_title(
      fmt::format("{} --impl {}{}: {} ranks on {} process{}, {}; us per call, {} "
                  "repetitions{}",
                  plan_.collective, impl_name(l.impl), ep, l.total, l.per_process.size(),
                  l.per_process.size() == 1 ? "" : "es", plan_.detail, bench_.repetitions,
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
  Series s = coll_series(plan_, reference ? plan_.collective + "/memcpy" : plan_.collective, bytes,
                         t.iterations);
  for (const auto& [wall, cpu] : t.repetitions)
    s.repetitions.push_back(per_call(bytes, t, wall, cpu));
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
  return session_.end_validated_run(validation_errors_, "result buffer(s) with wrong contents");
}

// --- running ---------------------------------------------------------------------

/// Every size of the sweep, on one rank; `source` is the memcpy reference's
/// shared root buffer (empty unless the reference runs).
template <class Coll>
void sweep(Team& team, int worker, const Coll& coll, const CollPlan& p,
           const CollMeasures::Measure<Coll>& measure_size, const CollMeasures& measures,
           CollReport& report, std::span<std::byte> source) {
  const int rank = p.layout.first_rank + worker;
  const std::string& what = p.collective;
  for (const std::int64_t bytes : p.sizes) {
    if (worker == 0) CollReport::starting(what, bytes);
    const auto on_repetition = [&](int r) { report.repetition_done(what, bytes, r); };
    const CollTimes times = measure_size(team, worker, coll, rank, bytes, on_repetition);
    std::optional<CollTimes> reference;
    if (p.reference) {
      const std::string copy = what + " memcpy";
      if (worker == 0) CollReport::starting(copy, bytes);
      const auto on_copy = [&](int r) { report.repetition_done(copy, bytes, r); };
      reference = measures.reference(team, worker, rank,
                                     source.first(static_cast<std::size_t>(bytes)), on_copy);
    }
    if (worker == 0) report.add(bytes, times, reference);
  }
}

}  // namespace

void check_buffers_fit(const CollPlan& p, const Invocation& inv) {
  const auto largest = static_cast<std::size_t>(p.sizes.empty() ? 0 : p.sizes.back());
  // Each rank's buffers at the largest size, and the memcpy reference's
  // source; its destinations (one per rank) come after the collective's
  // buffers are freed, so they add nothing to the peak.
  const auto blocks_of = [&](int ranks) {
    return static_cast<std::size_t>(ranks) * static_cast<std::size_t>(p.buffers_per_rank) +
           (p.reference ? 1 : 0);
  };
  std::vector<void*> held;
  bool fits = true;
  for (std::size_t b = 0; b < blocks_of(p.layout.workers) && fits; ++b) {
    void* block = std::malloc(std::max<std::size_t>(largest, 1));
    fits = block != nullptr;
    held.push_back(block);
  }
  for (void* block : held) std::free(block);
  // The first world rank that failed, INT_MAX if none: every rank learns it
  // and refuses alike, before anything is measured.
  int failed = fits ? INT_MAX : inv.world_rank;
  tools::check(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
               "MPI_Allreduce");
  if (failed == INT_MAX) return;
  const auto process = static_cast<std::size_t>(failed);
  const int ranks = process < p.layout.per_process.size() ? p.layout.per_process[process] : 1;
  const std::size_t blocks = blocks_of(ranks);
  throw UsageError(fmt::format(
      "--sizes {}: out of memory: the buffers for the {} rank{} of world rank {} ({} x {} B = "
      "{} B) could not be allocated; use smaller --sizes or fewer ranks per process",
      format_size(static_cast<std::int64_t>(largest)), ranks, ranks == 1 ? "" : "s", failed, blocks,
      largest, blocks * largest));
}

Series coll_series(const CollPlan& plan, const std::string& family, std::int64_t bytes,
                   std::int64_t iterations) {
  const CommLayout& l = plan.layout;
  Series s;
  s.family = family;
  s.name =
      fmt::format("{}/{}/{}/{}{}", s.family, impl_name(l.impl), l.name(), bytes, plan.name_suffix);
  s.labels = {{"impl", impl_name(l.impl)},
              {"layout", l.name()},
              {"ranks", l.total},
              {"processes", l.per_process.size()},
              {"endpoints_per_process", l.impl == Impl::ep ? l.max_per_process() : 0},
              {"bytes", bytes}};
  s.labels.update(plan.labels);
  if (plan.element_bytes > 0) s.labels["count"] = bytes / plan.element_bytes;
  s.iterations = iterations;
  return s;
}

CollPlan plan_collective(const CollOptions& o, const Invocation& inv,
                         const std::string& collective) {
  CollPlan p;
  p.collective = collective;
  p.layout = plan_comm_layout(o.comm, inv, 1, collective);
  try {
    p.sizes = parse_size_list(o.sizes);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--sizes: {}", e.what()));
  }
  return p;
}

int run_collective(const CollPlan& plan, const BenchOptions& bench, const Invocation& inv,
                   const CollMeasures& measures) {
  check_buffers_fit(plan, inv);
  const auto session = open_session(bench, inv);
  session->begin_run(describe_comm_run(plan.collective, plan.layout, bench, inv, plan.labels),
                     plan.layout.first_rank, plan.layout.workers);
  CollReport report(plan, bench, *session);
  report.begin();

  std::vector<std::byte> source(plan.reference ? static_cast<std::size_t>(plan.sizes.back()) : 0);
  std::vector<Parent> parents = make_parents(plan.layout);
  Team team(plan.layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    if (plan.layout.impl == Impl::ep)
      sweep(team, w, EpColl{parent.ep}, plan, measures.ep, measures, report, source);
    else
      sweep(team, w, MpiColl{parent.mpi}, plan, measures.mpi, measures, report, source);
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

}  // namespace ep::bench
