#include "rma.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ep/ep.hpp>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "cli_numbers.hpp"
#include "comm_bench.hpp"
#include "comm_bench_measure.hpp"
#include "measure.hpp"
#include "mpi_check.hpp"
#include "pairs.hpp"
#include "report.hpp"
#include "rma_cases.hpp"
#include "rma_kernels.hpp"
#include "rma_report.hpp"
#include "session.hpp"
#include "sizes.hpp"
#include "watchdog.hpp"

namespace ep::bench {

// A namespace of its own: tools compile in unity batches, where the
// anonymous namespaces of p2p.cpp and the others would otherwise meet this
// file's.
namespace rma_bench {

namespace {

constexpr const char* rma_help = R"(
Ranks and processes, as in p2p. With k = --pairs, ranks 0..k-1 are origins and
ranks k..2k-1 targets; origin i works on target k+i only. mpirun -np must match:
  --impl ep          --placement intra   -np 1: one process hosts all 2k endpoints
  --impl ep          --placement inter   -np 2: process 0 the k origins, process 1
                                                the k targets
  --impl mpi-threads --placement intra   -np 1: 2k threads share one MPI rank and
                                                one MPI window (each pair its own
                                                region), targeting their own rank
  --impl mpi-threads --placement inter   -np 2: k threads per process
  --impl mpi         --placement inter   -np 2k: one rank per process (intra
                                                is refused; inter is the default)
Every endpoint or rank is driven by its own thread. Add --bind-to none to
mpirun where a process hosts several threads.

Operations (--op; fop and cas move one element, --sizes does not apply):
  put, get   MPI_BYTE x size
  acc        MPI_Accumulate, MPI_SUM of MPI_INT: sizes that are not a multiple
             of 4 bytes are left out
  get-acc    MPI_Get_accumulate, MPI_SUM of MPI_INT (as acc)
  fop        MPI_Fetch_and_op, MPI_SUM, one 8-byte integer (--atomic-bytes)
  cas        MPI_Compare_and_swap, one integer: 4 bytes by default on Open MPI,
             whose 64-bit CAS crashes 4.1.x (open-mpi/ompi#11349), 8 elsewhere;
             --atomic-bytes 8 there needs mpirun --mca
             btl_vader_single_copy_mechanism none (or --mca osc ucx): without
             either, ep-bench refuses it before running, for every --impl
             (libep would refuse it, and plain MPI crashes)
Synchronisation (--sync), as OSU's -s:
  flush        one shared lock of the target around the loop; op + MPI_Win_flush
  flush-local  the same with MPI_Win_flush_local
  lock         lock (exclusive for fop and cas, else shared) + op + unlock
  lock-all     lock_all + op + unlock_all
  fence        latency: OSU's ping-pong (fence, origin op, fence, target op
               back, fence), one-way time = iteration / 2; bandwidth: fence,
               the origin's window of ops, fence
  --impl mpi-threads holds one lock_all (MPI_MODE_NOCHECK) per process over
  the run, as threads cannot each lock an MPI rank: flush and flush-local only.
Window (--window-kind, OSU's -w): allocate (MPI_Win_allocate) or create
(MPI_Win_create over memory the benchmark allocates); a new window per case.

Measurements (--test):
  latency    one op + its synchronisation per iteration, us per op
  bandwidth  a window of --window-size back-to-back ops (one slot each), then
             one synchronisation (OSU's put_bw); MB/s = 10^6 bytes/s, summed
             over pairs
  create     the time to create (Win_allocate or Win_create, --create-size
             bytes per rank) and free a window over all 2k ranks, in pairs,
             the first pair of the run apart (phase "cold"), as split does;
             endpoints (P processes x K) against P*K MPI processes:
             -np 2 --impl ep --placement inter --pairs 2 vs -np 4 --impl mpi --pairs 2
             (not with mpi-threads)
A repetition's time is that of the slowest rank; every repetition is kept.
--validate, after the timed repetitions: put and get bytes, accumulate sums
that cannot overflow, fetch-and-op old values and a CAS counter, each in
target memory and in what came back.

Examples:
  scripts/mpirun.sh -np 2 ep-bench rma --impl ep --placement inter --op put,fop --sizes 8
  scripts/mpirun.sh -np 2 ep-bench rma --impl mpi --op put --sync flush,lock,fence \
      --test latency,bandwidth --sizes 8,64K --json rma-mpi.json
  scripts/mpirun.sh --bind-to none -np 2 ep-bench rma --impl ep --placement inter --pairs 2 \
      --test create)";

// --- who runs where ---------------------------------------------------------------

using RmaLayout = PairLayout;

// --- windows --------------------------------------------------------------------

/// A window and this handle's memory in it.
template <class Calls>
struct RmaWindow {
  typename Calls::Win win{};
  std::byte* base = nullptr;
  std::vector<std::byte> user;  // --window-kind create: the memory exposed
};

/// Creates a window of `bytes` per handle over `comm`; its memory zeroed.
template <class Calls>
void open_window(RmaWindow<Calls>& w, std::size_t bytes, bool allocate, typename Calls::Comm comm) {
  if (allocate) {
    Calls::allocate(static_cast<MPI_Aint>(bytes), comm, &w.base, &w.win);
  } else {
    w.user.assign(bytes + 64, std::byte{0});
    const auto at = reinterpret_cast<std::uintptr_t>(w.user.data());
    w.base = w.user.data() + ((64 - at % 64) % 64);  // on a cache line, as allocate's
    Calls::create(w.base, static_cast<MPI_Aint>(bytes), comm, &w.win);
  }
  // No epoch is open yet: nobody accesses the memory until the next
  // step_together, which orders this local store before any remote access.
  if (bytes > 0) std::memset(w.base, 0, bytes);
}

/// What one worker plays in a case.
struct RmaSeat {
  bool origin = true;
  int pair = 0;
  int self = 0;  ///< this worker's rank in the window (the process's, for mpi-threads)
};

/// --validate: the target fills its region, each origin issues one checked
/// operation per slot (a CAS counter: several), then the target checks its
/// region. Returns the wrong values over all ranks.
template <class Calls>
std::int64_t validate_rma(Team& team, int w, const RmaCase& c, const RmaSeat& seat,
                          RmaBuffers& buffers, const RmaTarget<Calls>& target, std::byte* region,
                          bool epoch_open) {
  // The target's own accesses to its memory: in an epoch on itself, or,
  // inside the process's lock_all, ordered by MPI_Win_sync.
  const auto local_access = [&](auto&& body) {
    if (epoch_open) {
      Calls::sync(target.win);
      body();
      Calls::sync(target.win);
    } else {
      Calls::lock(MPI_LOCK_EXCLUSIVE, seat.self, target.win);
      body();
      Calls::unlock(seat.self, target.win);
    }
  };
  step_together(team, w);
  if (!seat.origin) local_access([&] { rma_fill_target(c.shape, region, seat.pair); });
  std::int64_t wrong = validate_together(team, w, [&] {
    return seat.origin ? rma_checked_ops<Calls>(c.shape, buffers, target, seat.pair, epoch_open)
                       : std::int64_t{0};
  });
  wrong += validate_together(team, w, [&] {
    std::int64_t bad = 0;
    if (!seat.origin) local_access([&] { bad = rma_check_target(c.shape, region, seat.pair); });
    return bad;
  });
  return wrong;
}

/// Measures one case on a window every worker reaches through `target`;
/// `region`: this worker's part of the window's memory.
template <class Calls>
Measurement<> measure_rma_case(Team& team, int w, const RmaCase& c, const RmaSeat& seat,
                               const RmaTarget<Calls>& target, std::byte* region, bool epoch_open,
                               const BenchOptions& o, const OnRepetition& on_repetition) {
  const bool latency = c.test == RmaTest::latency;
  RmaBuffers buffers(c.shape);
  const auto kernel = [&](std::int64_t n) {
    rma_kernel<Calls>(c.shape, c.sync, latency, seat.origin, epoch_open, buffers, target, n);
  };
  Measurement<> m = measure(team, w, kernel,
                            Schedule::of(o, default_warmup(c.shape.bytes, latency)), on_repetition);
  // A fence that promises no further epoch closes the fence epochs, so that
  // the checks may lock and the window may be freed.
  if (c.sync == RmaSync::fence) Calls::fence_end(target.win);
  if (o.validate)
    m.validation_errors =
        validate_rma<Calls>(team, w, c, seat, buffers, target, region, epoch_open);
  return m;
}

/// Every case, a window each, on handles of the endpoint communicator (ep)
/// or of a duplicate of MPI_COMM_WORLD (mpi: one rank per process).
template <class Calls>
void rma_cases_per_rank(Team& team, int w, typename Calls::Comm comm, int rank, const RmaLayout& l,
                        const std::vector<RmaCase>& cases, const RmaOptions& o, RmaReport& report) {
  const RmaSeat seat{l.first_end(rank), l.pair_of(rank), rank};
  for (const RmaCase& c : cases) {
    if (w == 0) report.begin(c);
    RmaWindow<Calls> window;
    open_window(window, c.shape.region_bytes(), o.window_kind == "allocate", comm);
    const RmaTarget<Calls> target{window.win, l.peer_of(rank), 0};
    const int model = Calls::model(window.win);
    const auto m = measure_rma_case<Calls>(team, w, c, seat, target, window.base, false, o.bench,
                                           [&](int r) { report.repetition_done(c, r); });
    step_together(team, w);  // every rank done with the window before it goes
    Calls::free(&window.win);
    if (w == 0) report.add(c, m, model);
  }
}

// --- window creation ----------------------------------------------------------------

CommLayout comm_layout_of(const RmaLayout& l, int process) {
  CommLayout c;
  c.impl = l.impl;
  c.per_process.assign(static_cast<std::size_t>(l.processes), l.workers);
  c.total = 2 * l.pairs;
  c.process = process;
  c.workers = l.workers;
  c.first_rank = l.rank_of(process, 0);
  return c;
}

template <class Calls>
PairTimes time_window_creation(Team& team, int w, typename Calls::Comm comm, const RmaOptions& o,
                               std::size_t bytes, CommReport& report) {
  const bool allocate = o.window_kind == "allocate";
  RmaWindow<Calls> window;
  std::vector<std::byte> user(bytes + 64);  // create: the memory, allocated once, outside timing
  const auto create = [&] {
    if (allocate)
      Calls::allocate(static_cast<MPI_Aint>(bytes), comm, &window.base, &window.win);
    else
      Calls::create(user.data(), static_cast<MPI_Aint>(bytes), comm, &window.win);
  };
  const auto destroy = [&] { Calls::free(&window.win); };
  if (w == 0) report.starting("create/free");
  PairTimes times = measure_pairs(team, w, create, destroy, o.bench,
                                  [&](int r) { report.repetition_done("create/free", r); });
  if (o.bench.validate)  // one more window: its size as asked, its memory where it should be
    times.validation_errors = validate_pair(team, w, create, destroy, [&] {
      const MPI_Aint size = Calls::size_of(window.win);
      void* base = Calls::base_of(window.win);
      const bool base_ok = allocate ? base != nullptr : base == user.data();
      return std::int64_t{size != static_cast<MPI_Aint>(bytes)} + std::int64_t{!base_ok};
    });
  return times;
}

// --- running with each implementation ---------------------------------------------

struct RmaRun {
  const RmaOptions& options;
  const RmaLayout& layout;
  const std::vector<RmaCase>& cases;
  bool create_test;
  RmaReport& report;
  CommReport& creation;
};

void run_rma_with_ep(const RmaRun& run, int process) {
  const RmaLayout& l = run.layout;
  std::vector<ep::Comm> comms = create_pair_endpoints(l, process);
  Team team(l.workers);
  team.run([&](int w) {
    ep::Comm& comm = comms[static_cast<std::size_t>(w)];
    const int rank = l.rank_of(process, w);
    rma_cases_per_rank<RmaEpCalls>(team, w, comm, rank, l, run.cases, run.options, run.report);
    if (run.create_test) {
      const PairTimes t = time_window_creation<RmaEpCalls>(
          team, w, comm, run.options, static_cast<std::size_t>(parse_size(run.options.create_size)),
          run.creation);
      if (w == 0) run.creation.add_pairs(t);
    }
    tools::check(ep::Comm_free(&comm), "ep::Comm_free");
  });
}

void run_rma_with_mpi(const RmaRun& run, int process) {
  MPI_Comm comm = MPI_COMM_NULL;
  tools::check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  Team team(1);
  team.run([&](int w) {
    rma_cases_per_rank<RmaMpiCalls>(team, w, comm, process, run.layout, run.cases, run.options,
                                    run.report);
    if (run.create_test) {
      const PairTimes t = time_window_creation<RmaMpiCalls>(
          team, w, comm, run.options, static_cast<std::size_t>(parse_size(run.options.create_size)),
          run.creation);
      run.creation.add_pairs(t);
    }
  });
  tools::check(MPI_Comm_free(&comm), "MPI_Comm_free");
}

// Threads sharing an MPI rank: one window per process, made by worker 0,
// each pair its own region in it; one lock_all over each case, since MPI's
// locks belong to the process and several threads may not each lock one
// target (mt_lat's pattern in the research).
void run_rma_with_mpi_threads(const RmaRun& run, int process) {
  const RmaLayout& l = run.layout;
  MPI_Comm comm = MPI_COMM_NULL;
  tools::check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  Team team(l.workers);
  RmaWindow<RmaMpiCalls> window;
  int model = -1;
  team.run([&](int w) {
    const int rank = l.rank_of(process, w);
    const RmaSeat seat{l.first_end(rank), l.pair_of(rank), process};
    for (const RmaCase& c : run.cases) {
      const std::size_t region = c.shape.region_bytes();
      if (w == 0) {
        run.report.begin(c);
        open_window(window, region * static_cast<std::size_t>(l.pairs),
                    run.options.window_kind == "allocate", comm);
        model = RmaMpiCalls::model(window.win);
        RmaMpiCalls::lock_all(MPI_MODE_NOCHECK, window.win);
      }
      step_together(team, w);  // the window exists before any thread uses it
      const auto offset = static_cast<MPI_Aint>(region) * seat.pair;
      const RmaTarget<RmaMpiCalls> target{window.win, l.intra ? process : 1 - process, offset};
      const auto m = measure_rma_case<RmaMpiCalls>(
          team, w, c, seat, target, window.base + offset, true, run.options.bench,
          [&](int r) { run.report.repetition_done(c, r); });
      step_together(team, w);
      if (w == 0) {
        RmaMpiCalls::unlock_all(window.win);
        RmaMpiCalls::free(&window.win);
        run.report.add(c, m, model);
      }
    }
  });
  tools::check(MPI_Comm_free(&comm), "MPI_Comm_free");
}

nlohmann::ordered_json describe_rma(const RmaOptions& o, const RmaLayout& l,
                                    const Invocation& inv) {
  nlohmann::ordered_json fields = {
      {"subcommand", "rma"},
      {"impl", impl_name(l.impl)},
      {"placement", l.placement()},
      {"pairs", l.pairs},
      {"total_ranks", 2 * l.pairs},
      {"threads_per_process", l.workers},
      {"endpoints_per_process", l.impl == Impl::ep ? l.workers : 0},
      {"repetitions", o.bench.repetitions},
      {"validate", o.bench.validate},
      {"rma_tests", o.tests},
      {"rma_ops", o.ops},
      {"rma_syncs", o.syncs},
      {"window_kind", o.window_kind},
      {"window_size", o.window_size},
      {"cas_bytes", atomic_bytes_of(o, RmaOp::cas)},
      {"fop_bytes", atomic_bytes_of(o, RmaOp::fop)},
  };
#ifdef OPEN_MPI
  if (o.atomic_bytes == "auto")
    fields["cas_note"] =
        "CAS on a 32-bit integer: 64-bit MPI_Compare_and_swap crashes Open MPI 4.1.x "
        "(open-mpi/ompi#11349)";
#endif
  if (wants(o.tests, "create")) fields["create_size"] = parse_size(o.create_size);
  nlohmann::ordered_json context = describe_bench_run(inv, l.workers, fields);
  // Open MPI's one-sided component, when chosen by hand, decides what the
  // MPI side measures: said beside the window kind, from the environment
  // block that describe_bench_run reads (null except on the writer).
  if (context.contains("environment") && context["environment"].contains("OMPI_MCA_osc"))
    context["ompi_mca_osc"] = context["environment"]["OMPI_MCA_osc"];
  return context;
}

}  // namespace

}  // namespace rma_bench

using namespace rma_bench;

namespace {

// 8-byte MPI_Compare_and_swap crashes Open MPI 4.1 on a window over more
// than one process (osc/rdma over btl/vader; open-mpi/ompi#11349;
// docs/design.md, "MPI defects worked around"): libep fails the call and
// plain MPI segfaults, so such a case is refused before anything runs, for
// every --impl alike, unless mpirun --mca (which exports OMPI_MCA_*) chose
// one of the two settings that avoid the defect. A layout of one process
// (--placement intra) never meets it: libep's window of one process works
// within it (rma/local.cpp, a created window) or over an MPI window of one
// process, where Open MPI 4.1.4's 8-byte CAS works (with or without osc/sm),
// as for the plain-MPI window of --impl mpi-threads (cli.ep-bench.rma.cas8.*).
void refuse_crashing_cas(const std::vector<RmaCase>& cases, const PairLayout& layout) {
#if defined(OPEN_MPI) && OPEN_MPI && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
  if (layout.processes == 1) return;
  const char* copy = std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
  const char* osc = std::getenv("OMPI_MCA_osc");
  if ((copy != nullptr && std::string_view(copy) == "none") ||
      (osc != nullptr && std::string_view(osc).starts_with("ucx")))
    return;
  for (const RmaCase& c : cases)
    if (c.shape.op == RmaOp::cas && c.shape.bytes == 8)
      throw UsageError(fmt::format(
          "--op cas --atomic-bytes 8: Open MPI {}.{}'s 8-byte MPI_Compare_and_swap crashes "
          "on a window over more than one process (open-mpi/ompi#11349; docs/design.md, "
          "\"MPI defects worked around\"): libep refuses it and plain MPI segfaults; use "
          "--atomic-bytes 4 (or auto), --placement intra (one process), or mpirun --mca "
          "btl_vader_single_copy_mechanism none (or --mca osc ucx)",
          OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION));
#else
  (void)cases;
  (void)layout;
#endif
}

// Every check run_rma makes before it measures (Subcommand::check).
PairLayout plan_rma(const RmaOptions& o, const Invocation& inv) {
  require_thread_level(o.bench, inv.thread_level_provided);
  const PairLayout layout = plan_pair_layout(o.bench.parsed_impl(), o.pairs, o.placement);
  check_pair_world(layout, inv.world_size, {"origin(s)", "target(s)"}, "rma");
  const bool create_test = wants(o.tests, "create");
  if (create_test && layout.impl == Impl::mpi_threads)
    throw UsageError(
        "--test create compares --impl ep with --impl mpi; threads sharing one MPI rank cannot "
        "make a window of threads");
#ifdef OPEN_MPI
  // Open MPI 4.1.4's MPI_Win_create fails with MPI_ERR_WIN on a communicator
  // of one process (seen here and in the harness's plain-MPI references):
  // the baseline cannot run, so say so instead of aborting.
  if (layout.impl != Impl::ep && layout.processes == 1 && o.window_kind == "create" &&
      !cases_need_no_window(o))
    throw UsageError(
        "--window-kind create: Open MPI's MPI_Win_create fails on a communicator of one "
        "process, which --impl mpi-threads --placement intra needs; use --window-kind allocate "
        "or --placement inter");
#endif
  refuse_crashing_cas(plan_rma_cases(o, layout.impl), layout);
  return layout;
}

}  // namespace

Subcommand setup_rma(CLI::App& parent) {
  auto options = std::make_shared<RmaOptions>();
  CLI::App* app = parent.add_subcommand(
      "rma",
      "One-sided communication (OSU's set: put, get, accumulate, get-accumulate, fetch-and-op, "
      "compare-and-swap) under each synchronisation, and window creation");
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
  const CLI::Validator one_size(
      [](std::string& text) -> std::string {
        try {
          const std::int64_t b = parse_size(text);
          return b > 0 ? std::string()
                       : fmt::format("{}: expected a window of at least 1 byte", text);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "SIZE");
  app->add_option("--op", options->ops, "Operations")
      ->delimiter(',')
      ->check(CLI::IsMember({"put", "get", "acc", "get-acc", "fop", "cas"}))
      ->capture_default_str();
  app->add_option("--test", options->tests, "What to measure")
      ->delimiter(',')
      ->check(CLI::IsMember({"latency", "bandwidth", "create"}))
      ->capture_default_str();
  app->add_option("--sync", options->syncs, "Synchronisation of the operations")
      ->delimiter(',')
      ->check(CLI::IsMember({"flush", "flush-local", "lock", "lock-all", "fence"}))
      ->capture_default_str();
  app->add_option("--window-kind", options->window_kind,
                  "allocate: MPI_Win_allocate; create: MPI_Win_create over the benchmark's memory")
      ->check(CLI::IsMember({"allocate", "create"}))
      ->capture_default_str();
  app->add_option("--placement", options->placement,
                  "intra: both ends of each pair in one process; inter: origins in process 0, "
                  "targets in process 1 (default: intra, and inter for --impl mpi)")
      ->check(CLI::IsMember({"intra", "inter"}));
  app->add_option("--pairs", options->pairs, "Origin/target pairs working at once")
      ->transform(tools::integer_in(1, 128))
      ->capture_default_str();
  app->add_option("--sizes", options->sizes,
                  "Sizes for put, get, acc and get-acc: a list like 1,8,1K,64K,1M and/or ranges "
                  "lo:hi[:xF|:+S]")
      ->check(size_list)
      ->capture_default_str();
  app->add_option("--atomic-bytes", options->atomic_bytes,
                  "Element of fop and cas: 4 or 8 bytes; auto: 8, but 4 for cas on Open MPI")
      ->check(CLI::IsMember({"auto", "4", "8"}))
      ->capture_default_str();
  app->add_option("--window-size", options->window_size,
                  "bandwidth: operations per synchronisation (shrunk so that a window's slots "
                  "hold at most 64 MiB)")
      ->transform(tools::integer_in(1, 4096))
      ->capture_default_str();
  app->add_option("--create-size", options->create_size, "create: bytes of window memory per rank")
      ->check(one_size)
      ->capture_default_str();
  app->footer(rma_help);
  Subcommand command{app, [options] { return requested_thread_level(options->bench); },
                     [options](const Invocation& inv) { return run_rma(*options, inv); }};
  command.check = [options](const Invocation& inv) { (void)plan_rma(*options, inv); };
  return command;
}

int run_rma(const RmaOptions& o, const Invocation& inv) {
  const PairLayout layout = plan_rma(o, inv);
  const std::vector<RmaCase> cases = plan_rma_cases(o, layout.impl);
  const bool create_test = wants(o.tests, "create");
  const auto session = open_session(o.bench, inv);
  session->begin_run(describe_rma(o, layout, inv), layout.rank_of(inv.world_rank, 0),
                     layout.workers);

  RmaReport report(o, layout, *session);
  const CommLayout comm_layout = comm_layout_of(layout, inv.world_rank);
  CommReport creation("rma", comm_layout, o.bench,
                      {{"window_kind", o.window_kind}, {"window_bytes", parse_size(o.create_size)}},
                      fmt::format("windows of {} bytes per rank by Win_{}",
                                  format_size(parse_size(o.create_size)), o.window_kind),
                      *session);
  const RmaRun run{o, layout, cases, create_test, report, creation};
  if (layout.impl == Impl::ep)
    run_rma_with_ep(run, inv.world_rank);
  else if (layout.impl == Impl::mpi)
    run_rma_with_mpi(run, inv.world_rank);
  else
    run_rma_with_mpi_threads(run, inv.world_rank);

  const std::int64_t wrong = report.validation_errors() + creation.validation_errors();
  int status = 0;
  if (wrong > 0) {  // the same count on every rank
    if (session->writer())
      fmt::print(stderr, "{}: --validate: {} wrong value(s) in target memory or results\n",
                 tools::program_name(), wrong);
    status = exit_failed;
  }
  return session->end_run(status);
}

}  // namespace ep::bench
