#include "p2p.hpp"

#include <fmt/core.h>

#include <ep/ep.hpp>
#include <memory>
#include <stdexcept>

#include "cli_numbers.hpp"
#include "links.hpp"
#include "measure.hpp"
#include "mpi_check.hpp"
#include "p2p_kernels.hpp"
#include "pairs.hpp"
#include "report.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "watchdog.hpp"

namespace ep::bench {

namespace {

// Receive slots of a window must not overlap, so a streaming receiver holds
// window x size bytes; past this budget the window shrinks for large sizes.
constexpr std::int64_t window_budget_bytes = std::int64_t{64} << 20;

constexpr const char* p2p_help = R"(
Ranks and processes. With k = --pairs, ranks 0..k-1 send and ranks k..2k-1
receive; sender i talks only to receiver k+i. mpirun -np must match:
  --impl ep          --placement intra   -np 1: one process hosts all 2k endpoints
  --impl ep          --placement inter   -np 2: process 0 hosts the k senders,
                                                process 1 the k receivers
  --impl mpi-threads --placement intra   -np 1: 2k threads share one MPI rank and
                                                talk through MPI self-messages
  --impl mpi-threads --placement inter   -np 2: k threads per process
  --impl mpi         --placement inter   -np 2k: one rank per process, so pairs
                                                always span processes (intra is
                                                refused; inter is the default)
Every endpoint or rank is driven by its own thread (the main thread is one).
Open MPI binds each process to one core by default: where a process hosts
several threads, add --bind-to none to mpirun (ep-bench warns otherwise).

Measurements (--tests):
  latency    blocking ping-pong; one-way latency = round trip / 2, in us
  bandwidth  each pair streams windows of --window Isends, acknowledged per
             window (as osu_bw); MB/s = 10^6 bytes/s, summed over pairs
  msgrate    the same streaming at --msgrate-sizes; messages/s summed over pairs
A repetition's time is that of the slowest rank; every repetition is kept.

Examples:
  scripts/mpirun.sh --bind-to none -np 1 ep-bench p2p --impl ep --sizes 8,1K,64K
  scripts/mpirun.sh --bind-to none -np 2 ep-bench p2p --impl ep --placement inter \
      --tests msgrate --pairs 2
  scripts/mpirun.sh -np 2 ep-bench p2p --impl mpi --json results.json)";

enum class Family { latency, bandwidth, msgrate };

/// One benchmark: a family at one message size.
struct P2pCase {
  Family family = Family::latency;
  std::int64_t bytes = 0;
  int window = 1;  ///< messages in flight per pair (streaming families)
};

/// What a case measured, reduced over all ranks: each repetition's {real,
/// cpu} seconds are those of the slowest rank.
using P2pOutcome = Measurement<>;

/// A worker's place in the pattern.
struct P2pSeat {
  Role role = Role::sender;
  int pair = 0;
};

const char* family_name(Family f) {
  switch (f) {
    case Family::latency:
      return "latency";
    case Family::bandwidth:
      return "bandwidth";
    case Family::msgrate:
      return "msgrate";
  }
  return "?";
}

// --- who runs where -----------------------------------------------------------

using P2pLayout = PairLayout;

P2pSeat seat_of(const P2pLayout& l, int rank) {
  return {l.first_end(rank) ? Role::sender : Role::receiver, l.pair_of(rank)};
}

std::vector<P2pCase> plan_cases(const P2pOptions& o) {
  std::vector<P2pCase> cases;
  for (const std::string test : {"latency", "bandwidth", "msgrate"}) {
    if (std::find(o.tests.begin(), o.tests.end(), test) == o.tests.end()) continue;
    const Family family = test == "latency"     ? Family::latency
                          : test == "bandwidth" ? Family::bandwidth
                                                : Family::msgrate;
    for (const std::int64_t bytes :
         parse_size_list(family == Family::msgrate ? o.msgrate_sizes : o.sizes)) {
      int window = 1;
      if (family != Family::latency)
        window = bytes == 0 ? o.window
                            : static_cast<int>(std::clamp<std::int64_t>(window_budget_bytes / bytes,
                                                                        1, o.window));
      cases.push_back({family, bytes, window});
    }
  }
  return cases;
}

// --- results --------------------------------------------------------------------

/// Turns reduced timings into table rows and JSON entries (kept by the
/// session). Every process's worker 0 calls it alike; only the writer (world
/// rank 0) prints or keeps.
class P2pReport {
 public:
  P2pReport(const P2pOptions& o, const P2pLayout& l, Session& session)
      : options_(o),
        layout_(l),
        session_(session),
        writer_(session.writer()),
        out_(session.table_out()) {}

  void begin(const P2pCase& c);
  void repetition_done(const P2pCase& c, int repetition);
  void add(const P2pCase& c, const P2pOutcome& outcome);

  std::int64_t validation_errors() const { return validation_errors_; }

 private:
  Table table_for(Family f) const;
  std::string name_of(const P2pCase& c) const;
  Repetition repetition_of(const P2pCase& c, std::int64_t iterations,
                           const std::array<double, 2>& seconds) const;
  std::vector<std::string> row_of(const P2pCase& c, const Series& s) const;

  const P2pOptions& options_;
  const P2pLayout& layout_;
  Session& session_;
  bool writer_;
  std::FILE* out_;
  std::optional<Family> current_;
  std::int64_t validation_errors_ = 0;
};

Table P2pReport::table_for(Family f) const {
  std::vector<Table::Column> columns{{"bytes", 9}};
  if (f == Family::latency) {
    columns.insert(columns.end(), {{"iters", 9}, {"median", 11}, {"min", 11}, {"p90", 11}});
  } else if (f == Family::bandwidth) {
    columns.insert(columns.end(), {{"window", 8}, {"median MB/s", 13}, {"min", 11}, {"max", 11}});
  } else {
    columns.insert(columns.end(),
                   {{"window", 8}, {"median Mmsg/s", 15}, {"min", 11}, {"max", 11}, {"MB/s", 11}});
  }
  if (options_.bench.validate) columns.push_back({"payload", 10});
  return Table(out_, std::move(columns));
}

void P2pReport::begin(const P2pCase& c) {
  watchdog_case(fmt::format("p2p {} {} B", family_name(c.family), format_size(c.bytes)));
  if (!writer_ || current_ == c.family) return;
  current_ = c.family;
  const char* unit = c.family == Family::latency     ? "one-way latency, us"
                     : c.family == Family::bandwidth ? "MB/s, all pairs together"
                                                     : "millions of messages/s, all pairs together";
  session_.clear_progress();
  const Table table = table_for(c.family);
  table.print_title(fmt::format("p2p {} --impl {} --placement {}: {} pair{}, {} repetitions ({})",
                                family_name(c.family), impl_name(layout_.impl), layout_.placement(),
                                layout_.pairs, layout_.pairs == 1 ? "" : "s",
                                options_.bench.repetitions, unit));
  table.print_header();
}

void P2pReport::repetition_done(const P2pCase& c, int repetition) {
  session_.progress(fmt::format("p2p {} {} bytes: repetition {}/{}", family_name(c.family),
                                format_size(c.bytes), repetition + 1, options_.bench.repetitions));
}

std::string P2pReport::name_of(const P2pCase& c) const {
  std::string name = fmt::format("p2p/{}/{}/{}/{}", family_name(c.family), impl_name(layout_.impl),
                                 layout_.placement(), c.bytes);
  if (layout_.pairs > 1) name += fmt::format("/pairs:{}", layout_.pairs);
  return name;
}

// Latency: real_time is the one-way time (half a round trip). Streaming:
// real_time is the time per message of one pair; rates count all pairs.
Repetition P2pReport::repetition_of(const P2pCase& c, std::int64_t iterations,
                                    const std::array<double, 2>& seconds) const {
  const bool latency = c.family == Family::latency;
  const double messages = static_cast<double>(iterations) * (latency ? 2.0 : c.window);
  Repetition rep;
  rep.real_time = seconds[0] / messages * 1e6;
  rep.cpu_time = seconds[1] / messages * 1e6;
  if (!latency && seconds[0] > 0) {
    const double all_pairs = messages * layout_.pairs;
    rep.items_per_second = all_pairs / seconds[0];
    rep.bytes_per_second = all_pairs * static_cast<double>(c.bytes) / seconds[0];
  }
  return rep;
}

std::vector<std::string> P2pReport::row_of(const P2pCase& c, const Series& s) const {
  std::vector<std::string> row{format_size(c.bytes)};
  if (c.family == Family::latency) {
    const Summary t = summarize_metric(s, &Repetition::real_time);
    row.insert(row.end(), {std::to_string(s.iterations), format_number(t.median),
                           format_number(t.min), format_number(t.p90)});
  } else {
    const Summary bw = summarize_metric(s, &Repetition::bytes_per_second).value_or(Summary{});
    const Summary rate = summarize_metric(s, &Repetition::items_per_second).value_or(Summary{});
    const bool mb = c.family == Family::bandwidth;
    const Summary& shown = mb ? bw : rate;
    const double scale = 1e-6;  // MB/s and millions of messages/s
    row.insert(row.end(), {std::to_string(c.window), format_number(shown.median * scale),
                           format_number(shown.min * scale), format_number(shown.max * scale)});
    if (!mb) row.push_back(format_number(bw.median * scale));
  }
  if (s.validation_errors)
    row.push_back(*s.validation_errors == 0 ? "ok" : fmt::format("{} BAD", *s.validation_errors));
  return row;
}

void P2pReport::add(const P2pCase& c, const P2pOutcome& outcome) {
  // Reduced over all ranks: every process counts alike and exits alike.
  validation_errors_ += outcome.validation_errors.value_or(0);
  if (!writer_) return;
  Series s;
  s.name = name_of(c);
  s.family = fmt::format("p2p/{}", family_name(c.family));
  s.labels = {{"impl", impl_name(layout_.impl)},
              {"placement", layout_.placement()},
              {"pairs", layout_.pairs},
              {"ranks", 2 * layout_.pairs},
              {"bytes", c.bytes}};
  if (c.family != Family::latency) s.labels["window"] = c.window;
  s.iterations = outcome.iterations;
  for (const auto& seconds : outcome.repetitions)
    s.repetitions.push_back(repetition_of(c, outcome.iterations, seconds));
  s.validation_errors = outcome.validation_errors;
  const Noise noise = session_.add(s);
  table_for(c.family).print_row(row_of(c, s), noise_mark(noise));
}

// --- running the pattern with each implementation --------------------------------

template <class Link>
P2pOutcome measure_case(Team& team, int worker, const Link& link, P2pSeat seat, const P2pCase& c,
                        const BenchOptions& options, const OnRepetition& on_repetition) {
  const bool latency = c.family == Family::latency;
  // Ping-pong uses one slot; a streaming receiver one per message in flight.
  Buffers buffers(c.bytes, latency || seat.role == Role::sender ? 1 : c.window);
  const auto kernel = [&](std::int64_t iterations) {
    if (latency)
      ping_pong(link, seat.role, buffers, iterations);
    else
      stream(link, seat.role, buffers, c.window, iterations);
  };
  P2pOutcome outcome = measure(
      team, worker, kernel, Schedule::of(options, default_warmup(c.bytes, latency)), on_repetition);
  if (options.validate)
    outcome.validation_errors = validate_together(team, worker, [&] {
      return latency ? check_ping_pong(link, seat.role, seat.pair, buffers)
                     : check_stream(link, seat.role, seat.pair, buffers, c.window);
    });
  return outcome;
}

template <class Link>
void measure_all(Team& team, int worker, const Link& link, P2pSeat seat,
                 const std::vector<P2pCase>& cases, const BenchOptions& bench, P2pReport& report) {
  for (const P2pCase& c : cases) {
    if (worker == 0) report.begin(c);
    const auto outcome = measure_case(team, worker, link, seat, c, bench,
                                      [&](int r) { report.repetition_done(c, r); });
    if (worker == 0) report.add(c, outcome);
  }
}

void run_with_ep(const P2pLayout& l, int process, const std::vector<P2pCase>& cases,
                 const BenchOptions& bench, P2pReport& report) {
  std::vector<ep::Comm> comms = create_pair_endpoints(l, process);
  Team team(l.workers);
  team.run([&](int w) {
    ep::Comm& comm = comms[static_cast<std::size_t>(w)];
    const int rank = l.rank_of(process, w);
    measure_all(team, w, EpLink{comm, l.peer_of(rank)}, seat_of(l, rank), cases, bench, report);
    tools::check(ep::Comm_free(&comm), "ep::Comm_free");
  });
}

// Plain MPI processes, or threads sharing a rank: both talk MPI. Each pair
// gets its own duplicate of MPI_COMM_WORLD, so the pairs of mpi-threads never
// match each other's messages, as separate endpoints would not.
void run_with_mpi(const P2pLayout& l, int process, const std::vector<P2pCase>& cases,
                  const BenchOptions& bench, P2pReport& report) {
  const int communicators = l.impl == Impl::mpi ? 1 : l.pairs;
  std::vector<MPI_Comm> comms(static_cast<std::size_t>(communicators), MPI_COMM_NULL);
  for (auto& comm : comms) tools::check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  Team team(l.workers);
  team.run([&](int w) {
    const int rank = l.rank_of(process, w);
    const P2pSeat seat = seat_of(l, rank);
    MpiLink link;
    if (l.impl == Impl::mpi) {
      link = {comms.front(), l.peer_of(rank)};
    } else {  // the peer thread lives in this process (intra) or the other one
      link = {comms[static_cast<std::size_t>(seat.pair)], l.intra ? process : 1 - process};
    }
    measure_all(team, w, link, seat, cases, bench, report);
  });
  for (auto& comm : comms) tools::check(MPI_Comm_free(&comm), "MPI_Comm_free");
}

nlohmann::ordered_json describe(const P2pOptions& o, const P2pLayout& l, const Invocation& inv) {
  return describe_bench_run(inv, l.workers,
                            {
                                {"subcommand", "p2p"},
                                {"impl", impl_name(l.impl)},
                                {"placement", l.placement()},
                                {"pairs", l.pairs},
                                {"total_ranks", 2 * l.pairs},
                                {"threads_per_process", l.workers},
                                {"endpoints_per_process", l.impl == Impl::ep ? l.workers : 0},
                                {"repetitions", o.bench.repetitions},
                                {"validate", o.bench.validate},
                            });
}

}  // namespace

namespace {

// Every check run_p2p makes before it measures (Subcommand::check).
PairLayout plan_p2p(const P2pOptions& o, const Invocation& inv) {
  require_thread_level(o.bench, inv.thread_level_provided);
  const PairLayout layout = plan_pair_layout(o.bench.parsed_impl(), o.pairs, o.placement);
  check_pair_world(layout, inv.world_size, {"sender(s)", "receiver(s)"}, "p2p");
  (void)plan_cases(o);
  return layout;
}

}  // namespace

Subcommand setup_p2p(CLI::App& parent) {
  auto options = std::make_shared<P2pOptions>();
  CLI::App* app = parent.add_subcommand(
      "p2p", "Point-to-point latency, bandwidth and message rate between pairs of ranks");
  add_bench_options(*app, options->bench);
  const CLI::Validator size_list(
      [](std::string& text) -> std::string {
        try {
          parse_size_list(text);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "SIZES");
  app->add_option("--placement", options->placement,
                  "intra: both ends of each pair in one process; inter: senders in process 0, "
                  "receivers in process 1 (default: intra, and inter for --impl mpi)")
      ->check(CLI::IsMember({"intra", "inter"}));
  app->add_option("--pairs", options->pairs, "Pairs of ranks talking at once")
      ->transform(tools::integer_in(1, 128))
      ->capture_default_str();
  app->add_option("--sizes", options->sizes,
                  "Message sizes for latency and bandwidth: a list like 1,8,1K,64K,1M and/or "
                  "ranges lo:hi[:xF|:+S]")
      ->check(size_list)
      ->capture_default_str();
  app->add_option("--msgrate-sizes", options->msgrate_sizes, "Message sizes for msgrate")
      ->check(size_list)
      ->capture_default_str();
  app->add_option("--tests", options->tests, "What to measure")
      ->delimiter(',')
      ->check(CLI::IsMember({"latency", "bandwidth", "msgrate"}))
      ->capture_default_str();
  app->add_option("--window", options->window,
                  "Messages in flight per pair when streaming (shrunk so that a window "
                  "holds at most 64 MiB)")
      ->transform(tools::integer_in(1, 4096))
      ->capture_default_str();
  app->footer(p2p_help);
  Subcommand command{app, [options] { return requested_thread_level(options->bench); },
                     [options](const Invocation& inv) { return run_p2p(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_p2p(*options, inv); };
  return command;
}

int run_p2p(const P2pOptions& o, const Invocation& inv) {
  const PairLayout layout = plan_p2p(o, inv);
  const std::vector<P2pCase> cases = plan_cases(o);
  const auto session = open_session(o.bench, inv);
  session->begin_run(describe(o, layout, inv), layout.rank_of(inv.world_rank, 0), layout.workers);

  P2pReport report(o, layout, *session);
  if (layout.impl == Impl::ep)
    run_with_ep(layout, inv.world_rank, cases, o.bench, report);
  else
    run_with_mpi(layout, inv.world_rank, cases, o.bench, report);

  int status = 0;
  if (report.validation_errors() > 0) {  // the same count on every rank
    if (session->writer())
      fmt::print(stderr, "{}: --validate: {} message(s) arrived with wrong contents\n",
                 tools::program_name(), report.validation_errors());
    status = exit_failed;
  }
  return session->end_run(status);
}

}  // namespace ep::bench
