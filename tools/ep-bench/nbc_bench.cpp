#include "nbc_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "cli_numbers.hpp"
#include "report.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "watchdog.hpp"

namespace ep::bench {

const char* const nbc_help = R"(
Non-blocking (as OSU's osu_ibcast and osu_iallreduce): at each size two
measurements, each with its own repetitions and iterations (the table's
iters are the pure ones):
  pure      start + Wait, back to back; the time to complete a call
  overall   start, then a computation of about the pure median (a busy loop
            that calls no MPI and touches no memory), then Wait
The table shows per call, in us: pure (median, min, max), overall and
compute (medians), and overlap = max(0, 100 * (1 - (overall - compute) /
pure)) %: how much of the collective the computation hid (0: none, 100: all;
median over the repetitions, each against the pure median). The JSON has the
pure series as family <collective> (with MB/s), and the overlapped one as
<collective>/overlap, whose real_time is the overall time and whose entries
add compute_time, pure_time and overlap.

The computation's length comes from this rank's rate of work, measured at
the start and corrected at each size, with all ranks computing at once; its
measured time is what counts (under a microsecond the clock reads around it
add to it). --test-calls N cuts it into N + 1 equal pieces with a Test of the
collective's request between them (MPI_Test, ep::Test; none after one says
complete). Their time is not computation: overlap counts it as the
library's. Without Tests a library that progresses only inside its own calls
overlaps little.
)";

namespace {

/// Steps of busy_work per second on this rank, with every rank computing at
/// once as they do in the overlapped loop (threads that share cores compute
/// more slowly). Probes grow until the slowest rank's lasts 2 ms, then the
/// median of three.
double measure_work_rate(Team& team, int worker) {
  constexpr double enough = 2e-3;
  constexpr std::int64_t most = std::int64_t{1} << 36;
  std::int64_t units = 4096;
  for (;;) {
    step_together(team, worker);
    const double mine = time_it([&] { keep(busy_work(units)); })[0];
    // Every rank decides on the same time, so all leave the loop together.
    const double slowest = team.allreduce(worker, std::array{mine}, MPI_MAX)[0];
    if (slowest >= enough || units >= most) break;
    units *= 2;
  }
  std::array<double, 3> probes{};
  for (double& seconds : probes) {
    step_together(team, worker);
    seconds = time_it([&] { keep(busy_work(units)); })[0];
  }
  std::sort(probes.begin(), probes.end());
  return static_cast<double>(units) / std::max(probes[1], 1e-9);
}

}  // namespace

Computation fit_computation(Team& team, int worker, const NbcRun& run, double seconds) {
  Computation c = run.computation(seconds);
  if (c.units <= 0 || seconds <= 0) return c;
  // About a millisecond of computing: enough calls to read the clock well,
  // few enough that large sizes do not pay much for it.
  const std::int64_t calls =
      std::clamp<std::int64_t>(static_cast<std::int64_t>(1e-3 / seconds), 1, 1000);
  step_together(team, worker);
  const double took = time_it([&] {
                        for (std::int64_t i = 0; i < calls; ++i) keep(busy_work(c.units));
                      })[0] /
                      static_cast<double>(calls);
  if (took > 0)
    c.units = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(static_cast<double>(c.units) * seconds / took));
  return c;
}

namespace {

// --- results --------------------------------------------------------------------

/// The table and the JSON entries of a run; as CollReport (coll_bench.cpp),
/// every process's worker 0 calls it alike, only the writer prints and keeps.
class NbcReport {
 public:
  NbcReport(const CollPlan& plan, const NbcOptions& options, Session& session)
      : plan_(plan),
        options_(options),
        session_(session),
        writer_(session.writer()),
        out_(session.table_out()) {}

  void begin() const;
  void repetition_done(std::string_view what, std::int64_t bytes, int repetition);
  void add(std::int64_t bytes, const NbcTimes& times);
  int finish();

 private:
  Table table() const;
  Series pure_series(std::int64_t bytes, const NbcTimes& t) const;
  Series overlap_series(std::int64_t bytes, const NbcTimes& t) const;

  const CollPlan& plan_;
  const NbcOptions& options_;
  Session& session_;
  bool writer_;
  std::FILE* out_;
  std::int64_t validation_errors_ = 0;
};

Table NbcReport::table() const {
  std::vector<Table::Column> columns{{"bytes", 9},    {"iters", 9},     {"pure", 11},
                                     {"min", 11},     {"max", 11},      {"overall", 11},
                                     {"compute", 11}, {"overlap %", 11}};
  if (options_.coll.comm.bench.validate) columns.push_back({"valid", 9});
  return Table(out_, std::move(columns));
}

void NbcReport::begin() const {
  if (!writer_) return;
  const CommLayout& l = plan_.layout;
  const std::string ep = l.impl == Impl::ep ? fmt::format(" --ep {}", l.name()) : std::string();
  session_.clear_progress();
  const Table t = table();
  t.print_title(fmt::format(
      "{} --impl {}{}: {} ranks on {} process{}, {}, {} Test call{} in the computation; us per "
      "call (pure: start + Wait; overall: start + computation + Wait), {} repetitions",
      plan_.collective, impl_name(l.impl), ep, l.total, l.per_process.size(),
      l.per_process.size() == 1 ? "" : "es", plan_.detail, options_.test_calls,
      options_.test_calls == 1 ? "" : "s", options_.coll.comm.bench.repetitions));
  t.print_header();
}

void NbcReport::repetition_done(std::string_view what, std::int64_t bytes, int repetition) {
  session_.progress(fmt::format("{} {} bytes: repetition {}/{}", what, format_size(bytes),
                                repetition + 1, options_.coll.comm.bench.repetitions));
}

Series NbcReport::pure_series(std::int64_t bytes, const NbcTimes& t) const {
  Series s = coll_series(plan_, plan_.collective, bytes, t.pure.iterations);
  for (const auto& [wall, cpu] : t.pure.repetitions)
    s.repetitions.push_back(per_call(bytes, t.pure, wall, cpu));
  s.validation_errors = t.validation_errors;
  return s;
}

Series NbcReport::overlap_series(std::int64_t bytes, const NbcTimes& t) const {
  Series s = coll_series(plan_, plan_.collective + "/overlap", bytes, t.overlapped.iterations);
  if (options_.test_calls > 0) s.name += fmt::format("/tests:{}", options_.test_calls);
  s.labels["test_calls"] = options_.test_calls;
  const double pure = t.pure_seconds * 1e6;
  const auto iterations = static_cast<double>(t.overlapped.iterations);
  for (const auto& [wall, cpu, computing] : t.overlapped.repetitions) {
    Repetition r = per_call(bytes, t.overlapped, wall, cpu);
    r.bytes_per_second.reset();  // the computation's time is in it
    r.compute_time = computing / iterations * 1e6;
    r.pure_time = pure;
    r.overlap =
        pure > 0 ? std::max(0.0, 100.0 * (1.0 - (r.real_time - *r.compute_time) / pure)) : 0.0;
    s.repetitions.push_back(r);
  }
  s.validation_errors = t.validation_errors;
  return s;
}

void NbcReport::add(std::int64_t bytes, const NbcTimes& times) {
  // Reduced over all ranks: every process counts alike and exits alike.
  const std::int64_t wrong = times.validation_errors.value_or(0);
  validation_errors_ += wrong;
  if (!writer_) return;
  const Series pure = pure_series(bytes, times);
  const Series overlapped = overlap_series(bytes, times);
  const Summary p = summarize_metric(pure, &Repetition::real_time);
  const Summary overall = summarize_metric(overlapped, &Repetition::real_time);
  const auto compute = summarize_metric(overlapped, &Repetition::compute_time);
  const auto overlap = summarize_metric(overlapped, &Repetition::overlap);
  std::vector<std::string> row{format_size(bytes),
                               std::to_string(times.pure.iterations),
                               format_number(p.median),
                               format_number(p.min),
                               format_number(p.max),
                               format_number(overall.median),
                               compute ? format_number(compute->median) : "-",
                               overlap ? fmt::format("{:.1f}", overlap->median) : "-"};
  if (options_.coll.comm.bench.validate)
    row.push_back(wrong == 0 ? "ok" : fmt::format("{} BAD", wrong));
  // One row shows both series: it is marked if either is noisy.
  Noise noise = session_.add(pure);
  if (const Noise other = session_.add(overlapped); !noise.noisy) noise = other;
  session_.clear_progress();
  table().print_row(row, noise_mark(noise));
}

int NbcReport::finish() {
  return session_.end_validated_run(validation_errors_, "result buffer(s) with wrong contents");
}

// --- running ---------------------------------------------------------------------

template <class Coll>
void sweep(Team& team, int worker, const Coll& coll, const CollPlan& p, const NbcOptions& o,
           const NbcMeasures::Measure<Coll>& measure_size, NbcReport& report) {
  const int rank = p.layout.first_rank + worker;
  const std::string& what = p.collective;
  const std::string overlapped = what + " overlap";
  if (worker == 0) watchdog_case(fmt::format("{}: the rate of the computation", what));
  const double rate = measure_work_rate(team, worker);
  for (const std::int64_t bytes : p.sizes) {
    if (worker == 0) watchdog_case(fmt::format("{} {} B", what, format_size(bytes)));
    const NbcRun run{o.coll.comm.bench, o.test_calls, rate,
                     [&](int r) { report.repetition_done(what, bytes, r); },
                     [&](int r) { report.repetition_done(overlapped, bytes, r); }};
    const NbcTimes times = measure_size(team, worker, coll, rank, bytes, run);
    if (worker == 0) report.add(bytes, times);
  }
}

}  // namespace

CollPlan plan_nonblocking(const NbcOptions& o, const Invocation& inv,
                          const std::string& collective) {
  require_thread_level(o.coll.comm.bench, inv.thread_level_provided);
  CollPlan p = plan_collective(o.coll, inv, collective);
  return p;
}

int run_nonblocking(const CollPlan& plan, const NbcOptions& o, const Invocation& inv,
                    const NbcMeasures& measures) {
  const BenchOptions& bench = o.coll.comm.bench;
  check_buffers_fit(plan, inv);
  const auto session = open_session(bench, inv);
  nlohmann::ordered_json labels = plan.labels;
  labels["test_calls"] = o.test_calls;
  session->begin_run(describe_comm_run(plan.collective, plan.layout, bench, inv, labels),
                     plan.layout.first_rank, plan.layout.workers);
  NbcReport report(plan, o, *session);
  report.begin();

  std::vector<Parent> parents = make_parents(plan.layout);
  Team team(plan.layout.workers);
  team.run([&](int w) {
    const Parent& parent = parents[static_cast<std::size_t>(w)];
    if (plan.layout.impl == Impl::ep)
      sweep(team, w, EpColl{parent.ep}, plan, o, measures.ep, report);
    else
      sweep(team, w, MpiColl{parent.mpi}, plan, o, measures.mpi, report);
  });
  free_parents(plan.layout, parents);
  return report.finish();
}

void add_nbc_options(CLI::App& app, NbcOptions& o) {
  add_coll_options(app, o.coll);
  app.add_option("--test-calls", o.test_calls,
                 "Tests of the request spread through the computation (OSU's -t)")
      ->transform(tools::integer_in(0, most_test_calls))
      ->capture_default_str();
}

}  // namespace ep::bench
