#include "comm_bench.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "cli_numbers.hpp"
#include "mpi_check.hpp"
#include "watchdog.hpp"

namespace ep::bench {

namespace {

std::vector<int> parse_ep_list(const std::string& text) {
  try {
    const std::vector<std::int64_t> counts =
        tools::parse_integer_list(text, 1, 256, "an endpoint count");
    return {counts.begin(), counts.end()};
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format(
        "--ep {}; give N or N0,N1,... (every process drives the benchmark's barriers, so none "
        "may host 0)",
        e.what()));
  }
}

}  // namespace

void add_comm_bench_options(CLI::App& app, CommBenchOptions& o) {
  add_bench_options(app, o.bench);
  o.ep_option = app.add_option("--ep", o.ep,
                               "--impl ep: endpoints per process, N or N0,N1,... by process "
                               "(--impl mpi runs one rank per process)")
                    ->capture_default_str();
}

std::string CommLayout::name() const {
  std::string text;
  for (const int n : per_process) text += fmt::format("{}{}", text.empty() ? "" : ",", n);
  return text;
}

int CommLayout::max_per_process() const {
  return *std::max_element(per_process.begin(), per_process.end());
}

CommLayout plan_comm_layout(const CommBenchOptions& o, const Invocation& inv, int minimum_ranks,
                            const std::string& subcommand) {
  CommLayout l;
  l.impl = o.bench.parsed_impl();
  l.process = inv.world_rank;
  if (l.impl == Impl::mpi_threads)
    throw UsageError(
        fmt::format("{} compares --impl ep with --impl mpi; mpi-threads would share "
                    "one MPI rank, which cannot make a communicator of threads",
                    subcommand));
  if (l.impl == Impl::mpi) {
    if (o.ep_option && o.ep_option->count() > 0 && o.ep != "1")
      throw UsageError(fmt::format(
          "--impl mpi runs one rank per process; leave out --ep and launch as many processes as "
          "the endpoint layout has endpoints (e.g. --ep 2 on 2 processes: mpirun -np 4)"));
    l.per_process.assign(static_cast<std::size_t>(inv.world_size), 1);
  } else {
    l.per_process = parse_ep_list(o.ep);
    if (l.per_process.size() == 1)
      l.per_process.assign(static_cast<std::size_t>(inv.world_size), l.per_process.front());
    if (static_cast<int>(l.per_process.size()) != inv.world_size)
      throw UsageError(fmt::format("--ep '{}' lists {} processes, but this job has {} (mpirun -np)",
                                   o.ep, l.per_process.size(), inv.world_size));
  }
  l.total = std::accumulate(l.per_process.begin(), l.per_process.end(), 0);
  l.workers = l.per_process[static_cast<std::size_t>(l.process)];
  l.first_rank = std::accumulate(l.per_process.begin(), l.per_process.begin() + l.process, 0);
  if (l.total < minimum_ranks)
    throw UsageError(fmt::format("{} needs at least {} ranks; this layout has {}", subcommand,
                                 minimum_ranks, l.total));
  return l;
}

CommLayout plan_comm_run(const CommBenchOptions& o, const Invocation& inv, int minimum_ranks,
                         const std::string& subcommand) {
  require_thread_level(o.bench, inv.thread_level_provided);
  return plan_comm_layout(o, inv, minimum_ranks, subcommand);
}

std::vector<Parent> make_parents(const CommLayout& l) {
  std::vector<Parent> parents(static_cast<std::size_t>(l.workers));
  if (l.impl == Impl::mpi) {
    tools::check(MPI_Comm_dup(MPI_COMM_WORLD, &parents.front().mpi), "MPI_Comm_dup");
    return parents;
  }
  std::vector<ep::Comm> comms(parents.size(), ep::COMM_NULL);
  tools::check(ep::Comm_create_endpoints(MPI_COMM_WORLD, l.workers, MPI_INFO_NULL, comms.data()),
               "ep::Comm_create_endpoints");
  for (std::size_t w = 0; w < comms.size(); ++w) {
    int rank = -1;
    tools::check(ep::Comm_rank(comms[w], &rank), "ep::Comm_rank");
    if (rank != l.first_rank + static_cast<int>(w))  // the patterns rest on this order
      tools::abort_job(fmt::format("endpoint {} of process {} has rank {}, expected {}", w,
                                   l.process, rank, l.first_rank + static_cast<int>(w)));
    parents[w].ep = comms[w];
  }
  return parents;
}

void free_parents(const CommLayout& l, std::vector<Parent>& parents) {
  for (Parent& p : parents) {
    if (l.impl == Impl::mpi) {
      if (p.mpi != MPI_COMM_NULL) tools::check(MPI_Comm_free(&p.mpi), "MPI_Comm_free");
    } else if (p.ep != ep::COMM_NULL) {
      // The worker threads have joined: any thread may free an endpoint that
      // no other thread uses.
      tools::check(ep::Comm_free(&p.ep), "ep::Comm_free");
    }
  }
}

CommFacts facts_of(ep::Comm comm) {
  CommFacts f;
  int inter = 0;
  tools::check(ep::Comm_rank(comm, &f.rank), "ep::Comm_rank");
  tools::check(ep::Comm_size(comm, &f.size), "ep::Comm_size");
  tools::check(ep::Comm_test_inter(comm, &inter), "ep::Comm_test_inter");
  if (inter) tools::check(ep::Comm_remote_size(comm, &f.remote_size), "ep::Comm_remote_size");
  return f;
}

CommFacts facts_of_mpi(MPI_Comm comm) {
  CommFacts f;
  int inter = 0;
  tools::check(MPI_Comm_rank(comm, &f.rank), "MPI_Comm_rank");
  tools::check(MPI_Comm_size(comm, &f.size), "MPI_Comm_size");
  tools::check(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) tools::check(MPI_Comm_remote_size(comm, &f.remote_size), "MPI_Comm_remote_size");
  return f;
}

int count_wrong(const CommFacts& got, const CommFacts& expected) {
  return (got.rank != expected.rank) + (got.size != expected.size) +
         (got.remote_size != expected.remote_size);
}

CommReport::CommReport(std::string subcommand, const CommLayout& layout, const BenchOptions& bench,
                       nlohmann::ordered_json labels, std::string detail, Session& session)
    : subcommand_(std::move(subcommand)),
      layout_(layout),
      bench_(bench),
      labels_(std::move(labels)),
      detail_(std::move(detail)),
      session_(session),
      writer_(session.writer()),
      out_(session.table_out()) {}

void CommReport::starting(const std::string& what) {
  watchdog_case(fmt::format("{} {}", subcommand_, what));
}

void CommReport::repetition_done(const std::string& what, int repetition) {
  session_.progress(fmt::format("{} {}: repetition {}/{}", subcommand_, what, repetition + 1,
                                bench_.repetitions));
}

void CommReport::title(const std::string& what, std::vector<Table::Column> columns) {
  if (!writer_ || current_table_ == what) return;
  current_table_ = what;
  columns_ = std::move(columns);
  if (bench_.validate) columns_.push_back({"valid", 9});
  session_.clear_progress();
  const Table table(out_, columns_);
  const std::string ep =
      layout_.impl == Impl::ep ? fmt::format(" --ep {}", layout_.name()) : std::string();
  table.print_title(
      fmt::format("{} {} --impl {}{}: {} ranks on {} process{}, {}; {}, {} "
                  "repetitions",
                  subcommand_, what, impl_name(layout_.impl), ep, layout_.total,
                  layout_.per_process.size(), layout_.per_process.size() == 1 ? "" : "es", detail_,
                  what == "latency" ? "one-way latency in us" : "us per call", bench_.repetitions));
  table.print_header();
}

void CommReport::add_series(const std::string& operation, const std::string& phase,
                            std::int64_t iterations, std::vector<Repetition> reps,
                            std::int64_t bytes, std::optional<std::int64_t> validation_errors) {
  // Reduced over all ranks: every process counts alike and exits alike.
  validation_errors_ += validation_errors.value_or(0);
  if (!writer_) return;
  Series s;
  const bool latency = operation == "latency";
  s.name =
      fmt::format("{}/{}/{}/{}", subcommand_, operation, impl_name(layout_.impl), layout_.name());
  if (latency) s.name += fmt::format("/{}", bytes);
  if (phase == "cold") s.name += "/cold";
  s.family = fmt::format("{}/{}", subcommand_, operation);
  s.labels = {{"impl", impl_name(layout_.impl)},
              {"layout", layout_.name()},
              {"ranks", layout_.total},
              {"processes", layout_.per_process.size()},
              {"operation", operation},
              {"phase", phase},
              {"bytes", bytes}};
  s.labels.update(labels_);
  s.iterations = iterations;
  s.repetitions = std::move(reps);
  s.validation_errors = validation_errors;
  const Noise noise = session_.add(s);
  const Summary t = summarize_metric(s, &Repetition::real_time);
  const Table table(out_, columns_);
  std::vector<std::string> row;
  if (latency) {
    row = {std::to_string(bytes), std::to_string(iterations)};
  } else {
    row = {operation, phase, std::to_string(iterations)};
  }
  row.insert(row.end(), {format_number(t.median), format_number(t.min), format_number(t.p90)});
  if (bench_.validate)
    row.push_back(!validation_errors        ? ""
                  : *validation_errors == 0 ? "ok"
                                            : fmt::format("{} BAD", *validation_errors));
  table.print_row(row, noise_mark(noise));
}

void CommReport::add_pairs(const PairTimes& t) {
  title("create/free",
        {{"operation", 10}, {"phase", 7}, {"iters", 8}, {"median", 11}, {"min", 11}, {"p90", 11}});
  const auto per_call = [](double wall, double cpu) {
    Repetition r;
    r.real_time = wall * 1e6;
    r.cpu_time = cpu * 1e6;
    return r;
  };
  for (int op = 0; op < 2; ++op) {
    const std::string operation = op == 0 ? "create" : "free";
    const std::size_t at = op == 0 ? 0 : 2;
    add_series(operation, "cold", 1, {per_call(t.cold[at], t.cold[at + 1])}, 0, std::nullopt);
    std::vector<Repetition> warm;
    for (const auto& r : t.repetitions) warm.push_back(per_call(r[at], r[at + 1]));
    // --validate checks a created communicator: it belongs to the create series.
    add_series(operation, "warm", t.iterations, std::move(warm), 0,
               op == 0 ? t.validation_errors : std::nullopt);
  }
}

void CommReport::add_latency(std::int64_t bytes, std::int64_t iterations,
                             const std::vector<std::array<double, 2>>& seconds,
                             std::optional<std::int64_t> validation_errors) {
  title("latency", {{"bytes", 9}, {"iters", 9}, {"median", 11}, {"min", 11}, {"p90", 11}});
  std::vector<Repetition> reps;
  for (const auto& s : seconds) {
    Repetition r;
    const double messages = 2.0 * static_cast<double>(iterations);
    r.real_time = s[0] / messages * 1e6;
    r.cpu_time = s[1] / messages * 1e6;
    reps.push_back(r);
  }
  add_series("latency", "warm", iterations, std::move(reps), bytes, validation_errors);
}

int CommReport::finish() {
  return session_.end_validated_run(validation_errors_, "wrong rank(s), size(s) or payload(s)");
}

nlohmann::ordered_json describe_comm_run(const std::string& subcommand, const CommLayout& l,
                                         const BenchOptions& bench, const Invocation& inv,
                                         const nlohmann::ordered_json& extra) {
  nlohmann::ordered_json fields = {
      {"subcommand", subcommand},
      {"impl", impl_name(l.impl)},
      {"total_ranks", l.total},
      {"threads_per_process", l.max_per_process()},
      {"endpoints_per_process", l.impl == Impl::ep ? l.max_per_process() : 0},
      {"layout", l.per_process},
      {"repetitions", bench.repetitions},
      {"validate", bench.validate},
  };
  fields.update(extra);
  return describe_bench_run(inv, l.workers, fields);
}

}  // namespace ep::bench
